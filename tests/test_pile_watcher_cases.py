"""Pile-watcher failures found on rendered games 301-310, each as a tiny clip."""

from __future__ import annotations

import pytest

from table_helpers import of_kind, watch


@pytest.mark.parametrize("seed", [0, 2, 4])
def test_cards_whose_white_and_yellow_clip_under_a_bright_lamp_are_still_plays(seed):
    # A lamp turned up clips a card's white oval and yellow field (R and G at 255): those
    # pixels still show the card is new, as far brighter than what lay there. Dropping every
    # clipped pixel cut the new card's patch to its print and lost the play (game 307: 9 of
    # 31 plays on a brightly lit table).
    found, truth = watch({"players": 4, "seed": seed, "duration_s": 4.5,
                          "lighting": [{"t": 0.3, "gain": 1.5}],
                          "plays": [{"t": 1.0, "seat": 0, "card": "y_7", "linger_s": 0.2},
                                    {"t": 2.5, "seat": 2, "card": "y_reverse", "linger_s": 0.2}]})
    cards = of_kind(found, "card")
    assert [(c["card"], c["seat"]) for c in cards] == [("y_7", 0), ("y_reverse", 2)]
    for seen, true in zip(cards, of_kind(truth, "card"), strict=True):
        assert abs(seen["t"] - true["t"]) <= 0.1


@pytest.mark.parametrize("seed", [16, 37, 43])
def test_a_card_taken_back_from_over_a_card_whose_hand_left_fast_is_no_new_play(seed):
    # The first card is confirmed while its hand still rests beside it, and the hand is taken
    # into the reference with it. The hand leaves fast: on the first frame without a hand over
    # the pile its last pixels still move, so the pile around the card cannot be caught up
    # then; it must be once they are still, or the hand stays in the reference under the next
    # card, and when that card is taken back the pile under it does not match: a phantom play
    # (game 302, 47.5 s).
    found, truth = watch({"players": 6, "seed": seed, "duration_s": 6.5, "plays": [
        {"t": 1.0, "seat": 4, "card": "b_2", "linger_s": 0.4},
        {"t": 3.0, "seat": 5, "card": "r_9", "linger_s": 0.1}],
        "takebacks": [{"t": 4.9, "seat": 5}]})
    assert [(c["card"], c["seat"]) for c in of_kind(found, "card")] == [("b_2", 4), ("r_9", 5)]
    removed = of_kind(found, "card_removed")
    assert [c["card"] for c in removed] == ["r_9"]
    assert abs(removed[0]["t"] - of_kind(truth, "card_removed")[0]["t"]) <= 0.3


def multi_card_play(seed: int, first: str, second: str, after_s: float) -> dict:
    """One seat lays two cards with one hand, `after_s` apart (DrukUNO's multi-card play, a
    Snabb-UNO jump-in on oneself): the arm lifts off the first and comes in with the second."""
    return {"players": 4, "seed": seed, "duration_s": 4.0, "plays": [
        {"t": 1.0, "seat": seed % 4, "card": first, "linger_s": 0.2,
         "more": [{"card": second, "after_s": after_s}]}]}


@pytest.mark.parametrize(("seed", "first", "second", "after_s"), [
    (3, "b_2", "r_2", 0.5), (4, "b_2", "r_2", 1.0), (5, "y_skip", "y_7", 0.75),
    (7, "y_skip", "y_7", 0.5), (6, "g_4", "g_4", 1.0), (8, "g_4", "g_4", 0.75)])
def test_two_cards_laid_by_one_hand_within_the_adjust_window_are_two_plays(seed, first, second,
                                                                          after_s):
    # The second card lands by the same seat well within ADJUST_WINDOW_S of the first, on or
    # beside it: it used to be taken for the first card nudged (one play, read as the second).
    found, truth = watch(multi_card_play(seed, first, second, after_s))
    cards = of_kind(found, "card")
    assert [(c["card"], c["seat"]) for c in cards] == [(first, seed % 4), (second, seed % 4)]
    for seen, true in zip(cards, of_kind(truth, "card"), strict=True):
        assert abs(seen["t"] - true["t"]) <= 0.1


@pytest.mark.parametrize("seed", [3, 11, 12, 19])
def test_a_card_nudged_straight_by_the_hand_that_laid_it_is_still_one_play(seed):
    found, truth = watch({"players": 4, "seed": seed, "duration_s": 3.5, "plays": [
        {"t": 1.0, "seat": seed % 4, "card": "r_8", "linger_s": 0.8, "adjust": True}]})
    cards = of_kind(found, "card")
    assert [(c["card"], c["seat"]) for c in cards] == [("r_8", seed % 4)]
    assert abs(cards[0]["t"] - truth[0]["t"]) <= 0.2
