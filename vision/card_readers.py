"""Ways to read the card that just came to rest: the recogniser, or a ground-truth timeline.

Both are `vision.pile_watcher.CardReader`s: `(crop, t_s) -> CardReading | None`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable

import numpy as np

from vision.pile_watcher import CardReading


class CardModelMissing(Exception):
    """The card model is not installed; the message says how to get it."""


def recogniser_reader(min_confidence: float = 0.3):
    """The card recogniser (`vision.recognise`) on the crop: its most confident sighting
    nearest the crop's centre. Raises CardModelMissing now, not at the first card."""
    from vision.classify import MODEL_PATH, default_classifier
    from vision.recognise import recognise

    if not MODEL_PATH.is_file():
        raise CardModelMissing(f"the card model is not installed ({MODEL_PATH}); run "
                               "`make train-cards`, or review with a ground-truth log")
    classifier = default_classifier()

    def read(crop: np.ndarray, t_s: float) -> CardReading | None:
        sightings = recognise(crop, classifier, min_confidence=min_confidence)
        if not sightings:
            return None
        h, w = crop.shape[:2]
        best = min(sightings, key=lambda s: (s.center[0] - w / 2) ** 2 + (s.center[1] - h / 2) ** 2
                   - (s.confidence * max(h, w)) ** 2)
        return CardReading(best.card, best.confidence, best.runner_up)

    return read


class TruthReader:
    """Reads the card the ground truth says is on top at `t_s` (for tests and for scoring the
    watching apart from the recognising). Built from a truth event log's dicts."""

    def __init__(self, events: Iterable[dict]) -> None:
        self.times: list[float] = []
        self.tops: list[str | None] = []
        stack: list[str] = []
        for event in events:
            if event["kind"] == "card":
                stack.append(event["card"])
            elif event["kind"] == "card_removed" and stack:
                stack.pop()
            else:
                continue
            self.times.append(float(event["t"]))
            self.tops.append(stack[-1] if stack else None)

    def __call__(self, crop: np.ndarray, t_s: float) -> CardReading | None:
        index = bisect_right(self.times, t_s + 1e-6) - 1
        if index < 0 or self.tops[index] is None:
            return None
        return CardReading(self.tops[index], 1.0, None)
