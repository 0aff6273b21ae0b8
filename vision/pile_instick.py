"""Cards read unsure in a chain of jump-ins: taken for the chain's card read surely.

In a chain of jump-ins (an instick, a "spring ind") each card lands on an identical one, often
less than a second later and while hands still cover the pile, so a card of the chain may be
read from frames with a hand on it, and unsure, while the card laid on it a moment later by
another seat, or the one it was itself laid on, is read surely. A jump-in's card is its twin,
so such an unsure card is written as the card that covered it, or, when none did, as the sure
card it covered: still below the referee's bar (`UNDER_GUESS_CONFIDENCE`, as for the hidden
cards of `vision.pile_landing`), so nothing is ruled on it, but the report, the log and the turn
show the likelier card, with the first reading kept as its alternative.

To do that, an unsure card's event is held until the watcher knows whether another seat's card
came to rest within `COVERED_WITHIN_S` of it: it is released when a card not in its chain is
settled, when anything else is emitted (a take-back), or when no card came in time. Cards reach
the referee in the order they lay either way; an unsure card comes at most about
`COVERED_WITHIN_S + CONFIRM_LAG_S` after it came to rest (a sure one as before).
"""

from __future__ import annotations

from dataclasses import replace

from referee.events import CardPlayed, Event
from vision.pile_cards import gap_s, guessed_confidence

COVERED_WITHIN_S = 1.0
"""An unsure card covered by another seat's card this soon is taken for it (the window in which
`vision.pile_fan` takes a card under a fan's top card, laid by another seat, for a jump-in's
card: JUMP_IN_WINDOW_S). A card played in turn comes later than that, except from fast hands."""

CONFIRM_LAG_S = 1.2
"""A card that came to rest within the window may be confirmed this much later (the hand that
laid it still over the pile: 0.3 to 1.2 s, bruno/live/session.py)."""


def _sure(event: CardPlayed, bar: float) -> bool:
    return event.confidence is None or event.confidence >= bar


def _taken_for(card: CardPlayed, sure: CardPlayed) -> CardPlayed:
    """`card`, read unsure, written as the sure card of its chain (below the referee's bar, its
    first reading kept as the alternative)."""
    if card.card == sure.card:
        return card
    return replace(card, card=sure.card, alternatives=(card.card.token,),
                   confidence=guessed_confidence(sure.confidence))


class CoveredUnsureCards:
    """The pile watcher's part that holds unsure cards back (a mixin of
    `vision.pile_watcher.PileWatcher`, whose `read_sure` and waiting card it uses, and its
    `held_unsure`, the unsure cards of one chain held back, oldest first, and `last_sure`, the
    last card it let out read surely, or None after a take-back)."""

    def _covered_unsure(self, events: list[Event], now_s: float) -> list[Event]:
        """`events` as the watcher settled them, with unsure cards held back or rewritten;
        `now_s`: the frame's time (infinity at the footage's end: release everything)."""
        held = self.held_unsure
        out: list[Event] = []
        for event in events:
            if not isinstance(event, CardPlayed):
                out += self._release_held()  # a take-back: what lay on the pile comes first
                self.last_sure = None
                out.append(event)
            elif held and self._covers(held[-1], event):
                if _sure(event, self.read_sure):
                    out += [_taken_for(card, event) for card in held]
                    held.clear()
                    out.append(self._let_out_sure(event))
                else:
                    held.append(event)  # the chain goes on: a later card may name them all
            else:
                out += self._release_held()
                if _sure(event, self.read_sure):
                    out.append(self._let_out_sure(event))
                else:
                    held.append(event)
        if held and self._nothing_coming(held[-1], now_s):
            out += self._release_held()
        return out

    def _let_out_sure(self, event: CardPlayed) -> CardPlayed:
        self.last_sure = event
        return event

    def _release_held(self) -> list[CardPlayed]:
        """The held chain, no card having covered it: taken for the sure card it was laid on
        when its first card covers that one (laid on it by another seat within the window),
        else as read."""
        held = list(self.held_unsure)
        self.held_unsure.clear()
        below = self.last_sure
        if held and below is not None and self._covers(below, held[0]):
            return [_taken_for(card, below) for card in held]
        return held

    @staticmethod
    def _covers(card: CardPlayed, later: CardPlayed) -> bool:
        """Is `later` another seat's card laid on `card` as a jump-in's would be?"""
        return card.seat is not None and later.seat is not None and \
            later.seat != card.seat and 0 <= gap_s(later.t, card.t) <= COVERED_WITHIN_S

    def _nothing_coming(self, card: CardPlayed, now_s: float) -> bool:
        """Can no card covering `card` come any more? None waits to be read that came to rest
        within the window, and none can still be confirmed in it."""
        waiting = self.waiting
        if waiting is not None and gap_s(waiting.played.event_t, card.t) <= COVERED_WITHIN_S:
            return False
        return now_s - card.t > COVERED_WITHIN_S + CONFIRM_LAG_S
