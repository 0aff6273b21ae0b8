"""Procedural cards that are not UNO faces: the UNO card back and French playing cards.

The localiser (`models/train_localiser.py`) learns `uno_back` and `playing_card` from these so
that a face-down UNO card is known as one and a French card is never read as an UNO card. They
are drawn upright at the UNO face's size (`FACE_H` x `FACE_W`, BGR, corners outside the rounded
outline black); a French card is narrower (63x88 mm) but at the localiser's resolution the
difference is a few pixels, and the card's real outline is what its mask follows.
"""

from __future__ import annotations

import cv2
import numpy as np

from synth.render import FACE_H, FACE_W, face_mask, rounded_rect

SUIT_COLOURS = {"h": (30, 30, 200), "d": (30, 30, 210), "c": (25, 25, 25), "s": (20, 20, 20)}
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def render_uno_back(rng: np.random.Generator) -> np.ndarray:
    """A face-down UNO card as the real deck prints it: a white rim (7-10 % of the width) round
    a black field with rounded corners, a long, wide red oval from the lower left to the upper
    right corner that the field cuts off, and a big slanted yellow "UNO" as wide as the field,
    outlined in black and rimmed in pale yellow.

    Drawn twice so far from the wooden table's real backs: first a fat oval leaning the other
    way with small upright letters (the localiser called most real backs faces), then with a
    rim of 4-6 % and a narrow oval with letters half the field wide, which the crop classifier
    still read as a wild card on 35 of 37 real backs (a black card with a coloured oval, in a
    thick white border, is what a wild looks like to it; 6 December)."""
    img = np.full((FACE_H, FACE_W, 3), int(rng.integers(215, 250)), np.uint8)
    border = int(FACE_W * rng.uniform(0.07, 0.10))
    field = np.zeros((FACE_H, FACE_W), np.uint8)
    rounded_rect(field, (border, border), (FACE_W - 1 - border, FACE_H - 1 - border),
                  int(FACE_W * rng.uniform(0.05, 0.09)))
    inside = field > 0
    img[inside] = int(rng.integers(5, 35))
    oval = img.copy()
    centre = (FACE_W // 2 + int(rng.integers(-4, 5)), FACE_H // 2 + int(rng.integers(-4, 5)))
    axes = (int(FACE_H * rng.uniform(0.46, 0.52)), int(FACE_W * rng.uniform(0.28, 0.33)))
    tilt = -float(rng.uniform(55, 65))  # cv2 turns clockwise: the long axis rises to the right
    red = (int(rng.integers(10, 45)), int(rng.integers(10, 40)), int(rng.integers(160, 225)))
    cv2.ellipse(oval, centre, axes, tilt, 0, 360, red, -1, cv2.LINE_AA)
    img[inside] = oval[inside]
    # The letters: drawn large on their own canvas, sheared (italic) and turned up to the right.
    # The outlines are grown from the letters' mask: this OpenCV's putText ignores a stroke
    # thickness above 2, so strokes drawn thicker did not show as rings.
    letters = np.zeros((FACE_H, FACE_W * 2), np.uint8)
    scale = FACE_W / 58
    size, _ = cv2.getTextSize("UNO", cv2.FONT_HERSHEY_TRIPLEX, scale, 2)
    org = (FACE_W - size[0] // 2, FACE_H // 2 + size[1] // 2)
    cv2.putText(letters, "UNO", org, cv2.FONT_HERSHEY_TRIPLEX, scale, 255, 2, cv2.LINE_AA)
    letters = cv2.dilate(letters, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    black = cv2.dilate(letters, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (15, 15)))
    mask = cv2.dilate(letters, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (21, 21)))
    text = np.zeros((*letters.shape, 3), np.uint8)
    text[mask > 127] = (150, 235, 245)
    text[black > 127] = (0, 0, 0)
    text[letters > 127] = (20, 205, 240)
    turn = cv2.getRotationMatrix2D((FACE_W, FACE_H / 2), float(rng.uniform(8, 18)),
                                   FACE_W * 0.8 / size[0] * rng.uniform(0.9, 1.05))
    shear = np.float32([[1, -0.2, 0.2 * FACE_H / 2], [0, 1, 0], [0, 0, 1]])
    m = (np.vstack([turn, [0, 0, 1]]) @ shear)[:2]
    m[0, 2] -= FACE_W / 2
    m[1, 2] += FACE_H * rng.uniform(0.0, 0.08)  # the word sits a little below the middle
    text = cv2.warpAffine(text, m, (FACE_W, FACE_H))
    alpha = cv2.warpAffine(mask, m, (FACE_W, FACE_H)).astype(np.float32)[..., None] / 255.0
    img = (img * (1 - alpha) + text * alpha).astype(np.uint8)
    img[face_mask(0.06) == 0] = 0
    return img


def _pip(img: np.ndarray, suit: str, centre: tuple[float, float], size: float,
         colour: tuple[int, int, int]) -> None:
    """One suit symbol, drawn from circles and triangles (what matters is a dark or red
    blob on white, not the exact shape)."""
    x, y = centre
    r = max(1, int(size * 0.28))
    if suit == "d":
        pts = np.int32([[x, y - size / 2], [x + size / 2.6, y], [x, y + size / 2],
                        [x - size / 2.6, y]])
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA)
        return
    if suit == "h":
        for dx in (-r * 0.9, r * 0.9):
            cv2.circle(img, (int(x + dx), int(y - r * 0.4)), r, colour, -1, cv2.LINE_AA)
        pts = np.int32([[x - 2 * r, y - r * 0.2], [x + 2 * r, y - r * 0.2], [x, y + size / 2]])
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA)
        return
    if suit == "c":
        for dx, dy in ((0, -r), (-r, r * 0.5), (r, r * 0.5)):
            cv2.circle(img, (int(x + dx), int(y + dy)), r, colour, -1, cv2.LINE_AA)
    else:
        pts = np.int32([[x, y - size / 2], [x + 2 * r, y + r * 0.3], [x - 2 * r, y + r * 0.3]])
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA)
        for dx in (-r * 0.9, r * 0.9):
            cv2.circle(img, (int(x + dx), int(y + r * 0.3)), r, colour, -1, cv2.LINE_AA)
    cv2.rectangle(img, (int(x - r * 0.3), int(y)), (int(x + r * 0.3), int(y + size / 2)),
                  colour, -1)


