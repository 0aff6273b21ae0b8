"""The card localiser, scored source by source on real photos (`python -m evaluation.cards
--localiser FOLDER`).

Each real source is scored with a localiser that was not trained on it: from the .onnx files in
FOLDER, the one whose metadata lists the source as held out, else one whose training sources do
not include it (the shipped model, for sources never trained on). Per source:

- *found*: a labelled card is found when a box of its kind (`CardLocaliser.locate` with the
  card classifier's second look, `vision.localise_model.checked_kinds`) overlaps its outline
  with IoU >= 0.5;
  in a single-card photo whose outline is not known (a light table, a hand), when any UNO face
  box is found at all;
- *top-1*: of the found UNO faces, the share the card classifier reads right in their box
  (crop and its 180° turn averaged, as `vision.recognise` reads);
- *identify right*: the UNO faces `vision.recognise` reports with their token, with each of
  its locators (`LOCATORS`; the learned ones with that localiser);
- *false UNO per French photo*: on french-dev, the UNO cards `vision.recognise` reports
  (above its confidence bar), per photo, with each locator.

The classical locator (`vision.locate`) is scored beside it: found = any of its candidates
with IoU >= 0.5.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from evaluation.card_scenes import UNO_FACE, LabelledPhoto, labelled_photos
from evaluation.matching import most_pairs
from vision.classify import NOT_CARD, both_ways_up, default_classifier
from vision.localise_model import CardLocaliser
from vision.locate import locate
from vision.recognise import LOCATORS, recognise
from vision.rectify import order_quad, rectify

MATCH_IOU = 0.5


def quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quads (4x2)."""
    a, b = order_quad(a), order_quad(b)
    shared, _ = cv2.intersectConvexConvex(np.float32(a), np.float32(b))
    union = abs(cv2.contourArea(a)) + abs(cv2.contourArea(b)) - shared
    return float(shared) / union if union > 0 else 0.0


@dataclass
class SourceScore:
    photos: int = 0
    cards: int = 0
    found: int = 0
    faces: int = 0  # UNO faces among the cards
    found_faces: int = 0
    read_right: int = 0  # found faces the classifier reads right
    classical_found: int = 0
    classical_scored: int = 0  # cards with a known outline, where the classical locator is scored
    # Per locator (LOCATORS): the faces `recognise` reports with their token, and the UNO
    # cards it reports on French photos.
    identify_right: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LOCATORS, 0))
    false_uno: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LOCATORS, 0))
    uno_boxes: int = 0  # UNO-face boxes on French photos, before the classifier

    def row(self, name: str, model: str) -> str:
        if self.cards == 0:
            n = max(self.photos, 1)
            false = " | ".join(f"{self.false_uno[k] / n:.2f}" for k in LOCATORS)
            return (f"| {name} | {model} | {self.photos} | - | - | - | - | - | - | - | "
                    f"{false} | {self.uno_boxes / n:.2f} |")
        classical = (f"{100 * self.classical_found / self.classical_scored:.1f}%"
                     if self.classical_scored else "-")
        right = " | ".join(f"{100 * self.identify_right[k] / max(self.faces, 1):.1f}%"
                           for k in LOCATORS)
        return (f"| {name} | {model} | {self.photos} | {self.cards} | "
                f"{100 * self.found / self.cards:.1f}% | "
                f"{100 * self.read_right / max(self.found_faces, 1):.1f}% | {classical} | "
                f"{right} | - | - | - | - |")


HEADER = ("| source | scored with | photos | cards | found (IoU>=0.5) | top-1 of found "
          "| classical locator found | "
          + " | ".join(f"identify right ({k})" for k in LOCATORS) + " | "
          + " | ".join(f"false UNO per French photo ({k})" for k in LOCATORS)
          + " | UNO-face boxes per French photo |")


def read_box(image: np.ndarray, quad: np.ndarray) -> str:
    """The classifier's reading of one box (a token or not_card)."""
    clf = default_classifier()
    crop = rectify(image, order_quad(quad), ordered=True)
    p = both_ways_up(clf, [crop])[0]
    return clf.labels[int(np.argmax(p))]


