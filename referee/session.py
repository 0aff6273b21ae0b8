"""A refereed session: the reorder buffer in front of a game. Live play and log replay both go
through here, so an event log always replays to the rulings the table heard."""

from __future__ import annotations

from collections.abc import Iterable

from referee.events import Event
from referee.game import Game
from referee.reorder import REORDER_WINDOW_S, ReorderBuffer
from referee.rulings import Ruling


class Session:
    """Feed events as they arrive (slightly out of order is fine); read rulings back."""

    def __init__(self, game: Game, reorder_window_s: float = REORDER_WINDOW_S) -> None:
        self.game = game
        self.buffer = ReorderBuffer(reorder_window_s)
        self.last_t: float | None = None

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
        rulings.extend(self.game.advance_before(horizon))
        return rulings

    def finish(self) -> list[Ruling]:
        """End of the log: release everything, then close the knock windows still open (the
        clock moves to the last event plus `knock_after_s`; later deadlines such as a running
        SEG clock do not fire)."""
        rulings = self._observe(self.buffer.drain())
        if self.last_t is not None:
            rulings.extend(self.game.advance(self.last_t + self.game.rules.knock_after_s))
        return rulings

    def _observe(self, events: Iterable[Event]) -> list[Ruling]:
        rulings: list[Ruling] = []
        observe = self.game.observe
        for event in events:
            rulings += observe(event)
        return rulings


def replay(game: Game, events: Iterable[Event]) -> list[Ruling]:
    """The rulings an event log gives: every event through the session, then the end."""
    session = Session(game)
    rulings: list[Ruling] = []
    for event in events:
        rulings.extend(session.feed(event))
    rulings.extend(session.finish())
    return rulings
