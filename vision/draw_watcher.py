"""Hands taking cards from the two draw piles: one `draw` event per separate reach.

A reach is an arm whose tip (the hand) rests inside a draw pile's region: it must stay there,
nearly still, for `DWELL_FRAMES`, which an arm merely passing over the draw pile on its way to
the discard pile does not. The reach ends when no tip has been in the region for `GAP_FRAMES`;
the event's `t` is when the hand first came to rest there, its seat the arms' vote.

While an arm that was at the discard pile moments ago (the same arm, by its direction) is over
a draw pile, it is playing, not drawing: it is crossing the draw pile on its way in or out, and
its frames there do not count as resting.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

from vision.arms import Arm
from vision.seats import angular_distance_deg, vote

DWELL_FRAMES = 4
"""A hand rests on a draw pile for at least this many frames (133 ms at 30 fps) to take a card."""

STILL_CARDS_PER_FRAME = 0.12
"""A hand moving less than this many card heights between frames counts as resting."""

GAP_FRAMES = 4
"""A reach ends when no hand has been in the region for this many frames."""

PLAYING_ARM_MEMORY_S = 1.5
"""An arm that had its tip over the discard pile this recently is on its way out."""

PILE_DWELL_FRAMES = 7
"""... for at least this many frames (a play's hand slows down, drops and lingers there; a hand
crossing the discard pile on its way to a draw pile is over it for about four)."""

SAME_ARM_DEG = 20.0
"""Two arms entering within this many degrees of each other (seen from the pile) are one."""

REGION_GROW = 0.15
"""The region is grown by this fraction of its size each way: fingertips reach over the edge."""


@dataclass
class _Reach:
    first_t: float | None = None
    resting_frames: int = 0
    seats: list[int | None] = field(default_factory=list)
    missing_frames: int = 0
    last_tip: tuple[float, float] | None = None
    angle: float | None = None
    after: float | None = None  # the entry angle of the arm whose reach this one cut short


@dataclass
class DrawWatcher:
    """Watches the draw-pile regions `regions_px` [(x0, y0, x1, y1), ...] of the analysis frame."""

    regions_px: list[tuple[int, int, int, int]]
    card_height_px: float
    pile_px: tuple[int, int, int, int] | None = None
    reaches: list[_Reach] = field(default_factory=list)
    pile_arms: deque = field(default_factory=deque)  # (t, entry angle) of arms at the pile

    def __post_init__(self) -> None:
        grown = []
        for x0, y0, x1, y1 in self.regions_px:
            gx, gy = (x1 - x0) * REGION_GROW, (y1 - y0) * REGION_GROW
            grown.append((x0 - gx, y0 - gy, x1 + gx, y1 + gy))
        self.regions = grown
        self.reaches = [_Reach() for _ in grown]

    def _playing(self, arm: Arm) -> bool:
        frames_at_pile = sum(angular_distance_deg(arm.entry_angle_deg, angle) <= SAME_ARM_DEG
                             for _, angle in self.pile_arms)
        return frames_at_pile >= PILE_DWELL_FRAMES

    def _is_draw(self, reach: _Reach) -> bool:
        """A reach that rested long enough and did not go on to the discard pile (an arm that
        slowed down over a draw pile on its way in to play)."""
        if reach.resting_frames < DWELL_FRAMES or reach.first_t is None:
            return False
        frames_at_pile = sum(t > reach.first_t and reach.angle is not None
                             and angular_distance_deg(reach.angle, angle) <= SAME_ARM_DEG
                             for t, angle in self.pile_arms)
        return frames_at_pile < PILE_DWELL_FRAMES

    @staticmethod
    def _event(reach: _Reach) -> dict:
        return {"t": round(reach.first_t, 4), "kind": "draw", "seat": vote(reach.seats),
                "count": 1}

    def _remember_pile_arms(self, t_s: float, arms: list[Arm]) -> None:
        if self.pile_px is not None:
            px0, py0, px1, py1 = self.pile_px
            for arm in arms:
                if px0 <= arm.tip[0] < px1 and py0 <= arm.tip[1] < py1:
                    self.pile_arms.append((t_s, arm.entry_angle_deg))
        while self.pile_arms and self.pile_arms[0][0] < t_s - PLAYING_ARM_MEMORY_S:
            self.pile_arms.popleft()

    def update(self, t_s: float, arms: list[Arm]) -> list[dict]:
        self._remember_pile_arms(t_s, arms)
        events = []
        for index, (x0, y0, x1, y1) in enumerate(self.regions):
            reach = self.reaches[index]
            inside = [a for a in arms if x0 <= a.tip[0] < x1 and y0 <= a.tip[1] < y1
                      and (reach.after is None
                           or angular_distance_deg(a.entry_angle_deg, reach.after) > SAME_ARM_DEG)]
            if inside:
                same = [a for a in inside if reach.angle is None
                        or angular_distance_deg(a.entry_angle_deg, reach.angle) <= SAME_ARM_DEG]
                if not same:
                    # Another arm now, from another side: the last one's reach is over, even if
                    # the hands followed each other too fast for a gap.
                    if self._is_draw(reach):
                        events.append(self._event(reach))
                    # The last arm, on its way out, is no new reach.
                    reach = self.reaches[index] = _Reach(after=reach.angle)
                    same = inside
                arm = same[0]
                reach.missing_frames = 0
                reach.angle = arm.entry_angle_deg
                still = reach.last_tip is not None and math.dist(arm.tip, reach.last_tip) \
                    <= STILL_CARDS_PER_FRAME * self.card_height_px
                reach.last_tip = arm.tip
                if still and not self._playing(arm):
                    reach.resting_frames += 1
                    reach.seats.append(arm.seat)
                    if reach.first_t is None:
                        reach.first_t = t_s
                continue
            reach.missing_frames += 1
            reach.last_tip = None
            if reach.missing_frames >= GAP_FRAMES:
                if self._is_draw(reach):
                    events.append(self._event(reach))
                self.reaches[index] = _Reach()
        return events

    def finish(self) -> list[dict]:
        """Reaches still open at the end of the footage."""
        events = []
        for reach in self.reaches:
            if self._is_draw(reach):
                events.append(self._event(reach))
        self.reaches = [_Reach() for _ in self.regions]
        return events
