"""Matching detected onsets to labelled ones, and the scores that follow."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

#: A detection counts as a labelled tap when its onset lies within this many seconds.
MATCH_TOLERANCE_S = 0.050


@dataclass
class MatchResult:
    """Matched pairs' onset errors (detected - labelled, s), misses and extra detections."""

    errors_s: list[float] = field(default_factory=list)
    missed: int = 0
    extra: int = 0

    def add(self, other: MatchResult) -> None:
        self.errors_s += other.errors_s
        self.missed += other.missed
        self.extra += other.extra


def match_onsets(
    detected_s: Sequence[float], labelled_s: Sequence[float], tolerance_s: float = MATCH_TOLERANCE_S
) -> MatchResult:
    """One-to-one matching, closest pairs first, within `tolerance_s` seconds."""
    pairs = sorted(
        (abs(d - lab), i, j)
        for i, d in enumerate(detected_s)
        for j, lab in enumerate(labelled_s)
        if abs(d - lab) <= tolerance_s
    )
    used_detected: set[int] = set()
    used_labelled: set[int] = set()
    result = MatchResult()
    for _, i, j in pairs:
        if i in used_detected or j in used_labelled:
            continue
        used_detected.add(i)
        used_labelled.add(j)
        result.errors_s.append(detected_s[i] - labelled_s[j])
    result.missed = len(labelled_s) - len(used_labelled)
    result.extra = len(detected_s) - len(used_detected)
    return result
