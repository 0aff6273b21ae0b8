"""Which way a card came from: its patch found again, shifted, in the frames before it rested.

A card is carried in from its player's side of the table and slides the last stretch into
place: in the frames just before it came to rest, the card's print lies a few pixels back
along the way it came, towards the hand that brings it. Where two seats' arms hold the card's
place (a reach over the pile at the moment a card lands, two arms merged into one blob), the
arms say little about which of them carried it; the card's own path does.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from vision.pile_shapes import CHANGE_L1
from vision.pixels import l1_distance

PATH_FRAMES = 4
"""The card is looked for in this many frames before it came to rest (0.13 s at 30 fps: the
slide into place; earlier it is mostly under the hand or outside the pile region)."""

PATH_MIN_FRAMES = 2
"""... and seen sliding in at least this many of them: in one alone, a hand's print or a
card beside it may match the card's by chance."""

PATH_SEARCH_CARDS = 0.5
"""... shifted by up to this many card heights (the last frames of a slide move it a few
pixels each)."""

PATH_MIN_MATCH = 0.4
"""A frame shows the card shifted when this fraction of its patch's pixels match the card at
rest (within CHANGE_L1) at the best shift; the hand that carries it covers part of it."""

PATH_MIN_GAIN = 0.1
"""... and this much more of it than unshifted (a card already in place, or not yet seen, has
no best shift worth the name)."""

PATH_MIN_SHIFT_PX = 2.0
"""... and the shift is at least this long (analysis pixels): a pixel or so is the video's
flicker, not a slide."""

PIXEL_STEP = 2
"""The card's pixels are compared every this many each way."""

MIN_IN_REGION = 0.6
"""A shift is tried only while this much of the shifted patch stays inside the pile region."""


def card_path_angle(history: Iterable[tuple[float, np.ndarray]], hull: np.ndarray,
                    rest_t: float, card_height_px: float, pile: np.ndarray) -> float | None:
    """The direction (image degrees, 0..360, x right and y down) from the card's rest place
    back along the way it came in, from the pile region's crops `history` ((t, crop) pairs,
    oldest first, the one at `rest_t` among them), its patch `hull` (bool, region pixels)
    and `pile`, the region as it was before the card came; None when no frame shows it
    sliding in. Only what differs from `pile` can be the card on its way: a card laid on its
    twin (a jump-in) matches the one under it, a few pixels off, as well."""
    frames = list(history)
    rest = next((crop for t, crop in frames if t == rest_t), None)
    if rest is None:
        return None
    before = [crop for t, crop in frames if t < rest_t][-PATH_FRAMES:]
    radius = max(1, round(PATH_SEARCH_CARDS * card_height_px))
    ys, xs = np.nonzero(hull)
    box = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
    mask = hull[box[1]:box[3], box[0]:box[2]]
    card = rest[box[1]:box[3], box[0]:box[2]]
    vx = vy = 0.0
    slid = 0
    for crop in before:
        new = l1_distance(crop, pile) > CHANGE_L1
        found = _best_shift(crop, new, card, box, mask, radius)
        if found is None:
            continue
        score, dx, dy = found
        slid += 1
        length = math.hypot(dx, dy)
        vx += score * dx / length
        vy += score * dy / length
    if slid < PATH_MIN_FRAMES or (vx == 0.0 and vy == 0.0):
        return None
    return math.degrees(math.atan2(vy, vx)) % 360.0


def _best_shift(crop: np.ndarray, new: np.ndarray, card: np.ndarray,
                box: tuple[int, int, int, int], mask: np.ndarray, radius: int
                ) -> tuple[float, int, int] | None:
    """(score, dx, dy): where in `crop` (of its pixels `new`, those that differ from the pile
    before the card) the card at rest (`card`, its patch's bounding `box` (x0, y0, x1, y1)
    of the region, `mask` its pixels there) matches best, shifted by (dx, dy), when that is
    a slide (PATH_MIN_MATCH, PATH_MIN_GAIN, PATH_MIN_SHIFT_PX); else
    None. All shifts at once, as windows onto `crop` padded by `radius` (cut out pixel by
    pixel, shift by shift, it cost 0.6 s a card)."""
    x0, y0, x1, y1 = box
    h, w = mask.shape
    r = radius
    padded = np.pad(crop, ((r, r), (r, r), (0, 0)))[y0:y1 + 2 * r, x0:x1 + 2 * r]
    seen = np.pad(new, r)[y0:y1 + 2 * r, x0:x1 + 2 * r]  # outside the region: False
    # Every other pixel of the card each way is as good a sample of it, at a quarter the cost.
    step = (slice(None), slice(None), slice(None, None, PIXEL_STEP), slice(None, None, PIXEL_STEP))
    mask, card = mask[::PIXEL_STEP, ::PIXEL_STEP], card[::PIXEL_STEP, ::PIXEL_STEP]
    distance = np.zeros((2 * r + 1, 2 * r + 1, *mask.shape), np.float32)
    for channel in range(crop.shape[2]):
        windows = sliding_window_view(padded[..., channel], (h, w))[step]
        distance += np.abs(windows - card[..., channel])
    inside = (sliding_window_view(np.pad(np.ones(new.shape, bool), r)[y0:y1 + 2 * r,
                                                                      x0:x1 + 2 * r],
                                  (h, w))[step] & mask).sum(axis=(2, 3))
    changed = sliding_window_view(seen, (h, w))[step] & mask
    close = ((distance <= CHANGE_L1) & changed).sum(axis=(2, 3))
    total = int(mask.sum())
    score = close / total
    dy, dx = np.mgrid[-r:r + 1, -r:r + 1]
    score[(dx * dx + dy * dy > r * r) | (inside < MIN_IN_REGION * total)] = 0.0
    best = np.unravel_index(int(np.argmax(score)), score.shape)
    found = (float(score[best]), int(dx[best]), int(dy[best]))
    if found[0] < PATH_MIN_MATCH or found[0] < float(score[r, r]) + PATH_MIN_GAIN \
            or math.hypot(found[1], found[2]) < PATH_MIN_SHIFT_PX:
        return None
    return found
