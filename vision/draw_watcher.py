"""Hands taking cards from the two draw piles: one `draw` event per separate reach.

A reach is an arm whose tip (the hand) rests inside a draw pile's region: it must stay there,
nearly still, for `DWELL_FRAMES`, which an arm merely passing over the draw pile on its way to
the discard pile does not. The reach ends when no tip has been in the region for `GAP_FRAMES`;
the event's `t` is when the hand first came to rest there, its seat the arms' vote.

Arms are followed as movements (`_Movement`): one arm, by its direction, from when it comes
into the picture until it has been out of it for `GONE_FRAMES`. While an arm that was at the
discard pile moments ago in the same movement is over a draw pile, it is playing, not drawing:
it is crossing the draw pile on its way in or out, and its frames there do not count as
resting. An arm that left the picture after playing and comes back is a new movement, free to
draw. One movement draws from one draw pile: after its draw, the arm withdrawing over the
other draw pile (its tip left behind there for a few frames while the arm shrinks away) is no
new reach.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

from referee.events import Draw
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

GONE_FRAMES = 4
"""An arm not seen for this many frames (133 ms at 30 fps) has left the picture: coming back,
it is a new movement. Seats that played and then drew were out of the picture 0.35-0.6 s
between the two on games 101-110; an arm crossing the table is seen in every frame. 2 to 8
frames found the same draws there; 12 lost one."""

REGION_GROW = 0.15
"""The region is grown by this fraction of its size each way: fingertips reach over the edge."""


@dataclass
class _Movement:
    """One arm, by its entry direction, from coming into the picture to leaving it."""

    angle: float
    missing_frames: int = 0
    pile_times: deque = field(default_factory=deque)  # `t` of frames with its tip at the pile
    drew_at: float | None = None  # `t` of the draw this movement made, once counted
    drew_from: int | None = None  # ... and the draw pile it drew from


@dataclass
class _Reach:
    first_t: float | None = None
    resting_frames: int = 0
    seats: list[int | None] = field(default_factory=list)
    missing_frames: int = 0
    last_tip: tuple[float, float] | None = None
    angle: float | None = None
    after: float | None = None  # the entry angle of the arm whose reach this one cut short
    movement: _Movement | None = None


@dataclass
class DrawWatcher:
    """Watches the draw-pile regions `regions_px` [(x0, y0, x1, y1), ...] of the analysis frame."""

    regions_px: list[tuple[int, int, int, int]]
    card_height_px: float
    pile_px: tuple[int, int, int, int] | None = None
    reaches: list[_Reach] = field(default_factory=list)
    movements: list[_Movement] = field(default_factory=list)

    def __post_init__(self) -> None:
        grown = []
        for x0, y0, x1, y1 in self.regions_px:
            gx, gy = (x1 - x0) * REGION_GROW, (y1 - y0) * REGION_GROW
            grown.append((x0 - gx, y0 - gy, x1 + gx, y1 + gy))
        self.regions = grown
        self.reaches = [_Reach() for _ in grown]

    def _movement(self, arm: Arm) -> _Movement:
        for movement in self.movements:
            if angular_distance_deg(arm.entry_angle_deg, movement.angle) <= SAME_ARM_DEG:
                return movement
        movement = _Movement(arm.entry_angle_deg)
        self.movements.append(movement)
        return movement

    def _playing(self, arm: Arm) -> bool:
        return len(self._movement(arm).pile_times) >= PILE_DWELL_FRAMES

    def _is_draw(self, reach: _Reach, index: int) -> bool:
        """A reach that rested long enough, did not go on to the discard pile (an arm that
        slowed down over a draw pile on its way in to play) and is not the arm withdrawing
        from a draw it made earlier in the same movement."""
        if reach.resting_frames < DWELL_FRAMES or reach.first_t is None:
            return False
        movement = reach.movement
        if movement is None:  # never rested: caught by resting_frames above
            return False
        if movement.drew_at is not None and movement.drew_at < reach.first_t \
                and movement.drew_from != index:
            return False  # its tip left over the other draw pile on the way out
        frames_at_pile = sum(t > reach.first_t for t in movement.pile_times)
        return frames_at_pile < PILE_DWELL_FRAMES

    @staticmethod
    def _event(reach: _Reach, index: int) -> Draw:
        if reach.movement is not None and reach.movement.drew_at is None:
            reach.movement.drew_at, reach.movement.drew_from = reach.first_t, index
        return Draw(round(reach.first_t, 4), seat=vote(reach.seats), count=1)

    def _follow_movements(self, t_s: float, arms: list[Arm]) -> None:
        """Each arm to its movement; the discard-pile frames of each; movements that left."""
        seen = set()
        for arm in arms:
            movement = self._movement(arm)
            movement.angle = arm.entry_angle_deg
            movement.missing_frames = 0
            seen.add(id(movement))
            if self.pile_px is not None:
                px0, py0, px1, py1 = self.pile_px
                if px0 <= arm.tip[0] < px1 and py0 <= arm.tip[1] < py1:
                    movement.pile_times.append(t_s)
            while movement.pile_times and movement.pile_times[0] < t_s - PLAYING_ARM_MEMORY_S:
                movement.pile_times.popleft()
        for movement in self.movements:
            if id(movement) not in seen:
                movement.missing_frames += 1
        self.movements = [m for m in self.movements if m.missing_frames < GONE_FRAMES]

    def update(self, t_s: float, arms: list[Arm]) -> list[Draw]:
        self._follow_movements(t_s, arms)
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
                    if self._is_draw(reach, index):
                        events.append(self._event(reach, index))
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
                    reach.movement = self._movement(arm)
                    reach.resting_frames += 1
                    reach.seats.append(arm.seat)
                    if reach.first_t is None:
                        reach.first_t = t_s
                continue
            reach.missing_frames += 1
            reach.last_tip = None
            if reach.missing_frames >= GAP_FRAMES:
                if self._is_draw(reach, index):
                    events.append(self._event(reach, index))
                self.reaches[index] = _Reach()
        return events

    def idle(self) -> bool:
        """No arm is being followed and no reach is open."""
        return not self.movements and all(r.first_t is None and r.last_tip is None
                                           for r in self.reaches)

    def finish(self) -> list[Draw]:
        """Reaches still open at the end of the footage."""
        events = []
        for index, reach in enumerate(self.reaches):
            if self._is_draw(reach, index):
                events.append(self._event(reach, index))
        self.reaches = [_Reach() for _ in self.regions]
        return events
