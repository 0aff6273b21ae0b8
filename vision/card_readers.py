"""Ways to read the card that just came to rest: the recogniser, or a ground-truth timeline.

Both are `vision.pile_watcher.CardReader`s: `(crop, t_s) -> CardReading | None`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable

import cv2
import numpy as np

from vision.pile_cards import READ_PAD_CARDS, CardReading


class CardModelMissing(Exception):
    """The card model is not installed; the message says how to get it."""


CARD_AREA_IN_CROP = (0.3, 1.4)
"""A located quad is the new card when its area is this many times the patch's: smaller when
the patch took in part of a card beside it. A quad along the crop's border is the crop itself,
not a card (the classifier can be sure of nonsense there), so it is never taken."""

BORDER_PX = 2.0

SURE_PATCH = 0.95
"""A patch read at least this surely is taken as it is: the card outlines found in the crop
never overturned such a reading (0 of 771 on footage games 101-110, 0 of 101 on the demo),
and looking for them is most of a reading's 30 ms."""


def recogniser_reader(min_confidence: float = 0.1):
    """Reads the pile watcher's crop two ways and keeps the surer: the patch itself (the crop
    minus its margin) rectified and classified, and the card outlines the recogniser
    (`vision.recognise`) finds inside the crop, over its centre. The first is right when the
    patch is the whole card; the second when it is not (a corner still covered, a card beside
    it taken in). A patch read surely (SURE_PATCH) is not read the second way. Raises
    CardModelMissing now, not at the first card."""
    from vision.classify import MODEL_PATH, NOT_CARD, both_ways_up, default_classifier
    from vision.recognise import quad_contains, recognise
    from vision.rectify import order_quad, rectify

    if not MODEL_PATH.is_file():
        raise CardModelMissing(f"the card model is not installed ({MODEL_PATH}); run "
                               "`make train-cards`, or review with a ground-truth log")
    classifier = default_classifier()
    labels = classifier.labels

    def read_patch(crop: np.ndarray) -> CardReading | None:
        quad = order_quad(_patch_quad(*crop.shape[:2]))
        card = rectify(crop, quad)
        probs = both_ways_up(classifier, [card])[0]
        order = [i for i in np.argsort(probs)[::-1] if labels[i] != NOT_CARD]
        # The best card even when `not_card` wins: the watcher saw a card come to rest, so
        # a weak guess (which the referee does not rule on) beats no card at all.
        return CardReading(labels[order[0]], float(probs[order[0]]), labels[order[1]])

    def read(crop: np.ndarray, t_s: float, depth: int = 0) -> CardReading | None:
        # `depth` (a card of a fan under its top card) changes nothing: the crop is its place.
        h, w = crop.shape[:2]
        patch = read_patch(crop)
        if patch.confidence >= SURE_PATCH:
            return patch
        sightings = recognise(crop, classifier, min_confidence=min_confidence,
                              accept_quad=lambda quad: _is_the_card(quad, w, h))
        centre = (w / 2, h / 2)
        sightings = [s for s in sightings if quad_contains(s.quad, centre)]
        best = max(sightings, key=lambda s: s.confidence, default=None)
        found = CardReading(best.card, best.confidence, best.runner_up) if best else None
        candidates = [r for r in (patch, found) if r is not None and r.confidence >= min_confidence]
        return max(candidates, key=lambda r: r.confidence, default=patch)

    return read


def _patch_quad(h: int, w: int) -> np.ndarray:
    """The patch's rectangle inside the crop: the crop less READ_PAD_CARDS on every side."""
    pad_x, pad_y = w * READ_PAD_CARDS / (1 + 2 * READ_PAD_CARDS), \
        h * READ_PAD_CARDS / (1 + 2 * READ_PAD_CARDS)
    return np.float32([[pad_x, pad_y], [w - pad_x, pad_y], [w - pad_x, h - pad_y],
                       [pad_x, h - pad_y]])


def _is_the_card(quad, w: int, h: int) -> bool:
    points = np.asarray(quad, np.float32)
    inside = bool((points[:, 0] >= -BORDER_PX).all() and (points[:, 0] <= w - 1 + BORDER_PX).all()
                  and (points[:, 1] >= -BORDER_PX).all()
                  and (points[:, 1] <= h - 1 + BORDER_PX).all())
    hugs_border = (points[:, 0].min() <= BORDER_PX and points[:, 0].max() >= w - 1 - BORDER_PX
                   and points[:, 1].min() <= BORDER_PX and points[:, 1].max() >= h - 1 - BORDER_PX)
    expected = w * h / (1 + 2 * READ_PAD_CARDS) ** 2  # the patch's rectangle
    area = abs(float(cv2.contourArea(points)))
    return inside and not hugs_border and \
        CARD_AREA_IN_CROP[0] * expected <= area <= CARD_AREA_IN_CROP[1] * expected


class TruthReader:
    """Reads the card the ground truth says is on top at `t_s` (for tests and for scoring the
    watching apart from the recognising). Built from a truth event log's dicts."""

    def __init__(self, events: Iterable[dict]) -> None:
        self.times: list[float] = []
        self.stacks: list[tuple[str, ...]] = []  # the pile, bottom first
        stack: list[str] = []
        for event in events:
            if event["kind"] == "card":
                stack.append(event["card"])
            elif event["kind"] == "card_removed" and stack:
                stack.pop()
            else:
                continue
            self.times.append(float(event["t"]))
            self.stacks.append(tuple(stack))

    def __call__(self, crop: np.ndarray, t_s: float, depth: int = 0) -> CardReading | None:
        """The card on top at `t_s`, or `depth` cards under it (a card of a fan the watcher
        split, read from its own place: a wrong split reads a wrong card)."""
        index = bisect_right(self.times, t_s + 1e-6) - 1
        if index < 0 or len(self.stacks[index]) <= depth:
            return None
        return CardReading(self.stacks[index][-1 - depth], 1.0, None)
