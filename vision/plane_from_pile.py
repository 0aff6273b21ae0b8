"""The table's shape at the discard pile, from the outlines of the cards on the table (issue 22).

Where the draw piles' backs give no table plane (`vision.plane_from_backs`: a table as dark as
the backs hides their outline, or the few outlines found fit no camera), a face-up card on
the pile still shows its white border against the table. A card's outline is a 2:3
rectangle seen through the camera, and near the pile the camera's view of the table is, to a
few per cent, a linear map: the one that makes every outline a 2:3 rectangle again (its
symmetric part; a turn and a scale are the table's own) is the table's shape there. The
backs' outlines that gave no plane count too. It leaves the perspective (a far card looks
smaller) where it was, which the pile, a card or two wide, hardly shows; what it takes out is
the squash that makes a card read wrong: the 640x480 webcam games, whose table looks a
third deeper than it is (a 16:9 picture squeezed into 4:3 on top of the camera's lean), read
72 % of their cards right without a profile where the others read 93 %.

A pile of several cards askew has no card outline, only their union; a face on a white table
no white border against it. Then the backs alone decide, and without them the picture is
watched as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.camera_calibration import white_balanced

REACH_CARDS = 1.5
"""A card outline is looked for this many card heights round the pile's centre."""

WHITE_SAT = 70
"""A card's border is paper: saturation under this (0-255), after the white balance ..."""

WHITE_OF_PAPER = 0.65
"""... and at least this share of the paper's brightness (the window's 99th percentile)."""

OUTLINE_AREA_CARDS = (0.4, 2.0)
"""An outline's area, in card areas of the size the proposal in the picture takes (the
backs' times vision.plane_from_backs.PICTURE_CARD_SCALE, within 15 % of the pile card's)."""

MIN_HULL_IN_QUAD = 0.93
"""The white blob's convex hull must fill its four-sided outline this well: a fan of two
cards, or a card and its neighbour's corner, is no parallelogram."""

PARALLEL_TOLERANCE = 0.12
"""Opposite sides of a card's outline (a face's here, a back's in vision.plane_from_backs)
differ in length by at most this fraction."""

MAX_RESIDUAL = 0.07
"""The fitted shape must make every outline a 2:3 rectangle to within this (RMS of the
corners' cosines and the aspects' errors): more, and the outlines disagree (one of them a
blob of two cards). Looser than vision.plane_from_backs.MAX_RESIDUAL: one linear map cannot
take out the perspective between the two draw piles a table apart (up to 0.065 on the
rendered webcam games whose piles were both outlined)."""

MIN_LEAN = 1.25
"""A table squashed less than this is watched as the picture shows it: the card reader
copes with it. (On the 21 rendered 16:9 webcam games of five development sets, squashed
1.10-1.13 at the pile, the picture was read as well as the table's shape (7 cards wrong
either way; two plays more found, five more phantoms); on two 640x480 games squashed 1.5,
16 cards wrong became 4. vision/NOTEBOOK.md, 7 December, nineteenth session.)"""

MAX_LEAN = 1.8
"""... and one squashed more than this is a misfit. Higher than the backs' bound: a cheap
webcam's 640x480 picture may be its 16:9 sensor squeezed, on top of the camera's lean."""

CARD_ASPECT = 2 / 3
"""A card's short side over its long side."""

START_SQUASHES = (0.6, 0.8, 1.0, 1.25, 1.6)
"""The fit starts from the picture stretched this much down its height (either way)."""

SAME_FIT = 0.005
"""Fits whose RMS is within this of the best fit's explain the outlines as well."""


def pile_card_outlines(image: np.ndarray, pile_centre: tuple[float, float], card_h: float
                       ) -> list[np.ndarray]:
    """The four corners (float64 4x2, picture pixels) of each lone card face near
    `pile_centre` in `image` (BGR): a white blob, card-sized for `card_h` (picture px),
    whose outline is a clean parallelogram."""
    h, w = image.shape[:2]
    reach = REACH_CARDS * card_h
    x0, y0 = int(max(0, pile_centre[0] - reach)), int(max(0, pile_centre[1] - reach))
    x1, y1 = int(min(w, pile_centre[0] + reach)), int(min(h, pile_centre[1] + reach))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return []
    hsv = cv2.cvtColor(white_balanced(image[y0:y1, x0:x1]), cv2.COLOR_BGR2HSV)
    value = hsv[..., 2].astype(np.float32)
    white = ((hsv[..., 1] < WHITE_SAT) & (value > WHITE_OF_PAPER * np.percentile(value, 99)))
    contours, _ = cv2.findContours(white.astype(np.uint8), cv2.RETR_EXTERNAL,
                                   cv2.CHAIN_APPROX_NONE)
    card_area = card_h * card_h * CARD_ASPECT
    outlines = []
    for contour in contours:
        quad = _parallelogram(contour, card_area, (y1 - y0, x1 - x0))
        if quad is not None:
            outlines.append(quad + np.float64([x0, y0]))
    return outlines


def _parallelogram(contour: np.ndarray, card_area: float, size: tuple[int, int]
                   ) -> np.ndarray | None:
    """The four-sided outline of `contour` when it is a card-sized parallelogram that does not
    run out of its window (`size`, h x w), else None."""
    hull = cv2.convexHull(contour)
    area = cv2.contourArea(hull)
    if not OUTLINE_AREA_CARDS[0] * card_area < area < OUTLINE_AREA_CARDS[1] * card_area:
        return None
    h, w = size
    points = hull.reshape(-1, 2)
    if points.min() <= 1 or (points[:, 0] >= w - 2).any() or (points[:, 1] >= h - 2).any():
        return None  # cut by the window: a card beside the pile, or a hand's sleeve
    quad = cv2.approxPolyN(hull.astype(np.float32), 4, epsilon_percentage=-1,
                           ensure_convex=True).reshape(-1, 2).astype(np.float64)
    if len(quad) != 4 or area < MIN_HULL_IN_QUAD * cv2.contourArea(quad.astype(np.float32)):
        return None
    return quad if opposite_sides_agree(quad) else None


