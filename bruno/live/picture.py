"""The dashboard's camera view: the newest frame with the pile region, the seat arrows of the
latest plays, knocks and rulings drawn by the review's own overlay, and the referee's top card
(which knows about corrections and take-backs) in its badge."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2

from bruno.review.annotated_video import Overlay, draw_overlay
from calibration.camera import CameraProfile
from referee.events import Event
from vision.frames import Frame

JPEG_QUALITY = 80


@dataclass(frozen=True)
class LiveOverlay(Overlay):
    """The review overlay, with the top card the referee holds rather than one worked out from
    the events drawn."""

    top: str | None = None

    def top_card(self, t: float) -> str | None:
        return self.top


def live_overlay(camera: CameraProfile, events: list[Event],
                 rulings: list[dict[str, Any]], top: str | None) -> LiveOverlay:
    return LiveOverlay(events=sorted(events, key=lambda e: e.t), rulings=rulings,
                       pile_box=camera.pile.box(),
                       seat_angles_deg=camera.seat_angles_deg, top=top)


def encode_jpeg(frame: Frame, overlay: Overlay | None) -> bytes:
    """The frame at full size as JPEG, with the overlay due at its time drawn on it."""
    image = frame.full()
    if overlay is not None:
        image = draw_overlay(image, overlay, frame.t_s)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise ValueError("the frame could not be encoded as JPEG")
    return data.tobytes()
