"""The usual table's geometry: the footage renderer draws it, and the default camera profile
(for a table not yet calibrated) assumes it.

Everything is in fractions of the frame (x of the width, y of the height), so the same layout
renders at 1280x720 for the evaluation and at 320x180 for fast tests. Seat directions follow
docs/DESIGN.md: degrees in image coordinates around the pile centre, seat k at seat0 + 360·k/N.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from calibration.camera import (
    DEFAULT_SEAT0_ANGLE_DEG,
    CameraProfile,
    Region,
    default_seat_angles,
)

PILE_REGION_CARDS = 2.0
"""The discard-pile region is this many card heights on a side: a card askew by any angle and
off-centre by up to 0.2 card heights stays inside it, with table to spare around it."""

DRAW_REGION_CARDS = 1.5
"""A draw-pile region is this many card heights on a side: the stack plus a hand's fingertips."""


@dataclass(frozen=True)
class TableLayout:
    """Where things lie: pile centre, the two draw-pile centres, card height (all fractions)."""

    pile_centre: tuple[float, float] = (0.5, 0.56)
    draw_centres: tuple[tuple[float, float], tuple[float, float]] = ((0.3, 0.3), (0.7, 0.3))
    card_height: float = 0.18

    def card_height_px(self, height: int) -> float:
        return self.card_height * height

    def pile_region(self, height: int, width: int) -> Region:
        return self._square(self.pile_centre, PILE_REGION_CARDS, height, width)

    def draw_regions(self, height: int, width: int) -> tuple[Region, Region]:
        a, b = (self._square(c, DRAW_REGION_CARDS, height, width) for c in self.draw_centres)
        return a, b

    def _square(self, centre, cards: float, height: int, width: int) -> Region:
        side_px = cards * self.card_height * height
        return Region.around(centre[0], centre[1], side_px / width, side_px / height)

    def camera_profile(self, players: int, seat0_angle_deg: float = 90.0,
                       size: tuple[int, int] = (720, 1280)) -> CameraProfile:
        h, w = size
        return CameraProfile(
            pile=self.pile_region(h, w), draw_piles=self.draw_regions(h, w),
            seat_angles_deg=default_seat_angles(players, seat0_angle_deg),
            card_height=self.card_height, image_size=size,
        )


def border_point(centre_px: tuple[float, float], angle_deg: float, height: int, width: int
                 ) -> tuple[float, float]:
    """Where a ray from `centre_px` at `angle_deg` (image coordinates) leaves the frame."""
    cx, cy = centre_px
    dx, dy = math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))
    reach = []
    if dx > 1e-9:
        reach.append((width - 1 - cx) / dx)
    if dx < -1e-9:
        reach.append(-cx / dx)
    if dy > 1e-9:
        reach.append((height - 1 - cy) / dy)
    if dy < -1e-9:
        reach.append(-cy / dy)
    s = min(reach)
    return cx + dx * s, cy + dy * s


def default_camera_profile(players: int, seat0_angle_deg: float = DEFAULT_SEAT0_ANGLE_DEG
                           ) -> CameraProfile:
    """A profile for the usual layout (the footage renderer's): pile in the middle, a draw pile
    up-left and up-right of it. Use calibration to fit a real table."""
    return TableLayout().camera_profile(players, seat0_angle_deg)
