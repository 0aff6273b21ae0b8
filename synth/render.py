"""Procedural UNO card faces and table scenes, deterministic from a seed.

Training data for the card classifier is made here, never downloaded. A face is drawn upright
(portrait) at `FACE_H` pixels high in one of three designs seen on real decks:

- ``classic``: white tilted oval, big value with a black shadow (the 2000s deck);
- ``ring``: only a white ring for the oval, big WHITE value with a black shadow (2010s deck);
- ``sunburst``: large white disc with faint rays (the 2020s deck);
- ``minimal``: large plain white oval, thin value (a newer print).

Every call takes a ``numpy.random.Generator`` or a seed, so the same seed gives the same pixels.
Images are BGR uint8 (OpenCV's order).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from referee.cards import ALL_TOKENS
from synth.typeface import TYPEFACE_2020, typeface_mask

FACE_W = 200
FACE_H = 300
"""Canonical face size in pixels (a 56x87 mm card, rounded to 2:3)."""

DESIGNS: tuple[str, ...] = ("classic", "ring", "sunburst", "minimal")

# Print colours (RGB), one base per design family; jittered a little per render. Hue jitter is
# kept small on purpose: hue is the class for colour, so it must not be augmented away.
_BASE_RGB = {
    "r": [(215, 38, 30), (230, 30, 45), (200, 30, 35), (225, 60, 40), (235, 80, 50)],
    "y": [(240, 210, 20), (250, 200, 25), (235, 190, 40), (245, 220, 60), (245, 180, 30)],
    "g": [(55, 150, 40), (40, 160, 70), (30, 120, 50), (80, 165, 60), (120, 165, 45),
          (95, 150, 50)],
    "b": [(10, 90, 190), (20, 110, 210), (30, 130, 220), (15, 75, 160), (40, 150, 230)],
}
"""Measured by eye on real decks: greens run from olive (the 2010s deck under warm light) to
emerald, yellows from lemon to orange-yellow, blues from navy to sky."""
_FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
)


SUNBURST_DISC_RADIUS = (0.40, 0.47)
"""The sunburst design's white disc: its radius as a share of the face's width, drawn in this
range."""


def _rng(seed: int | np.random.Generator) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _bgr(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    return (int(rgb[2]), int(rgb[1]), int(rgb[0]))


def card_color_bgr(color: str, rng: np.random.Generator) -> tuple[int, int, int]:
    """A printed colour for `color` in r/y/g/b with small brightness/saturation jitter."""
    base = _BASE_RGB[color][rng.integers(len(_BASE_RGB[color]))]
    hsv = cv2.cvtColor(np.uint8([[_bgr(base)]]), cv2.COLOR_BGR2HSV)[0, 0].astype(int)
    hsv[0] = (hsv[0] + rng.integers(-2, 3)) % 180
    hsv[1] = int(np.clip(hsv[1] * rng.uniform(0.8, 1.05), 60, 255))
    hsv[2] = int(np.clip(hsv[2] * rng.uniform(0.8, 1.08), 60, 255))
    out = cv2.cvtColor(np.uint8([[hsv]]), cv2.COLOR_HSV2BGR)[0, 0]
    return (int(out[0]), int(out[1]), int(out[2]))


@dataclass(frozen=True)
class FaceStyle:
    """The choices that make one printed deck: design, typeface, colours, ink."""

    design: str
    font: int
    italic: bool
    thickness_scale: float
    shadow: bool
    white: tuple[int, int, int]
    border_frac: float
    shadow_offset: tuple[float, float] = (1.0, 1.0)
    """Where the dark shadow falls, (x, y) in units of its offset: down and to the right, or
    to the left in the 2020s print (`print2020_style`)."""
    corner_shadow: bool = False
    """The corner indices carry the shadow too, whatever the design (the 2020s print)."""
    drop_shadow: bool = False
    """The shadow is the ink's own shape moved aside (the 2020s print), not an outline grown
    around it and moved."""
    typeface: str | None = None
    """A TrueType font file for the digits (drawn with Pillow, slanted when `italic`), instead
    of OpenCV's Hershey `font`."""


def random_style(rng: np.random.Generator, design: str | None = None) -> FaceStyle:
    design = design or DESIGNS[rng.integers(len(DESIGNS))]
    w = int(rng.integers(225, 256))
    tint = rng.integers(-12, 5, size=3)
    white = tuple(int(np.clip(w + t, 0, 255)) for t in tint)
    return FaceStyle(
        design=design,
        font=_FONTS[rng.integers(len(_FONTS))],
        italic=bool(rng.random() < 0.5),
        thickness_scale=float(rng.uniform(0.7, 1.3)),
        shadow=design != "minimal" or rng.random() < 0.3,
        white=white,  # type: ignore[arg-type]
        border_frac=float(rng.uniform(0.055, 0.085)),
    )


