"""When a card landed that an arm kept covering, and the cards laid under it that no frame
showed: the stops arm tips made on its place.

A card's rest time is the first frame from which its patch looks as it does now
(`PileWatcher._rest_time`). A hand that lingers on the card it laid (holding it down, or
resting there while its player thinks), or another arm lying over the pile, covers part of the
patch until it moves off, so the card came out as late as that: on the webcam games 301-306,
0.40-0.63 s for three cards, past 0.5 s scored as a missed play and a phantom one, and a late
`t` can put a card after the jump-in that answered it. The laying hand tells when the card
landed: its tip came to a stop on the card's place (vision/NOTEBOOK.md, issue 22, 3 December).

In a jump-in chain the next card may cover the last one before the pile ever came to rest
between them: about two thirds of the plays the webcam games 301-306 still missed on
3 December. The hands tell of those cards too: another seat's hand that stopped on the card's
place, then left, before the card landed, laid one there (`hands_before`).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from vision.arms import Arm
from vision.pile_cards import REST_MATCH

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
    Never earlier than `not_before` (the card before it); a stop that began before then laid
    this card somewhere in it, not as it began, so then `rest_t` too. The arm that hid the card
    may be the hand that laid it, leaving, or another one lying over the pile."""
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
    if not (_uncovered_at(frames, xs, ys, rest_t) or _tip_left(tips, rest_t) or
            _under_lone_hand(frames, xs, ys, seat, rest_t, centre, near2)):
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
        if start == tips[0][0] and tips[0][0] - not_before <= HISTORY_STEP_S:
            # The hand stopped there before the card before it landed (a jump-in's hand held
            # over the pile, waiting): it laid its card later in the stop, not as it began.
            return rest_t
        # The last stop before the card was seen at rest; unless the hand stopped elsewhere
        # on it after (it nudged the card, which came to rest then), or seemed to: another
        # arm left the card just then, and the tracker drew this one's outline anew.
        later = [(t, {} if at is None else {seat: at}) for t, at in tips[i + 1:]]
        moved = _stops_of(later, STILL_TIP_CARDS * card_height_px, gap_frames=0)
        return rest_t if any(not still(where, tip) and not _other_left(frames, seat, xs, ys, t)
                             for _, t, _, where in moved) else float(start)
    return rest_t


def _other_left(frames: list[tuple[float, list[Arm]]], seat: int, xs: np.ndarray,
                ys: np.ndarray, t: float) -> bool:
    """Did another seat's arm uncover UNCOVERED_MIN of the card's points (xs, ys) from the
    frame before `t` to the frame at `t`? Two arms over the pile are one blob or two that
    touch; as one leaves, the other's outline, and so its tip, is drawn anew and jumps by a
    tenth of a card or more with no move of the hand (rendered webcam games 303, 32.6 s, and
    366, 60.3 s: each seemed a nudge, and the card came out 0.3-0.7 s late)."""
    def others(arms: list[Arm]) -> int:
        return sum(p.covers(xs, ys) for a in arms for p in a.seat_parts() if p.seat != seat)

    before = [arms for when, arms in frames if when < t]
    now = [arms for when, arms in frames if when == t]
    return bool(before and now) and \
        others(before[-1]) - others(now[0]) >= UNCOVERED_MIN * len(xs)


def _tip_left(tips: list[tuple[float, tuple[float, float] | None]], rest_t: float) -> bool:
    """Was the laying hand's tip on the card's place in the frame before `rest_t` and gone
    from it at `rest_t` (an arm's pixels may still seem to cover the card then: an exposure
    step makes the whole picture differ from the arm tracker's background for a while)?"""
    earlier = [tip for t, tip in tips if t < rest_t]
    now = [tip for t, tip in tips if rest_t <= t]
    return bool(earlier and now) and earlier[-1] is not None and now[0] is None


def _under_lone_hand(frames: list[tuple[float, list[Arm]]], xs: np.ndarray, ys: np.ndarray,
                     seat: int, rest_t: float, centre: tuple[float, float], near2: float
                     ) -> bool:
    """Was the card still under its hand when it was seen at rest: arms covered more of its
    points (xs, ys) at `rest_t` than a card seen at rest may have covered (1 - REST_MATCH),
    and no other seat's tip came near it (`near2`, squared) in the MAX_BACK_S before? Then
    its patch came to match by the hand's look while the hand lay still on it, and the card
    landed when that hand stopped (webcam games 465, 15.6 s, and 474, 19.6 s: a hand on its
    card for a second, the card written 0.63 s late, a missed play and a phantom one). With
    another arm near, whose outline and tip are drawn anew as the arms meet, the stop does
    not say when this card landed."""
    at = [arms for t, arms in frames if t == rest_t]
    if not at or sum(a.covers(xs, ys) for a in at[0]) <= (1 - REST_MATCH) * len(xs):
        return False
    return not any(p.seat != seat and
                   (p.tip[0] - centre[0]) ** 2 + (p.tip[1] - centre[1]) ** 2 <= near2
                   for t, arms in frames if rest_t - MAX_BACK_S <= t <= rest_t
                   for a in arms for p in a.seat_parts())


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


