"""Pixel and shape tests the pile watcher (`vision.pile_watcher`) makes of its patches: what
differs, what is card-sized, what light alone explains, a patch's colour."""

from __future__ import annotations

import cv2
import numpy as np

CHANGE_L1 = 60.0
"""A pixel differs from the reference pile when its colour differs by more than this: a new
card's print does; a soft shadow (< 20 % darker) on most tables does not."""

LIGHT_MAX_CHROMA = 0.03
"""A card-shaped change whose pixels keep their colour (median chromaticity change, L1, below
this) ..."""

LIGHT_MAX_RATIO_SPREAD = 0.12
"""... and whose brightness changed by much the same factor everywhere (interquartile range
of the ratio below this fraction of it) is a shadow or glare over the top card."""

GLARE_MAX_CHROMA = 0.08
"""A card-shaped change whose pixels keep their colour this well (median chromaticity change)
..."""

GLARE_MAX_SPREAD = 0.3
"""... and whose brightness changed by a factor that varies smoothly over it (a quadratic in x
and y fits the log of the factor to an interquartile range below this) is a glare spot or a
hotspot moving over the pile. A glare crossing a webcam's pile (the tilted test clip's, 4.7
s): 0.030 and 0.125; the 62 new cards of overhead games 301-302: at least 0.245 and 0.41 (a
card's print changes colour and brightness from pixel to pixel). Looser than the even
light's bounds because a glare's edge mixes with blur and compression."""

GLARE_MAX_RESIDUAL = 45.0
"""A changed pixel is the pile under added light (`explained_by_glare`) when the smooth
light explains it to within this (summed over its three channels) ..."""

GLARE_GAIN_RANGE = (0.6, 1.6)
"""... with the print's own contrast scaled by a factor in this range on the median ..."""

GLARE_MIN_FIT = 0.85
"""... at this fraction of the changed pixels no channel of which clipped ..."""

GLARE_MIN_ADDED = 10.0
"""... which got brighter by at least this much on the median (a glare adds light) ..."""

GLARE_MIN_PIXELS = 24
"""... and there are at least this many of them to judge by."""

SATURATED = 0.25
"""A pixel whose channels spread this much ((max - min) / sum) shows a card's colour, not its
white, its black or a grey table ..."""

MIN_SATURATED = 0.2
"""... and a patch with at least this fraction of such pixels has a colour of its own ..."""

READ_CARD_SIZE_TOLERANCE = 0.2
"""A patch whose sides are a card's within this fraction is the whole card: it is read as it
is (the reader's first look is then the card's own outline; in a crop enlarged to
READ_MIN_CARDS the card is a smaller part, with the edges of others around it). Rendered
footage: the demo's reads right 92 % -> 97 %. The fraction takes in a card seen up to ~25
degrees off overhead and the patch's pixel steps."""


def best_card_rect(mask: np.ndarray, card_long: float, step_deg: int = 4
                    ) -> tuple[float, tuple]:
    """(pixels of `mask` covered, cv2 rotated rect) for the card-sized rectangle that covers
    most of `mask`: one box filter per angle."""
    size = int(np.ceil(card_long * 1.3)) | 1
    centre = (size - 1) / 2
    image = mask.astype(np.float32)
    best: tuple[float, tuple] = (-1.0, ((0.0, 0.0), (0.0, 0.0), 0.0))
    for angle in range(0, 180, step_deg):
        kernel = np.zeros((size, size), np.float32)
        corners = cv2.boxPoints(((centre, centre), (card_long * 2 / 3, card_long), angle))
        cv2.fillConvexPoly(kernel, np.round(corners).astype(np.int32), 1.0)
        covered = cv2.filter2D(image, -1, kernel, borderType=cv2.BORDER_CONSTANT)
        y, x = np.unravel_index(int(covered.argmax()), covered.shape)
        if covered[y, x] > best[0]:
            best = (float(covered[y, x]),
                    ((float(x), float(y)), (card_long * 2 / 3, card_long), float(angle)))
    return best


def card_sized(w: float, h: float, card_long: float) -> bool:
    """Is a w x h patch one card of `card_long` height, within READ_CARD_SIZE_TOLERANCE?"""
    short, long = sorted((w, h))
    return abs(long / card_long - 1) <= READ_CARD_SIZE_TOLERANCE and \
        abs(short / (card_long * 2 / 3) - 1) <= READ_CARD_SIZE_TOLERANCE


def grown(mask: np.ndarray, px: int) -> np.ndarray:
    """`mask` (bool) grown by `px` pixels each way (a square of side 2 * px + 1)."""
    return cv2.dilate(mask.astype(np.uint8), np.ones((2 * px + 1, 2 * px + 1), np.uint8)) > 0


