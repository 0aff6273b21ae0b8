"""The dashboard's calibration page speaks pixels of a still frame; the room profile speaks
fractions of the frame and seat angles. These two functions translate both ways.

    {"width": 1280, "height": 720, "pile": [640, 400, 130],           # centre x, y, radius
     "draw_piles": [[380, 220, 95], [900, 220, 95]], "seats": [[640, 700], [40, 400], ...]}

A radius is half the side of the square region around a centre; a seat is any point in the
direction of that player from the pile (the page puts it near the edge of the frame).
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import ValidationError

from calibration.camera import CameraProfile, Region
from calibration.layout import DRAW_REGION_CARDS, PILE_REGION_CARDS
from calibration.profile import describe_validation_error

SEAT_REACH = 0.4
"""A seat is shown this fraction of the frame's smaller side away from the pile centre."""


def layout_in_pixels(camera: CameraProfile, height: int, width: int) -> dict[str, Any]:
    """The camera layout as the calibration page draws it on a `height` x `width` still."""
    def circle(region: Region) -> list[int]:
        cx, cy = region.centre()
        return [round(cx * width), round(cy * height),
                round(max(region.w * width, region.h * height) / 2)]

    px, py, _ = pile = circle(camera.pile)
    reach = SEAT_REACH * min(width, height)
    seats = []
    for angle in camera.seat_angles_deg:
        a = math.radians(angle)
        x = min(width - 1, max(0, round(px + reach * math.cos(a))))
        y = min(height - 1, max(0, round(py + reach * math.sin(a))))
        seats.append([x, y])
    return {"width": width, "height": height, "pile": pile,
            "draw_piles": [circle(r) for r in camera.draw_piles], "seats": seats}


def camera_from_clicks(clicks: dict[str, Any], current: CameraProfile, height: int,
                       width: int) -> CameraProfile:
    """The camera layout the clicks give (the page's `width`/`height` when it sends them);
    seats must be as many as the table has. Raises ValueError with a one-line reason."""
    if not isinstance(clicks, dict):
        raise ValueError("the calibration must be a JSON object with pile, draw_piles, seats")
    width = _positive(clicks.get("width", width), "width")
    height = _positive(clicks.get("height", height), "height")
    card_px = current.card_height * height
    pile = _point(clicks.get("pile"), "pile", PILE_REGION_CARDS * card_px / 2)
    draws = clicks.get("draw_piles")
    if not isinstance(draws, list) or len(draws) != 2:
        raise ValueError("'draw_piles' must be the two draw piles, [[x, y, r], [x, y, r]]")
    draw_points = [_point(d, f"draw_piles[{i}]", DRAW_REGION_CARDS * card_px / 2)
                   for i, d in enumerate(draws)]
    (ax, ay, _), (bx, by, _) = draw_points
    if math.hypot(ax - bx, ay - by) < 1:
        raise ValueError("the two draw piles are at one place; click each draw pile")
    seats = clicks.get("seats")
    if not isinstance(seats, list) or len(seats) != current.players:
        raise ValueError(f"'seats' must be one point per player ({current.players}), in seat "
                         "order (clockwise)")
    angles = []
    for i, seat in enumerate(seats):
        x, y, _ = _point(seat, f"seats[{i}]", 0.0)
        if math.hypot(x - pile[0], y - pile[1]) < 1:
            raise ValueError(f"seat {i} is on the pile's centre; click where that player sits")
        angles.append(round(math.degrees(math.atan2(y - pile[1], x - pile[0])) % 360, 2))

    def region(point: tuple[float, float, float]) -> Region:
        x, y, r = point
        return Region.around(x / width, y / height, min(1.0, 2 * r / width),
                             min(1.0, 2 * r / height))

    try:
        return CameraProfile.model_validate({
            **current.model_dump(), "pile": region(pile),
            "draw_piles": tuple(region(p) for p in draw_points),
            "seat_angles_deg": tuple(angles), "image_size": (height, width)})
    except ValidationError as error:
        raise ValueError(f"the calibration is not usable: "
                         f"{describe_validation_error(error, 'camera')}") from None


def _positive(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 1:
        raise ValueError(f"'{name}' must be the still frame's size in pixels, got {value!r}")
    return int(value)


def _point(value: Any, name: str, default_r: float) -> tuple[float, float, float]:
    if not isinstance(value, list | tuple) or len(value) not in (2, 3) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in value):
        raise ValueError(f"'{name}' must be [x, y] or [x, y, r] in pixels, got {value!r}")
    x, y = float(value[0]), float(value[1])
    r = float(value[2]) if len(value) == 3 else default_r
    if r < 0:
        raise ValueError(f"'{name}': the radius must not be negative")
    return x, y, r
