"""The pile watcher's judgement of a patch laid by the hand that laid the last card: the same
card moved, uncovered or still coming to rest, or the next card of a multi-card play (laid
beside it, fanned, or squarely on it). A mixin of `vision.pile_watcher.PileWatcher`, whose
state, history and reader it uses (it imports nothing of the watcher, so the two files make no
import loop; both take `PlayedCard` from `vision.pile_cards`)."""

from __future__ import annotations

from functools import cache, partial

import numpy as np

from vision.pile_cards import PlayedCard, gap_s
from vision.pile_shapes import CHANGE_L1, card_colour, grown, iou, matches, share_inside
from vision.pixels import l1_distance

ADJUST_WINDOW_S = 1.5
"""A reshaped patch over the last card within this many seconds, while the hand that placed
it never left the pile and by that hand's seat, is the same card adjusted, not a new one."""

NUDGE_REACH_CARDS = 0.12
"""A card nudged or straightened moves its print at most this many card heights (a shift and a
few degrees' turn) ..."""

NUDGE_MATCH = 0.85
"""... so at least this fraction of the pixels it changed show what the pile showed that close
by: the last card, or what lay under it (a new card's print is not found so near)."""

STILL_THERE_MIN_CARDS = 0.1
"""A patch over the last card (the part of it a hand had covered lies beside it: together they
are one card's place) is another card when at least this many card areas of the last card,
beyond the patch and where it differed from what lay under it, still show it ..."""

STILL_THERE_MATCH = 0.8
"""... of those that show either it or what lay under it (a card moved shows that there again;
a hand over them shows neither), this fraction."""

COLOUR_APART = 0.3
"""... another card's when its median chromaticity is this far (L1) from the last card's: two
of the four colours put their weight on other channels (far above this), while one card under
a hand's shadow keeps its shares (brightness drops out of a chromaticity)."""

LIFTED_MAX_COVER = 0.05
"""A hand let go of the last card in a frame where no arm covered more than this fraction of
its patch, and no more than this fraction of it looked otherwise than when confirmed ..."""

LIFT_MIN_S = 0.25
"""... at least this long after it: a hand takes longer to let go of a card, lift off it and
come again with the next."""

SETTLING_S = 0.3
"""A patch by the same hand this soon after the last card, the hand never having left it nor
the card been seen without it, is that card still coming to rest. A hand laying cards one after
the other lets go of each before the next, which takes longer; cards fanned out in one motion
closer together than this come out as one (a known limit, vision/TABLE.md)."""

REACTION_S = 0.2
"""Nobody jumps in on a card sooner than this after it came to rest: seeing it and laying its
twin takes longer (the rendered jump-ins come 0.3 s and more apart, as at a real table)."""

SAME_REST_S = 0.07
"""A patch that came to rest within this of the last card (two frames at 30 fps) is more of
that card, not another one."""

REMAINDER_MAX_IOU = 0.25
"""A patch nobody is seen placing that touches the last card but overlaps it less than this
(a new card lands on the pile, over the last one) is the part of it a hand had covered."""

ADJUST_UNSEEN_MIN_OVERLAP = 0.7
"""When no hand is seen placing the patch, it must overlap the last card's this much to be
taken for an adjustment (a jump-in card lands askew and overlaps less)."""

SEAT_WINDOW_S = 0.3
"""The hand that placed a card is the one nearest it during this long before it came to rest."""

PART_INSIDE_MIN = 0.95
"""A patch this much inside the last card's place, by its seat or another's, ..."""

PART_MAX_CARDS = 0.75
"""... and smaller than this many card areas is a part of that card uncovered."""

BYSTANDER_PART_MAX_CARDS = 0.8
"""A waiting card confirmed from less than this many cards' area was seen in part ..."""

BYSTANDER_LEAVING_S = 0.1
"""... and an arm whose tip lay over the pile in every frame from when it landed until this
long ago (the arm is leaving now: that uncovered the card) ..."""

BYSTANDER_MIN_FRAMES = 5
"""... in this many frames at least, lay over the card, not laid one on it."""

RELIT_WINDOW_S = 1.0
"""A patch confirmed this soon after the whole picture's light jumped may be the jump
(the pile watcher's LIGHT_STEP_WINDOW_S), when it lies on the waiting card's place
(WAITING_PLACE_SHARE) and is no bigger than RELIT_MAX_CARDS."""

WAITING_PLACE_SHARE = 0.9
"""A patch lies on the waiting card's place when this much of it lies in that place, or of
that place in it (the place was taken with the hand over the card: webcam game 491, 5.5 s,
1.44 cards, the patch 0.92 of a card and 0.99 inside it). Asked after a jump of the light
(RELIT_WINDOW_S) and sooner than anyone reacts (REACTION_S)."""

