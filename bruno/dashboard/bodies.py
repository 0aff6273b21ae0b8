"""What the page may POST, checked before it reaches the live session. Every problem is a
`BadRequest` whose message is one line saying what is wrong (the page shows it as it is)."""

from __future__ import annotations

import json
import math
from typing import Any

MANUAL_KINDS: tuple[str, ...] = ("call", "color", "correct", "undo", "confirm", "round_end",
                                  "swap")
"""The events a person at the table can enter (docs/DESIGN.md's event log, without `t`)."""

MAX_BODY_BYTES = 64 * 1024
"""Far above any real event or calibration (a round end with every hand is ~2 KB)."""

DRAW_PILES = 2
MIN_SEATS, MAX_SEATS = 2, 10


class BadRequest(ValueError):
    """A request body the dashboard cannot use; the message is one line for people."""


def decode_json(raw: bytes) -> Any:
    """The JSON value in a request body."""
    if not raw:
        raise BadRequest("the request has no body; send a JSON object")
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        reason = str(error).splitlines()[0]
        raise BadRequest(f"the body is not JSON ({reason})") from None


def manual_event(body: Any) -> dict[str, Any]:
    """A manual event as the session takes it. Fields other than `kind` are the session's to
    judge (it knows the table); here only what no event may be."""
    if not isinstance(body, dict):
        raise BadRequest(f"an event must be a JSON object, not {_json_type(body)}")
    kind = body.get("kind")
    if kind not in MANUAL_KINDS:
        raise BadRequest(f"unknown kind {kind!r} (the dashboard sends one of: "
                         f"{', '.join(MANUAL_KINDS)})")
    if "t" in body:
        raise BadRequest("leave 't' out: the session stamps manual events with its own clock")
    return body


def calibration_clicks(body: Any) -> dict[str, Any]:
    """Clicks on the still frame, shaped like `camera_calibration()`: `pile` [x, y, r], two
    `draw_piles` [x, y, r], 2-10 `seats` [x, y] (pixels), and optionally the frame's `width`
    and `height`. Returned with every number a float (sizes ints)."""
    if not isinstance(body, dict):
        raise BadRequest(f"the calibration must be a JSON object, not {_json_type(body)}")
    unknown = sorted(set(body) - {"pile", "draw_piles", "seats", "width", "height"})
    if unknown:
        raise BadRequest(f"unknown calibration field {unknown[0]!r} (expected pile, "
                         "draw_piles, seats, width, height)")
    size = {name: _size(body, name) for name in ("width", "height") if name in body}
    draw_piles = _list(body, "draw_piles", DRAW_PILES, DRAW_PILES)
    seats = _list(body, "seats", MIN_SEATS, MAX_SEATS)
    clicks = {
        "pile": _point(body.get("pile"), "pile", radius=True, size=size),
        "draw_piles": [_point(p, f"draw_piles[{i}]", radius=True, size=size)
                       for i, p in enumerate(draw_piles)],
        "seats": [_point(p, f"seats[{i}]", radius=False, size=size) for i, p in enumerate(seats)],
    }
    return {**size, **clicks}


def _list(body: dict[str, Any], name: str, least: int, most: int) -> list[Any]:
    value = body.get(name)
    if not isinstance(value, list) or not least <= len(value) <= most:
        count = str(least) if least == most else f"{least} to {most}"
        raise BadRequest(f"'{name}' must be a list of {count} points, got {value!r}")
    return value


def _size(body: dict[str, Any], name: str) -> int:
    value = body[name]
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise BadRequest(f"'{name}' must be the frame's size in pixels, got {value!r}")
    return value


def _point(value: Any, name: str, radius: bool, size: dict[str, int]) -> list[float]:
    shape = "[x, y, r]" if radius else "[x, y]"
    if not isinstance(value, list) or len(value) != (3 if radius else 2) or not all(
        not isinstance(v, bool) and isinstance(v, int | float) and math.isfinite(v) for v in value
    ):
        raise BadRequest(f"'{name}' must be {shape} in pixels, got {value!r}")
    x, y = float(value[0]), float(value[1])
    width, height = size.get("width", math.inf), size.get("height", math.inf)
    if not (0 <= x <= width and 0 <= y <= height):
        raise BadRequest(f"'{name}' ({x:g}, {y:g}) is outside the frame; click inside the picture")
    if radius and value[2] <= 0:
        raise BadRequest(f"'{name}' needs a radius above 0 pixels, got {value[2]!r}")
    return [x, y, float(value[2])] if radius else [x, y]


def _json_type(value: Any) -> str:
    names = {list: "a list", str: "a string", bool: "true/false", type(None): "null"}
    return names.get(type(value), "a number")
