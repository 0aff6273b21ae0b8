"""Cards read unsure that another seat covered at once: taken for the card that covered them.

In a chain of jump-ins (an instick, a "spring ind") each card lands on an identical one, often
less than a second later and while hands still cover the pile, so the card under is read from
frames with a hand on it, and unsure. The card that covers it a moment later, laid by another
seat, is read once the hands are gone. Such an unsure card is written as that card: still
below the referee's bar (`UNDER_GUESS_CONFIDENCE`, as for the hidden cards of
`vision.pile_landing`), so nothing is ruled on it, but the report, the log and the turn show
the likelier card, with the first reading kept as its alternative.

To do that, an unsure card's event is held until the watcher knows whether another seat's card
came to rest within `COVERED_WITHIN_S` of it: it is released, first as it was, when a card
not in its chain is settled, when anything else is emitted (a take-back), or when no card
came in time. Cards reach the referee in the order they lay either way; an unsure card comes
at most about `COVERED_WITHIN_S + CONFIRM_LAG_S` after it came to rest (a sure one as before).
"""

from __future__ import annotations

from dataclasses import replace

from referee.events import CardPlayed, Event
from vision.pile_cards import UNDER_GUESS_CONFIDENCE, gap_s

COVERED_WITHIN_S = 1.0
"""An unsure card covered by another seat's card this soon is taken for it (the window in which
`vision.pile_fan` takes a card under a fan's top card, laid by another seat, for a jump-in's
card: JUMP_IN_WINDOW_S). A card played in turn comes later than that, except from fast hands."""

CONFIRM_LAG_S = 1.2
"""A card that came to rest within the window may be confirmed this much later (the hand that
laid it still over the pile: 0.3 to 1.2 s, bruno/live/session.py)."""


def _sure(event: CardPlayed, bar: float) -> bool:
    return event.confidence is None or event.confidence >= bar


class CoveredUnsureCards:
    """The pile watcher's part that holds unsure cards back (a mixin of
    `vision.pile_watcher.PileWatcher`, whose `read_sure`, waiting card and `held_unsure`, the
    unsure cards of one chain held back, oldest first, it uses)."""

    def _covered_unsure(self, events: list[Event], now_s: float) -> list[Event]:
        """`events` as the watcher settled them, with unsure cards held back or rewritten;
        `now_s`: the frame's time (infinity at the footage's end: release everything)."""
        held = self.held_unsure
        out: list[Event] = []
        for event in events:
            if not isinstance(event, CardPlayed):
                out += held  # a take-back: what lies on the pile must come before it
                held.clear()
                out.append(event)
                continue
            if held and self._covers(held[-1], event):
                if _sure(event, self.read_sure):
                    out += [replace(card, card=event.card,
                                    confidence=round(min(UNDER_GUESS_CONFIDENCE,
                                                         event.confidence or 1.0), 3),
                                    alternatives=(card.card.token,))
                            if card.card != event.card else card for card in held]
                    held.clear()
                    out.append(event)
                else:
                    held.append(event)  # the chain goes on: a later card may name them all
                continue
            out += held
            held.clear()
            if _sure(event, self.read_sure):
                out.append(event)
            else:
                held.append(event)
        if held and self._nothing_coming(held[-1], now_s):
            out += held
            held.clear()
        return out

    @staticmethod
    def _covers(card: CardPlayed, later: CardPlayed) -> bool:
        """Is `later` another seat's card laid on `card` as a jump-in's would be?"""
        return card.seat is not None and later.seat is not None and \
            later.seat != card.seat and 0 <= gap_s(later.t, card.t) <= COVERED_WITHIN_S

    def _nothing_coming(self, card: CardPlayed, now_s: float) -> bool:
        """Can no card covering `card` come any more? None waits to be read that came to rest
        within the window, and none can still be confirmed in it."""
        waiting = getattr(self, "waiting", None)
        if waiting is not None and gap_s(waiting.played.event_t, card.t) <= COVERED_WITHIN_S:
            return False
        return now_s - card.t > COVERED_WITHIN_S + CONFIRM_LAG_S
