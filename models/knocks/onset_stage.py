"""The project's streaming onset stage (audio.detector.KnockDetector) with its hand-set knock
gate replaced by a judge: the harness the classifier is trained against and scored through.

Where the gate sits: `KnockDetector._decide(pending)` measures the onset's `OnsetFeatures`,
refines its time (`_refine_onset`) and calls `knock_confidence(features, model)`; a knock is
emitted when the confidence is >= `DetectorParams.min_confidence`, and only an *emitted* knock
starts the 80 ms refractory time (`_keep`). Here `min_confidence` is set below any confidence,
so `_decide` returns every onset as a Knock, and our `_decide` then asks the judge. A rejected
onset returns None, exactly like a gated one, so the refractory logic is unchanged.

The judge receives the onset time and reads the audio around it from the full track. In the
real stream the detector would have to keep `PRE_S` of history and, when `POST_S` reaches past
its decision time, wait that long before deciding (see REPORT.md, integration notes). Reading
ahead here is therefore not a cheat as long as `POST_S` stays within the latency budget.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from audio.blocks import array_blocks
from audio.detector import DetectorParams, KnockDetector, detect_knocks
from audio.detector import HeardKnock as Knock

RATE_HZ = 16_000

#: judge(onset_s, knock) -> confidence in 0..1 (>= 0.5: a knock) or None to accept as is.
Judge = Callable[[float, Knock], float]


@dataclass
class Onset:
    """An onset the stage found: its refined time, when it was decided, its strength."""

    t_s: float
    decided_at_s: float
    strength_db: float
    confidence: float = 1.0
    accepted: bool = True
    features: object = None  # audio.knock_score.OnsetFeatures


class JudgedDetector(KnockDetector):
    """KnockDetector whose gate is `judge` (None: every onset is accepted)."""

    def __init__(self, judge: Judge | None = None, threshold: float = 0.5, **kwargs) -> None:
        params = kwargs.pop("params", DetectorParams())
        # Without the learned classifier the detector's hand-set gates decide, and with
        # min_confidence -1 they accept every onset: the judge here is the only gate.
        kwargs.setdefault("classifier", None)
        super().__init__(params=replace(params, min_confidence=-1.0), **kwargs)
        self.judge = judge
        self.threshold = threshold
        self.onsets: list[Onset] = []

    def _decide(self, pending):
        knock = super()._decide(pending)  # every onset (min_confidence -1)
        if knock is None:  # muted
            return None
        confidence = 1.0 if self.judge is None else float(self.judge(knock.t_s, knock))
        accepted = confidence >= self.threshold
        self.onsets.append(Onset(knock.t_s, knock.decided_at_s or knock.t_s,
                                 knock.strength_db, confidence, accepted, knock.features))
        if not accepted:
            return None
        return replace(knock, confidence=confidence)


def find_onsets(samples: np.ndarray, judge: Judge | None = None, threshold: float = 0.5,
                block_samples: int = 160) -> list[Onset]:
    """Every onset the stage found in 16 kHz mono samples (with the judge's verdicts)."""
    detector = JudgedDetector(judge=judge, threshold=threshold)
    for _ in detect_knocks(array_blocks(samples, RATE_HZ, RATE_HZ, block_samples), detector):
        pass
    return detector.onsets
