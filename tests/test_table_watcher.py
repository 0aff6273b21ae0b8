"""The pile watcher, who played, and the draw watcher, on tiny synthetic clips."""

from __future__ import annotations

import itertools

import pytest

from calibration.layout import TableLayout
from synth.footage import FootageRenderer
from synth.scenario import Scenario
from vision.card_readers import TruthReader
from vision.frames import Frame
from vision.table_watcher import QUIET_STRIDE, TableWatcher

from event_helpers import log_lines
from table_helpers import TINY, of_kind, watch


def test_a_card_dropped_on_the_pile_is_one_play_at_the_moment_it_came_to_rest():
    found, truth = watch({"players": 4, "seed": 1, "duration_s": 3.0,
                          "plays": [{"t": 1.0, "seat": 0, "card": "r_5", "linger_s": 0.4}]})
    cards = of_kind(found, "card")
    assert [(c["card"], c["seat"]) for c in cards] == [("r_5", 0)]
    assert abs(cards[0]["t"] - truth[0]["t"]) <= 0.1


def test_a_hand_passing_over_the_pile_without_dropping_a_card_is_no_play():
    found, _ = watch({"players": 4, "seed": 2, "duration_s": 5.0,
                      "plays": [{"t": 1.0, "seat": 0, "card": "b_2", "linger_s": 0.2}],
                      "passes": [{"t": 2.8, "seat": 1}]})
    assert [c["card"] for c in of_kind(found, "card")] == ["b_2"]


def test_a_card_dropped_and_adjusted_is_one_play():
    found, truth = watch({"players": 4, "seed": 3, "duration_s": 3.5,
                          "plays": [{"t": 1.0, "seat": 2, "card": "y_7", "linger_s": 0.6,
                                     "adjust": True}]})
    cards = of_kind(found, "card")
    assert len(cards) == 1
    assert cards[0]["seat"] == 2
    assert abs(cards[0]["t"] - truth[0]["t"]) <= 0.2


def test_two_cards_in_quick_succession_are_two_plays_by_two_seats():
    found, truth = watch({"players": 4, "seed": 6, "duration_s": 5.0, "plays": [
        {"t": 1.0, "seat": 0, "card": "r_5"},
        {"t": 2.5, "seat": 1, "card": "g_5", "linger_s": 0.1},
        {"t": 3.2, "seat": 3, "card": "g_5", "linger_s": 0.2}]})
    cards = of_kind(found, "card")
    assert [(c["card"], c["seat"]) for c in cards] == [("r_5", 0), ("g_5", 1), ("g_5", 3)]
    for seen, true in zip(cards, of_kind(truth, "card"), strict=True):
        assert abs(seen["t"] - true["t"]) <= 0.1


@pytest.mark.parametrize("seed", [20, 24, 30])
def test_a_jump_in_while_the_first_hand_is_still_leaving_is_a_second_play(seed):
    # The second arm comes in while the first hand still lingers over its card: the first
    # card must be confirmed as soon as that hand uncovers it, and the second card named
    # after the arm that carried it, not the one leaving.
    first, second = seed % 4, (seed + 2) % 4
    found, truth = watch({"players": 4, "seed": seed, "duration_s": 4.0, "plays": [
        {"t": 1.0, "seat": first, "card": "r_5", "linger_s": 0.25},
        {"t": 1.6, "seat": second, "card": "r_5", "linger_s": 0.1}]})
    cards = of_kind(found, "card")
    assert [c["seat"] for c in cards] == [first, second]
    for seen, true in zip(cards, of_kind(truth, "card"), strict=True):
        assert abs(seen["t"] - true["t"]) <= 0.1


def test_a_card_taken_back_is_card_removed_and_no_new_play():
    found, truth = watch({"players": 3, "seed": 4, "duration_s": 5.5, "plays": [
        {"t": 1.0, "seat": 0, "card": "b_9"},
        {"t": 2.4, "seat": 1, "card": "r_skip", "linger_s": 0.1}],
        "takebacks": [{"t": 3.8, "seat": 1}]})
    assert [c["card"] for c in of_kind(found, "card")] == ["b_9", "r_skip"]
    removed = of_kind(found, "card_removed")
    assert [c["card"] for c in removed] == ["r_skip"]
    # Backdated to when the card under it showed, not when the hand had gone.
    assert abs(removed[0]["t"] - of_kind(truth, "card_removed")[0]["t"]) <= 0.3


