"""A card still under the hand that laid it when another seat's hand comes over the pile (the
first card of a close jump-in). A mixin of `vision.pile_watcher.PileWatcher`, whose state,
history and reader it uses (it imports nothing of the watcher: no import loop).

A card is confirmed from still, changed pixels that do not reach the pile region's edge: an arm
always does. A card its hand still rests on is one patch with that hand and arm, so it is
confirmed once the hand has gone. When the next card comes less than 0.7 s later, the next
hand is over it before that: the card is never seen alone, and was lost (rendered webcam games
301-306: 18 of the 22 plays missed that were no pairs). The moment the other seat's hand comes
over the pile, the card still lies there, whole but for its own hand's fingers: where a card's
outline is filled with still, changed pixels and the arm of a seat whose hand was over the
pile already covers it, that card is confirmed, for that seat. Its reading from then (the
fingers on it) is the fallback; it is read again, as any card, once it shows with no hand
over the pile, and judged as any card when it settles (a weak reading is a play only when the
change stayed once the hand had gone, `_WaitingRead.landed`).

The reader is no gate here: under the fingers it read the true cards of games 301-306 at
0.0001-0.9997 (six of eleven below 0.75), so a bar of 0.8 kept 164 plays, 0.5 and 0.2 166,
none 169, with two phantom plays each (none of them from here). What keeps a still hand and
sleeve from passing for a card is the outline's fill: a rendered forearm is narrower than a
card's short side. A real one may not be (see vision/TABLE.md, Known weaknesses).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.pile_shapes import best_card_rect
from vision.pile_timing import settled_since

if TYPE_CHECKING:
    from vision.arms import Arm
    from vision.frames import Frame
    from vision.pile_watcher import CardReading

UNDER_HAND_FILL = 0.85
"""A card lies under the hand when the card-sized rectangle that covers most of the pile's
still, changed pixels has at least this fraction of its area covered by them (the card, and
the fingers on it: still too while they rest)."""

UNDER_HAND_WINDOW_S = 0.1
"""... looked for from the frame the other seat's arm came over the pile, for this long (its
hand is still at the pile's edge, and the card's own hand may still move on it). Games 301-306:
that frame alone 169 plays and 147 cards right, 0.1 or 0.2 s 170 and 148, phantoms 2 either
way. Pixels still for 2 frames instead of 4: 170 plays but 7 phantoms; for 6: 169, 145."""

UNDER_HAND_MIN_COVER = 0.3
"""The card is the seat's whose arm covers at least this fraction of its place (the card is
part of that arm's blob until it is confirmed)."""


class CardsUnderHands:
    """`_under_hand`: see the module's docstring."""

    _seats_over: frozenset[int] = frozenset()
    _came: tuple[float, frozenset[int]] = (float("-inf"), frozenset())

    def _another_hand_came(self, arms: list[Arm], t: float) -> set[int]:
        """The seats whose arm was over the pile and still is in view, when another seat's arm
        came over it in the last UNDER_HAND_WINDOW_S (else nothing)."""
        over = frozenset(a.seat for a in arms if a.seat is not None and self._tip_over(a))
        before, self._seats_over = self._seats_over, over
        if over - before:
            self._came = (t, frozenset(before - over) | (before & over))
        since, lingering = self._came
        if t - since > UNDER_HAND_WINDOW_S:
            return set()
        return set(lingering & {a.seat for a in arms})

    def _under_hand(self, frame: Frame, crop: np.ndarray, changed: np.ndarray,
                    arms: list[Arm], lingering: set[int], stable_frames: int
                    ) -> tuple[np.ndarray, int, CardReading, float] | None:
        """A card lying under the hand of one of the `lingering` seats as another seat's hand
        comes over the pile: (its place, its seat, its reading, when it came to rest), or
        None."""
        resting = changed & (self.still_frames >= stable_frames)
        if resting.sum() < UNDER_HAND_FILL * self.card_area:
            return None
        covered, rect = best_card_rect(resting, self.card_height_px)
        if covered < UNDER_HAND_FILL * self.card_area:
            return None
        box = np.zeros(self.shape, np.uint8)
        cv2.fillConvexPoly(box, np.round(cv2.boxPoints(rect)).astype(np.int32), 1)
        place = box > 0
        if self._light_over(crop, place & changed):
            return None
        ys, xs = np.nonzero(place)
        xs = xs + self.region_px[0]
        ys = ys + self.region_px[1]
        holders = [(a.covers(xs, ys), a.seat) for a in arms if a.seat in lingering]
        holders = [h for h in holders if h[0] >= UNDER_HAND_MIN_COVER * len(xs)]
        if not holders:
            return None
        seat = max(holders)[1]
        reading = self._read(place, list(self.recent_frames))
        if reading is None:
            return None
        rest_t = settled_since(self.history, crop, place & changed, frame.t_s)
        return place, seat, reading, rest_t


