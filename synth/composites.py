"""Training scenes for the card localiser: cards pasted onto tables, with per-pixel labels.

A composite is an image (BGR uint8) with two label maps of the same size:

- `classes`: 0 background, 1 uno_face, 2 uno_back, 3 playing_card (a French face or back),
  255 = not judged (a card of unknown kind);
- `core`: 1 on the visible part of each card's *core* (its outline shrunk by `CORE_SCALE`
  about its centre), 0 elsewhere, 255 = not judged (where two real cards' outlines overlap and
  which lies on top is not known). Cores of touching and overlapping cards stay apart, so the
  localiser can count cards and grow each core back to its card (`vision.localise_model`).

Cards come from `render_face` (UNO faces in four designs), `synth.other_cards` (UNO backs,
French faces and backs) and real cut-outs handed in by the caller (this package never reads the
shared data). The table is procedural (wood, white and light tops, felt, cloth, clutter) or a
real labelled photo (`BaseScene`), whose own cards keep their labels. Hands and fingers cover
cards; light, blur, noise and JPEG come from `synth.render`.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from referee.cards import ALL_TOKENS
from synth.other_cards import render_french_back, render_french_face, render_uno_back
from synth.render import (
    FACE_H,
    FACE_W,
    degrade,
    light,
    random_style,
    render_face,
    render_gingham,
    render_table,
    warped_face,
)

BACKGROUND, UNO_FACE, UNO_BACK, PLAYING_CARD = 0, 1, 2, 3
KIND_CLASS = {"uno_face": UNO_FACE, "uno_back": UNO_BACK, "playing_card": PLAYING_CARD}
IGNORE = 255
CORE_SCALE = 0.6
"""A card's core is its outline shrunk to this share of its size about its centre: small enough
that cores of cards lying edge to edge (or fanned) are apart, big enough to be seen on a card
15 px high."""

SIZE = (192, 320)
"""Composite size (h, w): the localiser's working size for a 16:9 frame (1280x720 -> 320x180,
padded to a multiple of 16)."""


@dataclass
class Cutout:
    """A card face cut out of a photo (FACE_H x FACE_W BGR, upright or not) and its kind."""

    face: np.ndarray
    kind: str


@dataclass
class BaseScene:
    """A real photo and its cards: quads (4x2 image pixels) with kinds ("unknown" -> not
    judged)."""

    image: np.ndarray
    quads: list[np.ndarray]
    kinds: list[str]


@dataclass
class _Layer:
    quad: np.ndarray
    cls: int
    known_order: bool  # False for a real photo's own cards (which is on top is not known)


# ---------------------------------------------------------------------------------------------
# Tables


def _wood(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """Wood grain, pale (beech, birch) to dark (walnut): fine streaks along one direction."""
    base = np.array([rng.uniform(60, 190), rng.uniform(100, 210), rng.uniform(140, 235)])
    if rng.random() < 0.3:
        base *= rng.uniform(0.4, 0.7)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, np.pi)
    u = xs * np.cos(a) + ys * np.sin(a)
    v = -xs * np.sin(a) + ys * np.cos(a)
    warp = np.sin(u * rng.uniform(0.005, 0.03)) * rng.uniform(2, 15)
    grain = np.sin((v + warp) * rng.uniform(0.1, 0.6))
    fine = cv2.resize(rng.normal(0, 1, (max(2, h // 2), 1)).astype(np.float32), (w, h))
    fine = cv2.warpAffine(fine, cv2.getRotationMatrix2D((w / 2, h / 2), np.degrees(a), 1.3),
                          (w, h), borderMode=cv2.BORDER_REFLECT)
    shade = 1 + rng.uniform(0.03, 0.12) * grain + rng.uniform(0.02, 0.08) * fine
    return np.clip(base[None, None] * shade[..., None], 0, 255).astype(np.uint8)


def _plain(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A plain top: white, light grey, beige, or felt (green, blue, red) with a faint weave."""
    kind = rng.integers(3)
    if kind == 0:
        colour = rng.uniform(185, 250) + rng.uniform(-12, 12, 3)
    elif kind == 1:
        colour = rng.uniform(120, 200) + rng.uniform(-20, 20, 3)
    else:
        colour = np.array([[40, 110, 30], [110, 60, 20], [30, 30, 120], [60, 60, 60]][
            rng.integers(4)], np.float32) * rng.uniform(0.6, 1.4)
    img = np.full((h, w, 3), colour, np.float32)
    img += rng.normal(0, rng.uniform(1, 6), (h, w, 1))
    return np.clip(img, 0, 255).astype(np.uint8)


