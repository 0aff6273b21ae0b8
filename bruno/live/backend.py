"""What the dashboard needs from a live session. The live session implements it; the dashboard
is written (and tested) against it alone, so either side can change without the other."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol


class DashboardBackend(Protocol):
    def snapshot(self) -> dict[str, Any]:
        """The table now, JSON-ready:
        {"players": 4, "dealer": 0, "variant": "bruno", "game": "Bruno" (its name, shown),
         "clock": 12.3 (session seconds),
         "turn": 2 | None, "color": "r"|"y"|"g"|"b"|None, "top": "y_1" | None,
         "top_seat": 1 | None, "paused": False (between STOP and GO), "in_round": True,
         "scores": {"0": 110, ...} (match totals, empty before the first round ends, and in a
                   game that keeps no score),
         "tally": {"name": "Sips", "seats": {"0": 3, ...}} | None (a game's running count per
                  seat besides the score: DrukUNO's sips; None in a game that keeps none),
         "muted": False (True: rulings are printed, not spoken),
         "announce_min_confidence": 0.7 (under it a penalty is shown as a check, not said),
         "swaps": False (True: the game takes `swap` events, DrukUNO with Warszawa),
         "sources": {"camera": "ok"|"off"|"ended"|"error: ...", "mic": ...}}"""

    def rulings_since(self, index: int, timeout_s: float = 0.0) -> tuple[int, list[dict[str, Any]]]:
        """Rulings (docs/DESIGN.md dicts, `kind` "ruling" or "info") from position `index` of the
        session's list of rulings on; waits up to `timeout_s` for one when there is none.
        Returns (next index, rulings)."""

    def frame_jpeg(self, annotated: bool = True) -> bytes | None:
        """The newest camera frame as JPEG (annotated: pile region, seats, top card drawn);
        None before the first frame."""

    def check_jpeg(self, ruling_t: float) -> bytes | None:
        """The camera frame kept when the unsure penalty decided at `ruling_t` was, as JPEG;
        None when there is none."""

    def submit(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        """A manual event from the table (event-log schema without `t`: the session stamps it
        with its clock): `call` (stop, go, seg, ...), `color`, `correct`, `undo`, `confirm`,
        `round_end`, `swap`.
        It is journaled like any other event. Returns the rulings it gave at once.
        Raises ValueError with a one-line reason for a malformed event."""

    def camera_calibration(self) -> dict[str, Any]:
        """The current camera layout in the still frame's pixels, for the calibration page:
        {"width": W, "height": H, "pile": [x, y, r] | None, "draw_piles": [[x, y, r], ...],
         "seats": [[x, y], ...]}."""

    def save_camera_calibration(self, clicks: dict[str, Any]) -> Path:
        """Clicks on the still frame, same shape as camera_calibration(): written into the room
        profile (returned path); the live session uses it from then on."""
