"""Take-backs: the top card lifted off the pile, so the card under it shows again. A mixin of
`vision.pile_watcher.PileWatcher`, whose state, history and reader it uses (it imports nothing
of the watcher, so the two files make no import loop)."""

from __future__ import annotations

import numpy as np

from referee.cards import Card
from referee.events import CardRemoved
from vision.pile_cards import REMAINDER_READ_SURE, CardReading, PlayedCard
from vision.pile_shapes import matches

REMOVAL_MATCH = 0.85
"""A patch is a take-back when this fraction of it matches the pile as it was before the top
card came."""

REMOVAL_MAYBE_MATCH = 0.5
"""While a hand is still over the pile, a patch half of which shows the card under the top one
is not judged yet: it may be a take-back still under way."""

TAKEN_BACK_OVERLAP = 0.5
"""A new card that reads as the card under the top one is that card uncovered when at least
this share of the smaller of its patch and the top card's overlap (`_taken_back_by`)."""


class TakeBacks:
    """The pile watcher's take-back tests (`PileWatcher` mixes it in)."""

    def _shows_before(self, crop: np.ndarray, played: PlayedCard, hull: np.ndarray,
                      fraction: float) -> bool:
        """Does `fraction` of `hull` show the pile as it was before `played` came? Clipped
        channels are taken at their bound: after an exposure step up, the white oval of the
        card under a taken-back one clips where it did not before (rendered webcam game 306,
        57.0 s: 64 % of the patch matched as read, 99 % as bounded, and the take-back was a
        phantom new card)."""
        seen = self._as_seen(crop, self.clipped, played.before)
        return matches(seen, played.before, hull, fraction)

    def _taking_back(self, crop: np.ndarray, hull: np.ndarray, changed: np.ndarray,
                     t: float) -> bool:
        """While a hand is over the pile: may the patch be the top card being taken back (half
        of it shows the card under the top one)? Not when that half is only where the patch
        looks like what lay under (a red 5 on a red 3 that lay on a red card: their fields)
        and another seat's hand laid it: a new card."""
        top = self.played[-1]
        if not self._shows_before(crop, top, hull, REMOVAL_MAYBE_MATCH):
            return False
        if self._shows_before(crop, top, hull & changed, REMOVAL_MAYBE_MATCH):
            return True
        seat, _ = self._seat(hull, self._rest_time(crop, hull, t))
        return seat is None or seat == self.played[-1].seat

    def _taken_back_by(self, played: PlayedCard, reading: CardReading) -> CardRemoved | None:
        """Is the new card the card under the top one, showing again because the top card's
        hand took it back? Its seat laid the top card, its patch lies where the top card lay
        (TAKEN_BACK_OVERLAP of the smaller), and it reads surely as the card under the top
        one, or hardly reads at all (REMAINDER_READ_SURE). The pixel test in `_confirm`
        misses a take-back when the light changed while the top card lay there (a drifting
        hotspot, an exposure step): the card under it came out as a sure new play (rendered
        webcam game 314 at 35.5 s), though once the light had settled all of its patch
        showed the pile before the top card again. So, with the reading, half of its patch
        must show that (REMOVAL_MAYBE_MATCH): a card like the one under the top one laid by
        the same hand in a multi-card play lands elsewhere (multi-card seeds 4-6: 21-25 % of
        the patch). Then the top card is taken back (`card_removed`, at the new card's rest
        time)."""
        if len(self.played) < 3 or self.played[-1] is not played:
            return None
        top, under = self.played[-2], self.played[-3]
        # Or it hardly reads at all: the card under, part of it still covered, or a twin of the
        # top card (webcam game 476, 18.3 s: read 0.18, written as a new card, the take-back
        # missed, and the next card judged against the card taken back).
        reads_as_under = under.card == reading.card and reading.confidence >= self.read_sure
        if top.card is None or played.seat is None or played.seat != top.seat or \
                not (reads_as_under or reading.confidence < REMAINDER_READ_SURE):
            return None
        overlap = (played.hull & top.hull).sum() / max(min(played.hull.sum(), top.hull.sum()), 1)
        if overlap < TAKEN_BACK_OVERLAP:
            return None
        if not self._shows_before(self.previous, top, played.hull, REMOVAL_MAYBE_MATCH):
            return None  # another card like it, laid elsewhere (a multi-card play's third)
        del self.played[-2:]
        return CardRemoved(round(played.t_s, 4), card=Card.parse(top.card))
