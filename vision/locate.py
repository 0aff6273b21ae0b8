"""Where might cards be? Candidate card quads from plain image geometry (no learning).

An UNO face is a bright white-bordered rectangle (2:3) around a saturated coloured body. Several
cheap binary views of the image are made (bright vs dark, dark vs bright, saturated vs not,
closed edges); every blob whose outline is close to a 2:3 quadrilateral becomes a candidate.
Candidates overlap and some are not cards: the classifier rejects those (`not_card`) and
`vision.recognise` keeps the best of overlapping ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

DETECT_MAX_SIDE = 640
"""Candidates are searched on a copy shrunk so its long side is at most this many pixels."""

MIN_AREA_FRAC = 0.002
"""Smallest candidate, as a fraction of the image area (a card 30 px high in 640x360)."""

MAX_AREA_FRAC = 0.9
ASPECT_RANGE = (1.15, 2.1)
"""Long side / short side of a candidate. A card is 1.5; 40° of camera tilt stretches or
squashes that by up to about 1.3x."""

MIN_FILL = 0.82
"""Blob area / quad area: rounded corners and a finger or two still pass; an oval (pi/4 = 0.79)
or another blob that is not a quadrilateral does not."""

BODY_TO_CARD = 1.12
"""A blob that is the coloured body inside the white border is this much smaller than the card
(both ways); each candidate is also tried grown by this factor."""

MAX_CANDIDATES = 24
"""At most this many candidates go to the classifier per image (largest first)."""


@dataclass(frozen=True)
class Candidate:
    """A possible card: `quad` is 4x2 float32 in original image pixels; `area` in pixels²."""

    quad: np.ndarray
    area: float


def _masks(small: np.ndarray) -> list[np.ndarray]:
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    grey = cv2.GaussianBlur(grey, (5, 5), 0)
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    sat = cv2.GaussianBlur(hsv[..., 1], (5, 5), 0)
    _, bright = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    _, dark = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    _, colourful = cv2.threshold(sat, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # White: bright and unsaturated (the card border) relative to this image.
    white = ((grey > np.percentile(grey, 60)) & (sat < 70)).astype(np.uint8) * 255
    med = float(np.median(grey))
    edges = cv2.Canny(grey, 0.5 * med + 10, 1.2 * med + 30)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    k = np.ones((5, 5), np.uint8)
    out = []
    for m in (bright, dark, colourful, white):
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, k)
        out.append(cv2.morphologyEx(m, cv2.MORPH_CLOSE, k))
    out.append(edges)
    return out


def _quad_of(contour: np.ndarray) -> np.ndarray | None:
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.04):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4 and cv2.isContourConvex(approx):
            return approx.reshape(4, 2).astype(np.float32)
    return cv2.boxPoints(cv2.minAreaRect(contour)).astype(np.float32)


def _aspect(quad: np.ndarray) -> float:
    side = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    a, b = (side[0] + side[2]) / 2, (side[1] + side[3]) / 2
    return max(a, b) / max(min(a, b), 1e-6)


def _same(q1: np.ndarray, q2: np.ndarray, tol: float) -> bool:
    c1, c2 = q1.mean(axis=0), q2.mean(axis=0)
    s = np.sqrt(cv2.contourArea(q1))
    return bool(np.hypot(*(c1 - c2)) < tol * s and
                abs(cv2.contourArea(q1) / max(cv2.contourArea(q2), 1) - 1) < 0.15)


def locate(image: np.ndarray, max_side: int = DETECT_MAX_SIDE,
           max_candidates: int = MAX_CANDIDATES) -> list[Candidate]:
    """Candidate card quads in `image` (BGR uint8, any size), largest first, in image pixels."""
    h, w = image.shape[:2]
    scale = min(1.0, max_side / max(h, w))
    small = image if scale == 1.0 else cv2.resize(
        image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    sh, sw = small.shape[:2]
    total = float(sh * sw)
    found: list[np.ndarray] = []
    for mask in _masks(small):
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            area = cv2.contourArea(c)
            if not MIN_AREA_FRAC * total <= area <= MAX_AREA_FRAC * total:
                continue
            quad = _quad_of(c)
            qa = cv2.contourArea(quad)
            if qa <= 0 or area / qa < MIN_FILL or not ASPECT_RANGE[0] <= _aspect(quad) <= \
                    ASPECT_RANGE[1]:
                continue
            if any(_same(quad, f, 0.08) for f in found):
                continue
            found.append(quad)
    found.sort(key=lambda q: -cv2.contourArea(q))
    out: list[Candidate] = []
    for q in found[:max_candidates]:
        full = q / scale
        out.append(Candidate(full, float(cv2.contourArea(full))))
        c = full.mean(axis=0)
        grown = c + (full - c) * BODY_TO_CARD
        if not any(_same(grown, f / scale, 0.08) for f in found):
            out.append(Candidate(grown.astype(np.float32), float(cv2.contourArea(grown))))
    return out
