"""Which way a card slid into place (`vision.pile_path.card_path_angle`)."""

from __future__ import annotations

import numpy as np

from vision.pile_path import card_path_angle
from vision.seats import angular_distance_deg

CARD_H = 30.0
SHAPE = (100, 120)  # the pile region, pixels
CARD = (slice(35, 65), slice(50, 70))  # where the card comes to rest


def _pile() -> np.ndarray:
    rng = np.random.default_rng(3)
    return np.full((*SHAPE, 3), 120.0, np.float32) + rng.normal(0, 2, (*SHAPE, 3)) \
        .astype(np.float32)


def _print() -> np.ndarray:
    """A card's face: blocks of colour that match nothing on the pile."""
    rng = np.random.default_rng(4)
    blocks = rng.uniform(0, 255, (15, 10, 3)).astype(np.float32)
    return np.repeat(np.repeat(blocks, 2, axis=0), 2, axis=1)


def _with_card(pile: np.ndarray, dx: int, dy: int) -> np.ndarray:
    image = pile.copy()
    rows, cols = CARD
    image[rows.start + dy:rows.stop + dy, cols.start + dx:cols.stop + dx] = _print()
    return image


def _hull() -> np.ndarray:
    hull = np.zeros(SHAPE, bool)
    hull[CARD] = True
    return hull


def _times(n: int) -> list[float]:
    return [1.0 - (n - 1 - k) / 30 for k in range(n)]


def test_a_card_that_slid_in_from_the_left_came_from_the_left():
    pile = _pile()
    times = _times(5)
    history = [(t, _with_card(pile, -dx, 0)) for t, dx in zip(times, (12, 8, 5, 2), strict=False)]
    history.append((times[-1], _with_card(pile, 0, 0)))
    angle = card_path_angle(history, _hull(), times[-1], CARD_H, pile)
    assert angle is not None and angular_distance_deg(angle, 180.0) < 15, angle


def test_a_card_laid_on_its_twin_without_sliding_shows_no_path():
    # A jump-in: the same card lies a few pixels to the right already, and the new one is
    # put down straight onto its place. The twin matches the new card's print, shifted: it is
    # no sign of the way the new one came, being the pile before it.
    pile = _with_card(_pile(), 6, 0)
    times = _times(5)
    history = [(t, pile.copy()) for t in times[:-1]]
    history.append((times[-1], _with_card(pile, 0, 0)))
    assert card_path_angle(history, _hull(), times[-1], CARD_H, pile) is None


def test_a_card_seen_sliding_in_one_frame_only_shows_no_path():
    pile = _pile()
    times = _times(5)
    history = [(t, pile.copy()) for t in times[:-2]]
    history += [(times[-2], _with_card(pile, -5, 0)), (times[-1], _with_card(pile, 0, 0))]
    assert card_path_angle(history, _hull(), times[-1], CARD_H, pile) is None