def score_photo(photo: LabelledPhoto, localiser: CardLocaliser, score: SourceScore) -> None:
    image = cv2.imread(str(photo.path))
    if image is None:
        return
    score.photos += 1
    # The kinds as a caller that needs backs sees them: with the classifier's second look.
    boxes = localiser.locate(image, default_classifier())
    if photo.french:
        score.uno_boxes += sum(b.kind == UNO_FACE for b in boxes)
        for k in LOCATORS:
            score.false_uno[k] += len(recognise(image, locator=k, localiser=localiser))
        return
    for k in LOCATORS:
        score.identify_right[k] += identify_right(image, photo,
                                                  {"locator": k, "localiser": localiser})
    classical = [c.quad for c in locate(image)] if any(c.quad is not None
                                                       for c in photo.cards) else []
    cards = [c for c in photo.cards if c.kind in ("uno_face", "uno_back")]
    # Cards with outlines and boxes of their kind, one-to-one, as many pairs as can be made.
    outlined = [c for c in cards if c.quad is not None]
    paired = most_pairs([[quad_iou(card.quad, b.quad) if b.kind == card.kind else 0.0
                          for b in boxes] for card in outlined], MATCH_IOU)
    box_of = {id(outlined[row]): column for row, column in paired.items()}
    for card in cards:
        score.cards += 1
        score.faces += card.kind == UNO_FACE
        if card.quad is None:  # outline unknown: the photo's one card is any UNO face box
            match = next((i for i, b in enumerate(boxes) if b.kind == UNO_FACE), None)
        else:
            match = box_of.get(id(card))
            score.classical_scored += 1
            score.classical_found += any(quad_iou(card.quad, q) >= MATCH_IOU
                                         for q in classical)
        if match is None:
            continue
        score.found += 1
        if card.kind == UNO_FACE:
            score.found_faces += 1
            reading = read_box(image, boxes[match].quad)
            score.read_right += reading == card.token and reading != NOT_CARD


def identify_right(image: np.ndarray, photo: LabelledPhoto, kwargs: dict) -> int:
    """How many of the photo's UNO faces `vision.recognise` reports with their token: the top
    sighting in a single-card photo; in a table photo, a sighting of the card's token whose
    quad holds the card's centre (each sighting counted once)."""
    faces = [c for c in photo.cards if c.kind == UNO_FACE]
    if len(photo.cards) == 1 and faces:
        sightings = recognise(image, min_confidence=0.0, **kwargs)
        return int(bool(sightings) and sightings[0].card == faces[0].token)
    sightings = recognise(image, **kwargs)
    used: set[int] = set()
    for card in faces:
        centre = tuple(float(v) for v in card.quad.mean(axis=0))
        hit = next((i for i, s in enumerate(sightings) if i not in used and s.card == card.token
                    and cv2.pointPolygonTest(np.float32(s.quad).reshape(-1, 1, 2), centre,
                                             False) >= 0), None)
        if hit is not None:
            used.add(hit)
    return len(used)


def model_for(source: str, models: dict[str, dict]) -> str | None:
    """The model (file name) to score `source` with: one holding it out by name, else one
    not trained on it (the shipped one, which holds no source out, first), else None."""
    held = [m for m, meta in models.items() if source in meta["held_out"]]
    if held:
        return held[0]
    free = sorted((bool(meta["held_out"]), m) for m, meta in models.items()
                  if source not in meta["trained_on"])
    return free[0][1] if free else None


def load_models(folder: Path) -> dict[str, dict]:
    models = {}
    for path in sorted(folder.glob("*.onnx")):
        loc = CardLocaliser(path)
        models[path.name] = {"localiser": loc,
                             "held_out": set(json.loads(loc.metadata["held_out_sources"])),
                             "trained_on": set(json.loads(loc.metadata["trained_on_sources"]))}
    return models


def evaluate_localiser(folder: Path, step: int = 1, sources: set[str] | None = None,
                       log=print) -> dict[str, SourceScore]:
    models = load_models(folder)
    photos: dict[str, list[LabelledPhoto]] = defaultdict(list)
    for p in labelled_photos():
        photos[p.source].append(p)
    scores: dict[str, SourceScore] = {}
    log(HEADER)
    log("|" + " --- |" * HEADER.count(" | ") + " --- |")
    for source, group in photos.items():
        if sources and source not in sources:
            continue
        name = model_for(source, models)
        if name is None:
            log(f"| {source} | (every model trained on it) |" + " |" * 12)
            continue
        loc = models[name]["localiser"]
        score = SourceScore()
        for photo in group[::step]:
            score_photo(photo, loc, score)
        scores[source] = score
        log(score.row(source, name))
    return scores
