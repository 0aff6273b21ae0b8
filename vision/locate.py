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

DETECT_MAX_SIDE = 512
"""Candidates are searched on a copy shrunk so its long side is at most this many pixels."""

MIN_AREA_FRAC = 0.002
"""Smallest candidate, as a fraction of the image area (a card about 25 px high in 512x288)."""

MAX_AREA_FRAC = 0.9
ASPECT_RANGE = (1.15, 2.1)
"""Long side / short side of a candidate. A card is 1.5; 40° of camera tilt stretches or
squashes that by up to about 1.3x."""

CARD_ASPECT = (1.3, 1.75)
"""Long/short side of a quad shaped like a whole card (a card is 1.55; the rest is a few
degrees of tilt), narrower than ASPECT_RANGE, which also lets through parts of cards and
cards seen steeply."""

MIN_SOLIDITY = 0.35
"""Blob area / its convex hull's area: the sunburst disc bites deep into a card's coloured body,
but a blob must still be more than a thin outline."""

MIN_FILL = 0.82
"""Hull area / quad area: rounded corners and a finger or two still pass; an oval (pi/4 = 0.79)
or another blob that is not a quadrilateral does not."""

BODY_TO_CARD = 1.12
"""A blob that is the coloured body inside the white border is this much smaller than the card
(both ways); each candidate is also tried grown by this factor."""

MAX_CANDIDATES = 28
"""At most this many located quads (largest first), each also tried grown by BODY_TO_CARD, go
to the classifier per image. It was 12: on a striped or checked table the bands of the cloth
make large card-shaped blobs that took every slot (rendered three-card scenes, seeds 9001-9080:
192 of 240 cards found with 12, 204 with 20; the real photos gained a few, lost none); a busy
frame costs more (a pile and four cards: 77 -> 106 ms), a frame with one card the same. 20 ->
28 (with the faint-edge view): the rendered scenes 215 -> 220 found, wrong readings 1 either
way; the trained-on Hemant frames and the bare tables the same; the benchmark's frames locate
37 quads instead of 35 and take the same time."""

FAINT_EDGE_THRESHOLDS = (15, 45)
"""Canny's thresholds for a second edge view, fixed. The first view's thresholds grow with the
image's median brightness, and on a pale table (median grey about 200) they asked for a step
of 270 grey levels: a white card against a light grey or pale blue table (a step of 20-40)
gave no outline at all. Rendered three-card scenes (seeds 9001-9080): 206 -> 215 of 240 cards
found, wrong readings the same; trained-on Hemant webcam frames 96.8% -> 97.7% found, one
wrong card fewer; no card read on the held-out bare tables, as before."""

SAME_TOL = 0.12
"""Two quads are the same candidate when their centres are closer than this fraction of the
card's size and their areas differ by less than 20%."""


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
    faint_edges = cv2.Canny(grey, *FAINT_EDGE_THRESHOLDS)
    k = np.ones((5, 5), np.uint8)
    out = []
    for m in (bright, dark, colourful, white):
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, k)
        out.append(cv2.morphologyEx(m, cv2.MORPH_CLOSE, k))
    out += [cv2.dilate(e, np.ones((3, 3), np.uint8)) for e in (edges, faint_edges)]
    return out


def quad_of(contour: np.ndarray) -> np.ndarray:
    """The four corners of a contour: its hull simplified to four points when it has that
    shape, else its smallest enclosing rectangle."""
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.04):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4 and cv2.isContourConvex(approx):
            return approx.reshape(4, 2).astype(np.float32)
    return cv2.boxPoints(cv2.minAreaRect(contour)).astype(np.float32)


def long_side(quad: np.ndarray) -> float:
    """The longer of a quad's two side lengths (the mean of each pair of opposite sides)."""
    side = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    return float(max((side[0] + side[2]) / 2, (side[1] + side[3]) / 2))


def quad_aspect(quad: np.ndarray) -> float:
    """Long side over short side of a quad (the mean of each pair of opposite sides)."""
    side = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    a, b = (side[0] + side[2]) / 2, (side[1] + side[3]) / 2
    return max(a, b) / max(min(a, b), 1e-6)


class _Seen:
    """Quads kept so far, with centres and areas in arrays for a quick "same as" test."""

    def __init__(self) -> None:
        self.quads: list[np.ndarray] = []
        self.centres = np.zeros((0, 2), np.float32)
        self.areas = np.zeros(0, np.float32)

    def has(self, quad: np.ndarray, tol: float = SAME_TOL) -> bool:
        if not self.quads:
            return False
        area = abs(float(cv2.contourArea(quad)))
        d = np.hypot(*(self.centres - quad.mean(axis=0)).T)
        same = (d < tol * np.sqrt(area)) & (np.abs(self.areas / max(area, 1.0) - 1) < 0.2)
        return bool(same.any())

    def add(self, quad: np.ndarray) -> None:
        self.quads.append(quad)
        self.centres = np.vstack([self.centres, quad.mean(axis=0)[None]])
        self.areas = np.append(self.areas, abs(float(cv2.contourArea(quad))))


def _touches_border(contour: np.ndarray, w: int, h: int, margin: int = 2) -> bool:
    x, y, bw, bh = cv2.boundingRect(contour)
    return x <= margin or y <= margin or x + bw >= w - margin or y + bh >= h - margin


