"""When a new card came to rest, pixel by pixel (vision.pile_timing)."""

import numpy as np

from vision.pile_timing import settled_since

SHAPE = (40, 40)
FPS = 30


def _frames(card_t: float, hand_until: float, covered_rows: int, end_t: float):
    """A grey pile; a red card lands at `card_t` over rows 10-30; a skin-coloured hand covers
    the card's first `covered_rows` rows until `hand_until` (and a moment before the card, the
    hand carrying it covers all of it)."""
    pile = np.full((*SHAPE, 3), 120, np.float32)
    card = np.zeros(SHAPE, bool)
    card[10:30, 12:26] = True
    history = []
    for k in range(round(end_t * FPS) + 1):
        t = k / FPS
        crop = pile.copy()
        if t >= card_t:
            crop[card] = (40, 40, 200)
        if card_t - 0.2 <= t < card_t:
            crop[8:32, 10:28] = (90, 140, 200)  # the hand bringing it
        if card_t <= t < hand_until:
            crop[10:10 + covered_rows, 10:28] = (90, 140, 200)
        history.append((t, crop))
    return history, card


def test_a_card_under_a_lingering_hand_rests_when_it_landed():
    history, card = _frames(card_t=1.0, hand_until=2.0, covered_rows=12, end_t=2.5)
    now_t, now = history[-1]
    t = settled_since(history, now, card, now_t)
    # 60 % of the card lay under the hand until 2.0 s; the rest showed from 1.0 s.
    assert abs(t - 1.0) <= 1.5 / FPS


def test_a_card_mostly_covered_rests_when_enough_of_it_showed():
    history, card = _frames(card_t=1.0, hand_until=2.0, covered_rows=18, end_t=2.5)
    now_t, now = history[-1]
    # Only 10 % of it showed before 2.0 s: too little to say it rested then.
    assert abs(settled_since(history, now, card, now_t) - 2.0) <= 1.5 / FPS


def test_a_card_that_just_came_rests_now():
    history, card = _frames(card_t=2.5, hand_until=0.0, covered_rows=0, end_t=2.5)
    now_t, now = history[-1]
    assert settled_since(history, now, card, now_t) == now_t
    assert settled_since(history, now, np.zeros(SHAPE, bool), now_t) == now_t
