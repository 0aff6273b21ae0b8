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

from synth.render import FACE_H, FACE_W, face_mask

SUIT_COLOURS = {"h": (30, 30, 200), "d": (30, 30, 210), "c": (25, 25, 25), "s": (20, 20, 20)}
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def render_uno_back(rng: np.random.Generator) -> np.ndarray:
    """A face-down UNO card: black with a white rim, a tilted red oval and a yellow "UNO"."""
    img = np.full((FACE_H, FACE_W, 3), int(rng.integers(215, 250)), np.uint8)
    border = int(FACE_W * rng.uniform(0.05, 0.08))
    cv2.rectangle(img, (border, border), (FACE_W - border, FACE_H - border),
                  (int(rng.integers(5, 35)),) * 3, -1)
    axes = (int(FACE_W * rng.uniform(0.36, 0.42)), int(FACE_H * rng.uniform(0.40, 0.46)))
    tilt = float(rng.uniform(25, 40))
    red = (int(rng.integers(20, 50)), int(rng.integers(20, 50)), int(rng.integers(180, 235)))
    cv2.ellipse(img, (FACE_W // 2, FACE_H // 2), axes, tilt, 0, 360, red, -1, cv2.LINE_AA)
    scale = FACE_W / 120
    size, _ = cv2.getTextSize("UNO", cv2.FONT_HERSHEY_TRIPLEX, scale, int(scale * 3))
    org = (FACE_W // 2 - size[0] // 2, FACE_H // 2 + size[1] // 2)
    cv2.putText(img, "UNO", org, cv2.FONT_HERSHEY_TRIPLEX, scale, (0, 0, 0), int(scale * 6),
                cv2.LINE_AA)
    cv2.putText(img, "UNO", org, cv2.FONT_HERSHEY_TRIPLEX, scale, (30, 220, 250),
                int(scale * 3), cv2.LINE_AA)
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
