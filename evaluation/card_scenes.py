"""Real card photos as labelled scenes: every card's outline (quad) and kind, per photo.

The localiser is trained on these (as backgrounds and cut-outs for composites, and as scenes
themselves) and scored on them, leave-one-source-out. Outlines come from:

- cards-wide boxed sources: omar_masri_bicocca's polygons (a quad fitted to each), r3xol_row's
  whole-card boxes (its cards lie upright, so the box is the card);
- single-card photos on a dark background (cards-dev, and cards-wide's dark sources): the card
  is the one bright, card-shaped blob of an Otsu threshold. A photo where that blob is not
  clearly card-shaped gets no outline (`quads` empty, `cut_clean` False): it is still scored
  (the one card must be found) but never cut out or trained on as a scene;
- french-dev: no outlines (only which cards lie on the table); scored for false UNO cards.

The data is read in place (`evaluation.shared_data`), never copied.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from evaluation.card_data import single_card_source
from evaluation.shared_data import shared_data_dir
from synth.render import FACE_H, FACE_W
from vision.locate import quad_aspect, quad_of
from vision.rectify import order_quad

UNO_FACE, UNO_BACK, PLAYING_CARD = "uno_face", "uno_back", "playing_card"

DARK_BACKGROUND_SOURCES = {"nuno_highres", "nuno_set1", "nuno_set2", "natnael_k", "svolsch",
                           "soloskino1", "aiswarya_flip", "mabrao"}
"""Single-card sources shot on a dark background, where a threshold cuts the card out."""

SHIPPED_TEST_PHOTOS = ("uno-test-26.jpg", "uno-test-27.jpg", "uno-test-28.jpg",
                       "uno-test-29.jpg", "uno-test-30.jpg", "r3_3_earlier.jpg")
"""Photos (file names in omar_masri_bicocca and r3xol_row) the shipped localiser is not trained
on, so its tests can check several cards on a wooden table and in a row on photos it never saw
(`models/train_localiser.py --keep-test-photos`)."""

CARD_ASPECT = (1.3, 1.75)
MIN_FILL = 0.88
"""A thresholded blob is a clean card outline when its quad is card-shaped and the blob fills
at least this share of the quad (rounded corners cost about 2%)."""


@dataclass
class LabelledCard:
    kind: str  # UNO_FACE, UNO_BACK or "unknown" (a blank wild, the rules leaflet)
    token: str  # the UNO token, "" when not a face
    quad: np.ndarray | None  # 4x2 float32 image pixels; None when the outline is not known
    occluded: bool = False


@dataclass
class LabelledPhoto:
    path: Path
    source: str
    cards: list[LabelledCard] = field(default_factory=list)
    french: bool = False  # a French-deck table: every card on it is a playing card

    @property
    def outlined(self) -> bool:
        """Every card's outline is known (the photo can be trained on as a scene)."""
        return bool(self.cards) and all(c.quad is not None for c in self.cards)


