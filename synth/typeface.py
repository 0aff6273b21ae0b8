"""Card digits drawn from a TrueType font (Pillow), for the print of the deck sold since 2020.

OpenCV's Hershey fonts are strokes: thickened, they stay slim, and the 2020s print's digits are
heavy and slanted. Used by `synth.render.print2020_style` to make training crops only; Pillow
and the font are training dependencies (`pip install .[train]`, Debian's fonts-dejavu-core),
imported when a digit is first drawn.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

TYPEFACE_2020 = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
"""A heavy sans-serif like the 2020s print's digits (Debian's fonts-dejavu-core)."""

SLANT_2020 = 0.22
"""How far the 2020s print leans its digits (horizontal shift per unit of height)."""

HEAVIER_2020 = 0.035
"""The 2020s print's strokes are heavier than DejaVu Sans Bold's: grown by up to this share of
the digit's height."""

_DRAWN_PX = 120
"""Glyphs are drawn this large, then scaled to the size asked for."""


@functools.lru_cache(maxsize=4)
def _font(path: str):
    from PIL import ImageFont

    try:
        return ImageFont.truetype(path, _DRAWN_PX)
    except OSError as error:
        raise RuntimeError(f"{path}: cannot load the font for the 2020s print ({error}); "
                           "install Debian's fonts-dejavu-core") from None


def typeface_mask(shape, text: str, center, height: float, path: str = TYPEFACE_2020,
                  italic: bool = True, weight: float = 1.0) -> np.ndarray:
    """A 0/255 mask (of `shape`'s height and width) of `text` in the font at `path`, its digits
    `height` pixels tall and centred at `center`, slanted by `SLANT_2020` when `italic`. The
    strokes are grown with `weight` above 1 (up to `HEAVIER_2020` more), a 3 is drawn with the
    2020s print's flat top, and a 6 or a 9 gets its underline below it, `weight` times the usual
    thickness."""
    from PIL import Image, ImageDraw

    font = _font(path)
    x0, y0, x1, y1 = font.getbbox(text)
    glyphs = Image.new("L", (x1 - x0 + 40, y1 - y0 + 80), 0)
    ImageDraw.Draw(glyphs).text((20 - x0, 20 - y0), text, fill=255, font=font)
    mask = np.asarray(glyphs).copy()
    ys, xs = np.nonzero(mask)
    top, bottom, left, right = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    digit_h = bottom - top
    if text == "3":
        _flatten_top(mask, top, bottom, left, right)
    grow = round(float(HEAVIER_2020 * digit_h * min(max(weight - 1.0, 0.0) / 0.2, 1.0)))
    if grow:
        mask = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE,
                                                          (2 * grow + 1, 2 * grow + 1)))
    if text in ("6", "9"):
        # The underline that tells 6 from 9: a bar as wide as most of the digit, below it.
        bar_top = bottom + int(digit_h * 0.09)
        bar_h = max(2, int(digit_h * 0.09 * weight))
        inset = int((right - left) * 0.1)
        mask[bar_top:bar_top + bar_h, left + inset:right - inset] = 255
    scale = height / digit_h
    slant = SLANT_2020 if italic else 0.0
    # Scale the glyphs to `height`, lean them about the digit's middle (mx, my) and move that
    # middle to `center`: x' = s*(x - mx) - slant*s*(y - my) + cx, y' = s*(y - my) + cy.
    mx, my = (left + right) / 2, top + digit_h / 2
    m = np.float32([[scale, -slant * scale, center[0] - scale * mx + slant * scale * my],
                    [0, scale, center[1] - scale * my]])
    return cv2.warpAffine(mask, m, (shape[1], shape[0]), flags=cv2.INTER_AREA)


def _flatten_top(mask: np.ndarray, top: int, bottom: int, left: int, right: int) -> None:
    """Redraw a 3's upper bowl as the 2020s print draws it: a flat bar along the top and a
    stroke slanting from its right end down to the middle, where the lower bowl begins."""
    h, w = bottom - top, right - left
    stroke = max(2, round(float(cv2.distanceTransform(mask, cv2.DIST_L2, 5).max()) * 2))
    middle = top + int(h * 0.52)
    # DejaVu Sans Bold's upper bowl ends at 0.46 of the height: clear it, keep the lower one.
    mask[top:top + int(h * 0.46), left:right] = 0
    bar_right = right - int(w * 0.06)
    mask[top:top + stroke, left + int(w * 0.06):bar_right] = 255
    cv2.line(mask, (bar_right - stroke // 2, top + stroke // 2),
             (left + int(w * 0.40), middle), 255, stroke, cv2.LINE_AA)
