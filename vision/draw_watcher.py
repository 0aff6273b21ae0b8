"""Hands taking cards from the two draw piles: one `draw` event per separate reach.

A reach is an arm whose tip (the hand) rests inside a draw pile's region: it must stay there,
nearly still, for `DWELL_FRAMES`, which an arm merely passing over the draw pile on its way to
the discard pile does not. The reach ends when no tip has been in the region for `GAP_FRAMES`;
the event's `t` is when the hand first came to rest there, its seat the arms' vote.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from vision.arms import Arm
from vision.seats import vote

DWELL_FRAMES = 4
"""A hand rests on a draw pile for at least this many frames (133 ms at 30 fps) to take a card."""

STILL_CARDS_PER_FRAME = 0.12
"""A hand moving less than this many card heights between frames counts as resting."""

GAP_FRAMES = 4
"""A reach ends when no hand has been in the region for this many frames."""

REGION_GROW = 0.15
"""The region is grown by this fraction of its size each way: fingertips reach over the edge."""


@dataclass
class _Reach:
    first_t: float | None = None
    resting_frames: int = 0
    seats: list[int | None] = field(default_factory=list)
    missing_frames: int = 0
    last_tip: tuple[float, float] | None = None


@dataclass
class DrawWatcher:
    """Watches the draw-pile regions `regions_px` [(x0, y0, x1, y1), ...] of the analysis frame."""

    regions_px: list[tuple[int, int, int, int]]
    card_height_px: float
    reaches: list[_Reach] = field(default_factory=list)

    def __post_init__(self) -> None:
        grown = []
        for x0, y0, x1, y1 in self.regions_px:
            gx, gy = (x1 - x0) * REGION_GROW, (y1 - y0) * REGION_GROW
            grown.append((x0 - gx, y0 - gy, x1 + gx, y1 + gy))
        self.regions = grown
        self.reaches = [_Reach() for _ in grown]

    def update(self, t_s: float, arms: list[Arm]) -> list[dict]:
        events = []
        for index, (x0, y0, x1, y1) in enumerate(self.regions):
            reach = self.reaches[index]
            inside = [a for a in arms if x0 <= a.tip[0] < x1 and y0 <= a.tip[1] < y1]
            if inside:
                arm = inside[0]
                reach.missing_frames = 0
                still = reach.last_tip is not None and math.dist(arm.tip, reach.last_tip) \
                    <= STILL_CARDS_PER_FRAME * self.card_height_px
                reach.last_tip = arm.tip
                if still:
                    reach.resting_frames += 1
                    reach.seats.append(arm.seat)
                    if reach.first_t is None:
                        reach.first_t = t_s
                continue
            reach.missing_frames += 1
            reach.last_tip = None
            if reach.missing_frames >= GAP_FRAMES:
                if reach.resting_frames >= DWELL_FRAMES and reach.first_t is not None:
                    events.append({"t": round(reach.first_t, 4), "kind": "draw",
                                   "seat": vote(reach.seats), "count": 1})
                self.reaches[index] = _Reach()
        return events

    def finish(self) -> list[dict]:
        """Reaches still open at the end of the footage."""
        events = []
        for reach in self.reaches:
            if reach.resting_frames >= DWELL_FRAMES and reach.first_t is not None:
                events.append({"t": round(reach.first_t, 4), "kind": "draw",
                               "seat": vote(reach.seats), "count": 1})
        self.reaches = [_Reach() for _ in self.regions]
        return events