RELIT_MAX_CARDS = 1.5
"""The most card areas a patch taken for the waiting card after a jump of the light covers."""

IDENTICAL_AGAIN_S = 0.6
"""A patch by the same seat over its last card, this long after it or more, that reads surely
as the same card is a second identical card laid on it, not the first one nudged. A nudge is
made while the hand still holds the card it laid (the renders nudge 0.15 s after it lands;
on the webcam games 301-306 and 311-316, 37 of the 41 same-seat adjustments came within
0.6 s). Laying the next card takes longer: letting go, taking it from the hand, putting it
down (multi-card plays, two identical cards stacked 1.0 s apart)."""


class SameHandCards:
    """Same-hand patches: `_adjusts` and what it asks (see the module's docstring)."""

    def _adjusts(self, last: PlayedCard, hull: np.ndarray, seat: int | None, rest_t: float,
                 crop: np.ndarray) -> bool:
        """Is this patch the last card moved by the hand that placed it (not a jump-in, nor
        the next card of a multi-card play)?"""
        gap = gap_s(rest_t, last.t_s)
        if gap >= ADJUST_WINDOW_S:
            return False
        if gap <= SAME_REST_S:
            return True  # the rest of the same card, uncovered when the hand went
        if gap < REACTION_S and seat != last.seat and self._unseen(last) and \
                share_inside(last.hull, hull) >= WAITING_PLACE_SHARE:
            # Nobody lays a card on one that came to rest this soon: a patch over all of the
            # waiting card's place is that card still coming to rest, whatever arm the tracker
            # names (webcam game 462, 51.7 s: a red 6 written twice, 0.16 s apart, the second
            # time as the seat of an arm beside it).
            return True
        if self._relit_waiting(last, hull, seat):
            return True
        if self._uncovered_by_bystander(last, hull, seat):
            return True
        if seat != last.seat and self._part_of_last(last, hull):
            # Whoever's arm uncovered it: another seat's card laid on the last one shows its
            # own corners beyond the last card's place (webcam games 391, 6.4 s, and 471,
            # 53.0 s: a bystander's arm over the last card, written as that seat's card read
            # 0.38 and 0.18 as it left).
            return True
        overlap = iou(hull, last.hull)
        near_last = grown(last.hull, 2)
        touches = bool((hull & near_last).any())
        if seat is not None and seat == last.seat and touches and not self.hand_left and \
                gap < SETTLING_S and self._unseen(last):
            # The hand never left and the last card was never seen without it: the same card
            # coming to rest in steps (the hand at rest over the pile taken for a card a frame
            # before the card under it: the tilted webcam clip through its four-corner
            # calibration, 4.97 and 5.13 s).
            return True
        if seat is not None and seat == last.seat:
            # A patch by the same seat on or right beside the last card is that card, moved or
            # uncovered by the leaving hand, unless it is the next card of a multi-card play.
            return touches and not self._next_card_of_play(last, hull, crop, rest_t)
        if seat is None and touches and (overlap < REMAINDER_MAX_IOU or not self.hand_left):
            # Beside the last card and hardly over it, or placed while the last card's hand
            # never left and no other hand was seen: the part of it a hand had covered.
            return True
        if self.hand_left:
            return False
        # Another seat's hand (or one not seen) placed it: a jump-in unless it is nearly the
        # same patch as the last card.
        return seat is None and overlap >= ADJUST_UNSEEN_MIN_OVERLAP

    def _relit_waiting(self, last: PlayedCard, hull: np.ndarray, seat: int | None) -> bool:
        """Is the patch the card still waiting to be read, on its own place, seen again because
        the whole picture's light jumped since it was confirmed? Scaled back to the first
        frame's light, a card under a hand when the camera's exposure stepped still differs
        from how it was taken in (webcam game 491, 5.5 s: a green 6 written twice, the hand
        that laid it still leaving). With no hand over the pile the jump itself is dismissed
        (`_after_light_step`); with one, a card laid then lies elsewhere or is another."""
        waiting, step = self.waiting, self.light_step_t
        now = self.history[-1][0] if self.history else None
        return waiting is not None and waiting.played is last and step is not None and \
            now is not None and waiting.confirmed_t < step and \
            now - step <= RELIT_WINDOW_S and seat in (None, last.seat) and \
            hull.sum() <= RELIT_MAX_CARDS * self.card_area and \
            max(share_inside(hull, last.hull), share_inside(last.hull, hull)) >= WAITING_PLACE_SHARE

    def _uncovered_by_bystander(self, last: PlayedCard, hull: np.ndarray, seat: int | None
                                ) -> bool:
        """Is the patch the waiting card whole, uncovered by another seat's arm that lay over
        the pile from when that card landed until it left? The card was confirmed from the part
        of it the arm left in view (less than a card), never seen without a hand, and the patch
        holds all of that part (webcam game 505, 70.7 s: a yellow 2 seen as 0.63 of a card
        beside a bystander's arm; as the arm left, the whole card, 1.34 cards with the arm's
        edge, was written as the bystander's, read 1.0, and the first as a hidden card under
        it). A jump-in's arm comes after the card it covers lands."""
        if seat is None or seat == last.seat or not self._unseen(last) or \
                last.hull.sum() >= BYSTANDER_PART_MAX_CARDS * self.card_area:
            return False
        if share_inside(last.hull, hull) < PART_INSIDE_MIN:
            return False
        now = self.history[-1][0]
        frames = [arms for t, arms in self.arm_history
                  if last.event_t <= t <= now - BYSTANDER_LEAVING_S]
        return len(frames) >= BYSTANDER_MIN_FRAMES and \
            all(any(a.seat == seat and self._tip_over(a) for a in arms) for arms in frames)

    def _unseen(self, last: PlayedCard) -> bool:
        """Is `last` the card waiting to be read, not yet read in a frame without a hand?"""
        return self.waiting is not None and self.waiting.played is last and \
            self.waiting.clean_frames == 0

    def _next_card_of_play(self, last: PlayedCard, hull: np.ndarray, crop: np.ndarray,
                           rest_t: float) -> bool:
        """Is this patch another card laid by the hand that laid the last one (two to four
        cards at once, one after another), not the last card moved? Yes when the last card
        still lies where it was beside the patch (fanned), or when the patch is another
        colour or reads as another card (laid squarely on it), or reads as the same card
        IDENTICAL_AGAIN_S or more after it (a second identical card; sooner, two identical
        cards laid squarely on each other cannot be told from a nudge: an adjustment)."""
        # The reader is asked at most once, and only when a test below needs it.
        readings = cache(partial(self._sure_readings, last, hull))
        if gap_s(rest_t, last.t_s) >= IDENTICAL_AGAIN_S and _same_card(readings()):
            return True
        if self._other_colour(last, hull, crop):
            # Before the nudge test: a card laid squarely on the last one shows the pile "a
            # nudge away" where its print sits as the last one's did (a green 5 on a red 5
            # under a hand that stayed: multi-card seeds 1 and 3), while a nudged card keeps
            # its colour.
            return True
        if self._part_of_last(last, hull):
            return False
        spread = not self._card_sized_mask(hull | last.hull)
        beside = spread and self._still_there(last, hull, crop, self._place(last))
        if self._lifted_off(last, rest_t) and self._alone(last.seat, rest_t) and \
                (beside or _other_card(readings())):
            # The hand let go of the last card and came again (a nudge moves the card it
            # holds), with more than one card's place and the last card still where it lay,
            # or with another card. Asked before the pile a nudge away: a card like the last
            # one shows it a nudge away everywhere (two red 5s fanned; a green skip squarely
            # on a red one, on a green table).
            return True
        if self._shifted_pile(hull, crop):
            return False
        over_last = iou(hull, last.hull) >= REMAINDER_MAX_IOU
        if (over_last or spread) and self._still_there(last, hull, crop):
            return True
        return _other_card(readings())

    def _part_of_last(self, last: PlayedCard, hull: np.ndarray) -> bool:
        """Is the patch a part of the last card's own place, less than a card: what its hand
        still covered when it was confirmed, uncovered as the hand went? (A next card laid on
        it shows more of itself than that, or another colour, asked before.) The last card's
        place, taken with the hand over it, may be more than one card's, so the two together
        look like a card laid beside it (webcam game 396, 38.8 s)."""
        return share_inside(hull, last.hull) >= PART_INSIDE_MIN and \
            hull.sum() < PART_MAX_CARDS * self.card_area

    def _other_colour(self, last: PlayedCard, hull: np.ndarray, crop: np.ndarray) -> bool:
        """Is the patch's median chromaticity COLOUR_APART from the last card's?"""
        now, before = card_colour(crop[hull]), card_colour(self.reference[last.hull])
        return now is not None and before is not None and \
            float(np.abs(now - before).sum()) >= COLOUR_APART

    def _still_there(self, last: PlayedCard, hull: np.ndarray, crop: np.ndarray,
                     place: np.ndarray | None = None) -> bool:
        """Where the last card differed from what lay under it, beyond the patch: a card
        moved shows what lay under it there again, a card still lying there itself. `place`:
        the last card's place, when not its patch."""
        where = last.hull if place is None else place
        beyond = where & ~grown(hull, 1) & \
            (l1_distance(self.reference, last.before) > CHANGE_L1)
        still = int((beyond & (l1_distance(crop, self.reference) <= CHANGE_L1)).sum())
        under = int((beyond & (l1_distance(crop, last.before) <= CHANGE_L1)).sum())
        return still >= STILL_THERE_MIN_CARDS * self.card_area and \
            still >= STILL_THERE_MATCH * (still + under)

    def _alone(self, seat: int | None, rest_t: float) -> bool:
        """Was no other seat's arm over the pile in the SEAT_WINDOW_S before `rest_t`? (A
        jump-in's card, still in its hand, may rest before the last card's hand has left:
        webcam game 301, 44.4 s.)"""
        return all(a.seat == seat for t, arms in self.arm_history
                   if rest_t - SEAT_WINDOW_S <= t <= rest_t for a in arms if self._tip_over(a))

    def _lifted_off(self, last: PlayedCard, rest_t: float) -> bool:
        """Did the hand let go of the last card and come again: at least LIFT_MIN_S between
        the two, and a frame between in which no arm's tip was over the pile, no arm covered
        the last card's patch and the patch showed the card as confirmed? (A card's uncovered
        part comes to rest a few frames after the card, under arms the tracker may not see
        every frame: webcam game 301, 26.47 s; a jump-in's arm taken for the leaving one, the
        two one blob over the pile, lays its card while that one never left: 44.4 s.)"""
        if gap_s(rest_t, last.t_s) < LIFT_MIN_S:
            return False
        ys, xs = np.nonzero(last.hull)
        xs = xs + self.region_px[0]
        ys = ys + self.region_px[1]
        most = LIFTED_MAX_COVER * len(xs)
        crops = dict(self.history)
        # Only once the reference around it was caught up: a hand confirmed with the card was
        # taken into the arm tracker's background with it, and no arm seems to cover its
        # place until it moves (the tilted webcam clip, 5.37 s: the part of a card its hand
        # had covered, uncovered as the hand went, was taken for a next card).
        since = max(last.t_s, last.caught_up_t)
        return any(all(a.covers(xs, ys) <= most for a in arms) and t in crops and
                   matches(crops[t], self.reference, last.hull, 1 - LIFTED_MAX_COVER)
                   for t, arms in self.arm_history if since <= t < rest_t)

    def _sure_readings(self, last: PlayedCard, hull: np.ndarray) -> tuple[str, str] | None:
        """The last card's card and the patch's card in the latest frame, when both are read
        at the game's bar or surer; else None (`_other_card`, `_same_card`)."""
        before = self._last_reading(last)
        if before is None or before.confidence < self.read_sure:
            return None
        now = self._read(hull, [self.recent_frames[-1]])
        if now is None or now.confidence < self.read_sure:
            return None
        return before.card, now.card

    def _shifted_pile(self, hull: np.ndarray, crop: np.ndarray) -> bool:
        """Does what changed in the patch show what the pile showed a nudge away (the last
        card moved a little, what lay under it uncovered at its edge)? A nudged card's field
        matches itself where it moved, so much of it may lie beyond the patch of what changed
        and still show as it was, like a card that a new one was laid over (the demo's red 6
        nudged on a green 6, 108.8 s): the print of what changed tells them apart."""
        changed = hull & (l1_distance(crop, self.reference) > CHANGE_L1)
        if not changed.any():
            return True
        reach = max(1, round(NUDGE_REACH_CARDS * self.card_height_px))
        ys, xs = np.nonzero(changed)
        now = crop[ys, xs]
        padded = np.pad(self.reference, ((reach, reach), (reach, reach), (0, 0)), mode="edge")
        found = np.zeros(len(ys), bool)
        for dy in range(-reach, reach + 1):
            for dx in range(-reach, reach + 1):
                near = padded[ys + reach + dy, xs + reach + dx]
                found |= np.abs(now - near).sum(axis=1) <= CHANGE_L1
        return bool(found.mean() >= NUDGE_MATCH)


def _other_card(readings: tuple[str, str] | None) -> bool:
    """Does the reader see another card in the patch than the last card, both sure? A card
    of a pale print (its white oval most of it) has no colour of its own to tell it by
    (rendered multi-card plays: a blue 5 stacked on a red 5, taken for the 5 nudged and
    read as the blue one at the red one's time). A nudged card reads as itself."""
    return readings is not None and readings[0] != readings[1]


def _same_card(readings: tuple[str, str] | None) -> bool:
    """Does the reader see the last card's card in the patch, both surely?"""
    return readings is not None and readings[0] == readings[1]
