"""A refereed session: the reorder buffer in front of a game. Live play and log replay both go
through here, so an event log always replays to the rulings the table heard.

The session also remembers what it observed and which penalties stand, so the table can correct
the referee with events like any other (journaled, replayed the same): `correct` says the latest
card (or the one at `of_t`) really was another card or another seat's, and the rulings are
re-derived from the amended history (penalties that no longer apply are withdrawn, new ones
announced); `undo` withdraws a standing penalty; `confirm` makes a penalty the referee was
unsure of (below `announce_min_confidence`: shown as "check", not said) a sure one, said again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from referee import messages
from referee.cards import Card
from referee.events import CORRECTION_KINDS, CardPlayed, Confirm, Correction, Event, Undo
from referee.game import Game
from referee.reorder import REORDER_WINDOW_S, ReorderBuffer
from referee.rulings import Ruling, info, is_sure

RESAID_ON_CORRECTION = ("instick", "flaske")
"""What a card says as it lands that a correction of the card says again when it changed:
that it was a jump-in (Snabb-UNO: play turned round), Flaske UNO's announcement of who drinks
(a red 3 corrected to a red draw two: nobody was told whom the two sips are for). Who takes
cards is said from the debts themselves (`_owed_changes`)."""


def _resaid(rulings: list[Ruling], card_t: float) -> list[Ruling]:
    """The lines of `rulings` that the card at `card_t` said as it landed and that a
    correction of it says again (`RESAID_ON_CORRECTION`)."""
    return [r for r in rulings if r.rule in RESAID_ON_CORRECTION and abs(r.t - card_t) < 1e-3]


def _owed_changes(before: list[int], now: list[int], t: float) -> list[Ruling]:
    """A `draw_due` line for each seat whose cards to take a correction changed: a red 3
    corrected to a draw two (the next seat takes two), a draw two corrected away (it takes
    none after all), the second card of a stacked pool (it takes two, not four)."""
    lines = []
    for seat, (was, count) in enumerate(zip(before, now, strict=False)):
        if count != was:
            message = messages.owed_as_corrected(seat, count)
            lines.append(info(t, "draw_due", seat, message, count=count))
    return lines

PenaltyKey = tuple[str, int | None, str | None, float]


def penalty_key(ruling: Ruling) -> PenaltyKey:
    """What identifies a penalty across re-derivations: rule, seat, card and decision time."""
    return (ruling.rule, ruling.seat, ruling.card, round(ruling.t, 3))


class Session:
    """Feed events as they arrive (slightly out of order is fine); read rulings back."""

    def __init__(self, game: Game, reorder_window_s: float = REORDER_WINDOW_S) -> None:
        self.game = game
        self.buffer = ReorderBuffer(reorder_window_s)
        self.last_t: float | None = None
        self.history: list[Event] = []
        """Every event the game observed, in order (corrections applied)."""
        self.standing: dict[PenaltyKey, Ruling] = {}
        """Penalties said and not withdrawn, in the order they were said."""
        self.overruled: set[PenaltyKey] = set()
        self.confirmed: set[PenaltyKey] = set()
        """Unsure penalties the table confirmed: they stand as sure, also when re-derived."""
        self._fired_before: float | None = None
        self._finished_at: float | None = None

    def feed(self, event: Event) -> list[Ruling]:
        """Take one event; return the rulings of the events this released."""
        if self.last_t is None or event.t > self.last_t:
            self.last_t = event.t
        released = self.buffer.push(event)
        return self._observe(released) if released else []

    def advance(self, now: float) -> list[Ruling]:
        """The session clock reads `now` (live: monotonic time): release what is old enough and
        fire deadlines up to the buffer's horizon."""
        horizon = now - self.buffer.window_s
        rulings = self._observe(self.buffer.release_before(horizon))
        if self._fired_before is None or horizon > self._fired_before:
            self._fired_before = horizon
        rulings.extend(self._stand(self.game.advance_before(horizon)))
        return rulings

    def finish(self) -> list[Ruling]:
        """End of the log: release everything, then close the knock windows still open (the
        clock moves to the last event plus `knock_after_s`; later deadlines such as a running
        SEG clock do not fire)."""
        rulings = self._observe(self.buffer.drain())
        if self.last_t is not None:
            self._finished_at = self.last_t + self.game.rules.knock_after_s
            rulings.extend(self._stand(self.game.advance(self._finished_at)))
        return rulings

    def _observe(self, events: Iterable[Event]) -> list[Ruling]:
        rulings: list[Ruling] = []
        for event in events:
            if event.kind in CORRECTION_KINDS:
                # Deadlines that passed before the correction fire first, as for any event.
                rulings += self._stand(self.game.advance_before(event.t))
                rulings += self._amend(event)  # (a new history list: looked up each time)
            else:
                self.history.append(event)
                said = self.game.observe(event)  # the game is replaced by a correction
                if said:
                    rulings += self._stand(said)
        return rulings

    def _stand(self, rulings: list[Ruling]) -> list[Ruling]:
        """Remember the penalties said; one the table overruled is not said again (a deadline
        re-armed by a correction fires at the same time, so it has the same key)."""
        if all(r.kind != "ruling" for r in rulings):
            return rulings
        kept = []
        for ruling in rulings:
            if ruling.kind == "ruling":
                key = penalty_key(ruling)
                if key in self.overruled:
                    continue
                self.standing[key] = ruling
            kept.append(ruling)
        return kept

    # --- corrections -----------------------------------------------------------------------

    def _amend(self, event: Event) -> list[Ruling]:
        if isinstance(event, Correction):
            return self._correct(event)
        if isinstance(event, Confirm):
            return self._confirm(event)
        return self._undo(event)  # type: ignore[arg-type]

    def _confirm(self, confirm: Confirm) -> list[Ruling]:
        bar = self.game.rules.announce_min_confidence
        keys = [key for key, ruling in self.standing.items()
                if not is_sure(ruling, bar) and key not in self.confirmed
                and (confirm.ruling_t is None or abs(key[3] - confirm.ruling_t) < 1e-3)]
        if not keys:
            return [info(confirm.t, "corrected", None, messages.nothing_to("penalty to confirm"))]
        key = keys[-1]
        self.confirmed.add(key)
        sure = replace(self.standing[key], confidence=1.0)
        self.standing[key] = sure
        return [replace(sure, t=confirm.t, message=messages.confirmed(sure.message))]

    def _correct(self, correction: Correction) -> list[Ruling]:
        index = self._card_index(correction.of_t)
        if index is None:
            return [info(correction.t, "corrected", None, messages.nothing_to("card to correct"))]
        played = self.history[index]
        assert isinstance(played, CardPlayed)
        amended = replace(played, card=correction.card or played.card,
                          seat=played.seat if correction.seat is None else correction.seat,
                          confidence=None, alternatives=(),
                          # The table named the seat: it is as sure as it gets.
                          seat_confidence=played.seat_confidence if correction.seat is None
                          else None)
        history = [*self.history[:index], amended, *self.history[index + 1:]]
        out = [info(correction.t, "corrected", amended.seat,
                    messages.corrected(correction.card, correction.seat, played.t),
                    card=amended.card.token)]
        said_before = self._said_as_it_landed(self.history, played.t)
        return out + self._rederive(history, correction.t, played.t, said_before)

    def _said_as_it_landed(self, history: list[Event], card_t: float) -> list[Ruling]:
        """The lines of `RESAID_ON_CORRECTION` a fresh game rules at the card of `card_t`."""
        game = type(self.game)(self.game.players, self.game.first_dealer, self.game.rules)
        said: list[Ruling] = []
        for event in history:
            if event.t > card_t + 1e-3:
                break
            said += _resaid(game.observe(event), card_t)
        return said

    def _card_index(self, of_t: float | None) -> int | None:
        for index in range(len(self.history) - 1, -1, -1):
            event = self.history[index]
            if isinstance(event, CardPlayed) and (of_t is None or abs(event.t - of_t) < 1e-3):
                return index
        return None

    def _rederive(self, history: list[Event], t: float, card_t: float,
                  said_before: list[Ruling]) -> list[Ruling]:
        """Rule the amended history with a fresh game up to where this one's clock stands;
        say what changed: penalties withdrawn, new penalties, whose turn it now is, what the
        amended card (at `card_t`; `said_before` as it landed first) says now, and who takes
        cards now."""
        old = self.game
        fresh = type(old)(old.players, old.first_dealer, old.rules)
        derived: list[Ruling] = []
        for event in history:
            derived += fresh.observe(event)
        if self._finished_at is not None:
            derived += fresh.advance(self._finished_at)
        else:
            derived += fresh.advance_before(max(t, self._fired_before or t))
        now_standing = {penalty_key(r): (replace(r, confidence=1.0)
                                         if penalty_key(r) in self.confirmed else r)
                        for r in derived
                        if r.is_penalty and penalty_key(r) not in self.overruled}
        out = [self._withdrawal(t, ruling) for key, ruling in self.standing.items()
               if key not in now_standing]
        out += [replace(ruling, t=t) for key, ruling in now_standing.items()
                if key not in self.standing]
        out += fresh.tally_changes(old, t)
        turn, color = fresh.state.turn, fresh.state.active_color
        if color is not None and color != old.state.active_color:
            out.append(info(t, "color", None, messages.color_named(color), color=color.value))
        if turn is not None and turn != old.state.turn:
            out.append(info(t, "turn", turn, messages.turn(turn)))
        said_now = _resaid(derived, card_t)
        if [(r.rule, r.seat, r.message) for r in said_now] != \
                [(r.rule, r.seat, r.message) for r in said_before]:
            # What the card meant changed with it (a jump-in, who drinks): say it again.
            out += [replace(r, t=t) for r in said_now]
        out += _owed_changes(old.state.owed_draws, fresh.state.owed_draws, t)
        self.game, self.history, self.standing = fresh, history, now_standing
        return out

    def _undo(self, undo: Undo) -> list[Ruling]:
        keys = [key for key in self.standing
                if undo.ruling_t is None or abs(key[3] - undo.ruling_t) < 1e-3]
        if not keys:
            return [info(undo.t, "corrected", None, messages.nothing_to("penalty to withdraw"))]
        key = keys[-1]
        self.overruled.add(key)
        return [self._withdrawal(undo.t, self.standing.pop(key))]

    def _withdrawal(self, t: float, ruling: Ruling) -> Ruling:
        card = Card.parse(ruling.card) if ruling.card else None
        words = self.game.words.penalty_words(ruling.rule)
        return info(t, "withdrawn", ruling.seat, messages.withdrawn(ruling.seat, words, card),
                    card=ruling.card)


def replay(game: Game, events: Iterable[Event]) -> list[Ruling]:
    """The rulings an event log gives: every event through the session, then the end."""
    session = Session(game)
    rulings: list[Ruling] = []
    for event in events:
        rulings.extend(session.feed(event))
    rulings.extend(session.finish())
    return rulings