STOP_RADIUS_CARDS = 0.35
"""A tip stopped while it stays within this many card heights of where it stopped (a stop
counted, not timed: the arm tracker's tip wanders 2-4 pixels at 320 px when two arms meet, and
a hand in a hurry slides its card a little into place as it lets go; 0.2 before 7 December,
which missed the first card of jump-in chains on webcam games 465 at 34.9 s, 476 at 7.3 s and
485 at 32.0 s) ..."""

STOP_GAP_FRAMES = 2
"""... and is lost for at most this many frames in a row (two arms over the pile swap names
for a frame or two)."""

ENDED_BEFORE_S = 0.02
"""Another seat's stop on a card's place tells of a card under it only when it ended before
the frame that card landed in (this is under a frame at 30 fps): a stop that lasts until then
is the laying hand itself seen under another seat's name (an arm split in two), or a hand held
over the pile. One that ended a frame or two earlier is a jump-in chain's first hand leaving
as the next one lays the twin (webcam games 461 at 53.7 s, 463 at 58.6 s, 465 at 50.2 s; 0.1 s
before 7 December missed all three)."""

HISTORY_STEP_S = 0.1
"""The arm record has a frame at least this often (10 frames a second or more): who was on a
card's place when the card before it landed is read from the last frame at most this long
before that landing, and a stop whose first frame kept comes within this of it was there
then already (`landed_at`)."""

TWIN_S = 0.15
"""Two seats' stops on one place that began within this of each other are one arm seen as two
(the arm tracker splits an arm whose pixels meet the view's edge twice): one card, its seat
unknown; none when one of the two is this card's or the last card's seat (that hand's own
stop)."""


def hands_before(arm_history: Iterable[tuple[float, list[Arm]]],
                 points: tuple[np.ndarray, np.ndarray], seat: int | None,
                 last_seat: int | None, since: float, rest_t: float, landed_t: float,
                 now: float, card_height_px: float) -> list[tuple[int | None, float]]:
    """The other seats whose hands laid a card on this card's place (its patch `points`)
    before it landed at `landed_t`, each with when its stop began: a jump-in chain laid faster
    than the pile comes to rest between cards, each card hidden by the next before any frame
    showed it at rest. Another seat's hand that stopped on the card's place since the card
    before (`since`), and had left it by the time this card was confirmed (`now`), laid one
    there; not `seat`, which laid this card, nor `last_seat`, whose hand may come back to
    the card it laid, nor a seat whose hand was on the place already when the card before
    landed and stayed (`_there_all_along`). One card per seat, at its first stop; a card of two
    seats' stops that began together (TWIN_S) has seat None."""
    xs, ys = points
    if len(xs) == 0:
        return []
    seen = _tips_near(arm_history, (float(xs.mean()), float(ys.mean())),
                      NEAR_CARD_CARDS * card_height_px, since - HISTORY_STEP_S, now)
    already = [frame for frame in seen if frame[0] <= since]  # as the card before landed
    if not already and seen and seen[0][0] > since + HISTORY_STEP_S:
        # The arm record (the watcher's last HISTORY_S) begins after the card before landed:
        # a hand in its first frame may have been there since then (webcam game 463, 10.2 s:
        # a hand over the pile from before the card before, its tip redrawn as another arm
        # left, taken for a hand that came and laid a card).
        already = seen[:1]
    near = [frame for frame in seen if frame[0] > since]
    stops = _stops_of([(t, tips) for t, tips in near if t <= rest_t],
                      STOP_RADIUS_CARDS * card_height_px)
    laid: dict[int, float] = {}
    twins: list[float] = []
    for other, start, end, _ in stops:
        if other in (seat, last_seat) or other in laid or \
                _held_until(stops, other, end) > landed_t - ENDED_BEFORE_S:
            continue
        if all(other in tips for t, tips in near if t > end):
            continue  # still over the card: a hand held there, not one that laid a card
        if already and other in already[-1][1] and _there_all_along(near, other, start):
            continue
        together = [twin for twin, began, *_ in stops
                    if twin != other and abs(began - start) <= TWIN_S]
        if together:
            if not set(together) & {seat, last_seat} and \
                    not any(abs(start - began) <= TWIN_S for began in twins):
                twins.append(start)
            continue
        laid[other] = start
    return sorted([*laid.items(), *((None, start) for start in twins)],
                  key=lambda stop: stop[1])


