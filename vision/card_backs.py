"""Card backs in a picture of the table: where the draw piles are, and how big a card is.

A UNO back is a red oval, the deck's yellow name across it, on black. The oval is looked for
as a blob of red-or-yellow pixels that is an ellipse, mostly red, with the back's black just
round it, at several brightness levels; a printed deck's name, outlined in black and white,
cuts the oval in two, so two blobs side by side may be one oval. The draw piles are the two
backs most alike in size. How each rule was measured is in vision/NOTEBOOK.md (7 December).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

OVAL_TO_CARD = 1.23
"""A card back's oval is about 0.81 of the card's length (UNO backs), so card = oval x 1.23."""

MIN_OVAL_AREA_FRACTION = 0.0015
"""Red blobs smaller than this fraction of the picture are not card-back ovals."""

MAX_CARD_HEIGHT = 0.35
"""... and none whose card (oval x OVAL_TO_CARD) would be taller than this fraction of the
picture: with both draw piles and the discard pile in view, a card is smaller (webcam games:
0.16-0.18). A red patch of the table as big as half the picture passed for a back."""

OVAL_LEVELS = (60, 100, 140, 180)
"""The oval is looked for among the pixels at least this bright (HSV value), each level in
turn: on a red or dark red table the oval's red runs into the table's at the lowest level
and stands alone, an ellipse, at a higher one; under a dim or cast light only the lower
levels see it."""

OVAL_FIT = 0.75
"""A blob is an oval when it covers its fitted ellipse this well (intersection over union;
the rendered backs' ovals 0.84-0.96, a red table's stripes and patches 0.18-0.32) ..."""

OVAL_MIN_ASPECT = 0.35
"""... that ellipse no thinner than this (short axis over long; a camera leaning 35 degrees
squashes a card a fifth)."""

OVAL_MIN_RED = 0.5
"""At least this share of an oval's pixels are red, the rest the name's yellow (a
yellow card's digit beside a strip of its yellow field passed for an oval on a dark table)."""

OVAL_SOLID = 0.8
"""An oval in one piece is solid: its pixels fill this much of its outline (a red card's
field round its white oval, 0.5 or so, passed for an oval on a dark table)."""

OVAL_SPLIT_GAP = 0.35
"""Two red blobs at most this far apart (of the pair's size) may be one oval cut in two by a
printed deck's name (a real UNO deck's logo, outlined in black and white, crosses the whole
oval)."""

DRAW_PILE_CANDIDATES = 4
"""The draw piles are two of this many largest backs found (`draw_pile_backs`)."""

RING_SCALES = (1.1, 1.15)
"""The back's black is looked for on ellipses this much larger than the oval's, just outside
it and inside the card ..."""

RING_DARK_OF_OVAL = 0.45
"""... where it is darker than this fraction of the oval's brightness (relative, so a lamp, a
cast or an exposure step do not matter) ..."""

RING_DARK_SHARE = 0.5
"""... at this share of the points at least (the rendered backs 0.58-0.9; a red or pink
table round a red patch of itself 0-0.24)."""

DARK_LEVEL = 80
"""HSV value below which a pixel is black card back."""


def card_backs(small: np.ndarray) -> list[tuple[tuple[float, float], float, np.ndarray]]:
    """(centre, card height, oval mask) of each card back seen, largest first (small px).

    A back is a red oval, with the deck's yellow name across it, ringed by the card's black.
    The oval is a blob of red-or-yellow pixels that is an ellipse (OVAL_FIT) with black just
    round it (RING_*), looked for at several brightness levels (OVAL_LEVELS). A fixed level
    and a fixed black found no back on a pink or light brown table (the black margin round
    the oval is a few pixels; beyond it the light table) and the table itself for one on a
    dark red one (vision/NOTEBOOK.md, 7 December)."""
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    hue, sat, val = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    h, w = val.shape
    # The name's yellow is part of the oval: with it the oval is one solid blob.
    red = ((hue <= 10) | (hue >= 170)) & (sat >= 90)
    red_or_yellow = red | (((hue >= 15) & (hue <= 40)) & (sat >= 90))
    min_area = MIN_OVAL_AREA_FRACTION * h * w
    max_long = MAX_CARD_HEIGHT * h / OVAL_TO_CARD
    found = []
    for level in OVAL_LEVELS:
        blobs = cv2.morphologyEx((red_or_yellow & (val >= level)).astype(np.uint8),
                                 cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        _, labels, stats, _ = cv2.connectedComponentsWithStats(blobs)
        for parts in _oval_candidates(stats, min_area, max_long):
            x0 = min(stats[p, cv2.CC_STAT_LEFT] for p in parts)
            y0 = min(stats[p, cv2.CC_STAT_TOP] for p in parts)
            x1 = max(stats[p, cv2.CC_STAT_LEFT] + stats[p, cv2.CC_STAT_WIDTH] for p in parts)
            y1 = max(stats[p, cv2.CC_STAT_TOP] + stats[p, cv2.CC_STAT_HEIGHT] for p in parts)
            mask = np.isin(labels[y0:y1, x0:x1], parts).astype(np.uint8)
            if red[y0:y1, x0:x1][mask > 0].mean() < OVAL_MIN_RED:
                continue  # a yellow card's field, or its digit and a strip of its field
            oval = _oval(mask, whole=len(parts) > 1)
            if oval is None:
                continue
            (cx, cy), axes, angle, fit = oval
            centre = (cx + x0, cy + y0)
            oval_value = float(np.median(val[y0:y1, x0:x1][mask > 0]))
            if not _ringed_by_black(val, centre, axes, angle, oval_value):
                continue
            full = np.zeros((h, w), np.uint8)
            full[y0:y1, x0:x1] = mask
            found.append((fit, (float(centre[0]), float(centre[1])),
                          max(axes) * OVAL_TO_CARD, full))
    # Each oval is found again at the levels above its own: the best fitting blob of it.
    found.sort(key=lambda f: -f[0])
    backs: list[tuple[tuple[float, float], float, np.ndarray]] = []
    for _, centre, card_h, mask in found:
        if all(math.dist(centre, kept[0]) > 0.3 * kept[1] for kept in backs):
            backs.append((centre, card_h, mask))
    backs.sort(key=lambda b: -b[1])
    return backs


def draw_pile_backs(backs: list) -> list:
    """The two of `backs` (`card_backs`, largest first) that are the draw piles: of the
    DRAW_PILE_CANDIDATES largest, the two most alike in size (the larger pair when two are
    as alike). Both piles lie at about the same distance from the camera; a card on the
    discard pile taken for a back (a red card's field cut in two by its white oval, on a dark
    table) lies nearer and looks larger. Fewer than two: as they are."""
    if len(backs) <= 2:
        return backs
    top = backs[:DRAW_PILE_CANDIDATES]
    pairs = [(i, j) for i in range(len(top)) for j in range(i + 1, len(top))]
    i, j = min(pairs, key=lambda p: (round(top[p[0]][1] / top[p[1]][1], 1), p))
    return [top[i], top[j]]


def _oval_candidates(stats: np.ndarray, min_area: float, max_long: float
                     ) -> list[list[int]]:
    """The blobs (connected components, `stats` of OpenCV) that may be an oval: each of a
    size for one, and each pair of blobs that lie side by side and together are of that size
    (a printed deck's name, outlined in black and white, cuts its oval in two)."""
    def box(i: int) -> tuple[int, int, int, int]:
        x, y, bw, bh = (int(v) for v in stats[i, :4])
        return x, y, x + bw, y + bh

    def size(boxes) -> int:
        return max(max(b[2] for b in boxes) - min(b[0] for b in boxes),
                   max(b[3] for b in boxes) - min(b[1] for b in boxes))

    sized = [i for i in range(1, len(stats))
             if stats[i, cv2.CC_STAT_AREA] >= min_area / 2 and size([box(i)]) <= max_long]
    singles = [[i] for i in sized if stats[i, cv2.CC_STAT_AREA] >= min_area]
    pairs = []
    for n, i in enumerate(sized):
        for j in sized[n + 1:]:
            a, b = box(i), box(j)
            gap = max(b[0] - a[2], a[0] - b[2], b[1] - a[3], a[1] - b[3])
            if gap <= OVAL_SPLIT_GAP * size([a, b]) and size([a, b]) <= max_long and \
                    stats[i, cv2.CC_STAT_AREA] + stats[j, cv2.CC_STAT_AREA] >= min_area:
                pairs.append([i, j])
    return singles + pairs


def _oval(mask: np.ndarray, whole: bool = False) -> tuple | None:
    """(centre, axes, angle, fit) of the ellipse fitted to the blob `mask` (its own px), or
    None when the blob is not an ellipse (OVAL_FIT, OVAL_MIN_ASPECT). `whole`: `mask` is two
    parts of one oval; their convex hull is the oval (the band between them filled)."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = cv2.convexHull(np.vstack(contours)) if whole else max(contours, key=cv2.contourArea)
    if len(outline) < 5:
        return None
    centre, axes, angle = cv2.fitEllipse(outline)
    if min(axes) < 4 or min(axes) / max(axes) < OVAL_MIN_ASPECT:
        return None
    if not whole and float(mask.sum()) < OVAL_SOLID * cv2.contourArea(outline):
        return None  # a ring round a hole: a red card's field round its white oval
    pad = 2 + int(max(axes) / 2)  # the fitted ellipse may reach past the blob's box
    blob = np.zeros((mask.shape[0] + 2 * pad, mask.shape[1] + 2 * pad), np.uint8)
    cv2.drawContours(blob, [outline + pad], -1, 1, -1)
    ellipse = np.zeros_like(blob)
    cv2.ellipse(ellipse, ((centre[0] + pad, centre[1] + pad), axes, angle), 1, -1)
    fit = float((blob & ellipse).sum()) / max(float((blob | ellipse).sum()), 1.0)
    return (centre, axes, angle, fit) if fit >= OVAL_FIT else None


def _ringed_by_black(val: np.ndarray, centre: tuple[float, float], axes: tuple[float, float],
                     angle_deg: float, oval_value: float) -> bool:
    """Is the ellipse (`centre`, full `axes`, `angle_deg`) ringed by a back's black just
    outside it (RING_*)? A ring that leaves the picture is not seen whole: no."""
    h, w = val.shape
    t = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    a = math.radians(angle_deg)
    xs, ys = [], []
    for k in RING_SCALES:
        u, v = k * axes[0] / 2 * np.cos(t), k * axes[1] / 2 * np.sin(t)
        xs.append(centre[0] + u * math.cos(a) - v * math.sin(a))
        ys.append(centre[1] + u * math.sin(a) + v * math.cos(a))
    x, y = np.round(np.concatenate(xs)).astype(int), np.round(np.concatenate(ys)).astype(int)
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    if not inside.all():
        return False
    dark = val[y, x].astype(np.float32) < RING_DARK_OF_OVAL * oval_value
    return float(dark.mean()) >= RING_DARK_SHARE
