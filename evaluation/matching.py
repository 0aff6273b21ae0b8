"""Matching detected onsets to labelled ones, and the scores that follow."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

#: A detection counts as a labelled tap when its onset lies within this many seconds.
MATCH_TOLERANCE_S = 0.050

#: Tolerances are inclusive: a detection exactly `tolerance_s` off counts, whatever float
#: rounding makes of the difference (0.012 + 0.05 - 0.012 is 0.05000000000000001).
EDGE_SLACK_S = 1e-9


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


def one_to_one(detected_s: Sequence[float], labelled_s: Sequence[float], tolerance_s: float
               ) -> list[tuple[int, int]]:
    """(detected index, labelled index) pairs within `tolerance_s` of each other: as many pairs
    as any one-to-one matching can make, and of those the one with the least summed time error.

    Closest-first pairing is not enough: two labels 60 ms apart with detections at +40 ms
    and +45 ms of the first make one pair closest-first (the second detection is nearer the
    first label) where two are possible. On a line, some best matching never crosses (uncrossing
    two pairs keeps both within the tolerance and the summed error no larger), so each run of
    times that lie within reach of each other is solved by the order-keeping dynamic programme
    of two sorted lists."""
    reach = tolerance_s + EDGE_SLACK_S
    detected = sorted(range(len(detected_s)), key=lambda i: detected_s[i])
    labelled = sorted(range(len(labelled_s)), key=lambda j: labelled_s[j])
    pairs: list[tuple[int, int]] = []
    d0 = l0 = 0
    while d0 < len(detected) and l0 < len(labelled):
        # A run: the times, of both lists, each within reach of a time of the other list
        # before it (or the run's first); pairs never join two runs.
        d1, l1 = d0, l0
        end = min(detected_s[detected[d0]], labelled_s[labelled[l0]])
        while True:
            if d1 < len(detected) and detected_s[detected[d1]] <= end + reach:
                end = max(end, detected_s[detected[d1]])
                d1 += 1
            elif l1 < len(labelled) and labelled_s[labelled[l1]] <= end + reach:
                end = max(end, labelled_s[labelled[l1]])
                l1 += 1
            else:
                break
        pairs += _order_keeping(detected[d0:d1], labelled[l0:l1], detected_s, labelled_s, reach)
        d0, l0 = d1, l1
    return pairs


def _order_keeping(detected: list[int], labelled: list[int], detected_s: Sequence[float],
                   labelled_s: Sequence[float], reach: float) -> list[tuple[int, int]]:
    """The best order-keeping matching of two sorted index lists: most pairs, then least
    summed error (a longest-common-subsequence table)."""
    n, m = len(detected), len(labelled)
    # best[a][b]: (pairs, -summed error) over the first a detections and b labels.
    best = [[(0, 0.0)] * (m + 1) for _ in range(n + 1)]
    for a in range(1, n + 1):
        for b in range(1, m + 1):
            options = [best[a - 1][b], best[a][b - 1]]
            gap = abs(detected_s[detected[a - 1]] - labelled_s[labelled[b - 1]])
            if gap <= reach:
                count, error = best[a - 1][b - 1]
                options.append((count + 1, error - gap))
            best[a][b] = max(options)
    pairs = []
    a, b = n, m
    while a and b:
        if best[a][b] == best[a - 1][b]:
            a -= 1
        elif best[a][b] == best[a][b - 1]:
            b -= 1
        else:
            pairs.append((detected[a - 1], labelled[b - 1]))
            a, b = a - 1, b - 1
    return pairs[::-1]


def match_onsets(
    detected_s: Sequence[float], labelled_s: Sequence[float], tolerance_s: float = MATCH_TOLERANCE_S
) -> MatchResult:
    """One-to-one matching within `tolerance_s` seconds (`one_to_one`)."""
    result = MatchResult()
    pairs = one_to_one(detected_s, labelled_s, tolerance_s)
    for i, j in pairs:
        result.errors_s.append(detected_s[i] - labelled_s[j])
    result.missed = len(labelled_s) - len(pairs)
    result.extra = len(detected_s) - len(pairs)
    return result


def most_pairs(scores: list[list[float]], at_least: float) -> dict[int, int]:
    """Row -> column pairs whose score is at least `at_least`, one-to-one, as many as any
    matching makes (augmenting paths), each row trying its best-scored columns first.

    Taking each row's best unused column in turn is not enough: of two overlapping cards, the
    first may take the box that is the second's only match (IoU 0.54 and 0.74), leaving one
    found where both are."""
    pair_of_column: dict[int, int] = {}

    def place(row: int, seen: set[int]) -> bool:
        ranked = sorted(range(len(scores[row])), key=lambda c: -scores[row][c])
        for column in ranked:
            if scores[row][column] < at_least or column in seen:
                continue
            seen.add(column)
            if column not in pair_of_column or place(pair_of_column[column], seen):
                pair_of_column[column] = row
                return True
        return False

    for row in sorted(range(len(scores)), key=lambda r: -max(scores[r], default=0.0)):
        place(row, set())
    return {row: column for column, row in pair_of_column.items()}
