"""A table that plays another game says `--variant NAME` and everything follows: one short
rendered clip (a card, the next seat's card, and its twin from across the table) reviewed end
to end as standard UNO, Snabb-UNO and Flaske UNO gives each game's own rulings, in its words,
in a report that names it. Also what the scenario and its renderer know of games: the truth's
game line names the scenario's game, and one hand can lay two cards (a multi-card play)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import vision.video_watch
from bruno.review.pipeline import review_footage
from synth.footage import FootageRenderer
from synth.scenario import Scenario, ScenarioError

from table_helpers import render_clip

TWIN_ACROSS_THE_TABLE = {
    "players": 4, "dealer": 0, "seed": 21, "duration_s": 4.6,
    "plays": [{"t": 1.0, "seat": 0, "card": "r_5", "linger_s": 0.2},
              {"t": 2.2, "seat": 1, "card": "r_7", "linger_s": 0.1},
              {"t": 3.1, "seat": 3, "card": "r_7", "linger_s": 0.1}]}
"""The dealer turns a red 5; seat 1 plays a red 7; seat 3, not next, lays the other red 7."""


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    return render_clip(TWIN_ACROSS_THE_TABLE, tmp_path_factory.mktemp("variants"))


def review_as(clip, folder, variant: str):
    video, profile, reader = clip
    return review_footage(video, folder, reader, profile=profile, variant=variant,
                          annotate=False)


def penalties(rulings: list[dict]) -> list[tuple[str, int | None, str]]:
    return [(r["rule"], r["seat"], r["ref"]) for r in rulings if r["kind"] == "ruling"]


def test_reviewed_as_standard_uno_the_twin_is_a_card_out_of_turn(clip, tmp_path):
    outcome = review_as(clip, tmp_path, "uno")
    assert [(e.card.token, e.seat) for e in outcome.events if e.kind == "card"] == [
        ("r_5", 0), ("r_7", 1), ("r_7", 3)]
    assert penalties(outcome.rulings) == [("out_of_turn", 3, "U3")]
    assert outcome.game["variant"] == "uno"
    page = outcome.files["report.html"].read_text()
    assert "<th>Game</th><td>Standard UNO</td>" in page
    assert "<b>U3</b> One card per turn, in turn: no jump-ins" in page
    assert "Knocks heard" not in page  # standard UNO has no knocks to hear


def test_reviewed_as_snabb_uno_the_twin_is_a_jump_in_that_turns_the_direction(clip, tmp_path):
    outcome = review_as(clip, tmp_path, "snabb")
    assert penalties(outcome.rulings) == []
    (jump_in,) = [r for r in outcome.rulings if r["rule"] == "instick"]
    assert (jump_in["seat"], jump_in["message"]) == (3, "Jump-in by seat 3: the red 7.")
    turns = [r["seat"] for r in outcome.rulings if r["rule"] == "turn"]
    assert turns[-1] == 2  # Q3: on the other way round from the jumper
    saved = [json.loads(line) for line in outcome.files["rulings.jsonl"].read_text().splitlines()]
    assert saved == outcome.rulings
    assert "<th>Game</th><td>Snabb-UNO</td>" in outcome.files["report.html"].read_text()


def test_reviewed_as_flaske_uno_every_card_is_announced_and_nothing_is_ruled(clip, tmp_path):
    outcome = review_as(clip, tmp_path, "flaske")
    assert penalties(outcome.rulings) == []
    said = [(r["seat"], r["message"]) for r in outcome.rulings if r["rule"] == "flaske"]
    assert said == [(0, "Red 5: five sips for seat 0."),
                    (1, "Red 7: pee card for seat 1: one trip from the table, whenever."),
                    (3, "Red 7: pee card for seat 3: one trip from the table, whenever.")]
    assert "<th>Game</th><td>Flaske UNO</td>" in outcome.files["report.html"].read_text()


def test_bruno_review_variant_gives_the_games_rulings_as_json(clip, tmp_path):
    video, profile, _ = clip
    done = subprocess.run(
        [sys.executable, "-m", "bruno", "review", str(video), "--profile", str(profile),
         "--variant", "snabb", "--cards-from", str(video.with_suffix(".truth.jsonl")),
         "--no-video", "--json", "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rulings = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["seat"] for r in rulings if r["rule"] == "instick"] == [3]
    assert all(r["kind"] != "ruling" for r in rulings)


def test_the_camera_judges_readings_by_the_bar_of_the_game_reviewed(clip, tmp_path,
                                                                   monkeypatch):
    bars: list[float] = []
    watcher = vision.video_watch.TableWatcher

    def recording(*args, read_sure, **kwargs):
        bars.append(read_sure)
        return watcher(*args, read_sure=read_sure, **kwargs)

    monkeypatch.setattr(vision.video_watch, "TableWatcher", recording)
    video, profile, reader = clip
    review_footage(video, tmp_path, reader, profile=profile, variant="uno", annotate=False,
                   settings={"min_card_confidence": 0.85})
    assert bars == [0.85]


def test_the_truth_of_a_scenario_names_its_game():
    scenario = Scenario.model_validate({**TWIN_ACROSS_THE_TABLE, "variant": "snabb"}).check()
    game = FootageRenderer(scenario, (180, 320)).truth()[0]
    assert (game["kind"], game["variant"]) == ("game", "snabb")


def test_a_scenario_of_an_unknown_game_or_card_names_it():
    with pytest.raises(ScenarioError, match="unknown variant 'drunk'"):
        Scenario.model_validate({**TWIN_ACROSS_THE_TABLE, "variant": "drunk"}).check()
    two = {"players": 4, "plays": [{"t": 1.0, "seat": 0, "card": "r_2",
                                    "more": [{"card": "r_22"}]}]}
    with pytest.raises(ScenarioError, match="unknown card 'r_22'"):
        Scenario.model_validate(two).check()


def test_one_hand_laying_two_cards_is_two_plays_of_that_seat_in_the_truth():
    scenario = Scenario.model_validate({"players": 4, "seed": 3, "plays": [
        {"t": 1.0, "seat": 2, "card": "b_2", "more": [{"card": "r_2", "after_s": 0.6}]}]}).check()
    truth = FootageRenderer(scenario, (180, 320)).truth()[1:]
    assert truth == [{"t": 1.0, "kind": "card", "card": "b_2", "seat": 2},
                     {"t": 1.6, "kind": "card", "card": "r_2", "seat": 2}]
    # The footage lasts until the hand has left after the second card.
    assert scenario.length_s() > 1.6 + 0.25 + 0.45