def matches(a: np.ndarray, b: np.ndarray, mask: np.ndarray, fraction: float,
             tolerance: float = CHANGE_L1) -> bool:
    return bool((np.abs(a[mask] - b[mask]).sum(axis=1) <= tolerance).mean() >= fraction)


def explained_by_light(now: np.ndarray, before: np.ndarray,
                        where: np.ndarray | None = None) -> bool:
    """True when `now` (N x 3 pixels) is `before` under other light: every pixel's colour is
    the same and its brightness changed by about the same factor, or (with `where`, the
    pixels' N x 2 places in card heights) by a factor that varies smoothly over the patch (a
    quadratic in x and y): a glare spot or a lamp's hotspot passing over the pile brightens
    its middle more than its rim, and a card's print changes colour and brightness from pixel
    to pixel."""
    sum_now = now.sum(axis=1) + 1.0
    sum_before = before.sum(axis=1) + 1.0
    chroma = float(np.median(np.abs(now / sum_now[:, None] - before / sum_before[:, None])
                             .sum(axis=1)))
    ratio = np.log(sum_now / sum_before)
    if chroma < LIGHT_MAX_CHROMA and np.subtract(*np.percentile(ratio, [75, 25])) < \
            LIGHT_MAX_RATIO_SPREAD:
        return True  # a lamp or a shadow: the same factor everywhere
    if where is None or len(ratio) < 12 or chroma >= GLARE_MAX_CHROMA:
        return False
    x, y = where[:, 0], where[:, 1]
    terms = np.column_stack([np.ones_like(x), x, y, x * x, x * y, y * y])
    fit, *_ = np.linalg.lstsq(terms, ratio, rcond=None)
    return bool(np.subtract(*np.percentile(ratio - terms @ fit, [75, 25])) < GLARE_MAX_SPREAD)


def explained_by_glare(now: np.ndarray, before: np.ndarray, where: np.ndarray) -> bool:
    """True when `now` (N x 3 pixels, none of them clipped, at `where`, their N x 2 places in
    card heights) is `before` with light added and scaled by amounts that vary smoothly over
    the patch: `now = k * before + s`, k and s each a quadratic in x and y, s >= 0 on the
    median. A glare is the lamp mirrored in the cards' gloss: it adds light (whitening the
    print, so its chromaticity changes beyond `GLARE_MAX_CHROMA`: rendered webcam game 441,
    49.7 s, 0.10) and brightens the middle of the spot more than its rim, but it cannot draw
    a new print: a card's border against its body, its numeral against its oval, change from
    pixel to pixel where what lay there before did not, and no smooth light makes that."""
    if len(now) < GLARE_MIN_PIXELS:
        return False
    x, y = where[:, 0], where[:, 1]
    terms = np.column_stack([np.ones_like(x), x, y, x * x, x * y, y * y])
    design = np.vstack([np.hstack([terms * before[:, c, None], terms]) for c in range(3)])
    fit, *_ = np.linalg.lstsq(design, now.T.reshape(-1), rcond=None)
    residual = np.abs(now.T.reshape(-1) - design @ fit).reshape(3, -1).sum(axis=0)
    gain, added = terms @ fit[:6], terms @ fit[6:]
    # The print stays at about its own strength under the light: a gain near 0 would make
    # any patch out of a flat one (a card's place on the bare table, seen the other way round).
    low, high = GLARE_GAIN_RANGE
    return bool((residual <= GLARE_MAX_RESIDUAL).mean() >= GLARE_MIN_FIT
                and low <= np.median(gain) <= high and np.median(added) >= GLARE_MIN_ADDED)


def glare_came_or_went(now: np.ndarray, before: np.ndarray, where: np.ndarray) -> bool:
    """`explained_by_glare` asked both ways round: a glare coming over the pile, or one
    leaving it that the reference had taken in."""
    return explained_by_glare(now, before, where) or explained_by_glare(before, now, where)


def card_colour(pixels: np.ndarray) -> np.ndarray | None:
    """The median chromaticity (B, G, R shares) of the coloured ones of `pixels` (N x 3), or
    None when too few are coloured to say."""
    total = pixels.sum(axis=1) + 1.0
    coloured = (pixels.max(axis=1) - pixels.min(axis=1)) / total >= SATURATED
    if coloured.mean() < MIN_SATURATED:
        return None
    return np.median(pixels[coloured] / total[coloured, None], axis=0)


def share_inside(a: np.ndarray, b: np.ndarray) -> float:
    """The share of mask `a`'s pixels that lie in mask `b` grown by a pixel (0 for an empty `a`)."""
    return float((a & grown(b, 1)).sum()) / max(int(a.sum()), 1)


def iou(a: np.ndarray, b: np.ndarray) -> float:
    union = (a | b).sum()
    return float((a & b).sum() / union) if union else 0.0