def _complete_cut_card(quad: np.ndarray, w: int, h: int) -> np.ndarray | None:
    """A card cut off by the image edge, grown back to 2:3 past that edge.

    The visible part's rectangle keeps its side along the cut; the other side is lengthened (or
    the cut side widened) so the long/short ratio is the card's 1.5, moving away from whichever
    image edges the part touches. None when the part does not reach an edge.
    """
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(quad.reshape(-1, 1, 2))
    long_, short = max(rw, rh), min(rw, rh)
    if short <= 0:
        return None
    box = cv2.boxPoints(((cx, cy), (rw, rh), ang)).astype(np.float32)
    c = np.float32([cx, cy])
    out_dir = np.float32([0, 0])  # towards the edges it is cut at
    for i, (lo, hi) in enumerate(((0, w - 1), (0, h - 1))):
        if box[:, i].min() <= lo + 2:
            out_dir[i] -= 1
        if box[:, i].max() >= hi - 2:
            out_dir[i] += 1
    if not out_dir.any():
        return None
    # Axis unit vectors of the rectangle, long first.
    e0 = box[1] - box[0]
    e1 = box[2] - box[1]
    u_long, u_short = (e0, e1) if np.linalg.norm(e0) >= np.linalg.norm(e1) else (e1, e0)
    u_long = u_long / np.linalg.norm(u_long)
    u_short = u_short / np.linalg.norm(u_short)
    if long_ / short < 1.5:   # cut across its length: lengthen
        grow, axis = 1.5 * short - long_, u_long
        new_long, new_short = 1.5 * short, short
    else:                     # cut along its length: widen
        grow, axis = long_ / 1.5 - short, u_short
        new_long, new_short = long_, long_ / 1.5
    sign = 1.0 if float(np.dot(axis, out_dir)) >= 0 else -1.0
    c = c + axis * sign * grow / 2
    hl, hs = u_long * new_long / 2, u_short * new_short / 2
    return np.float32([c - hl - hs, c - hl + hs, c + hl + hs, c + hl - hs])


def locate(image: np.ndarray, max_side: int = DETECT_MAX_SIDE,
           max_candidates: int = MAX_CANDIDATES) -> list[Candidate]:
    """Candidate card quads in `image` (BGR uint8, any size), largest first, in image pixels.

    Quads may reach outside the image when a card is cut off by its edge.
    """
    h, w = image.shape[:2]
    scale = min(1.0, max_side / max(h, w))
    small = image if scale == 1.0 else cv2.resize(  # (a strip of a photo keeps a pixel)
        image, (max(1, round(w * scale)), max(1, round(h * scale))),
        interpolation=cv2.INTER_AREA)
    sh, sw = small.shape[:2]
    total = float(sh * sw)
    seen = _Seen()

    def add(quad: np.ndarray) -> None:
        if ASPECT_RANGE[0] <= quad_aspect(quad) <= ASPECT_RANGE[1] and not seen.has(quad):
            seen.add(quad)

    for mask in _masks(small):
        contours, _ = cv2.findContours(mask, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            area = cv2.contourArea(c)
            if not MIN_AREA_FRAC * total <= area <= MAX_AREA_FRAC * total:
                continue
            hull = cv2.convexHull(c)
            hull_area = cv2.contourArea(hull)
            if area < MIN_SOLIDITY * hull_area:
                continue
            quad = quad_of(hull)
            qa = cv2.contourArea(quad)
            if qa <= 0 or hull_area / qa < MIN_FILL:
                continue
            if _touches_border(c, sw, sh):
                grown = _complete_cut_card(quad, sw, sh)
                if grown is not None:
                    add(grown)
            add(quad)
    # The sunburst disc cuts a card's coloured body into a top and a bottom part; two similar
    # parts stacked end to end make one card candidate.
    parts = list(seen.quads)
    areas = seen.areas.copy()
    centres = seen.centres.copy()
    for i, a in enumerate(parts):
        ratio = areas[i] / np.maximum(areas[i + 1:], 1.0)
        gap = np.hypot(*(centres[i + 1:] - centres[i]).T)
        near = (ratio > 0.6) & (ratio < 1.6) & (gap < 2.5 * np.sqrt(areas[i]))
        for j in np.nonzero(near)[0] + i + 1:
            b = parts[j]
            hull = cv2.convexHull(np.vstack([a, b]).reshape(-1, 1, 2))
            q = quad_of(hull)
            qa = cv2.contourArea(q)
            # Parts span the card's width: each part's long side is the card's short side.
            short = min(np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1))
            if cv2.contourArea(hull) / max(qa, 1.0) >= MIN_FILL and \
                    qa < 4 * (areas[i] + areas[j]) and \
                    all(abs(long_side(p) / max(short, 1.0) - 1) < 0.25 for p in (a, b)):
                add(q)
    order = np.argsort(-seen.areas)[:max_candidates]
    out: list[Candidate] = []
    for i in order:
        q = seen.quads[i]
        out.append(Candidate(q / scale, float(seen.areas[i]) / scale**2))
        c = q.mean(axis=0)
        grown = (c + (q - c) * BODY_TO_CARD).astype(np.float32)
        if not seen.has(grown):
            out.append(Candidate(grown / scale, float(cv2.contourArea(grown)) / scale**2))
    return out
