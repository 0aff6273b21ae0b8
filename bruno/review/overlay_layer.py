"""An overlay drawn once and laid over many YUV 4:2:0 video frames.

The annotated video used to turn every frame into BGR, draw on it and turn it back: two
full-frame colour conversions per frame, for drawings that change a few times a second. Here
the drawing is made once per scene, with its transparency, and blended straight into the
decoder's Y, U and V planes, only where something is drawn.

The transparency comes from drawing twice, on black and on white: where the two agree the
drawing is opaque, where they differ by 255 nothing was drawn, and OpenCV's anti-aliased
edges fall in between. No drawing helper has to know about it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.frames import plane_pixels

GRID_PX = 16
"""Drawn regions are found on a grid of this many pixels: one patch per group of touching
cells, so a caption band and a corner badge are blended separately, not as one big box."""


@dataclass(frozen=True)
class _Patch:
    """One drawn region: its top-left corner (even), its colour as Y / U / V and the opacity
    of each at its own resolution."""

    x: int
    y: int
    luma: np.ndarray
    luma_alpha: np.ndarray
    u: np.ndarray
    v: np.ndarray
    chroma_alpha: np.ndarray


class OverlayLayer:
    """`OverlayLayer.render(draw, height, width)` once; then `layer.blend_into(frame)` for
    every yuv420p `av.VideoFrame` of that size that should carry the drawing (`layer.over`
    for a blended copy, leaving the frame as it was)."""

    def __init__(self, patches: list[_Patch]) -> None:
        self.patches = patches

    @classmethod
    def render(cls, draw: Callable[[np.ndarray], None], height: int, width: int
               ) -> OverlayLayer:
        """`draw(image)` draws onto a BGR image of `height` x `width` in place."""
        on_black = np.zeros((height, width, 3), np.uint8)
        on_white = np.full((height, width, 3), 255, np.uint8)
        draw(on_black)
        draw(on_white)
        seen_through = cv2.transform(cv2.absdiff(on_white, on_black).astype(np.float32),
                                     np.full((1, 3), 1 / (3 * 255), np.float32))
        alpha = 1.0 - seen_through
        return cls([_patch(on_black, alpha, box) for box in _drawn_boxes(alpha)])

    def over(self, frame):
        """A new yuv420p `av.VideoFrame`: `frame` (yuv420p) with the drawing blended in."""
        import av

        out = av.VideoFrame(frame.width, frame.height, "yuv420p")
        for target, source in zip(out.planes, frame.planes, strict=True):
            np.copyto(plane_pixels(target), plane_pixels(source))
        self.blend_into(out)
        return out

    def blend_into(self, frame) -> None:
        """Blend the drawing into `frame` (a yuv420p `av.VideoFrame` of the layer's size,
        whose buffer this process owns), in place."""
        y_plane, u_plane, v_plane = (plane_pixels(plane) for plane in frame.planes)
        for patch in self.patches:
            h, w = patch.luma.shape
            _blend(y_plane[patch.y:patch.y + h, patch.x:patch.x + w], patch.luma,
                   patch.luma_alpha)
            cy, cx = patch.y // 2, patch.x // 2
            ch, cw = patch.u.shape
            _blend(u_plane[cy:cy + ch, cx:cx + cw], patch.u, patch.chroma_alpha)
            _blend(v_plane[cy:cy + ch, cx:cx + cw], patch.v, patch.chroma_alpha)


def _blend(target: np.ndarray, colour: np.ndarray, alpha: np.ndarray) -> None:
    target[...] = cv2.blendLinear(target, colour, 1.0 - alpha, alpha)


def _drawn_boxes(alpha: np.ndarray) -> list[tuple[int, int, int, int]]:
    """(x, y, w, h) boxes, even-aligned, covering every pixel with some opacity."""
    height, width = alpha.shape
    drawn = (alpha > 1 / 512).astype(np.uint8)
    rows, cols = -(-height // GRID_PX), -(-width // GRID_PX)
    padded = np.zeros((rows * GRID_PX, cols * GRID_PX), np.uint8)
    padded[:height, :width] = drawn
    cells = padded.reshape(rows, GRID_PX, cols, GRID_PX).max(axis=(1, 3))
    count, _, stats, _ = cv2.connectedComponentsWithStats(cells, connectivity=8)
    boxes = []
    for label in range(1, count):
        x, y, w, h = (int(v) * GRID_PX for v in stats[label, :4])
        w, h = min(w, width - x), min(h, height - y)
        boxes.append((x, y, w - w % 2, h - h % 2))
    return [b for b in boxes if b[2] > 0 and b[3] > 0]


def _patch(premultiplied: np.ndarray, alpha: np.ndarray, box: tuple[int, int, int, int]
           ) -> _Patch:
    """The drawing inside `box`: drawn on black it is the colour times its opacity, so the
    colour is that divided by the opacity (where anything was drawn)."""
    x, y, w, h = box
    a = np.ascontiguousarray(alpha[y:y + h, x:x + w])
    colour = premultiplied[y:y + h, x:x + w].astype(np.float32) / np.maximum(a, 1 / 255)[..., None]
    colour = np.clip(colour, 0, 255).astype(np.uint8)
    # Y, U and V of every pixel, with the video's own conversion (BT.601, the I420 layout
    # keeps U and V at half size, so convert the picture doubled: its U and V are then at
    # the picture's own size).
    doubled = cv2.resize(colour, (2 * w, 2 * h), interpolation=cv2.INTER_NEAREST)
    yuv = cv2.cvtColor(doubled, cv2.COLOR_BGR2YUV_I420)
    chroma = yuv[2 * h:].reshape(-1)
    u_full, v_full = (plane.reshape(h, w).astype(np.float32)
                      for plane in (chroma[:h * w], chroma[h * w:]))
    # A U/V sample covers 2x2 pixels: the drawn pixels' colours weighted by their opacity, so
    # a thin line's colour is not diluted by the pixels beside it that nothing covers.
    half = (w // 2, h // 2)
    chroma_alpha = cv2.resize(a, half, interpolation=cv2.INTER_AREA)
    weight = np.maximum(chroma_alpha, 1 / 255)

    def subsampled(plane: np.ndarray) -> np.ndarray:
        covered = cv2.resize(plane * a, half, interpolation=cv2.INTER_AREA) / weight
        return np.clip(np.rint(covered), 0, 255).astype(np.uint8)

    return _Patch(x, y, np.ascontiguousarray(yuv[:2 * h:2, ::2]), a,
                  subsampled(u_full), subsampled(v_full), chroma_alpha)
