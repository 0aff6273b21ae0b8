"""The review report: self-contained, one frame per ruling, readable without the command line."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from bruno.review.report import ReportInput, SoundEnvelope, render_report, write_report
from referee.eventlog import read_event_log
from referee.session import replay

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "bruno_every_penalty.jsonl"


def example_report(**overrides) -> ReportInput:
    log = read_event_log(EXAMPLE)
    rulings = [r.to_dict() for r in replay(log.setup.new_game(), log.events)]
    events = log.events
    rng = np.random.default_rng(1)
    rate = 8000
    sound = rng.normal(0, 0.01, rate * 50)
    for event in events:
        if event.kind == "knock":
            start = int(event.t * rate)
            sound[start:start + 200] += 0.5 * np.exp(-np.arange(200) / 40)
    seen_at: list[float] = []

    def frame_at(t: float) -> np.ndarray:
        seen_at.append(t)
        frame = np.full((360, 640, 3), (40, 90, 30), np.uint8)
        frame[150:210, 290:350] = 240  # a card on the pile
        return frame

    values = dict(title="example game", game=log.setup.to_dict(), events=events,
                  rulings=rulings, frame_at=frame_at, pile_box=(0.4, 0.35, 0.6, 0.65),
                  envelope=SoundEnvelope.from_samples(sound, rate))
    values.update(overrides)
    report = ReportInput(**values)
    report.seen_at = seen_at  # type: ignore[attr-defined]
    return report


def test_the_report_is_self_contained_with_no_external_address():
    page = render_report(example_report())
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "http://" not in page and "https://" not in page
    assert "<script" not in page


def test_the_report_shows_one_frame_per_ruling_with_its_rule_text_and_message():
    report = example_report()
    page = render_report(report)
    penalties = [r for r in report.rulings if r["kind"] == "ruling"]
    assert page.count('<section class=ruling') == len(penalties) == 7
    assert page.count('alt="video frame at') == len(penalties)
    assert page.count("data:image/jpeg;base64,") == len(penalties)
    for ruling in penalties:
        assert html.escape(ruling["message"]) in page
    assert "Every zero played needs a knock" in page  # B8's text beside the zero ruling


def test_a_missed_knock_shows_the_knock_window_on_the_sound_strip():
    page = render_report(example_report())
    assert page.count('aria-label="knock window"') == 1  # the example has one missed knock
    assert "class=window" in page and "class=envelope" in page


def test_the_frame_shown_is_the_card_just_after_it_came_to_rest():
    report = example_report()
    render_report(report)
    # The missed knock on the green 0 is ruled at 14.5 s; its card came to rest at 13.0 s
    # and the next card landed at 15.0 s.
    assert any(abs(t - 13.8) < 1e-6 for t in report.seen_at)
    # The blue 9 at 2.0 s was taken back at 2.6 s: its frame is from just before that.
    assert any(abs(t - 2.5) < 1e-6 for t in report.seen_at)


def test_the_header_and_score_table_tell_the_game():
    page = render_report(example_report())
    assert "seat 0: 110" in page and "<h2>Scores</h2>" in page
    assert "Penalties</th><td>7" in page


def test_footage_without_sound_says_the_knock_rules_were_not_checked():
    page = render_report(example_report(sound_checked=False, envelope=None))
    assert "no sound track" in page and "not checked" in page


def test_the_report_renders_in_a_real_headless_browser(tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    page = write_report(tmp_path / "report.html", example_report())
    shot = tmp_path / "shot.png"
    subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}",
         f"--screenshot={shot}", "--window-size=1100,1400", page.as_uri()],
        check=True, capture_output=True, timeout=120)
    import cv2

    image = cv2.imread(str(shot))
    assert image is not None and image.shape[0] > 500
    # Not blank: the page has text, frames and the red ruling borders.
    assert image.std() > 20
    red = (image[:, :, 2] > 180) & (image[:, :, 1] < 90) & (image[:, :, 0] < 90)
    assert red.sum() > 200



def test_every_penalty_is_headed_in_words():
    from referee.rulings import PENALTY_RULES
    from referee.words import PENALTY_TITLES

    assert set(PENALTY_TITLES) == set(PENALTY_RULES)
    page = render_report(example_report())
    assert "same number in two colours, seat" in page and "two colors" not in page


def game_report(name: str, **overrides) -> ReportInput:
    """The report of examples/NAME.jsonl, refereed as the game its game line names."""
    log = read_event_log(ROOT / "examples" / f"{name}.jsonl")
    rulings = [r.to_dict() for r in replay(log.setup.new_game(), log.events)]
    return example_report(game=log.setup.to_dict(), events=log.events, rulings=rulings,
                          **overrides)


def test_the_report_names_the_game_and_quotes_the_rules_of_the_game_played():
    page = render_report(game_report("snabb_every_rule"))
    assert "<th>Game</th><td>Snabb-UNO</td>" in page
    assert "— Snabb-UNO referee report</title>" in page
    # Q4's own text (one penalty card, taken back) beside the card out of turn, not Bruno's.
    assert "<b>Q4</b> One card per turn, in turn; a card out of turn costs one penalty" in page
    assert "<b>P2</b>" not in page and "<b>B4</b>" not in page
    # Snabb-UNO's score is rounds won (Q8), not points.
    assert "1 for a round won, with the rounds won in brackets" in page
    assert "total wins" not in page and "Points this round" not in page
    assert "knock" not in page.split("class=legend>")[1].split("</p>")[0]  # no knocks here
    uno = render_report(game_report("uno_every_rule"))
    assert "the highest total wins" in uno and "the lowest total wins" not in uno


def test_a_flaske_report_lists_what_was_announced_and_druk_counts_plays_once():
    flaske = render_report(game_report("flaske_game"))
    assert "<h2>Announced</h2>" in flaske and "three sips for seat 1." in flaske
    druk = render_report(game_report("druk_game"))
    cards = druk.split("<th>Plays seen</th><td>")[1].split("</td>")[0]
    assert "cards)" in cards  # e.g. "9 (11 cards)": a multi-card play is one play
    sips = druk.split("data-tally=sips>")[1].split("</table>")[0]
    assert sips.count("<tr><th>seat") == 4  # every seat, one that drank nothing too


def test_a_game_without_knocks_shows_no_knocks_and_no_knock_warning_without_sound():
    page = render_report(game_report("uno_every_rule", sound_checked=False, envelope=None))
    assert "<th>Game</th><td>Standard UNO</td>" in page
    assert "Knocks heard" not in page and "no sound track" not in page
    assert 'aria-label="knock window"' not in page


def test_the_knock_window_shown_is_the_tables_own():
    report = example_report()
    report.game = {**report.game, "knock_after_s": 2.5}
    page = render_report(report)
    assert "(0.3 s before to 2.5 s after the card)" in page


def test_penalties_the_referee_was_unsure_of_are_listed_apart_to_check():
    report = example_report()
    penalties = [r for r in report.rulings if r["kind"] == "ruling"]
    unsure = [r for r in penalties if r["confidence"] < 0.7]
    # The example's card out of turn comes from the next seat before the turn holder was
    # seen drawing: an unseen draw and pass would explain it.
    assert [(r["rule"], r["confidence"]) for r in unsure] == [("out_of_turn", 0.5)]
    page = render_report(report)
    _, rulings_part = page.split("<h2>Rulings</h2>")
    sure_part, check_part = rulings_part.split("<h2>To check</h2>")
    assert check_part.count("<section class=ruling") == 1
    assert html.escape(unsure[0]["message"]) in check_part and "50% sure" in check_part
    assert html.escape(unsure[0]["message"]) not in sure_part
    assert sure_part.count("<section class=ruling") == len(penalties) - 1


def test_a_report_with_only_sure_penalties_has_nothing_to_check():
    rulings = [{**r, "confidence": 1.0} if r["kind"] == "ruling" else r
               for r in example_report().rulings]
    page = render_report(example_report(rulings=rulings))
    assert "To check" not in page and "% sure" not in page


def test_a_ruling_nearly_sure_is_never_badged_100_percent_sure():
    rulings = [{**r, "confidence": 0.995} if r["kind"] == "ruling" else r
               for r in example_report().rulings]
    page = render_report(example_report(rulings=rulings))
    assert "100% sure" not in page and "99% sure" in page


def test_a_game_that_keeps_no_score_shows_no_final_scores():
    page = render_report(game_report("druk_game"))
    assert "Final scores" not in page and "<h2>Sips</h2>" in page