def render_french_face(rng: np.random.Generator) -> np.ndarray:
    """A French playing card face: white, corner rank and suit, pips in rows or a coloured
    court picture in a frame."""
    img = np.full((FACE_H, FACE_W, 3), int(rng.integers(225, 252)), np.uint8)
    img = np.clip(img.astype(np.int16) + rng.integers(-8, 8, 3), 0, 255).astype(np.uint8)
    suit = "hdcs"[int(rng.integers(4))]
    rank = RANKS[int(rng.integers(len(RANKS)))]
    colour = SUIT_COLOURS[suit]
    scale = FACE_W / 160
    for corner, flip in (((0.06, 0.13), False), ((0.94, 0.87), True)):
        x, y = corner[0] * FACE_W, corner[1] * FACE_H
        off = -1 if flip else 1
        w = cv2.getTextSize(rank, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)[0][0]
        cv2.putText(img, rank, (int(x - (w if flip else 0)), int(y)), cv2.FONT_HERSHEY_SIMPLEX,
                    scale, colour, 2, cv2.LINE_AA)
        _pip(img, suit, (x + off * w / 2, y + off * FACE_H * 0.07), FACE_W * 0.1, colour)
    if rank in ("J", "Q", "K"):
        x0, y0, x1, y1 = int(FACE_W * 0.2), int(FACE_H * 0.17), int(FACE_W * 0.8), \
            int(FACE_H * 0.83)
        for _ in range(int(rng.integers(8, 16))):  # the court figure: a jumble of print colours
            c = tuple(int(v) for v in rng.choice([(40, 40, 200), (200, 120, 30), (40, 180, 230),
                                                  (30, 30, 30), (60, 140, 60)]))
            p = (int(rng.integers(x0, x1)), int(rng.integers(y0, y1)))
            cv2.ellipse(img, p, (int(rng.integers(5, 30)), int(rng.integers(5, 40))),
                        float(rng.uniform(0, 180)), 0, 360, c, -1, cv2.LINE_AA)
        cv2.rectangle(img, (x0, y0), (x1, y1), colour, 2)
    else:
        count = 1 if rank == "A" else int(rank)
        cols = 1 if count <= 3 else 2 if count <= 8 else 3
        rows = int(np.ceil(count / cols))
        size = FACE_W * (0.35 if count == 1 else 0.16)
        for k in range(count):
            col, row = k % cols, k // cols
            x = FACE_W * (0.5 if cols == 1 else 0.3 + 0.4 * col / max(cols - 1, 1))
            y = FACE_H * (0.5 if rows == 1 else 0.22 + 0.56 * row / max(rows - 1, 1))
            _pip(img, suit, (x, y), size, colour)
    img[face_mask(0.06) == 0] = 0
    return img


def render_french_back(rng: np.random.Generator) -> np.ndarray:
    """A French card's back: a white rim round a red or blue lattice."""
    img = np.full((FACE_H, FACE_W, 3), int(rng.integers(220, 250)), np.uint8)
    ink = (40, 40, 190) if rng.random() < 0.6 else (170, 80, 30)
    if rng.random() < 0.3:
        ink = (150, 110, 230)  # the pink backs on the poker table photos' style
    b = int(FACE_W * rng.uniform(0.05, 0.1))
    inner = img[b:FACE_H - b, b:FACE_W - b]
    inner[:] = ink
    step = int(rng.integers(6, 14))
    light = tuple(min(255, int(v) + 70) for v in ink)
    h, w = inner.shape[:2]
    for k in range(-h, w, step):
        cv2.line(inner, (k, 0), (k + h, h), light, 1, cv2.LINE_AA)
        cv2.line(inner, (k + h, 0), (k, h), light, 1, cv2.LINE_AA)
    img[face_mask(0.06) == 0] = 0
    return img