def _read(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def single_card_quad(image: np.ndarray) -> np.ndarray | None:
    """The one card's quad on a dark background, or None when the bright blob is not clearly
    a whole card (touches the image edge, wrong shape, or not filled)."""
    h, w = image.shape[:2]
    scale = 640 / max(h, w)
    small = cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    grey = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    _, bright = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    bright = cv2.morphologyEx(bright, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    contours, _ = cv2.findContours(bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    blob = max(contours, key=cv2.contourArea)
    area = cv2.contourArea(blob)
    sh, sw = small.shape[:2]
    x, y, bw, bh = cv2.boundingRect(blob)
    if x <= 1 or y <= 1 or x + bw >= sw - 1 or y + bh >= sh - 1:
        return None
    if not 0.01 * sh * sw <= area <= 0.8 * sh * sw:
        return None
    quad = quad_of(cv2.convexHull(blob))
    if not CARD_ASPECT[0] <= quad_aspect(quad) <= CARD_ASPECT[1]:
        return None
    if area / max(cv2.contourArea(quad), 1.0) < MIN_FILL:
        return None
    return (quad / scale).astype(np.float32)


def _polygon_quad(values: str, w: int, h: int) -> np.ndarray:
    pts = np.float32(values.split()).reshape(-1, 2) * [w, h]
    return cv2.boxPoints(cv2.minAreaRect(pts.astype(np.float32))).astype(np.float32)


def _box_quad(r: dict, w: int, h: int) -> np.ndarray:
    cx, cy, bw, bh = (float(r[k]) for k in ("x_center", "y_center", "w", "h"))
    x0, y0, x1, y1 = (cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h
    return np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])


@lru_cache(maxsize=2)
def labelled_photos(data: Path | None = None) -> tuple[LabelledPhoto, ...]:
    """Every real photo with its cards, from cards-dev (single cards), cards-wide and
    french-dev. Single-card outlines are found by threshold (about a second for all)."""
    data = data or shared_data_dir()
    photos: list[LabelledPhoto] = []
    dev = data / "cards-dev"
    if (dev / "labels.csv").is_file():
        for r in _read(dev / "labels.csv"):
            photos.append(_single(dev / r["path"], single_card_source(r["path"], r["source"]),
                                  r["card"]))
    wide = data / "cards-wide"
    if (wide / "labels.csv").is_file():
        groups: dict[str, list[dict]] = {}
        for r in _read(wide / "labels.csv"):
            groups.setdefault(r["path"], []).append(r)
        for path, rows in groups.items():
            source = rows[0]["source"]
            if not rows[0]["box"]:
                photos.append(_single(wide / path, source, rows[0]["card"]))
                continue
            image = cv2.imread(str(wide / path))
            h, w = image.shape[:2]
            cards = []
            for r in rows:
                quad = _polygon_quad(r["polygon"], w, h) if r["polygon"] else _box_quad(r, w, h)
                kind = {"card": UNO_FACE, "back": UNO_BACK}.get(r["object"], "unknown")
                cards.append(LabelledCard(kind, r["card"], quad, r["occluded"] == "1"))
            photos.append(LabelledPhoto(wide / path, source, cards))
    french = data / "french-dev"
    if (french / "labels.csv").is_file():
        for name in sorted({r["image"] for r in _read(french / "labels.csv")}):
            photos.append(LabelledPhoto(french / name, "french_dev", french=True))
    return tuple(photos)


def _single(path: Path, source: str, token: str) -> LabelledPhoto:
    quad = None
    if source in DARK_BACKGROUND_SOURCES:
        image = cv2.imread(str(path))
        quad = single_card_quad(image) if image is not None else None
    return LabelledPhoto(path, source, [LabelledCard(UNO_FACE, token, quad)])


def cut_face(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The card at `quad` in `image`, warped upright to FACE_H x FACE_W (the renderer's face
    size; a card may come out turned 180 degrees, which a card does not mind)."""
    src = order_quad(quad)
    dst = np.float32([[0, 0], [FACE_W - 1, 0], [FACE_W - 1, FACE_H - 1], [0, FACE_H - 1]])
    return cv2.warpPerspective(image, cv2.getPerspectiveTransform(src, dst), (FACE_W, FACE_H),
                               flags=cv2.INTER_AREA)


def _has_real_face(card: LabelledCard) -> bool:
    return card.kind == UNO_FACE and bool(card.token) and card.quad is not None \
        and not card.occluded


def real_face_sources(data: Path | None = None) -> set[str]:
    """The real photo sources that have cards `real_faces` can cut out (empty without the
    shared data)."""
    return {photo.source for photo in labelled_photos(data)
            if not photo.french and any(_has_real_face(c) for c in photo.cards)}


def real_faces(sources: set[str], data: Path | None = None, skip_photos: tuple[str, ...] = ()
               ) -> dict[str, list[np.ndarray]]:
    """Faces cut out of the real photos of `sources` (but the photos named in `skip_photos`),
    by token: every UNO face whose outline is known and that no other card covers (for footage
    with real card faces, `synth.footage`)."""
    faces: dict[str, list[np.ndarray]] = {}
    for photo in labelled_photos(data):
        if photo.source not in sources or photo.french or photo.path.name in skip_photos:
            continue
        cards = [c for c in photo.cards if _has_real_face(c)]
        if not cards:
            continue
        image = cv2.imread(str(photo.path))
        if image is None:
            continue
        for card in cards:
            faces.setdefault(card.token, []).append(cut_face(image, card.quad))
    return faces