def footage_style(rng: np.random.Generator) -> FaceStyle:
    """The footage's print: typefaces and ink weight outside `random_style`'s
    choices (Hershey script/plain, heavier strokes), warmer paper. It began as a held-out style;
    the card model's recipe now also trains on it (`models.train_cards --footage-crops`), so
    footage measures the watching and reading pipeline, and real photos measure how the model
    reads a print it never saw. There are no held-out colours."""
    design = ("classic", "sunburst", "minimal")[int(rng.integers(3))]
    font = (cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
            cv2.FONT_HERSHEY_COMPLEX_SMALL)[int(rng.integers(3))]
    white = (int(rng.integers(205, 225)), int(rng.integers(225, 240)), int(rng.integers(238, 250)))
    return FaceStyle(design=design, font=font, italic=False,
                     thickness_scale=float(rng.uniform(1.3, 1.6)), shadow=design != "minimal",
                     white=white, border_frac=float(rng.uniform(0.06, 0.08)))


def print2020_style(rng: np.random.Generator) -> FaceStyle:
    """The 2020s print of the classic deck (the sunburst design as sold since 2020): heavy
    italic sans-serif digits in the card's colour (a 3 with a flat top) with a thin black
    drop shadow cast to the left and down, and white corner indices with the same shadow.
    `random_style`'s sunburst cards have thin Hershey digits and bare corner indices, and the
    model read trained-on and held-out photos of this print wrong (a clean, frontal red 9 as a
    6; a blue 6 as a 3). Rendering it needs Pillow and `TYPEFACE_2020` (training only:
    `pip install .[train]`)."""
    w = int(rng.integers(232, 256))
    tint = rng.integers(-10, 4, size=3)
    return FaceStyle(
        design="sunburst",
        font=cv2.FONT_HERSHEY_SIMPLEX,
        italic=True,
        thickness_scale=float(rng.uniform(0.8, 1.2)),
        shadow=True,
        white=tuple(int(np.clip(w + t, 0, 255)) for t in tint),  # type: ignore[arg-type]
        border_frac=float(rng.uniform(0.05, 0.075)),
        shadow_offset=(-float(rng.uniform(0.7, 1.3)), float(rng.uniform(0.2, 0.9))),
        corner_shadow=True,
        drop_shadow=True,
        typeface=TYPEFACE_2020,
    )


