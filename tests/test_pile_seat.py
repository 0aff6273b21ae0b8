"""Who laid a card when more than one arm was over the pile (`PileWatcher._seat`)."""

from __future__ import annotations

import numpy as np

from vision.arms import ARM_SCALE, Arm
from vision.pile_watcher import SEAT_ARRIVAL_SHARE, PileWatcher

CARD_H = 30.0
REGION = (100, 40, 220, 140)  # analysis-frame pixels


def _watcher() -> PileWatcher:
    return PileWatcher(REGION, CARD_H, lambda crop, t: None)


def _card_hull() -> np.ndarray:
    """A card's patch in the middle of the region (bool, region pixels)."""
    hull = np.zeros((REGION[3] - REGION[1], REGION[2] - REGION[0]), bool)
    hull[35:65, 50:70] = True
    return hull


def _arm(seat: int, covered: float, tip: tuple[float, float] = (160.0, 90.0)) -> Arm:
    """An arm of `seat` whose pixels cover `covered` of the card's patch (its left part)."""
    mask = np.zeros((120, 200), bool)  # the whole ARM_SCALE frame
    x0, y0 = (REGION[0] + 50) * ARM_SCALE, (REGION[1] + 35) * ARM_SCALE
    width = round(10 * covered)
    if width:
        mask[int(y0):int(y0) + 15, int(x0):int(x0) + width] = True
    return Arm((0.0, 0.0), tip, 100.0, 0.0, seat, (0, 0, mask))


def _history(frames: list[tuple[float, list[Arm]]]) -> PileWatcher:
    watcher = _watcher()
    watcher.arm_history.extend(frames)
    return watcher


def test_of_two_arms_over_the_card_it_came_with_the_one_that_reached_it_last():
    # Seat 2 reaches over the pile first and covers most of the card's place; seat 1 brings
    # the card 0.3 s later, covering less of it: the card is seat 1's (the vote, by cover,
    # said seat 2).
    frames = [(t, [_arm(2, 0.8)] + ([_arm(1, 0.5)] if t >= 0.7 else []))
              for t in np.arange(0.4, 1.01, 1 / 30)]
    assert _history(frames)._seat(_card_hull(), 1.0) == (1, SEAT_ARRIVAL_SHARE)


def test_arms_that_reached_the_card_together_are_left_to_the_vote():
    frames = [(t, [_arm(2, 0.8), _arm(1, 0.5)]) for t in np.arange(0.4, 1.01, 1 / 30)]
    assert _history(frames)._seat(_card_hull(), 1.0) == (2, 1.0)


def test_a_card_no_arm_held_is_the_seat_of_the_one_arm_seen_coming_towards_it():
    # Seat 3's arm comes from 4 card heights away to 2, then is lost (the table's colour);
    # seat 0's arm stays far and still. Nobody held the card or was near it.
    centre = (REGION[0] + 60.0, REGION[1] + 50.0)
    frames = []
    for k, t in enumerate(np.arange(0.5, 0.81, 1 / 30)):
        distance = 4.0 - 2.0 * k / 9
        frames.append((t, [_arm(3, 0.0, (centre[0] + distance * CARD_H, centre[1])),
                           _arm(0, 0.0, (centre[0], centre[1] + 4.5 * CARD_H))]))
    assert _history(frames)._seat(_card_hull(), 1.0) == (3, SEAT_ARRIVAL_SHARE)
    still = [(t, [_arm(0, 0.0, (centre[0], centre[1] + 3.0 * CARD_H))]) for t, _ in frames]
    assert _history(still)._seat(_card_hull(), 1.0) == (None, None)


def test_of_two_arms_at_the_card_it_came_with_the_one_it_slid_in_from():
    # Seats 1 (from the left) and 2 (from above) reach the card's place together, seat 2
    # covering more of it: the vote says seat 2. The card slid in from the left: seat 1's.
    rng = np.random.default_rng(5)
    shape = (REGION[3] - REGION[1], REGION[2] - REGION[0])
    pile = np.full((*shape, 3), 120.0, np.float32)
    face = np.repeat(np.repeat(rng.uniform(0, 255, (15, 10, 3)).astype(np.float32), 2, 0), 2, 1)
    centre = (REGION[0] + 60.0, REGION[1] + 50.0)
    left, above = (float(REGION[0] - 60), centre[1]), (centre[0], float(REGION[1] - 40))
    watcher = _watcher()
    watcher.reference = pile
    times = [1.0 - k / 30 for k in range(20, -1, -1)]
    slide = dict(zip(times[-5:], (-12, -8, -5, -2, 0), strict=True))  # rests at 1.0
    for t in times:
        crop = pile.copy()
        if t in slide:
            crop[35:65, 50 + slide[t]:70 + slide[t]] = face
        watcher.history.append((t, crop))
        arms = [_arm(2, 0.8), _arm(1, 0.5)]
        arms = [Arm(left if a.seat == 1 else above, a.tip, a.area_px, 0.0, a.seat, a.blob)
                for a in arms]
        watcher.arm_history.append((t, arms))
    assert watcher._seat(_card_hull(), times[-1]) == (1, SEAT_ARRIVAL_SHARE)
