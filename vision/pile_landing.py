"""When a card landed that an arm kept covering: the moment its hand stopped on it.

A card's rest time is the first frame from which its patch looks as it does now
(`PileWatcher._rest_time`). A hand that lingers on the card it laid (holding it down, or
resting there while its player thinks), or another arm lying over the pile, covers part of the
patch until it moves off, so the card came out as late as that: on the webcam games 301-306,
0.40-0.63 s for three cards, past 0.5 s scored as a missed play and a phantom one, and a late
`t` can put a card after the jump-in that answered it. The laying hand tells when the card
landed: its tip came to a stop on the card's place (vision/TABLE.md, issue 22, 3 December).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from vision.arms import Arm

STILL_TIP_CARDS = 0.1
"""A tip that stays within this many card heights of where it stopped is still (the arm
tracker's tip wanders a pixel or two from frame to frame at 320 px wide)."""

NEAR_CARD_CARDS = 1.0
"""... and on the card's place when it lies within this many card heights of its centre."""

UNCOVERED_MIN = 0.1
"""An arm hid the card if, as the card came to rest, it uncovered this fraction of its patch
(a hand that nudges its card straight and stays on it uncovers nothing: then the card was seen
as it came to rest)."""

MIN_STILL_S = 0.15
"""A stop shorter than this says nothing: a hand passing over slows down."""

LEFT_WITHIN_S = 0.2
"""The hand hid the card when it left it at most this long before the card was seen at rest
(the card shows whole from the frame the hand is off it)."""

MAX_BACK_S = 1.5
"""The card is backdated by at most this much (a hand resting longer is taken in by the arm
tracker's background and seen no more)."""


def landed_at(arm_history: Iterable[tuple[float, list[Arm]]],
              points: tuple[np.ndarray, np.ndarray], seat: int | None, rest_t: float,
              card_height_px: float, not_before: float = float("-inf")) -> float:
    """When the card whose patch is `points` (xs, ys in analysis-frame pixels) and which came
    to rest at `rest_t` landed: when an arm uncovered the card as it came to rest (arms
    covered UNCOVERED_MIN more of it just before `rest_t` than soon after), the start of the
    last stop `seat`'s arm tip made on the card's place before then (at least MIN_STILL_S
    long, ending at most LEFT_WITHIN_S before `rest_t`). Otherwise `rest_t`: a hand that stops,
    lays its card in view and stays, or nudges it and stays, was seen as the card came to rest.
    Never earlier than `not_before` (the card before it). The arm that hid the card may be the
    hand that laid it, leaving, or another one lying over the pile."""
    xs, ys = points
    if seat is None or len(xs) == 0:
        return rest_t
    frames = [(t, arms) for t, arms in arm_history if t > not_before]
    centre = (float(xs.mean()), float(ys.mean()))
    near2 = (NEAR_CARD_CARDS * card_height_px) ** 2
    still2 = (STILL_TIP_CARDS * card_height_px) ** 2

    def tip_at(arms: list[Arm]) -> tuple[float, float] | None:
        tips = [p.tip for a in arms for p in a.seat_parts() if p.seat == seat and
                (p.tip[0] - centre[0]) ** 2 + (p.tip[1] - centre[1]) ** 2 <= near2]
        return tips[0] if tips else None

    def still(a: tuple[float, float], b: tuple[float, float]) -> bool:
        return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 <= still2

    tips = [(t, tip_at(arms)) for t, arms in frames if t >= rest_t - MAX_BACK_S]
    if not (_uncovered_at(frames, xs, ys, rest_t) or _tip_left(tips, rest_t)):
        return rest_t
    last = max((i for i, (t, _) in enumerate(tips) if t <= rest_t), default=-1)
    for i in range(last, -1, -1):
        end, tip = tips[i]
        if rest_t - end > LEFT_WITHIN_S:
            break  # the hand had left well before the card was seen at rest, or never came
        if tip is None:
            continue
        start = end
        for t, older in reversed(tips[:i]):
            if older is None or not still(older, tip):
                break
            start = t
        if end - start < MIN_STILL_S:
            continue
        # The last stop before the card was seen at rest; unless the hand stopped elsewhere
        # on it after (it nudged the card, which came to rest then).
        moved = _stops(tips[i + 1:], still)
        return rest_t if any(not still(where, tip) for where in moved) else float(start)
    return rest_t


def _stops(tips: list[tuple[float, tuple[float, float] | None]], still
           ) -> list[tuple[float, float]]:
    """Where the tip stopped (for MIN_STILL_S at least) in `tips`, in time order."""
    found = []
    run: list[tuple[float, tuple[float, float]]] = []
    for t, tip in [*tips, (float("inf"), None)]:
        if tip is not None and run and still(tip, run[0][1]):
            run.append((t, tip))
            continue
        if run and run[-1][0] - run[0][0] >= MIN_STILL_S:
            found.append(run[0][1])
        run = [(t, tip)] if tip is not None else []
    return found


def _tip_left(tips: list[tuple[float, tuple[float, float] | None]], rest_t: float) -> bool:
    """Was the laying hand's tip on the card's place in the frame before `rest_t` and gone
    from it at `rest_t` (an arm's pixels may still seem to cover the card then: an exposure
    step makes the whole picture differ from the arm tracker's background for a while)?"""
    earlier = [tip for t, tip in tips if t < rest_t]
    now = [tip for t, tip in tips if rest_t <= t]
    return bool(earlier and now) and earlier[-1] is not None and now[0] is None


def _uncovered_at(frames: list[tuple[float, list[Arm]]], xs: np.ndarray, ys: np.ndarray,
                  rest_t: float) -> bool:
    """Did the arms cover UNCOVERED_MIN of the points more in the frames just before `rest_t`
    (LEFT_WITHIN_S) than in some frame from `rest_t` to LEFT_WITHIN_S after it?"""
    def covered(arms: list[Arm]) -> int:
        return min(len(xs), sum(a.covers(xs, ys) for a in arms))

    earlier = [covered(arms) for t, arms in frames if rest_t - LEFT_WITHIN_S <= t < rest_t]
    later = [covered(arms) for t, arms in frames if rest_t <= t <= rest_t + LEFT_WITHIN_S]
    return bool(earlier and later) and max(earlier) - min(later) >= UNCOVERED_MIN * len(xs)


def hull_points(hull: np.ndarray, origin: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The pixels (xs, ys) of a region mask `hull` in analysis-frame pixels (`origin`: the
    region's top-left corner)."""
    ys, xs = np.nonzero(hull)
    return xs + origin[0], ys + origin[1]