def _text(img, text, center, height, color, style: FaceStyle, thick_frac=0.12, shadow=None,
          angle=0.0):
    """Draw `text` centred at `center`, `height` pixels tall, optionally with a dark shadow."""
    if style.typeface is not None:
        layer = typeface_mask(img.shape, text, center, height, style.typeface,
                              italic=style.italic, weight=style.thickness_scale)
        _ink(img, layer, color, shadow, height, style)
        return
    font = style.font | (cv2.FONT_ITALIC if style.italic else 0)
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, 1)
    scale = height / max(th, 1)
    thick = max(1, round(height * thick_frac * style.thickness_scale))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    layer = np.zeros((img.shape[0], img.shape[1]), np.uint8)
    org = (int(center[0] - tw / 2), int(center[1] + th / 2))
    cv2.putText(layer, text, org, font, scale, 255, thick, cv2.LINE_AA)
    if text in ("6", "9"):
        # The underline that tells 6 from 9.
        y = int(org[1] + height * 0.22)
        cv2.line(layer, (org[0] + int(tw * 0.1), y), (org[0] + int(tw * 0.9), y), 255,
                 max(1, thick // 2 + 1), cv2.LINE_AA)
    if angle:
        m = cv2.getRotationMatrix2D((float(center[0]), float(center[1])), angle, 1.0)
        layer = cv2.warpAffine(layer, m, (img.shape[1], img.shape[0]))
    _ink(img, layer, color, shadow, height, style)


def _ink(img, layer, color, shadow, size, style: FaceStyle):
    """Paint mask `layer` in `color`, with a dark shadow when `shadow` is set: an outline grown
    around the ink and moved along `style.shadow_offset`, or only the ink's shape moved when
    `style.drop_shadow`."""
    if shadow is not None:
        off = max(1, int(size * 0.04))
        towards = style.shadow_offset
        m = np.float32([[1, 0, off * towards[0]], [0, 1, off * towards[1]]])
        if style.drop_shadow:
            # A hair grown, so the moved shape still shows a thin line on the far side.
            dil = cv2.dilate(layer, np.ones((3, 3), np.uint8))
            dil = cv2.warpAffine(dil, m, (img.shape[1], img.shape[0]))
        else:
            k = max(3, int(size * 0.08) | 1)
            dil = cv2.dilate(layer, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
            dil = np.maximum(dil, cv2.warpAffine(dil, m, (img.shape[1], img.shape[0])))
        _blend(img, dil, shadow)
    _blend(img, layer, color)


def _blend(img, mask, color):
    x, y, w, h = cv2.boundingRect(mask)  # only where the mask is set: most layers are small
    if w == 0 or h == 0:
        return
    a = (mask[y:y + h, x:x + w].astype(np.float32) * (1 / 255.0))[..., None]
    roi = img[y:y + h, x:x + w]
    roi[:] = (roi * (1 - a) + np.float32(color) * a).astype(np.uint8)


def _mask_poly(shape, pts):
    m = np.zeros(shape[:2], np.uint8)
    cv2.fillPoly(m, [np.int32(pts)], 255, cv2.LINE_AA)
    return m


def _symbol_mask(shape, value, center, size, rng, style: FaceStyle, small=False):
    """A 0/255 mask of an action symbol (skip, reverse, draw_2, wild_draw_4 cards) at `center`."""
    m = np.zeros(shape[:2], np.uint8)
    cx, cy = center
    t = max(2, int(size * 0.13 * style.thickness_scale))
    if value == "skip":
        r = int(size * 0.42)
        cv2.circle(m, (int(cx), int(cy)), r, 255, t, cv2.LINE_AA)
        d = r * 0.7
        cv2.line(m, (int(cx - d), int(cy + d)), (int(cx + d), int(cy - d)), 255, t, cv2.LINE_AA)
    elif value == "reverse":
        ang = np.deg2rad(45)
        u = np.array([np.cos(ang), -np.sin(ang)])
        n = np.array([-u[1], u[0]])
        for sgn in (1, -1):
            base = np.array([cx, cy]) + n * sgn * size * 0.13
            tail = base - u * sgn * size * 0.35
            head = base + u * sgn * size * 0.25
            cv2.line(m, tuple(np.int32(tail)), tuple(np.int32(head)), 255, t, cv2.LINE_AA)
            tip = head + u * sgn * size * 0.2
            w = n * size * 0.17
            cv2.fillPoly(m, [np.int32([tip, head + w, head - w])], 255, cv2.LINE_AA)
    elif value == "draw_2":
        if small:
            return None
        w, h = size * 0.38, size * 0.55
        for dx, dy in ((-0.15, 0.14), (0.15, -0.14)):
            x0, y0 = cx + dx * size - w / 2, cy + dy * size - h / 2
            cv2.rectangle(m, (int(x0), int(y0)), (int(x0 + w), int(y0 + h)), 255, -1)
            cv2.rectangle(m, (int(x0), int(y0)), (int(x0 + w), int(y0 + h)), 0,
                          max(1, t // 3))
    return m


def _index_text(value: str) -> str | None:
    """The corner index text, or None when the corner shows a symbol."""
    if value in "0123456789" and len(value) == 1:
        return value
    return {"draw_2": "+2", "wild_draw_4": "+4"}.get(value)


def render_face(token: str, seed: int | np.random.Generator = 0,
                style: FaceStyle | None = None) -> np.ndarray:
    """Render the upright face of `token` (one of the 54) as a FACE_H x FACE_W BGR image.

    The corners outside the rounded card outline are black; `face_mask()` gives the outline.
    """
    if token not in ALL_TOKENS:
        raise ValueError(f"unknown card token {token!r}")
    rng = _rng(seed)
    st = style or random_style(rng)
    W, H = FACE_W, FACE_H
    img = np.zeros((H, W, 3), np.uint8)
    img[:] = st.white
    black = token in ("wild", "wild_draw_4")
    color = token[0] if not black else None
    value = token if black else token[2:]
    ink = card_color_bgr(color, rng) if color else (int(rng.integers(15, 40)),) * 3
    shadow = (int(rng.integers(10, 40)),) * 3 if st.shadow else None

    # Coloured body inside the white border.
    b = int(W * st.border_frac)
    body = np.zeros((H, W), np.uint8)
    rad = int(W * rng.uniform(0.04, 0.09))
    rounded_rect(body, (b, b), (W - b, H - b), rad)
    _blend(img, body, ink)

    cx, cy = W / 2, H / 2
    big = H * rng.uniform(0.34, 0.42)
    oval = np.zeros((H, W), np.uint8)
    ring = None
    if st.design in ("classic", "ring"):
        axes = (int(W * rng.uniform(0.36, 0.42)), int(H * rng.uniform(0.43, 0.47)))
        tilt = rng.uniform(25, 40) * rng.choice([-1, 1])
        cv2.ellipse(oval, (int(cx), int(cy)), axes, tilt, 0, 360, 255, -1, cv2.LINE_AA)
        if st.design == "ring":
            ring = np.zeros((H, W), np.uint8)
            cv2.ellipse(ring, (int(cx), int(cy)), axes, tilt, 0, 360, 255,
                        max(2, int(W * rng.uniform(0.02, 0.045))), cv2.LINE_AA)
            ring &= body
    elif st.design == "sunburst":
        r = int(W * rng.uniform(*SUNBURST_DISC_RADIUS))
        cv2.circle(oval, (int(cx), int(cy)), r, 255, -1, cv2.LINE_AA)
        big = H * rng.uniform(0.30, 0.36)
    else:
        axes = (int(W * rng.uniform(0.38, 0.44)), int(H * rng.uniform(0.30, 0.38)))
        cv2.ellipse(oval, (int(cx), int(cy)), axes, rng.uniform(-35, -15), 0, 360, 255, -1,
                    cv2.LINE_AA)
    oval &= body

    if black:
        _draw_black_centre(img, oval, value, st, rng, (cx, cy), big, ring)
    elif ring is not None:
        # The 2010s deck: a white ring on the colour, a white value with a black shadow.
        _blend(img, ring, st.white)
        text = _index_text(value)
        dark = (int(rng.integers(5, 35)),) * 3
        if text is not None and value != "draw_2":
            _text(img, text, (cx, cy), big, st.white, st, shadow=dark)
        else:
            m = _symbol_mask(img.shape, value, (cx, cy), big * 1.25, rng, st)
            _ink(img, m, st.white, dark, big, st)
    else:
        _blend(img, oval, st.white)
        if st.design == "sunburst":
            rays = np.zeros((H, W), np.uint8)
            for a in np.linspace(0, 2 * np.pi, int(rng.integers(30, 60)), endpoint=False):
                p = (int(cx + np.cos(a) * W), int(cy + np.sin(a) * W))
                cv2.line(rays, (int(cx), int(cy)), p, 70, 1, cv2.LINE_AA)
            _blend(img, rays & oval, (150, 150, 150))
        text = _index_text(value)
        if text is not None and value != "draw_2":
            _text(img, text, (cx, cy), big, ink, st, shadow=shadow)
        else:
            m = _symbol_mask(img.shape, value, (cx, cy), big * 1.25, rng, st)
            _ink(img, m, ink, shadow, big, st)

    _draw_corner_indices(img, value, st, rng, b)
    if rng.random() < 0.5:
        _wear(img, rng)
    img[face_mask(rad_frac=0.06) == 0] = 0
    return img


def _draw_black_centre(img, oval, value, st, rng, center, big, ring=None):
    cx, cy = center
    H, W = img.shape[:2]
    cols = [card_color_bgr(c, rng) for c in "rygb"]
    if ring is not None and value == "wild_draw_4":
        _blend(img, ring, st.white)
    elif value == "wild" or st.design in ("classic", "ring"):
        # Four-colour oval split in quadrants (wild); classic +4 keeps a white oval.
        if value == "wild":
            ys, xs = np.mgrid[0:H, 0:W]
            a = np.arctan2(ys - cy, xs - cx) + rng.uniform(-0.3, 0.3)
            q = ((a + np.pi) / (np.pi / 2)).astype(int) % 4
            order = rng.permutation(4)
            for i in range(4):
                _blend(img, oval & np.where(q == i, 255, 0).astype(np.uint8), cols[order[i]])
            if st.design in ("classic", "ring") and rng.random() < 0.5:
                _text(img, "WILD", (cx, cy), big * 0.45, (40, 40, 200), st,
                      shadow=(0, 0, 0), angle=float(rng.uniform(50, 70)))
            return
        _blend(img, oval, st.white)
    else:
        _blend(img, oval, st.white)
    # wild_draw_4: four small cards in the four colours.
    w, h = big * 0.28, big * 0.42
    offs = [(-0.33, 0.05), (-0.11, -0.12), (0.11, 0.12), (0.33, -0.05)]
    for (dx, dy), c in zip(offs, cols, strict=True):
        x0, y0 = cx + dx * big * 1.2 - w / 2, cy + dy * big - h / 2
        cv2.rectangle(img, (int(x0), int(y0)), (int(x0 + w), int(y0 + h)), (10, 10, 10), -1)
        cv2.rectangle(img, (int(x0 + 2), int(y0 + 2)), (int(x0 + w - 2), int(y0 + h - 2)), c, -1)


def _draw_corner_indices(img, value, st, rng, b):
    """Top-left index and the same turned 180° at bottom-right."""
    H, W = img.shape[:2]
    size = H * rng.uniform(0.09, 0.12)
    pos = (b + size * 0.55 + W * 0.02, b + size * 0.7 + H * 0.01)
    text = _index_text(value)
    outline = (20, 20, 20) if st.design in ("classic", "ring") or st.corner_shadow else None
    if value == "wild":
        cols = [card_color_bgr(c, rng) for c in "rygb"]
        sub = img.copy()
        for i, c in enumerate(cols):
            cv2.ellipse(sub, (int(pos[0]), int(pos[1])), (int(size * 0.35), int(size * 0.5)),
                        30, i * 90, (i + 1) * 90, c, -1, cv2.LINE_AA)
    elif text is not None:
        sub = img.copy()
        _text(sub, text, pos, size, st.white, st, thick_frac=0.14, shadow=outline)
    else:
        sub = img.copy()
        m = _symbol_mask(img.shape, value, pos, size * 1.3, rng, st, small=True)
        if m is None:  # draw two without a "+2": two tiny cards
            m = _symbol_mask(img.shape, "draw_2", pos, size * 1.3, rng, st)
        _ink(sub, m, st.white, outline, size, st)
    # Copy the drawn index into the top-left and its 180° turn into the bottom-right.
    qh, qw = int(H * 0.3), int(W * 0.45)
    drawn = np.any(sub[:qh, :qw] != img[:qh, :qw], axis=2)
    img[:qh, :qw][drawn] = sub[:qh, :qw][drawn]
    br = img[H - qh:, W - qw:]
    br[drawn[::-1, ::-1]] = sub[:qh, :qw][::-1, ::-1][drawn[::-1, ::-1]]


def rounded_rect(mask, p0, p1, r):
    """Fill the rounded rectangle from `p0` to `p1` (corner radius `r`) with 255 in `mask`."""
    x0, y0 = p0
    x1, y1 = p1
    cv2.rectangle(mask, (x0 + r, y0), (x1 - r, y1), 255, -1)
    cv2.rectangle(mask, (x0, y0 + r), (x1, y1 - r), 255, -1)
    for x, y in ((x0 + r, y0 + r), (x1 - r, y0 + r), (x0 + r, y1 - r), (x1 - r, y1 - r)):
        cv2.circle(mask, (x, y), r, 255, -1, cv2.LINE_AA)


def face_mask(rad_frac: float = 0.06) -> np.ndarray:
    """0/255 mask of the card outline (rounded rectangle) at FACE_H x FACE_W."""
    m = np.zeros((FACE_H, FACE_W), np.uint8)
    rounded_rect(m, (0, 0), (FACE_W - 1, FACE_H - 1), int(FACE_W * rad_frac))
    return m


def _wear(img, rng):
    """Scuffs and dirt: a few faint blotches and a grey film."""
    H, W = img.shape[:2]
    for _ in range(int(rng.integers(1, 6))):
        c = (int(rng.integers(0, W)), int(rng.integers(0, H)))
        m = np.zeros((H, W), np.uint8)
        cv2.circle(m, c, int(rng.integers(2, 12)), int(rng.integers(20, 80)), -1)
        _blend(img, m, (200, 200, 200) if rng.random() < 0.5 else (60, 60, 60))


# ---------------------------------------------------------------------------------------------
# Tables and lighting


def render_table(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A table-top texture: wood, cloth, plain (white or dark) or a random pattern."""
    kind = rng.integers(5)
    if kind == 0:  # wood grain
        base = np.array([rng.integers(40, 110), rng.integers(80, 150), rng.integers(120, 200)])
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        f = rng.uniform(0.02, 0.08)
        grain = np.sin(ys * f + np.sin(xs * 0.01 * rng.uniform(0.5, 2)) * rng.uniform(2, 8))
        img = base[None, None, :] * (0.8 + 0.2 * grain[..., None])
    elif kind == 1:  # chequered / striped cloth
        c1 = rng.integers(0, 255, 3)
        c2 = np.clip(c1 * rng.uniform(0.4, 0.9) + rng.integers(0, 80), 0, 255)
        p = int(rng.integers(8, 40))
        ys, xs = np.mgrid[0:h, 0:w]
        chk = ((xs // p) + (ys // p)) % 2 if rng.random() < 0.6 else (xs // p) % 2
        img = np.where(chk[..., None] == 0, c1, c2).astype(np.float32)
    elif kind == 2:  # plain white / light
        img = np.full((h, w, 3), rng.integers(170, 250), np.float32) + rng.integers(-15, 15, 3)
    elif kind == 3:  # dark
        img = np.full((h, w, 3), rng.integers(5, 60), np.float32) + rng.integers(-5, 5, 3)
    else:  # blotchy pattern
        small = rng.integers(0, 255, (max(2, h // 40), max(2, w // 40), 3)).astype(np.uint8)
        img = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC).astype(np.float32)
    img = img + rng.normal(0, rng.uniform(2, 10), (h, w, 1))
    return np.clip(img, 0, 255).astype(np.uint8)


def render_gingham(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A gingham cloth: white and one colour in crossing bands, so squares of three tones
    (white, half, full colour), seen at a slant. Its full-colour squares framed by paler ones
    look like a card's coloured body in its white border to a locator."""
    colour = rng.integers(0, 255, 3).astype(np.float32)
    white = np.full(3, rng.integers(215, 256), np.float32)
    period = int(rng.integers(24, 120))
    ys, xs = np.mgrid[0:h, 0:w]
    tones = ((xs // period) % 2 + (ys // period) % 2)[..., None]
    img = np.where(tones == 0, white, np.where(tones == 1, (white + colour) / 2, colour))
    img = np.clip(img + rng.normal(0, rng.uniform(2, 8), (h, w, 1)), 0, 255).astype(np.uint8)
    corners = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    slant = (corners + rng.uniform(-0.15, 0.15, (4, 2)) * [w, h]).astype(np.float32)
    return cv2.warpPerspective(img, cv2.getPerspectiveTransform(corners, slant), (w, h),
                               borderMode=cv2.BORDER_REFLECT)


def render_bare_table(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A table with no card on it, as a camera sees it: gingham (one time in two) or one of
    `render_table`'s tops, lit (`light`). Whatever a locator finds on it is not a card."""
    table = render_gingham(h, w, rng) if rng.random() < 0.5 else render_table(h, w, rng)
    return light(table, rng)


def light(img: np.ndarray, rng: np.random.Generator, strength: float = 1.0) -> np.ndarray:
    """Kitchen light: colour cast (warm/cold), exposure, a gradient, shadow and glare spots."""
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    temp = rng.uniform(-1, 1) * 0.25 * strength  # + warm, - cold
    gain = np.array([1 - temp, 1.0 + rng.uniform(-0.05, 0.05), 1 + temp], np.float32)
    gain *= rng.uniform(0.45, 1.15) if strength else 1.0
    f *= gain[None, None, :]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, 2 * np.pi)
    grad = (np.cos(a) * xs / w + np.sin(a) * ys / h)
    f *= (1 + rng.uniform(0, 0.5) * strength * (grad - grad.mean()))[..., None]
    if rng.random() < 0.3 * strength:  # soft shadow
        m = np.zeros((h, w), np.float32)
        pts = rng.uniform(0, 1, (4, 2)) * [w, h]
        cv2.fillPoly(m, [np.int32(pts)], 1.0)
        m = cv2.GaussianBlur(m, (0, 0), max(1.0, w * 0.05))
        f *= (1 - rng.uniform(0.2, 0.5) * m)[..., None]
    if rng.random() < 0.3 * strength:  # glare spot
        m = np.zeros((h, w), np.float32)
        c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        cv2.circle(m, c, int(rng.uniform(0.03, 0.15) * min(h, w)) + 1, 1.0, -1)
        m = cv2.GaussianBlur(m, (0, 0), max(1.0, min(h, w) * 0.03))
        f += (m * rng.uniform(80, 220))[..., None]
    return np.clip(f, 0, 255).astype(np.uint8)


def degrade(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Camera faults: blur, sensor noise, JPEG compression."""
    out = img
    if rng.random() < 0.5:
        s = rng.uniform(0.3, 1.3)
        out = cv2.GaussianBlur(out, (0, 0), s)
    if rng.random() < 0.6:
        out = np.clip(out + rng.normal(0, rng.uniform(1, 8), out.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        q = int(rng.integers(30, 95))
        _, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


# ---------------------------------------------------------------------------------------------
# Scenes


@dataclass(frozen=True)
class PlacedCard:
    """A card drawn into a scene: its token and the image corners of its face.

    `quad` is 4x2 float (x, y), in the order top-left, top-right, bottom-right, bottom-left of
    the upright face.
    """

    token: str
    quad: np.ndarray


def render_scene(seed: int | np.random.Generator, size: tuple[int, int] = (720, 1280),
                 n_cards: int = 1, pile: int = 0, tokens: list[str] | None = None,
                 card_h_frac: tuple[float, float] = (0.25, 0.45),
                 tilt: float = 0.15) -> tuple[np.ndarray, list[PlacedCard]]:
    """A table photo with `pile` cards stacked in the middle and `n_cards` scattered ones.

    Returns the image (BGR, `size` = (h, w)) and the cards whose faces are whole (the top card
    of the pile and every scattered card), in drawing order. Cards under the top of the pile are
    drawn but not returned: only their edges show. `tilt` bends the camera's view (0 = overhead).
    """
    rng = _rng(seed)
    h, w = size
    img = render_table(h, w, rng)
    placed: list[PlacedCard] = []
    rects: list[tuple[float, float, float]] = []
    total = pile + n_cards
    for i in range(total):
        token = tokens[i % len(tokens)] if tokens else ALL_TOKENS[rng.integers(len(ALL_TOKENS))]
        ch = h * rng.uniform(*card_h_frac)
        in_pile = i < pile
        for _attempt in range(30):
            if in_pile:
                cx, cy = w / 2 + rng.normal(0, ch * 0.05), h / 2 + rng.normal(0, ch * 0.05)
            else:
                cx, cy = rng.uniform(ch * 0.5, w - ch * 0.5), rng.uniform(ch * 0.5, h - ch * 0.5)
            if in_pile or all(np.hypot(cx - x, cy - y) > (ch + r) * 0.62 for x, y, r in rects):
                break
        rects.append((cx, cy, ch))
        quad = _card_quad(cx, cy, ch, rng.uniform(0, 360), rng, tilt)
        face = render_face(token, rng)
        _paste(img, face, quad)
        if not in_pile or i == pile - 1:
            placed.append(PlacedCard(token, quad))
    img = light(img, rng, strength=0.7)
    img = degrade(img, rng)
    # A card covered by a later pile card is no longer whole; pile cards come first.
    return img, placed


def _card_quad(cx, cy, ch, angle_deg, rng, tilt):
    cw = ch * FACE_W / FACE_H
    pts = np.float32([[-cw / 2, -ch / 2], [cw / 2, -ch / 2], [cw / 2, ch / 2], [-cw / 2, ch / 2]])
    a = np.deg2rad(angle_deg)
    rot = np.float32([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    pts = pts @ rot.T
    # Perspective: points further "up" the image shrink a little (a tilted camera).
    k = rng.uniform(0, tilt)
    pts = pts * (1 - k * pts[:, 1:2] / ch)
    pts += rng.normal(0, ch * 0.01, pts.shape)
    return (pts + np.float32([cx, cy])).astype(np.float32)


def warped_face(face: np.ndarray, quad: np.ndarray, size: tuple[int, int]
                ) -> tuple[np.ndarray, np.ndarray]:
    """A card face drawn at `quad` in an image of `size` (h, w): the warped face and its
    mask's alpha (uint8, 255 on the card, its rounded corners cut off)."""
    src = np.float32([[0, 0], [FACE_W - 1, 0], [FACE_W - 1, FACE_H - 1], [0, FACE_H - 1]])
    m = cv2.getPerspectiveTransform(src, np.float32(quad))
    h, w = size
    warped = cv2.warpPerspective(face, m, (w, h), flags=cv2.INTER_AREA)
    return warped, cv2.warpPerspective(face_mask(), m, (w, h), flags=cv2.INTER_LINEAR)


def _paste(img, face, quad):
    warped, alpha = warped_face(face, quad, img.shape[:2])
    a = (alpha.astype(np.float32) / 255.0)[..., None]
    img[:] = (img * (1 - a) + warped * a).astype(np.uint8)


# ---------------------------------------------------------------------------------------------
# Classifier training crops

NOT_CARD = "not_card"
"""Label of a crop that shows no card face (table, hand, a card back): the locator's false
alarms, which the classifier learns to reject."""


def _occlude(img, quad, rng):
    """A finger or a neighbouring card over part of the card at `quad`."""
    q = np.float32(quad)
    c = q.mean(axis=0)
    size = np.linalg.norm(q[0] - q[2])
    edge = q[rng.integers(4)] * 0.6 + c * 0.4 if rng.random() < 0.5 else q[rng.integers(4)]
    if rng.random() < 0.6:  # finger: skin-coloured rounded blob
        skin = (int(rng.integers(60, 150)), int(rng.integers(90, 170)), int(rng.integers(140, 230)))
        axes = (int(size * rng.uniform(0.06, 0.1)), int(size * rng.uniform(0.2, 0.45)))
        cv2.ellipse(img, (int(edge[0]), int(edge[1])), axes, float(rng.uniform(0, 180)), 0, 360,
                    skin, -1, cv2.LINE_AA)
    else:  # another card's corner
        other = render_face(ALL_TOKENS[rng.integers(len(ALL_TOKENS))], rng)
        oq = _card_quad(edge[0], edge[1], size * 0.85, rng.uniform(0, 360), rng, 0.1)
        oq += (edge - c) * 0.5
        _paste(img, other, oq)


def _crop_table(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, float]:
    """A piece of table just larger than one card, the card's quad on it (any quarter turn,
    slightly tilted) and its height in pixels: where a training crop is cut."""
    card_h = float(np.exp(rng.uniform(np.log(50), np.log(320))))
    pad = card_h * 0.35
    H = int(card_h + 2 * pad)
    W = int(card_h * FACE_W / FACE_H + 2 * pad)
    img = render_table(H, W, rng)
    quad = _card_quad(W / 2, H / 2, card_h, rng.uniform(-12, 12) + 90 * rng.integers(4), rng,
                      0.3)
    return img, quad, card_h


PART_REACH = (0.32, 0.42)
"""How far down the body a located part of a sunburst card reaches, as a share of the body's
height: the disc is as wide as the body, so the coloured body above it stays in one piece down
to where the disc cuts the body's sides, and the part's outline holds the disc's upper half
and the top of the big digit (the parts located in the Hemant phone/train photos, against
the card-shaped outline around them: median 0.37, middle half 0.35-0.40).
Cut only to the disc's rim, the crops showed none of the digit, and the model read real top
parts of a 6 as a 2 (the top of the 6 in a half-disc) at 0.9."""


SUNBURST_PART_TOKENS = tuple(t for t in ALL_TOKENS if t not in ("wild", "wild_draw_4"))
"""The coloured cards, whose sunburst print cuts the body into a top and a bottom part."""


def render_part_crop(label: str, seed: int | np.random.Generator = 0,
                     size: tuple[int, int] = (64, 96),
                     style: Callable[[np.random.Generator], FaceStyle] | None = None
                     ) -> np.ndarray:
    """A training crop of one part of a sunburst card, labelled with the card (one of
    `SUNBURST_PART_TOKENS`): the coloured body above or below the white disc, with the corner
    index in it, located as the locator finds it on real tables (a card-shaped blob of its
    own, about a third of the card, reaching into the disc: `PART_REACH`). On the Hemant
    phone photos the top part was read as a 2 of the card's colour whatever the card (y_4,
    y_5, y_6, y_9 -> y_2); the runtime keeps a whole card's reading over its parts, but a part
    is often all that is located. `style` draws the print (default: `random_style`'s
    sunburst design)."""
    from vision.rectify import normalise_white, warp_card

    if label not in SUNBURST_PART_TOKENS:
        raise ValueError(f"{label!r} has no sunburst parts; give a coloured card")
    rng = _rng(seed)
    img, quad, card_h = _crop_table(rng)
    face_style = style(rng) if style is not None else random_style(rng, design="sunburst")
    _paste(img, render_face(label, rng, style=face_style), quad)
    img = degrade(light(img, rng), rng)
    # The part in face pixels: inside the white border, from the border down to where the
    # disc cuts the body's sides (`PART_REACH` of the body), the top or the bottom one.
    border = FACE_W * rng.uniform(0.05, 0.09)
    reach = border + (FACE_H - 2 * border) * rng.uniform(*PART_REACH)
    part = np.float32([[border, border], [FACE_W - border, border],
                       [FACE_W - border, reach], [border, reach]])
    if rng.random() < 0.5:
        part[:, 1] = FACE_H - part[:, 1]
    face_to_image = cv2.getPerspectiveTransform(
        np.float32([[0, 0], [FACE_W - 1, 0], [FACE_W - 1, FACE_H - 1], [0, FACE_H - 1]]),
        np.float32(quad))
    est = cv2.perspectiveTransform(part.reshape(-1, 1, 2), face_to_image).reshape(4, 2)
    est += rng.normal(0, card_h * 0.012, est.shape).astype(np.float32)
    crop, valid = warp_card(img, est, size=size)
    return normalise_white(crop, valid)


def render_crop(label: str, seed: int | np.random.Generator = 0, size: tuple[int, int] = (64, 96),
                hard: bool = True,
                style: Callable[[np.random.Generator], FaceStyle] | None = None) -> np.ndarray:
    """One classifier training crop for `label` (a card token or NOT_CARD), as the recogniser
    would see it: a card on a table under random light, located with a small error, warped to
    `size` = (w, h) and white-balanced by `vision.rectify`. `hard` adds fingers, overlapping
    cards and cuts by the frame's edge (training); without it the whole face shows. `style`
    draws the print (default `random_style`).
    """
    from vision.rectify import normalise_white, warp_card

    rng = _rng(seed)
    img, quad, card_h = _crop_table(rng)
    H, W = img.shape[:2]
    part_of_card = False
    if label == NOT_CARD:
        kind = rng.integers(5)
        if kind >= 3:  # a part of a card (its big digit, its oval): the locator finds those too
            _paste(img, render_face(ALL_TOKENS[rng.integers(len(ALL_TOKENS))], rng), quad)
            part_of_card = True
        if kind == 0:  # a card back: black with a red oval
            back = np.full((FACE_H, FACE_W, 3), int(rng.integers(10, 40)), np.uint8)
            cv2.ellipse(back, (FACE_W // 2, FACE_H // 2), (70, 120), 30, 0, 360,
                        card_color_bgr("r", rng), -1)
            _paste(img, back, quad)
        elif kind == 1:  # skin / face-like blob
            skin = (int(rng.integers(60, 150)), int(rng.integers(90, 170)),
                    int(rng.integers(140, 230)))
            cv2.ellipse(img, (W // 2, H // 2), (int(W * 0.3), int(H * 0.4)), 0, 0, 360, skin, -1)
    else:
        _paste(img, render_face(label, rng, style=style(rng) if style else None), quad)
        if hard and rng.random() < 0.25:
            _occlude(img, quad, rng)
    img = light(img, rng)
    img = degrade(img, rng)
    est = quad + rng.normal(0, card_h * 0.015, quad.shape).astype(np.float32)
    if part_of_card:
        c = quad.mean(axis=0) + rng.normal(0, card_h * 0.12, 2).astype(np.float32)
        est = _card_quad(c[0], c[1], card_h * rng.uniform(0.25, 0.6), rng.uniform(0, 360), rng,
                         0.1)
    elif rng.random() < 0.3:  # located on the coloured body, or a loose fit
        c = est.mean(axis=0)
        est = c + (est - c) * rng.uniform(0.86, 1.08)
    crop, valid = warp_card(img, est, size=size)
    if hard and label != NOT_CARD and rng.random() < 0.1:
        # Cut off by the frame's edge: the locator grows the visible part back to 2:3, and the
        # part outside the image warps to black.
        h, w = crop.shape[:2]
        side = rng.integers(4)
        frac = rng.uniform(0.08, 0.35)
        cut = (slice(0, int(h * frac)), slice(None)) if side == 0 else \
            (slice(h - int(h * frac), h), slice(None)) if side == 1 else \
            (slice(None), slice(0, int(w * frac))) if side == 2 else \
            (slice(None), slice(w - int(w * frac), w))
        crop[cut] = 0
        valid[cut] = 0
    return normalise_white(crop, valid)