def hand_that_laid(seat: int | None, stops: list[tuple[int | None, float]]
                   ) -> tuple[int, float] | None:
    """The hand that laid a card no arm was seen bringing (`seat` None), with when it stopped:
    the one named hand that stopped on its place since the card before (`hands_before`'s
    `stops`), lost by the arm tracker over the pile, not a hand that laid a card under it
    (webcam game 474, 61.4 s: a hand on its card for a second, lost for the last 0.8 s of it;
    its stop was written as a hidden card and the card as a second one with no seat). None
    when the seat is known, or no hand or more than one stopped there."""
    if seat is not None or len(stops) != 1 or stops[0][0] is None:
        return None
    return stops[0][0], stops[0][1]


def _held_until(stops: list[tuple[int, float, float, tuple[float, float]]], seat: int,
                end: float) -> float:
    """When `seat`'s hand left the place, its stop that ended at `end` followed by any stop
    of the same hand that began at once after it (within HISTORY_STEP_S): a tip redrawn
    as another arm comes over the pile jumps, and its stop seems to end there, while the hand
    stays (webcam game 472, 40.3 s: a hand held over the pile from before a card landed until
    after, its stop cut in two by the laying arm's arrival, written as a hidden card)."""
    for other, start, later_end, _ in stops:
        if other == seat and end < start <= end + HISTORY_STEP_S:
            end = later_end
    return end


def _there_all_along(near: list[tuple[float, dict[int, tuple[float, float]]]], seat: int,
                     until: float) -> bool:
    """Was `seat`'s tip on the place in every frame of `near` before `until`, but for gaps of
    at most STOP_GAP_FRAMES? A hand over the pile before the card before it landed, that never
    went, brought no card after it (it covered the pile while another seat laid one, and as
    the other arm left, the tracker drew its outline anew: a new stop, no new card; webcam
    games 362, 364 and 366, three hidden cards written for such hands, none real). A hand
    that came after the card before, or went and came again, may have."""
    missed = 0
    for t, tips in near:
        if t >= until:
            break
        missed = 0 if seat in tips else missed + 1
        if missed > STOP_GAP_FRAMES:
            return False
    return True


def _tips_near(arm_history: Iterable[tuple[float, list[Arm]]], centre: tuple[float, float],
               radius: float, since: float, until: float
               ) -> list[tuple[float, dict[int, tuple[float, float]]]]:
    """Per frame from `since` (exclusive) to `until`, the tips of named seats' arms within
    `radius` of `centre`."""
    out = []
    for t, arms in arm_history:
        if since < t <= until:
            out.append((t, {p.seat: p.tip for a in arms for p in a.seat_parts()
                            if p.seat is not None and
                            (p.tip[0] - centre[0]) ** 2 + (p.tip[1] - centre[1]) ** 2
                            <= radius ** 2}))
    return out


def _stops_of(near: list[tuple[float, dict[int, tuple[float, float]]]], radius: float,
              gap_frames: int = STOP_GAP_FRAMES
              ) -> list[tuple[int, float, float, tuple[float, float]]]:
    """The stops (seat, start, end, where) of the tips in `near`: a tip that stays within
    `radius` of where it stopped (missing from at most `gap_frames` frames in a row) for
    MIN_STILL_S at least; in the order they began."""
    runs: dict[int, list] = {}  # seat -> [start t, where it stopped, last t, frames missed]
    found = []

    def close(seat: int) -> None:
        start, where, end, _ = runs.pop(seat)
        if end - start >= MIN_STILL_S:
            found.append((seat, start, end, where))

    for t, tips in near:
        here = dict(tips)
        for seat in list(runs):
            tip, where = here.get(seat), runs[seat][1]
            if tip is not None and (tip[0] - where[0]) ** 2 + (tip[1] - where[1]) ** 2 \
                    <= radius ** 2:
                runs[seat][2], runs[seat][3] = t, 0
                here.pop(seat)
                continue
            runs[seat][3] += 1
            if runs[seat][3] > gap_frames or tip is not None:
                close(seat)
        for seat, tip in here.items():
            if seat not in runs:
                runs[seat] = [t, tip, t, 0]
    for seat in list(runs):
        close(seat)
    return sorted(found, key=lambda stop: stop[1])