@pytest.mark.parametrize("players", [3, 4, 6])
def test_each_seat_is_named_from_the_side_its_arm_comes_from(players):
    plays = [{"t": 1.0 + 1.6 * seat, "seat": seat, "card": "g_1", "linger_s": 0.1}
             for seat in range(players)]
    found, _ = watch({"players": players, "seed": 10 + players, "plays": plays,
                      "duration_s": 1.0 + 1.6 * players + 0.5})
    assert [c["seat"] for c in of_kind(found, "card")] == list(range(players))
    # Arms crossing a draw pile on their way to the discard pile draw nothing.
    assert of_kind(found, "draw") == []


def test_a_lamp_switched_and_a_passing_shadow_make_no_play():
    found, _ = watch({"players": 4, "seed": 7, "duration_s": 6.0,
                      "plays": [{"t": 0.6, "seat": 0, "card": "y_2", "linger_s": 0.1}],
                      "lighting": [{"t": 2.0, "gain": 0.7}, {"t": 3.0, "gain": 1.2}],
                      "shadows": [{"t": 3.5, "duration_s": 2.0}]})
    assert [c["card"] for c in of_kind(found, "card")] == ["y_2"]
    assert of_kind(found, "draw") == []


def test_a_reach_into_a_draw_pile_is_a_draw_by_that_seat():
    found, _ = watch({"players": 4, "seed": 8, "duration_s": 5.0,
                      "draws": [{"t": 1.0, "seat": 1}, {"t": 3.0, "seat": 3}]})
    assert [(d["seat"], d["count"]) for d in of_kind(found, "draw")] == [(1, 1), (3, 1)]
    assert of_kind(found, "card") == []


@pytest.mark.parametrize(("seed", "first", "second"), [(63, 1, 2), (68, 3, 2), (72, 3, 2)])
def test_two_reaches_to_one_draw_pile_in_a_row_are_two_draws_by_their_seats(seed, first,
                                                                           second):
    # The second hand reaches the same draw pile while the first is still leaving it: no gap
    # between them, but two arms from two sides, so two draws.
    found, _ = watch({"players": 4, "seed": seed, "duration_s": 3.5,
                      "draws": [{"t": 1.0, "seat": first}, {"t": 1.5, "seat": second}]})
    draws = sorted(of_kind(found, "draw"), key=lambda d: d["t"])
    assert [d["seat"] for d in draws] == [first, second]


def test_a_quiet_table_is_watched_one_frame_in_five_and_a_busy_one_every_frame():
    scenario = Scenario.model_validate(
        {"players": 4, "seed": 1, "duration_s": 4.0,
         "plays": [{"t": 2.0, "seat": 0, "card": "r_5", "linger_s": 0.3}]}).check()
    renderer = FootageRenderer(scenario, TINY)
    truth = renderer.truth()[1:]
    watcher = TableWatcher(TableLayout().camera_profile(4, size=TINY), TruthReader(truth))
    watched: list[int] = []
    with_arms: list[int] = []
    found: list[dict] = []
    for index, (t, image) in enumerate(renderer.frames()):
        def small(index=index, image=image):
            watched.append(index)
            return image
        found += log_lines(watcher.update(Frame(t, index, TINY, small, lambda image=image: image)))
        if watcher.last_arms and watched[-1] == index:
            with_arms.append(index)
    found += log_lines(watcher.finish())
    frames = index + 1
    cards = of_kind(found, "card")
    assert [(c["card"], c["seat"]) for c in cards] == [("r_5", 0)]
    assert abs(cards[0]["t"] - truth[0]["t"]) <= 0.1
    assert len(watched) < frames * 0.7  # the quiet second before and after the play
    gaps = [b - a for a, b in itertools.pairwise(watched)]
    assert max(gaps) == QUIET_STRIDE  # never more passed over in a row
    assert with_arms and all(i + 1 in watched for i in with_arms if i + 1 < frames)
