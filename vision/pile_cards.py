"""A card the pile watcher confirmed: kept apart so that the watcher and its mixins
(`vision.pile_same_hand`, `vision.pile_fan`) can all name it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class PlayedCard:
    """A confirmed card: its reading, seat, rest time, place and the pile before it."""

    card: str | None  # None while its reading waits for the hand to leave
    seat: int | None
    t_s: float
    hull: np.ndarray  # bool mask over the region
    before: np.ndarray  # reference before it came
    seat_share: float | None = None  # of the frames' votes, those that named `seat`
    caught_up_t: float = float("inf")
    """When the reference around it was caught up (a hand taken in with it is gone from it)."""
