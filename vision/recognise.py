"""An image -> the UNO cards seen in it. The public face of `vision`.

    from vision.recognise import recognise
    for s in recognise(cv2.imread("table.jpg")):
        print(s.card, s.confidence, s.center)

Pipeline: `vision.locate` proposes quads from geometry, `vision.rectify` warps each to an upright
white-balanced crop, `vision.classify` reads it with the ONNX model, and overlapping readings are
reduced to the most confident one. Drawing lives in `vision.annotate`, apart from seeing.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.classify import NOT_CARD, CardClassifier, default_classifier
from vision.locate import locate
from vision.rectify import order_quad, rectify

MIN_CONFIDENCE = 0.5
"""Readings less sure than this are dropped (probability of the top token, after the model's
temperature calibration)."""

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class CardSighting:
    """One card face seen in an image.

    `card` is one of the 54 tokens, `confidence` its calibrated probability (0-1), `runner_up`
    the next most likely token; `quad` the four corners in image pixels (clockwise, starting at a
    corner of a short side) and `center` their mean.
    """

    card: str
    confidence: float
    runner_up: str
    quad: tuple[Point, Point, Point, Point]
    center: Point

    def to_json(self) -> dict:
        """The `bruno identify --json` form: coordinates rounded to 0.1 px, confidence to 3 dp."""
        return {
            "card": self.card,
            "confidence": round(float(self.confidence), 3),
            "runner_up": self.runner_up,
            "quad": [[round(x, 1), round(y, 1)] for x, y in self.quad],
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
        }


def _inside(point: np.ndarray, quad: np.ndarray) -> bool:
    return cv2.pointPolygonTest(quad.reshape(-1, 1, 2), (float(point[0]), float(point[1])),
                                False) >= 0


def recognise(image: np.ndarray, classifier: CardClassifier | None = None,
              min_confidence: float = MIN_CONFIDENCE) -> list[CardSighting]:
    """Every card face found in `image` (BGR uint8, any size), most confident first."""
    if image is None or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError("recognise() needs a BGR colour image (H x W x 3 uint8)")
    clf = classifier or default_classifier()
    cands = locate(image)
    if not cands:
        return []
    quads = [order_quad(c.quad) for c in cands]
    probs = clf.probabilities([rectify(image, q) for q in quads])
    labels = clf.labels
    not_card = labels.index(NOT_CARD) if NOT_CARD in labels else -1
    readings = []
    for q, p in zip(quads, probs, strict=True):
        top = int(np.argmax(p))
        if top == not_card or p[top] < min_confidence:
            continue
        card_p = p.copy()
        card_p[top] = -1.0
        if not_card >= 0:
            card_p[not_card] = -1.0
        readings.append((float(p[top]), top, int(np.argmax(card_p)), q))
    readings.sort(key=lambda r: -r[0])
    kept: list[CardSighting] = []
    kept_quads: list[np.ndarray] = []
    for conf, top, second, q in readings:
        c = q.mean(axis=0)
        # One card, one reading: a quad overlapping a surer one is the same card (or a card
        # under it in a pile, of which only edges show).
        if any(_inside(c, k) or _inside(k.mean(axis=0), q) for k in kept_quads):
            continue
        kept_quads.append(q)
        kept.append(CardSighting(
            card=labels[top], confidence=conf, runner_up=labels[second],
            quad=tuple((float(x), float(y)) for x, y in q),  # type: ignore[arg-type]
            center=(float(c[0]), float(c[1])),
        ))
    return kept