def opposite_sides_agree(quad: np.ndarray) -> bool:
    """Do the opposite sides of `quad` (4x2, in order round it) differ in length by at most
    PARALLEL_TOLERANCE?"""
    sides = [np.linalg.norm(quad[(i + 1) % 4] - quad[i]) for i in range(4)]
    return all(abs(a - b) <= PARALLEL_TOLERANCE * max(a, b)
               for a, b in ((sides[0], sides[2]), (sides[1], sides[3])))


def rectangle_errors(mapped: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each outline of `mapped` (n x 4 x 2, corners in order round it): the cosine of its
    corner (0 for a rectangle), its short side over its long one less CARD_ASPECT, and its
    long side (opposite sides averaged)."""
    first = ((mapped[:, 1] - mapped[:, 0]) + (mapped[:, 2] - mapped[:, 3])) / 2
    second = ((mapped[:, 3] - mapped[:, 0]) + (mapped[:, 2] - mapped[:, 1])) / 2
    n1, n2 = np.linalg.norm(first, axis=1), np.linalg.norm(second, axis=1)
    return ((first * second).sum(axis=1) / (n1 * n2),
            np.minimum(n1, n2) / np.maximum(n1, n2) - CARD_ASPECT, np.maximum(n1, n2))


def table_shape(outlines: Sequence[np.ndarray]) -> tuple[np.ndarray, float] | None:
    """(2x2 symmetric map that makes every outline of `outlines` a 2:3 rectangle, the RMS of
    what is left), by Gauss-Newton from the identity; None without outlines or when the map
    would turn the picture over."""
    if not outlines:
        return None
    quads = np.stack([clockwise(q) for q in outlines])
    quads = quads - quads.mean(axis=1, keepdims=True)
    quads /= np.abs(quads).max()

    def residuals(params: np.ndarray) -> np.ndarray:
        b, d = params
        corner, aspect, _ = rectangle_errors(quads @ np.array([[1.0, b], [b, d]]).T)
        return np.concatenate([corner, aspect])

    def refined(params: np.ndarray) -> np.ndarray:
        for _ in range(30):
            r = residuals(params)
            jacobian = np.empty((len(r), 2))
            for k in range(2):
                step = np.zeros(2)
                step[k] = 1e-6
                jacobian[:, k] = (residuals(params + step) - r) / 1e-6
            move = np.linalg.lstsq(jacobian, -r, rcond=None)[0]
            params = params + move
            if not np.isfinite(params).all() or np.abs(move).max() < 1e-9:
                break
        return params

    # From several squashes: a card squashed past square turns its long side, and from the
    # identity alone the fit may end at a card turned the other way.
    fits = [refined(np.array([0.0, d0])) for d0 in START_SQUASHES]
    fits = [(p, float(np.sqrt((residuals(p) ** 2).mean()))) for p in fits
            if np.isfinite(p).all() and p[1] > 0 and p[1] >= p[0] ** 2]
    if not fits:
        return None
    # Of the fits as good as the best, the mildest: one outline is made a 2:3 rectangle by
    # more than one map (its long side either way).
    best = min(rms for _, rms in fits)
    (b, d), rms = min((f for f in fits if f[1] <= best + SAME_FIT),
                      key=lambda f: squash(np.array([[1.0, f[0][0]], [f[0][0], f[0][1]]])))
    return np.array([[1.0, b], [b, d]]), rms


def squash(linear: np.ndarray) -> float:
    """How much `linear` (2x2) squashes: the ratio of its two stretches."""
    stretches = np.linalg.svd(linear, compute_uv=False)
    return float(stretches[0] / stretches[1])


def clockwise(quad: np.ndarray) -> np.ndarray:
    """The corners in order round the outline (clockwise on the picture)."""
    centre = quad.mean(axis=0)
    return quad[np.argsort(np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0]))]


def shape_at_pile(images: Sequence[np.ndarray], pile_centre: tuple[float, float],
                  card_h: float, backs: Sequence[np.ndarray] = ()
                  ) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """(3x3 linear map of picture pixels that undoes the table's squash at the pile, the lone
    face-up cards' outlines on the pile) from those outlines in `images` and the draw piles'
    backs' outlines `backs`; None when there are none, they disagree (MAX_RESIDUAL), or the
    table is seen as the reader can read it (MIN_LEAN) or not as a camera sees it
    (MAX_LEAN)."""
    pile_cards = [q for image in images for q in pile_card_outlines(image, pile_centre, card_h)]
    fitted = table_shape([*pile_cards, *backs])
    if fitted is None or fitted[1] > MAX_RESIDUAL:
        return None
    linear, _ = fitted
    if not MIN_LEAN <= squash(linear) <= MAX_LEAN:
        return None
    pixels = np.eye(3)
    pixels[:2, :2] = linear
    return pixels, pile_cards


def card_height_in(pixels: np.ndarray, outlines: Sequence[np.ndarray]) -> float:
    """The median long side of `outlines` (picture px) mapped by `pixels` (3x3)."""
    sides = []
    for quad in outlines:
        mapped = cv2.perspectiveTransform(np.float32(clockwise(quad)).reshape(-1, 1, 2),
                                          pixels).reshape(4, 2)
        sides.append(max(np.linalg.norm(mapped[1] - mapped[0]),
                         np.linalg.norm(mapped[2] - mapped[1])))
    return float(np.median(sides))
