"""A take-back the pixels missed, found by the reading (`PileWatcher._taken_back_by`)."""

from __future__ import annotations

import numpy as np

from referee.cards import Card
from referee.events import CardRemoved
from vision.pile_cards import CardReading, PlayedCard
from vision.pile_watcher import PileWatcher

SHAPE = (40, 60)


def box(x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    mask = np.zeros(SHAPE, bool)
    mask[y0:y1, x0:x1] = True
    return mask


def watcher_after(new_hull: np.ndarray, shows_before: bool) -> tuple[PileWatcher, PlayedCard]:
    """A pile of r_2 (seat 0) under g_2 (seat 1), and a new change by seat 1 at `new_hull`;
    the frame now shows the pile before g_2 there or not."""
    rng = np.random.default_rng(5)
    watcher = PileWatcher((0, 0, SHAPE[1], SHAPE[0]), 16.0, read_card=lambda view, t: None)
    table = rng.uniform(0, 255, (*SHAPE, 3)).astype(np.float32)
    with_r2 = table.copy()
    with_r2[box(10, 10, 30, 34)] = (40, 40, 200)
    under = PlayedCard("r_2", 0, 1.0, box(10, 10, 30, 34), table)
    top = PlayedCard("g_2", 1, 2.0, box(12, 8, 32, 32), with_r2)
    new = PlayedCard(None, 1, 3.5, new_hull, with_r2)
    watcher.played = [under, top, new]
    watcher.previous = with_r2.copy() if shows_before else \
        rng.uniform(0, 255, (*SHAPE, 3)).astype(np.float32)
    return watcher, new


def test_the_card_under_the_top_one_showing_where_it_lay_is_the_top_card_taken_back():
    watcher, new = watcher_after(box(12, 9, 31, 32), shows_before=True)
    assert watcher._taken_back_by(new, CardReading("r_2", 0.95)) == \
        CardRemoved(3.5, card=Card.parse("g_2"))
    assert [p.card for p in watcher.played] == ["r_2"]


def test_anything_else_is_a_new_card():
    cases = [
        (box(12, 9, 31, 32), True, CardReading("r_2", 0.47)),  # read, not surely
        (box(12, 9, 31, 32), True, CardReading("b_2", 0.95)),  # another card
        (box(38, 8, 58, 32), True, CardReading("r_2", 0.95)),  # not where the top card lay
        (box(12, 9, 31, 32), False, CardReading("r_2", 0.95)),  # another r_2 (a multi-card play)
    ]
    for hull, shows, reading in cases:
        watcher, new = watcher_after(hull, shows)
        assert watcher._taken_back_by(new, reading) is None
        assert len(watcher.played) == 3
    watcher, new = watcher_after(box(12, 9, 31, 32), True)
    new.seat = 2  # another seat's hand
    assert watcher._taken_back_by(new, CardReading("r_2", 0.95)) is None


def test_a_change_that_hardly_reads_where_the_top_card_lay_is_it_taken_back():
    # Webcam game 476, 18.3 s: the hand lifted its blue 3 off; what showed read 0.18 (the card
    # under, part of it still covered) and was written as a new card.
    watcher, new = watcher_after(box(12, 9, 31, 32), shows_before=True)
    assert watcher._taken_back_by(new, CardReading("y_9", 0.18)) == \
        CardRemoved(3.5, card=Card.parse("g_2"))
    # Not when the pile before the top card does not show there.
    watcher, new = watcher_after(box(12, 9, 31, 32), shows_before=False)
    assert watcher._taken_back_by(new, CardReading("y_9", 0.18)) is None
