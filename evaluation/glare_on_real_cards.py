"""Does the pile watcher's glare test take a real card for light? (issue 22)

    python -m evaluation.glare_on_real_cards [--cards 80]

`vision.pile_shapes.explained_by_glare` was written from rendered footage. This checks it on
real card photos, shrunk to the size the pile watcher sees a card at (21x32 pixels of a
320-pixel-wide picture) and softened as a webcam softens them (blur, noise): a new card laid
squarely on another (the hardest case: only their prints differ), asked both ways round as the
watcher asks it; a card laid on bare wood; and, the other way, a real card under an added
glare spot. The cards are cut by the recogniser from cards-dev's single-card photos, and by
their outlines from the wooden table of cards-wide (omar_masri_bicocca), whose bare corners
give the wood. Skips without ../shared/data.
"""

from __future__ import annotations

import argparse
import random

import cv2
import numpy as np

from evaluation.card_scenes import UNO_FACE, labelled_photos
from evaluation.shared_data import shared_data_dir
from vision.pile_shapes import CHANGE_L1, GLARE_MIN_PIXELS, explained_by_glare, glare_came_or_went
from vision.pile_watcher import CLIPPED_LEVEL
from vision.rectify import order_quad, rectify

CARD_PX = (21, 32)
"""A card as the pile watcher sees it (width, height)."""

_YS, _XS = np.mgrid[0:CARD_PX[1], 0:CARD_PX[0]]
WHERE = np.column_stack([_XS.ravel(), _YS.ravel()]) / CARD_PX[1]  # card heights
NOISE_SIGMA = 4.5
"""A cheap webcam's noise (the rendered family's 2-6)."""


def _shrunk(crop: np.ndarray) -> np.ndarray:
    return cv2.resize(crop, CARD_PX, interpolation=cv2.INTER_AREA).astype(np.float32)


def _webcam(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    soft = cv2.GaussianBlur(patch, (3, 3), 0.8)
    return np.clip(soft + rng.normal(0, NOISE_SIGMA, soft.shape), 0, 255).reshape(-1, 3)


def taken_for_light(now: np.ndarray, before: np.ndarray) -> bool | None:
    """As the watcher asks it (glare coming, or a glare the reference took in leaving), on
    the pixels that differ; None when too few differ to be a change at all."""
    changed = np.abs(now - before).sum(axis=1) > CHANGE_L1
    if changed.sum() < GLARE_MIN_PIXELS:
        return None
    return glare_came_or_went(now[changed], before[changed], WHERE[changed])


def single_card_crops(photos, most: int, seed: int) -> list[tuple[str, np.ndarray]]:
    """Cards of cards-dev's single-card photos, each the recogniser's surest outline,
    rectified."""
    from vision.classify import default_classifier
    from vision.recognise import recognise

    singles = [p for p in photos if "cards-dev" in p.path.parts]
    random.Random(seed).shuffle(singles)
    classifier = default_classifier()
    crops = []
    for photo in singles:
        image = cv2.imread(str(photo.path))
        sightings = recognise(image, classifier, min_confidence=0.5) if image is not None else []
        if sightings:
            best = max(sightings, key=lambda s: s.confidence)
            crops.append((photo.cards[0].token,
                          _shrunk(rectify(image, order_quad(np.float32(best.quad))))))
        if len(crops) >= most:
            break
    return crops


def wooden_table_crops(photos, most: int, seed: int
                       ) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(card, its crop, a card-sized patch of bare wood from a far corner of its photo): the
    whole faces of the wooden table's photos (omar_masri_bicocca), by their outlines."""
    cards = [(photo.path, card) for photo in photos if photo.source == "omar_masri_bicocca"
             for card in photo.cards if card.kind == UNO_FACE and card.quad is not None
             and not card.occluded]
    random.Random(seed).shuffle(cards)
    out = []
    for path, card in cards[:most]:
        image = cv2.imread(str(path))
        h, w = image.shape[:2]
        centre = card.quad.mean(axis=0)
        x0 = 0 if centre[0] > w / 2 else w - 120
        y0 = 0 if centre[1] > h / 2 else h - 180
        out.append((card.token, _shrunk(rectify(image, order_quad(card.quad))),
                    _shrunk(image[y0:y0 + 180, x0:x0 + 120])))
    return out


def count_pairs(crops: list[tuple[str, np.ndarray]], rng: np.random.Generator,
                window: int) -> tuple[int, int]:
    """(pairs taken for light, pairs judged): each card laid squarely on up to `window` others."""
    light = judged = 0
    for i, (card_a, a) in enumerate(crops):
        for card_b, b in crops[i + 1:i + 1 + window]:
            if card_a == card_b:
                continue
            verdict = taken_for_light(_webcam(b, rng), _webcam(a, rng))
            if verdict is not None:
                judged += 1
                light += verdict
    return light, judged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=80, help="cards cut from each source group")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    data = shared_data_dir()
    if not (data / "cards-dev").is_dir() or not (data / "cards-wide").is_dir():
        print(f"no real card photos at {data}; set BRUNO_SHARED_DATA")
        return 0
    rng = np.random.default_rng(args.seed)
    photos = labelled_photos(data)
    single = single_card_crops(photos, args.cards, args.seed)
    wood = wooden_table_crops(photos, 2 * args.cards, args.seed)
    rows = []
    light, judged = count_pairs(single, rng, len(single))
    rows.append(("cards-dev: a card laid squarely on another", light, judged))
    light, judged = count_pairs([(c, crop) for c, crop, _ in wood], rng, 40)
    rows.append(("wooden table: a card laid squarely on another", light, judged))
    verdicts = [taken_for_light(_webcam(crop, rng), _webcam(table, rng))
                for _, crop, table in wood]
    verdicts = [v for v in verdicts if v is not None]
    rows.append(("wooden table: a card laid on bare wood", sum(verdicts), len(verdicts)))
    glared = judged = 0
    for _, crop in single + [(c, crop) for c, crop, _ in wood]:
        for strength in (40, 70, 100):
            cx, cy = rng.uniform(0.2, 0.5), rng.uniform(0.3, 0.7)
            spot = strength * np.exp(-((WHERE[:, 0] - cx) ** 2 + (WHERE[:, 1] - cy) ** 2) / 0.1)
            before = _webcam(crop, rng)
            now = np.clip(before * 1.05 + spot[:, None] + rng.normal(0, NOISE_SIGMA, before.shape),
                          0, 255)
            seen = (np.abs(now - before).sum(axis=1) > CHANGE_L1) & \
                (now < CLIPPED_LEVEL).all(axis=1)
            if seen.sum() >= GLARE_MIN_PIXELS:
                judged += 1
                glared += explained_by_glare(now[seen], before[seen], WHERE[seen])
    print("| case | taken for light | of |")
    print("| --- | ---: | ---: |")
    for name, light, total in rows:
        print(f"| {name} (a new card: should be 0) | {light} | {total} |")
    print(f"| a real card under an added glare spot (should be all) | {glared} | {judged} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
