"""Drawing what was seen, apart from seeing it: quads and tokens over a copy of the image."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.recognise import CardSighting

_COLOURS = {"r": (40, 40, 230), "y": (0, 215, 255), "g": (60, 180, 60), "b": (230, 120, 30)}


def annotate(image: np.ndarray, sightings: Sequence[CardSighting]) -> np.ndarray:
    """A copy of `image` with each sighting's quad outlined and `token 0.97` written by it."""
    out = image.copy()
    scale = max(out.shape[:2]) / 1000.0
    thick = max(2, round(3 * scale))
    for s in sightings:
        colour = _COLOURS.get(s.card[0], (255, 0, 255)) if "_" in s.card else (255, 0, 255)
        quad = np.int32(np.round(s.quad)).reshape(-1, 1, 2)
        cv2.polylines(out, [quad], True, colour, thick, cv2.LINE_AA)
        text = f"{s.card} {s.confidence:.2f}"
        x, y = (int(v) for v in np.min(np.array(s.quad), axis=0))
        y = max(y - 6, int(20 * scale) + 4)
        cv2.putText(out, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.8 * scale, (0, 0, 0),
                    thick + 2, cv2.LINE_AA)
        cv2.putText(out, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.8 * scale, (255, 255, 255),
                    thick, cv2.LINE_AA)
    return out
