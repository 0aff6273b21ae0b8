"""`bruno review --notes`: what the camera cannot see, written down, joins the review."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bruno.review.notes import NotesError, read_notes, table_setup
from bruno.review.pipeline import ReviewError, review_footage
from bruno.review.report import ReportInput, render_report

from event_helpers import events_of, log_lines
from table_helpers import render_clip

# Seat 1 deals the red 5; seat 2 plays the red 7 (seat 2 is to play only when seat 1 deals).
SCENARIO = {"players": 4, "dealer": 1, "seed": 5, "duration_s": 5.0,
            "plays": [{"t": 1.0, "seat": 1, "card": "r_5", "linger_s": 0.1},
                      {"t": 2.4, "seat": 2, "card": "r_7", "linger_s": 0.1}]}
NOTES = [{"t": 0.0, "kind": "game", "variant": "bruno", "players": 4, "dealer": 1,
          "seg_after_s": 8},
         {"t": 3.0, "kind": "call", "seat": 2, "word": "uno"},
         {"t": 4.5, "kind": "round_end", "hands": {"0": ["y_3"], "1": ["wild"], "2": [],
                                                   "3": ["g_8"]}}]


def write_notes(path, lines) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    folder = tmp_path_factory.mktemp("notes")
    video, room, reader = render_clip(SCENARIO, folder)
    notes = folder / "game.notes.jsonl"
    write_notes(notes, NOTES)
    return video, room, notes, reader


def test_the_notes_set_the_table_and_their_events_are_ruled_on(clip, tmp_path):
    video, room, notes, reader = clip
    outcome = review_footage(video, tmp_path / "out", reader, profile=room, notes=notes,
                             annotate=False)
    assert outcome.game["dealer"] == 1 and outcome.game["seg_after_s"] == 8
    noted = [e for e in log_lines(outcome.events) if e.get("source") == "notes"]
    assert [e["kind"] for e in noted] == ["call", "round_end"]
    assert [e.kind for e in outcome.events] == ["card", "card", "call", "round_end"]
    penalties = [(r["rule"], r["seat"], r["t"]) for r in outcome.rulings if r["kind"] == "ruling"]
    assert penalties == [("wrong_call", 2, 3.0)]  # dealer 1: seat 2 played on its turn
    assert [r["points"] for r in outcome.rulings if r["rule"] == "score"] == [10, 50, 0, 10]
    page = outcome.files["report.html"].read_text()
    assert page.count("class=badge>from notes</span>") == 2  # the ruling, the list's key
    assert "seat 2 said &quot;UNO&quot;" in page and "class=noted" in page


def test_notes_after_the_footage_ends_are_pointed_out(clip, tmp_path):
    # A video trimmed, the evening's notes kept: time passed unseen up to the late note.
    video, room, _, reader = clip
    notes = tmp_path / "long.notes.jsonl"
    write_notes(notes, [*NOTES[:2], {"t": 33.4, "kind": "call", "seat": 3, "word": "pass"}])
    outcome = review_footage(video, tmp_path / "out", reader, profile=room, notes=notes,
                             annotate=False)
    (late,) = [n for n in outcome.notes if "after the footage ends" in n]
    assert late.startswith("1 event(s) of the notes file lie after the footage ends at 5.0 s "
                           "(the first at 33.4 s)")
    quiet = review_footage(video, tmp_path / "out2", reader, profile=room, notes=clip[2],
                           annotate=False)
    assert not [n for n in quiet.notes if "after the footage ends" in n]


def test_the_command_line_wins_over_the_notes(clip, tmp_path):
    video, room, notes, reader = clip
    outcome = review_footage(video, tmp_path / "out", reader, profile=room, notes=notes,
                             dealer=0, annotate=False)
    assert outcome.game["dealer"] == 0 and outcome.game["seg_after_s"] == 8
    # Dealer 0: seat 1 is to play after the turned card, so seat 2's red 7 is out of turn.
    assert [(r["rule"], r["seat"]) for r in outcome.rulings if r["kind"] == "ruling"] == [
        ("out_of_turn", 2), ("wrong_call", 2)]


def test_the_review_folder_replays_to_its_rulings_with_the_notes_in_it(clip, tmp_path):
    video, room, notes, _ = clip
    truth = video.with_suffix(".truth.jsonl")
    result = bruno("review", video, "--profile", room, "--notes", notes, "--cards-from", truth,
                   "--out", tmp_path / "out", "--json")
    assert result.returncode == 0, result.stderr
    folder = tmp_path / "out" / "game"
    replayed = bruno("replay", folder / "events.jsonl", "--json")
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout == (folder / "rulings.jsonl").read_text() == result.stdout


def test_events_only_merges_the_notes_too(clip):
    video, room, notes, _ = clip
    truth = video.with_suffix(".truth.jsonl")
    result = bruno("review", video, "--events-only", "--json", "--profile", room,
                   "--notes", notes, "--cards-from", truth)
    assert result.returncode == 0, result.stderr
    log = [json.loads(line) for line in result.stdout.splitlines()]
    assert log[0] == {"t": 0.0, "kind": "game", "variant": "bruno", "players": 4,
                      "dealer": 1, "seg_after_s": 8}
    assert [e["kind"] for e in log[1:]] == ["card", "card", "call", "round_end"]


def test_notes_go_with_one_footage_file_only(clip, tmp_path):
    video, _, notes, _ = clip
    result = bruno("review", video, video, "--notes", notes, "--out", tmp_path / "out")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == ("bruno: error: --notes describes one game: review its "
                                     "footage file on its own")


def test_a_bad_notes_file_is_one_line_naming_the_line(clip, tmp_path):
    video, room, _, reader = clip
    bad = tmp_path / "bad.notes.jsonl"
    write_notes(bad, [NOTES[0], {"t": 2.0, "kind": "call", "seat": 1, "word": "hello"}])
    result = bruno("review", video, "--profile", room, "--notes", bad, "--out", tmp_path / "o")
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "bad.notes.jsonl line 2: 'word' must be one of" in result.stderr
    missing = bruno("review", video, "--notes", tmp_path / "none.jsonl", "--out", tmp_path / "o")
    assert missing.returncode == 2 and "no such notes file" in missing.stderr
    with pytest.raises(ReviewError, match=r"call at t=2: 'seat' 2 is not at this table"):
        review_footage(video, tmp_path / "out", reader, notes=_notes_with_seat(tmp_path, 2),
                       players=2, annotate=False)


def _notes_with_seat(tmp_path, seat: int):
    path = tmp_path / "seat.notes.jsonl"
    write_notes(path, [NOTES[0], {"t": 2.0, "kind": "call", "seat": seat, "word": "pass"}])
    return path


def test_table_setup_takes_the_options_over_the_notes(tmp_path):
    path = tmp_path / "n.jsonl"
    write_notes(path, NOTES[:1])
    notes = read_notes(path)
    setup = table_setup(notes, variant=None, players=5, dealer=None,
                        settings={"check_knocks": False})
    assert (setup.players, setup.dealer, setup.settings) == (
        5, 1, {"seg_after_s": 8, "check_knocks": False})
    with pytest.raises(NotesError, match=r"n\.jsonl: 'dealer' must be a seat 0\.\.3, got 7"):
        table_setup(notes, variant=None, players=None, dealer=7)


def test_the_report_marks_what_came_from_notes_and_nothing_else():
    game = {"t": 0.0, "kind": "game", "players": 4, "dealer": 0}
    events = events_of([{"t": 1.0, "kind": "card", "card": "r_5", "seat": 0},
                        {"t": 2.0, "kind": "call", "seat": 1, "word": "uno", "source": "notes"}])
    rulings = [{"t": 2.0, "kind": "ruling", "rule": "wrong_call", "seat": 1, "penalty": 2,
                "card": None, "ref": "P1", "message": "Seat 1 said UNO."},
               {"t": 3.0, "kind": "ruling", "rule": "too_slow", "seat": 1, "penalty": 2,
                "card": None, "ref": "P3", "message": "SEG!"}]
    page = render_report(ReportInput("t", game, events, rulings))
    sections = page.split("<section class=ruling")[1:]
    assert ["from notes" in s for s in sections] == [True, False]
    assert "From the notes" in page
    plain = render_report(ReportInput("t", game, events[:1], rulings[1:]))
    assert "from notes" not in plain and "class=noted" not in plain


def bruno(*args):
    return subprocess.run([sys.executable, "-m", "bruno", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def test_notes_whose_time_goes_back_are_refused_naming_the_line(tmp_path):
    path = tmp_path / "late.notes.jsonl"
    write_notes(path, [NOTES[0], {"t": 30.0, "kind": "call", "seat": 1, "word": "pass"},
                       {"t": 12.0, "kind": "color", "seat": 2, "color": "g"}])
    with pytest.raises(NotesError, match=r"late\.notes\.jsonl line 3: 't' goes back to 12 s "
                                         r"from 30 s \(line 2\)"):
        read_notes(path)


NOTES_ONLY_PENALTIES = ("wrong_call", "too_slow")
"""What only the notes can give: a call heard ("UNO") and SEG, whose clock the notes set."""


def test_the_demo_without_its_notes_gives_every_penalty_that_needs_no_notes():
    from bruno.demo_files import NOTES as DEMO_NOTES
    from bruno.demo_files import TRUTH
    from referee.eventlog import read_event_log
    from referee.session import replay
    from synth.demo_footage import expected_rulings

    def penalties(rulings):
        return [(r["t"], r["rule"], r["seat"], r["card"]) for r in rulings
                if r["kind"] == "ruling"]

    truth = [json.loads(line) for line in TRUTH.read_text().splitlines() if line.strip()]
    with_notes = penalties(expected_rulings(truth, DEMO_NOTES))
    log = read_event_log(TRUTH)  # no notes: seat 3's "pass" at 33.4 s is not heard
    without = penalties(r.to_dict() for r in replay(log.setup.new_game(), log.events))
    assert {rule for _, rule, _, _ in with_notes} >= set(NOTES_ONLY_PENALTIES)
    assert without == [p for p in with_notes if p[1] not in NOTES_ONLY_PENALTIES]
    assert len(without) == 4
