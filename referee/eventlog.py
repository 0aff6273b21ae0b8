"""The JSONL event log (docs/DESIGN.md): a `game` line, then one observation per line.

Reading validates every line and reports the first problem as one line with its line number,
among them a `t` that goes back further than the reorder window (events may be out of order by
up to `REORDER_WINDOW_S`, as detectors' delays differ; a log further out of order is a mistake,
not something to sort silently).
Writing appends and flushes each line, so a journal loses nothing when the process dies.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from referee.events import Event, EventError, parse_event, parse_time
from referee.game import Game
from referee.reorder import REORDER_WINDOW_S, TIME_SLACK_S
from referee.rules import RuleSet, RuleSetError
from referee.variants import UnknownVariantError, find_variant
from referee.words import Words


class EventLogError(ValueError):
    """An event log that cannot be read; the message names the file, the line and the fix."""


@dataclass(frozen=True, slots=True)
class GameSetup:
    """The `game` line: which game, how many players, who deals, and rule-set overrides."""

    variant: str = "bruno"
    players: int = 4
    dealer: int = 0
    settings: dict[str, Any] = field(default_factory=dict)
    t: float = 0.0

    def with_overrides(self, variant: str | None = None, players: int | None = None,
                       dealer: int | None = None,
                       settings: dict[str, Any] | None = None) -> GameSetup:
        """A copy with command-line options applied over the log's own values (a setting may
        be overridden with None, e.g. to turn SEG off)."""
        merged = {**self.settings, **(settings or {})}
        name = variant or self.variant
        # Written as the contract names it ("druk", not the "DrukUNO" typed); an unknown
        # name is left for validate() to refuse.
        with contextlib.suppress(UnknownVariantError):
            name = find_variant(name).name
        setup = GameSetup(
            variant=name,
            players=players if players is not None else self.players,
            dealer=dealer if dealer is not None else self.dealer,
            settings=merged, t=self.t,
        )
        setup.validate()
        return setup

    def validate(self) -> None:
        """Raise EventError when the players, dealer, variant or a setting is wrong."""
        if isinstance(self.players, bool) or not isinstance(self.players, int) \
                or not 2 <= self.players <= 10:
            raise EventError(f"'players' must be 2 to 10, got {self.players!r}")
        if isinstance(self.dealer, bool) or not isinstance(self.dealer, int) \
                or not 0 <= self.dealer < self.players:
            raise EventError(
                f"'dealer' must be a seat 0..{self.players - 1}, got {self.dealer!r}")
        self.rules()

    def rules(self) -> RuleSet:
        try:
            return find_variant(self.variant).default_rules.with_overrides(self.settings)
        except (RuleSetError, UnknownVariantError) as error:
            raise EventError(str(error)) from None

    @property
    def words(self) -> Words:
        """What the game played calls things (its name, its jump-in), for what people read
        and hear."""
        return find_variant(self.variant).words

    def new_game(self) -> Game:
        variant = find_variant(self.variant)
        return variant(self.players, self.dealer, self.rules())

    def to_dict(self) -> dict[str, Any]:
        return {"t": self.t, "kind": "game", "variant": self.variant, "players": self.players,
                "dealer": self.dealer, **self.settings}


_GAME_KEYS = ("t", "kind", "variant", "players", "dealer")


def parse_game_line(data: Any) -> GameSetup:
    if not isinstance(data, dict) or data.get("kind") != "game":
        raise EventError('the first line must be the game line, e.g. '
                         '{"t": 0.0, "kind": "game", "variant": "bruno", "players": 4, '
                         '"dealer": 0}')
    variant = data.get("variant", "bruno")
    if not isinstance(variant, str):
        raise EventError(f"'variant' must be a name, got {variant!r}")
    setup = GameSetup(
        variant=variant,
        players=data.get("players", 4),
        dealer=data.get("dealer", 0),
        settings={k: v for k, v in data.items() if k not in _GAME_KEYS},
        t=parse_time({"t": data.get("t", 0.0)}),
    )
    setup.validate()
    return setup


@dataclass(frozen=True, slots=True)
class EventLog:
    setup: GameSetup
    events: list[Event]


def checked_seats(events: list[Event], players: int) -> list[Event]:
    """`events`, checked against a table of `players` seats: the game line's count may have
    been overridden (`--players`), and a seat that is not at the table raises EventError
    naming the event."""
    for event in events:
        try:
            parse_event(event.to_dict(), players)
        except EventError as error:
            raise EventError(f"the {event.kind} at t={event.t:g}: {error}") from None
    return events


def parse_lines(lines: Iterable[str], source: str = "<events>") -> EventLog:
    """Parse a whole log; raise EventLogError '<source> line N: <what is wrong>'."""
    setup: GameSetup | None = None
    events: list[Event] = []
    newest_t, newest_line = float("-inf"), 0
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            raise EventLogError(f"{source} line {number}: not valid JSON ({error.msg})") from None
        try:
            if setup is None:
                setup = parse_game_line(data)
                continue
            event = parse_event(data, setup.players)
        except EventError as error:
            raise EventLogError(f"{source} line {number}: {error}") from None
        if newest_t - event.t > REORDER_WINDOW_S + TIME_SLACK_S:
            raise EventLogError(
                f"{source} line {number}: 't' goes back to {event.t:g} s from {newest_t:g} s "
                f"(line {newest_line}), more than the {REORDER_WINDOW_S:g} s events may be out "
                "of order; put the lines in time order")
        if event.t > newest_t:
            newest_t, newest_line = event.t, number
        events.append(event)
    if setup is None:
        raise EventLogError(f"{source}: the log is empty (it needs a game line first)")
    return EventLog(setup, events)


def read_event_log(path: str | os.PathLike[str]) -> EventLog:
    """Read and validate an event log file."""
    path = Path(path)
    try:
        with path.open(encoding="utf-8") as handle:
            return parse_lines(handle, source=str(path))
    except FileNotFoundError:
        raise EventLogError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise EventLogError(f"{path}: is a folder, not an event log") from None
    except UnicodeDecodeError:
        raise EventLogError(f"{path}: not a text file (an event log is JSON lines)") from None
    except PermissionError:
        raise EventLogError(f"{path}: cannot be read (permission denied)") from None


def dumps(obj: dict[str, Any]) -> str:
    """One compact JSON line, keys in the order given."""
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))


class Journal:
    """An append-only JSONL file, flushed and synced per line, so a crash loses nothing."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._handle: IO[str] = self.path.open("a", encoding="utf-8")

    def append(self, obj: dict[str, Any]) -> None:
        self._handle.write(dumps(obj) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