def _clutter(img: np.ndarray, rng: np.random.Generator) -> None:
    """Things on a table that are not cards: poker chips, coins, paper, cups, pens, boxes."""
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(0, 7))):
        colour = tuple(int(v) for v in rng.integers(0, 256, 3))
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        s = int(rng.uniform(0.02, 0.12) * h) + 2
        k = rng.integers(5)
        if k == 0:  # a chip: a disc with a white-dashed rim
            cv2.circle(img, (x, y), s, colour, -1, cv2.LINE_AA)
            cv2.circle(img, (x, y), max(1, int(s * 0.75)), (235, 235, 235), max(1, s // 5))
        elif k == 1:  # paper or a box: a bright or coloured rectangle, card-like on purpose
            box = cv2.boxPoints(((x, y), (s * rng.uniform(1, 4), s * rng.uniform(1, 4)),
                                 float(rng.uniform(0, 180))))
            cv2.fillPoly(img, [np.int32(box)], colour if rng.random() < 0.5 else (240,) * 3,
                         cv2.LINE_AA)
        elif k == 2:  # a pen or a stick
            a = rng.uniform(0, np.pi)
            p = (int(x + np.cos(a) * s * 3), int(y + np.sin(a) * s * 3))
            cv2.line(img, (x, y), p, colour, max(1, s // 6), cv2.LINE_AA)
        elif k == 3:  # a cup seen from above
            cv2.circle(img, (x, y), s, colour, -1, cv2.LINE_AA)
            cv2.circle(img, (x, y), max(1, int(s * 0.8)), tuple(c // 2 for c in colour), -1)
        else:  # printed text or a logo
            cv2.putText(img, "".join(rng.choice(list("ABCDEFG0123456789"), 4)), (x, y),
                        cv2.FONT_HERSHEY_SIMPLEX, s / 25, colour, max(1, s // 12), cv2.LINE_AA)


def _room(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """Behind a card held up to a webcam: a wall, a window, furniture and a person's shape."""
    img = cv2.resize(rng.integers(40, 230, (3, 4, 3)).astype(np.uint8), (w, h),
                     interpolation=cv2.INTER_CUBIC)
    for _ in range(int(rng.integers(1, 5))):
        x0, y0 = int(rng.integers(0, w)), int(rng.integers(0, h))
        x1, y1 = x0 + int(rng.integers(10, w // 2)), y0 + int(rng.integers(10, h))
        cv2.rectangle(img, (x0, y0), (x1, y1), tuple(int(v) for v in rng.integers(0, 256, 3)),
                      -1)
    if rng.random() < 0.7:  # a person: dark clothes below a skin-toned face
        cx = int(rng.uniform(0.2, 0.8) * w)
        cv2.ellipse(img, (cx, h), (int(w * 0.3), int(h * 0.5)), 0, 180, 360,
                    tuple(int(v) for v in rng.integers(10, 90, 3)), -1)
        cv2.ellipse(img, (cx, int(h * 0.35)), (int(h * 0.12), int(h * 0.16)), 0, 0, 360,
                    _skin(rng), -1, cv2.LINE_AA)
    return cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 2.0))


def procedural_table(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A card-free table (or room): wood, plain, felt, cloth, gingham or a room."""
    k = rng.random()
    if k < 0.35:
        img = _wood(h, w, rng)
    elif k < 0.6:
        img = _plain(h, w, rng)
    elif k < 0.72:
        img = render_gingham(h, w, rng)
    elif k < 0.87:
        img = render_table(h, w, rng)
    else:
        return _room(h, w, rng)
    if rng.random() < 0.7:
        _clutter(img, rng)
    return img


# ---------------------------------------------------------------------------------------------
# Cards and hands


def _skin(rng: np.random.Generator) -> tuple[int, int, int]:
    tone = rng.uniform(0.35, 1.0)
    return (int(60 + 120 * tone * rng.uniform(0.8, 1.0)), int(70 + 130 * tone),
            int(110 + 130 * tone))


def card_quad(centre: tuple[float, float], height: float, angle_deg: float,
              rng: np.random.Generator, tilt: float = 0.2) -> np.ndarray:
    """A card's corners (4x2: top-left, top-right, bottom-right, bottom-left of the upright
    face) at `centre`, `height` pixels high, turned by `angle_deg`, bent by a camera tilt."""
    cw = height * FACE_W / FACE_H
    pts = np.float32([[-cw / 2, -height / 2], [cw / 2, -height / 2], [cw / 2, height / 2],
                      [-cw / 2, height / 2]])
    a = np.deg2rad(angle_deg)
    pts = pts @ np.float32([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]).T
    k = rng.uniform(-tilt, tilt, 2)
    pts = pts * (1 - (k[0] * pts[:, 1:2] + k[1] * pts[:, 0:1]) / height)
    pts += rng.normal(0, height * 0.01, pts.shape)
    return (pts + np.float32(centre)).astype(np.float32)


def _face_for(rng: np.random.Generator, cutouts: list[Cutout]) -> tuple[np.ndarray, int]:
    k = rng.random()
    if k < 0.3 and cutouts:
        c = cutouts[int(rng.integers(len(cutouts)))]
        face = c.face if rng.random() < 0.5 else c.face[::-1, ::-1]
        return np.ascontiguousarray(face), KIND_CLASS[c.kind]
    if k < 0.70:
        token = ALL_TOKENS[int(rng.integers(len(ALL_TOKENS)))]
        return render_face(token, rng, random_style(rng)), UNO_FACE
    if k < 0.8:
        return render_uno_back(rng), UNO_BACK
    if k < 0.95:
        return render_french_face(rng), PLAYING_CARD
    return render_french_back(rng), PLAYING_CARD


def _paste(img: np.ndarray, face: np.ndarray, quad: np.ndarray, rng: np.random.Generator
           ) -> None:
    warped, alpha = warped_face(face, quad, img.shape[:2])
    a = (alpha.astype(np.float32) / 255.0)[..., None]
    if rng.random() < 0.4:
        # A card's shadow on the table, offset a little, under the card.
        shadow = cv2.GaussianBlur(alpha, (0, 0), 1.5).astype(np.float32) / 255.0
        shadow = np.roll(shadow, (1, 1), axis=(0, 1))[..., None] * 0.35
        img[:] = (img * (1 - shadow)).astype(np.uint8)
    img[:] = (img * (1 - a) + warped * a).astype(np.uint8)


def _hand(img: np.ndarray, quad: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A hand holding or touching the card at `quad`: a palm beside one edge and fingers or a
    thumb over it. Returns the hand's mask (uint8 0/1)."""
    h, w = img.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    q = np.float32(quad)
    c = q.mean(axis=0)
    size = float(np.linalg.norm(q[0] - q[2]))
    edge = int(rng.integers(4))
    mid = (q[edge] + q[(edge + 1) % 4]) / 2
    out = mid - c
    out /= max(float(np.linalg.norm(out)), 1e-6)
    palm = mid + out * size * rng.uniform(0.15, 0.4)
    if rng.random() < 0.6:
        cv2.ellipse(mask, (int(palm[0]), int(palm[1])),
                    (int(size * rng.uniform(0.25, 0.4)), int(size * rng.uniform(0.2, 0.3))),
                    float(np.degrees(np.arctan2(out[1], out[0]))), 0, 360, 1, -1)
    along = q[(edge + 1) % 4] - q[edge]
    for _ in range(int(rng.integers(1, 4))):
        base = q[edge] + along * rng.uniform(0.1, 0.9) + out * size * 0.12
        tip = base - out * size * rng.uniform(0.08, 0.3)
        cv2.line(mask, (int(base[0]), int(base[1])), (int(tip[0]), int(tip[1])), 1,
                 max(2, int(size * rng.uniform(0.06, 0.1))), cv2.LINE_AA)
    colour = np.float32(_skin(rng))
    shade = 1 + cv2.GaussianBlur(rng.normal(0, 0.15, (h, w)).astype(np.float32), (0, 0), 3)
    m = mask.astype(bool)
    img[m] = np.clip(colour[None] * shade[m][:, None], 0, 255).astype(np.uint8)
    return mask


def _layout(rng: np.random.Generator, h: int, w: int) -> list[tuple[tuple[float, float], float,
                                                                       float]]:
    """(centre, height, angle) of the cards to paste: scattered, a pile or fan, a row, or one
    big card (a close-up or a card held up)."""
    mode = rng.random()
    card_h = float(np.exp(rng.uniform(np.log(14), np.log(110))))
    if mode < 0.4:
        n = int(rng.integers(1, 12))
        return [((rng.uniform(0, w), rng.uniform(0, h)), card_h * rng.uniform(0.85, 1.15),
                 rng.uniform(0, 360)) for _ in range(n)]
    if mode < 0.6:  # a pile or a fanned hand: one centre, turning angles
        n = int(rng.integers(2, 9))
        c = np.float32([rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h])
        a0, da = rng.uniform(0, 360), rng.uniform(-25, 25)
        shift = rng.normal(0, card_h * 0.15, 2)
        return [(tuple(c + shift * i), card_h, a0 + da * i) for i in range(n)]
    if mode < 0.75:  # a row, side by side, nearly touching
        n = int(rng.integers(2, 7))
        a = rng.uniform(-15, 15) + 90 * rng.integers(2)
        step = card_h * FACE_W / FACE_H * rng.uniform(1.02, 1.3)
        d = np.float32([np.cos(np.deg2rad(a)), np.sin(np.deg2rad(a))])
        start = np.float32([rng.uniform(0.1, 0.5) * w, rng.uniform(0.2, 0.8) * h])
        return [(tuple(start + d * step * i), card_h, a + rng.normal(0, 3)) for i in range(n)]
    big = rng.uniform(0.35, 0.95) * h
    return [((rng.uniform(0.3, 0.7) * w, rng.uniform(0.35, 0.65) * h), big,
             rng.uniform(-20, 20) + 90 * rng.integers(4))]


# ---------------------------------------------------------------------------------------------
# Real photos as the table


def _fit_base(base: BaseScene, h: int, w: int, rng: np.random.Generator
              ) -> tuple[np.ndarray, list[_Layer]]:
    """A random crop of the real photo at (h, w), zoomed so its cards take a random size,
    and its cards' quads moved with it."""
    ih, iw = base.image.shape[:2]
    fit = min(w / iw, h / ih) if rng.random() < 0.4 else max(w / iw, h / ih)
    scale = fit * float(np.exp(rng.uniform(np.log(0.6), np.log(2.0))))
    scale = max(scale, 0.5 * min(w / iw, h / ih))
    sw, sh = iw * scale, ih * scale
    ox = rng.uniform(min(0.0, w - sw), max(0.0, w - sw))
    oy = rng.uniform(min(0.0, h - sh), max(0.0, h - sh))
    m = np.float32([[scale, 0, ox], [0, scale, oy]])
    if rng.random() < 0.5:  # turn the photo about the output's centre
        turn = cv2.getRotationMatrix2D((w / 2, h / 2), float(rng.uniform(-180, 180)), 1.0)
        m = (np.vstack([turn, [0, 0, 1]]) @ np.vstack([m, [0, 0, 1]]))[:2].astype(np.float32)
    img = cv2.warpAffine(base.image, m, (w, h), flags=cv2.INTER_AREA,
                         borderMode=cv2.BORDER_REPLICATE)
    layers = []
    for quad, kind in zip(base.quads, base.kinds, strict=True):
        moved = (np.float32(quad) @ m[:, :2].T + m[:, 2]).astype(np.float32)
        layers.append(_Layer(moved, KIND_CLASS.get(kind, IGNORE), known_order=False))
    return img, layers


# ---------------------------------------------------------------------------------------------
# The composite and its labels


def _poly_mask(quad: np.ndarray, h: int, w: int, scale: float = 1.0) -> np.ndarray:
    q = np.float32(quad)
    c = q.mean(axis=0)
    q = c + (q - c) * scale
    m = np.zeros((h, w), np.uint8)
    cv2.fillPoly(m, [np.int32(np.round(q * 4))], 1, cv2.LINE_8, shift=2)
    return m


def _labels(layers: list[_Layer], covered: np.ndarray, h: int, w: int
            ) -> tuple[np.ndarray, np.ndarray]:
    classes = np.zeros((h, w), np.uint8)
    owner = np.full((h, w), -1, np.int32)
    fulls = [_poly_mask(layer.quad, h, w) for layer in layers]
    for i, (layer, full) in enumerate(zip(layers, fulls, strict=True)):
        classes[full > 0] = layer.cls
        owner[full > 0] = i
    core = np.zeros((h, w), np.uint8)
    unknown_order = [i for i, layer in enumerate(layers) if not layer.known_order]
    for i, layer in enumerate(layers):
        shrunk = _poly_mask(layer.quad, h, w, CORE_SCALE) > 0
        visible = shrunk & (owner == i)
        if not layer.known_order:
            # Which of two overlapping real cards lies on top is unknown: neither core is
            # judged where their outlines overlap.
            for j in unknown_order:
                if j != i:
                    overlap = shrunk & (fulls[j] > 0)
                    core[overlap] = IGNORE
                    visible &= ~overlap
        if layer.cls == IGNORE:
            core[shrunk] = IGNORE
            continue
        core[visible & (core != IGNORE)] = 1
    classes[covered > 0] = BACKGROUND
    core[covered > 0] = 0
    return classes, core


def make_composite(rng: np.random.Generator, cutouts: list[Cutout] | None = None,
                   base: BaseScene | None = None, size: tuple[int, int] = SIZE
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One training scene: (image BGR uint8, classes uint8, core uint8), all `size` (h, w).

    With `base`, the table is that real photo (cropped, zoomed, turned) and its own cards are
    labelled; a few more cards may be pasted on it. Without, the table is procedural."""
    h, w = size
    cutouts = cutouts or []
    if base is not None:
        img, layers = _fit_base(base, h, w, rng)
        places = _layout(rng, h, w)[: int(rng.integers(0, 3))] if rng.random() < 0.5 else []
    else:
        img, layers = procedural_table(h, w, rng), []
        places = _layout(rng, h, w) if rng.random() < 0.93 else []  # some tables stay bare
    for centre, card_h, angle in places:
        quad = card_quad(centre, card_h, angle, rng)
        face, cls = _face_for(rng, cutouts)
        _paste(img, face, quad, rng)
        layers.append(_Layer(quad, cls, known_order=True))
    covered = np.zeros((h, w), np.uint8)
    pasted = [layer for layer in layers if layer.known_order]
    hand_p = 0.8 if len(pasted) == 1 and len(places) == 1 and places[0][1] > 0.35 * h else 0.15
    for layer in pasted:
        if rng.random() < hand_p:
            covered |= _hand(img, layer.quad, rng)
    img = light(img, rng, strength=float(rng.uniform(0.3, 1.0)))
    img = degrade(img, rng)
    classes, core = _labels(layers, covered, h, w)
    return img, classes, core


# ---------------------------------------------------------------------------------------------
# Classifier crops cut where a localiser's box would be: loose, off-centre, a little turned

LOOSE_SCALE = (0.9, 1.5)
"""How much larger than the card a located box may be: the learned localiser's boxes on
wooden-table cards are about a fifth larger, and on a card held up to a webcam they take in
the hand round it (up to about half as large again)."""
LOOSE_TURN_DEG = (4.0, 35.0)
"""A located box's turn against the card: most are off by a few degrees (normal, this
sigma); a third, boxes round a held card and the hand, by anything up to the second bound."""


def located_crop(label: str, rng: np.random.Generator, not_card: str = "not_card"
                 ) -> np.ndarray:
    """One classifier training crop (64x96 BGR, white-balanced by `vision.rectify`) of `label`
    (a card token, or `not_card`) cut by a box like the learned localiser's: up to a quarter
    larger than the card (`LOOSE_SCALE`), off its centre by a few percent, turned a little or,
    a third of the time, a lot (`LOOSE_TURN_DEG`), on a table or in front of a room, often
    held by a hand. `not_card` crops are boxes on what the
    localiser may call a face: UNO backs (the real deck's look), French cards, a face mostly
    under a hand, or a patch of table or room."""
    from vision.rectify import order_quad, rectify

    card_h = float(np.exp(rng.uniform(np.log(60), np.log(300))))
    h = int(card_h * 1.8)
    w = int(card_h * 1.6)
    img = _room(h, w, rng) if rng.random() < 0.25 else procedural_table(h, w, rng)
    centre = (w / 2 + rng.normal(0, 0.03 * w), h / 2 + rng.normal(0, 0.03 * h))
    quad = card_quad(centre, card_h, float(rng.uniform(-15, 15) + 90 * rng.integers(4)), rng)
    hand_p = 0.5
    if label != not_card:
        face = render_face(label, rng, random_style(rng))
    else:
        k = rng.random()
        face = (render_uno_back(rng) if k < 0.4 else render_french_face(rng) if k < 0.6
                else render_french_back(rng) if k < 0.7 else None)
        if k >= 0.85:  # a face behind a hand: too little of it shows to be read
            face = render_face(ALL_TOKENS[int(rng.integers(len(ALL_TOKENS)))], rng)
            hand_p = 0.0
    if face is not None:
        _paste(img, face, quad, rng)
    if face is not None and hand_p == 0.0:
        _cover(img, quad, rng)
    elif rng.random() < hand_p:
        _hand(img, quad, rng)
    img = light(img, rng, strength=float(rng.uniform(0.3, 1.0)))
    img = degrade(img, rng)
    c = quad.mean(axis=0)
    a = np.deg2rad(rng.normal(0, LOOSE_TURN_DEG[0]) if rng.random() < 2 / 3
                   else rng.uniform(-LOOSE_TURN_DEG[1], LOOSE_TURN_DEG[1]))
    turn = np.float32([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    # A box is a rectangle: the localiser boxes the card's pixels with a rotated rectangle.
    est = cv2.boxPoints(cv2.minAreaRect(quad)) if rng.random() < 0.5 else quad
    est = (est - c) @ turn.T * rng.uniform(*LOOSE_SCALE) + c \
        + rng.normal(0, 0.04 * card_h, 2)
    return rectify(img, order_quad(np.float32(est)), ordered=True)


def _cover(img: np.ndarray, quad: np.ndarray, rng: np.random.Generator) -> None:
    """A palm over most of the card at `quad` (60-90% of it hidden)."""
    q = np.float32(quad)
    c = q.mean(axis=0)
    size = float(np.linalg.norm(q[0] - q[2]))
    mask = np.zeros(img.shape[:2], np.uint8)
    off = c + rng.normal(0, 0.1 * size, 2)
    cv2.ellipse(mask, (int(off[0]), int(off[1])),
                (int(size * rng.uniform(0.35, 0.5)), int(size * rng.uniform(0.3, 0.45))),
                float(rng.uniform(0, 180)), 0, 360, 1, -1)
    colour = np.float32(_skin(rng))
    m = mask.astype(bool)
    img[m] = np.clip(colour[None] * rng.uniform(0.8, 1.1, (int(m.sum()), 1)), 0,
                     255).astype(np.uint8)
