"""Card quads -> canonical upright crops, with the card's own white border as white reference.

A crop is `CROP_H` x `CROP_W` BGR uint8, portrait. The rectifier fixes portrait vs landscape
(the long side becomes vertical); whether the card is upright or turned 180° is left to the
classifier, which is trained on both.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

CROP_W = 64
CROP_H = 96
"""Canonical crop size in pixels (2:3, like the card)."""

WHITE_TARGET = 235.0
"""Grey level (0-255) the card's white border is mapped to by `normalise_white`."""

BORDER_RING = (0.015, 0.07)
"""Inner and outer depth of the border ring, as fractions of the crop width, measured from the
crop's edge: the printed white border of an UNO card is about 7% of its width; the outermost
1.5% is skipped because a slightly loose quad shows table there."""

MAX_GAIN = 4.0
"""Largest per-channel gain `normalise_white` applies (a dim card at night needs about 3)."""


def order_quad(quad: np.ndarray) -> np.ndarray:
    """Order 4 points clockwise (in image coordinates) starting at a corner of a SHORT side.

    The result maps onto the crop's top-left, top-right, bottom-right, bottom-left, so the long
    sides of the card become the crop's vertical sides (portrait).
    """
    pts = np.asarray(quad, np.float32).reshape(4, 2)
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]  # clockwise on screen (y grows downwards)
    # Start at the point nearest the top-left of the image for a stable choice.
    start = int(np.argmin(pts[:, 0] + pts[:, 1]))
    pts = np.roll(pts, -start, axis=0)
    side = np.linalg.norm(pts - np.roll(pts, -1, axis=0), axis=1)
    if side[0] + side[2] > side[1] + side[3]:  # top/bottom are the long sides: landscape
        pts = np.roll(pts, -1, axis=0)
    return pts


def warp_card(image: np.ndarray, quad: np.ndarray, ordered: bool = False,
              size: tuple[int, int] = (CROP_W, CROP_H)) -> tuple[np.ndarray, np.ndarray]:
    """Warp the card at `quad` (4x2 image pixels) to an upright crop of `size` = (w, h).

    Returns (crop, valid): `valid` is a uint8 mask, 0 where the quad reaches outside the image
    (those crop pixels are black). Warps at twice the size then shrinks with area averaging, so
    a large card does not alias.
    """
    pts = np.asarray(quad, np.float32).reshape(4, 2)
    if not ordered:
        pts = order_quad(pts)
    w, h = size
    dst = np.float32([[0, 0], [2 * w - 1, 0], [2 * w - 1, 2 * h - 1], [0, 2 * h - 1]])
    m = cv2.getPerspectiveTransform(pts, dst)
    big = cv2.warpPerspective(image, m, (2 * w, 2 * h), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
    crop = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
    ih, iw = image.shape[:2]
    inside = (pts[:, 0] >= 0).all() and (pts[:, 1] >= 0).all() and \
        (pts[:, 0] <= iw - 1).all() and (pts[:, 1] <= ih - 1).all()
    if inside:
        valid = np.full((h, w), 255, np.uint8)
    else:
        vb = cv2.warpPerspective(_all_valid(ih, iw), m, (2 * w, 2 * h), flags=cv2.INTER_NEAREST)
        valid = cv2.resize(vb, (w, h), interpolation=cv2.INTER_NEAREST)
    return crop, valid


@lru_cache(maxsize=4)
def _all_valid(height: int, width: int) -> np.ndarray:
    """An all-255 mask of an image's size (read-only, shared): warped like the image, it shows
    which crop pixels come from inside it. Made once per frame size, not once per crop (a
    720p frame's mask is 0.9 MB)."""
    ones = np.full((height, width), 255, np.uint8)
    ones.flags.writeable = False
    return ones


@lru_cache(maxsize=8)
def _ring_mask(h: int, w: int) -> np.ndarray:
    """The border ring of an `h` x `w` crop (read-only, shared)."""
    ring = np.zeros((h, w), bool)
    a, b = (max(1, round(f * w)) for f in BORDER_RING)
    ring[a:h - a, a:w - a] = True
    ring[b:h - b, b:w - b] = False
    ring.flags.writeable = False
    return ring


def white_reference(crop: np.ndarray, valid: np.ndarray | None = None) -> np.ndarray | None:
    """BGR colour of the card's white border in `crop`, or None when too little of it shows.

    Takes the ring `BORDER_RING` deep along the crop's edges, keeps its brighter half (so bits of
    table or a finger in the ring do not count) and returns that half's per-channel median.
    """
    h, w = crop.shape[:2]
    ring = _ring_mask(h, w)
    if valid is not None:
        ring = ring & (valid > 0)
    px = crop[ring].astype(np.float32)
    if len(px) < 20:
        return None
    lum = px.sum(axis=1)
    bright = px[lum >= np.median(lum)]
    return np.median(bright, axis=0)


def normalise_white(crop: np.ndarray, valid: np.ndarray | None = None) -> np.ndarray:
    """Scale each channel so the card's white border becomes neutral grey `WHITE_TARGET`.

    This removes the light's colour (warm bulbs, cold daylight, dim rooms) before the classifier
    sees hue, which is half of what it must tell apart. Gains are clipped to [1/MAX_GAIN,
    MAX_GAIN]; a crop with no usable border is returned unchanged.
    """
    ref = white_reference(crop, valid)
    if ref is None:
        return crop.copy()
    gain = np.clip(WHITE_TARGET / np.maximum(ref, 1.0), 1.0 / MAX_GAIN, MAX_GAIN)
    # The scaling of every grey level, as a table per channel: the same float32 products as
    # scaling each pixel, at a fraction of the cost (a classified crop is 6,144 pixels).
    levels = np.clip(np.arange(256, dtype=np.float32)[:, None] * gain[None, :], 0, 255)
    out = cv2.LUT(crop, levels.astype(np.uint8).reshape(256, 1, 3))
    if valid is not None:
        out[valid == 0] = 0
    return out


def rectify(image: np.ndarray, quad: np.ndarray, ordered: bool = False) -> np.ndarray:
    """The canonical, white-balanced crop of the card at `quad` (what the classifier reads);
    `ordered`: the quad is already in `order_quad`'s order."""
    crop, valid = warp_card(image, quad, ordered=ordered)
    return normalise_white(crop, valid)
