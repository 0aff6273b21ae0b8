"""Arms reaching into the picture: foreground blobs that touch the frame edge.

A running background of the whole (downscaled) frame is kept; whatever differs from it by
more than a lighting change can explain, and touches the frame's edge, is an arm (people reach
in from where they sit; a card lying on the table never touches the edge). For each arm we keep
where it crosses the edge (`entry`, which gives the seat) and its `tip`, the point farthest
from the entry (the hand, or the card it carries).

Brightness is normalised per channel by the frame's median, so a lamp switched on or off does
not turn the whole table into an arm; a difference must also change the colour or the
brightness by more than a passing shadow does.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.seats import angle_deg, seat_of_angle

ARM_SCALE = 0.5
"""Arms are looked for at this fraction of the analysis frame (160x90 for a 320x180 one):
an arm is several card widths long, so it survives halving, and the cost quarters."""

BRIGHTNESS_RATIO_MAX = 1.3
"""A pixel is foreground when its brightness differs from the background by more than this
factor (either way). A passing shadow (about 0.8x) or a lamp change left after normalisation
stays inside it; a hand over a dark table or a dark sleeve over a light one does not."""

CHROMA_DIFF_MIN = 0.05
"""... or when its chromaticity (each channel / the sum) moves by more than this (L1): skin
and sleeves against the table's colour. Sensor noise moves it by ~0.015; a grey-lilac sleeve
over a grey table by ~0.07."""

MIN_SUM_DIFF = 45.0
"""... and, for the brightness test, by more than this in B+G+R (0-765; 15 grey levels): on a
near-black table any flicker is a large ratio."""

DARK_LEVEL = 40.0
"""Below this mean grey level chromaticity is mostly noise and is not trusted."""

MIN_ARM_AREA_CARDS = 0.25
"""An arm blob covers at least this many card areas (smaller edge blobs are noise)."""

BACKGROUND_RATE_STILL = 0.15
"""How fast the background follows pixels that are not foreground (per frame): a card that
came to rest is part of the table within ~20 frames."""

BACKGROUND_RATE_FOREGROUND = 0.004
"""... and pixels that are foreground: an arm resting on the table for a few seconds still
stands out."""

FOREGROUND_MAX_FRAMES = 45
"""A pixel foreground for this many frames in a row (1.5 s at 30 fps) joins the background at
the still rate: arms come and go, but a ghost — where the background took in part of an arm
whose colour matched the table — would otherwise stay for minutes."""

RESET_FOREGROUND_FRACTION = 0.6
"""When more than this fraction of the frame is foreground, the background is retaken."""

EDGE_PX = 2
"""Pixels within this distance of the frame edge count as the edge."""


@dataclass(frozen=True)
class Arm:
    """An arm in one frame, in analysis-frame pixels: where it enters, its tip, its seat."""

    entry: tuple[float, float]
    tip: tuple[float, float]
    area_px: float
    entry_angle_deg: float
    seat: int | None


class ArmTracker:
    """Feed `update(small, t_s)` every frame; it returns the arms seen in that frame."""

    def __init__(self, pile_centre_px: tuple[float, float], seat_angles_deg: tuple[float, ...],
                 card_height_px: float) -> None:
        self.pile_centre = pile_centre_px
        self.seat_angles = seat_angles_deg
        self.card_height_px = card_height_px
        self.background: np.ndarray | None = None
        self.foreground_age = np.zeros((1, 1), np.int32)
        self.base_median: np.ndarray | None = None
        self.min_area = MIN_ARM_AREA_CARDS * card_height_px ** 2 * 2 / 3 * ARM_SCALE ** 2

    def foreground(self, small: np.ndarray) -> np.ndarray:
        """A 0/1 uint8 mask (at ARM_SCALE) of what is not the table; updates the background."""
        h, w = small.shape[:2]
        img = cv2.resize(small, (max(1, round(w * ARM_SCALE)), max(1, round(h * ARM_SCALE))),
                         interpolation=cv2.INTER_AREA).astype(np.float32)
        img, self.base_median = normalise_brightness(img, self.base_median)
        if self.background is None:
            self.background = img.copy()
            self.foreground_age = np.zeros(img.shape[:2], np.int32)
        bg = self.background
        sum_img = img.sum(axis=2) + 1.0
        sum_bg = bg.sum(axis=2) + 1.0
        ratio = sum_img / sum_bg
        chroma = np.abs(img / sum_img[..., None] - bg / sum_bg[..., None]).sum(axis=2)
        lit = np.minimum(sum_img, sum_bg) > 3 * DARK_LEVEL
        fg = (ratio > BRIGHTNESS_RATIO_MAX) | (ratio < 1 / BRIGHTNESS_RATIO_MAX)
        fg &= np.abs(sum_img - sum_bg) > MIN_SUM_DIFF
        fg |= lit & (chroma > CHROMA_DIFF_MIN)
        mask = cv2.morphologyEx(fg.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        if mask.mean() > RESET_FOREGROUND_FRACTION:
            # No arm covers most of the table: the camera moved or the light changed in a way
            # normalising did not explain. Start again from this picture.
            self.background = img.copy()
            return np.zeros_like(mask)
        self.foreground_age = np.where(mask > 0, self.foreground_age + 1, 0)
        fresh = (mask > 0) & (self.foreground_age < FOREGROUND_MAX_FRAMES)
        rate = np.where(fresh[..., None], BACKGROUND_RATE_FOREGROUND, BACKGROUND_RATE_STILL)
        bg += (img - bg) * rate.astype(np.float32)
        return mask

    def update(self, small: np.ndarray) -> list[Arm]:
        mask = self.foreground(small)
        return self.arms_in(mask)

    def arms_in(self, mask: np.ndarray) -> list[Arm]:
        h, w = mask.shape
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        arms = []
        for label in range(1, count):
            x, y, bw, bh, area = stats[label]
            if area < self.min_area:
                continue
            if x > EDGE_PX and y > EDGE_PX and x + bw < w - EDGE_PX and y + bh < h - EDGE_PX:
                continue  # does not reach the edge: not an arm
            ys, xs = np.nonzero(labels[y:y + bh, x:x + bw] == label)
            xs, ys = xs + x, ys + y
            edge = (xs <= EDGE_PX) | (ys <= EDGE_PX) | (xs >= w - 1 - EDGE_PX) | \
                (ys >= h - 1 - EDGE_PX)
            ex, ey = float(xs[edge].mean()), float(ys[edge].mean())
            far = int(np.argmax((xs - ex) ** 2 + (ys - ey) ** 2))
            scale = 1.0 / ARM_SCALE
            entry = ((ex + 0.5) * scale, (ey + 0.5) * scale)
            tip = ((xs[far] + 0.5) * scale, (ys[far] + 0.5) * scale)
            angle = angle_deg(entry, self.pile_centre)
            arms.append(Arm(entry, tip, float(area) * scale * scale, angle,
                            seat_of_angle(angle, self.seat_angles)))
        return arms


def normalise_brightness(img: np.ndarray, base_median: np.ndarray | None
                         ) -> tuple[np.ndarray, np.ndarray]:
    """`img` (float32 BGR) scaled per channel so its level is `base_median` (default: its own,
    returned for the next call): a lamp's change of brightness or colour cast over the whole
    table cancels out, and a dark table's noise is not amplified."""
    level = np.maximum(robust_level(img[::3, ::3]), 1.0)
    base = level if base_median is None else base_median
    return img * (base / level), base


def robust_level(sample: np.ndarray) -> np.ndarray:
    """Per-channel brightness of a scene: the mean of the middle half of its pixel values.
    Unlike the median it moves smoothly on a two-toned (chequered) table, where the median
    jumps between the two tones with the noise; unlike the mean an arm barely moves it."""
    values = np.sort(sample.reshape(-1, sample.shape[-1]).astype(np.float32), axis=0)
    n = len(values)
    return values[n // 4: max(n // 4 + 1, 3 * n // 4)].mean(axis=0)
