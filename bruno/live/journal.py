"""The live journal: what a session saw and said, one JSON object a line, synced per line.

    {"t": 0.0, "kind": "game", "variant": "bruno", "players": 4, "dealer": 0,
     "journal": {"version": 1, "profile": "/home/ann/room_profile.toml"}}
    {"t": 2.1, "kind": "card", "card": "y_1", "seat": 0}            # every event, as fed
    {"t": 2.1, "kind": "info", "rule": "turn", "seat": 1, ...}      # every ruling, as said
    {"t": 2.35, "kind": "clock"}                                    # the clock released events

The game line comes first, and its `journal` key says that the file is a live journal (its
format's version, and the room profile the session used): `--resume` refuses any other file,
so that a plain event log is never appended to. Events and rulings follow in the order they
happened. A `clock`
line records a moment the session clock released held events or fired a deadline: replaying
the events with those moments gives the very same rulings even when a detector was late (an
event older than the reorder window is ruled when it arrives, not in time order).

A crash may leave the last line torn (half written): reading drops it, and `repair` cuts it
off the file before anything is appended again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.eventlog import GameSetup, parse_game_line
from referee.events import Event, EventError, parse_event
from referee.rulings import Ruling
from referee.session import Session

CLOCK_KIND = "clock"
RULING_KINDS = frozenset({"ruling", "info"})
JOURNAL_KEY = "journal"
"""The key of the game line that marks a live journal: {"version": 1, "profile": PATH}."""
JOURNAL_VERSION = 1


def journal_game_line(setup: GameSetup, profile: Path | None) -> dict[str, Any]:
    """A journal's first line: the game line, marked as a journal's, naming the room profile
    (as an absolute path, so that a resume from another folder finds it)."""
    return {**setup.to_dict(), JOURNAL_KEY: {
        "version": JOURNAL_VERSION,
        "profile": None if profile is None else str(Path(profile).absolute())}}


class JournalError(ValueError):
    """A journal that cannot be resumed; the message names the file, the line and the fix."""


@dataclass
class JournalContents:
    """A journal read back: the game, the events and clock moments in order, the rulings."""

    path: Path
    setup: GameSetup
    entries: list[dict[str, Any]] = field(default_factory=list)
    """Event and `clock` lines, in journal order (what to replay)."""
    rulings: list[dict[str, Any]] = field(default_factory=list)
    last_t: float = 0.0
    """The latest time in the journal: where the resumed session clock starts."""
    good_bytes: int = 0
    """Length of the journal up to the end of its last whole line."""
    torn: bool = False
    """Whether a torn last line was dropped."""
    profile: Path | None = None
    """The room profile the session used (None: the journal does not say)."""

    @property
    def events(self) -> list[dict[str, Any]]:
        return [e for e in self.entries if e["kind"] != CLOCK_KIND]


def read_journal(path: str | os.PathLike[str]) -> JournalContents:
    """Read a journal; a torn last line is dropped, any other bad line is a JournalError."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise JournalError(f"{path}: no such journal; check the path") from None
    except IsADirectoryError:
        raise JournalError(f"{path}: is a folder, not a journal") from None
    except OSError as error:
        raise JournalError(f"{path}: cannot be read ({error.strerror})") from None
    lines = raw.split(b"\n")
    # A file that does not end in a newline was cut off while its last line was written.
    whole, tail = lines[:-1], lines[-1]
    contents: JournalContents | None = None
    offset = 0
    torn = bool(tail.strip())
    for number, line in enumerate(whole, start=1):
        data = _decode(line)
        if data is None and contents is None:
            raise _not_a_journal(path, "its first line is not JSON")
        if data is None:
            if number == len(whole) and not tail.strip():
                torn = True  # the last line is garbage: a crash mid-write that left a newline
                break
            raise JournalError(f"{path} line {number}: not a JSON object; the journal is "
                               "damaged there (remove that line to resume)")
        if contents is None:
            contents = _first_line(path, data)
            offset += len(line) + 1
            continue
        offset += len(line) + 1
        _take(contents, data, path, number)
    if contents is None:
        raise JournalError(f"{path}: the journal has no game line; it is not a bruno live "
                           "journal (or it was cut off before its first line)")
    contents.good_bytes = offset
    contents.torn = torn
    return contents


def _not_a_journal(path: Path, why: str = "its first line is not a journal's game line"
                    ) -> JournalError:
    return JournalError(f"{path}: not a bruno live journal ({why}); it was left as it is. "
                        f"Replay an event log with `bruno replay {path}`, or start a new game "
                        "without --resume")


def _first_line(path: Path, data: dict[str, Any]) -> JournalContents:
    """The game line, which must carry the journal's mark."""
    if data.get("kind") != "game":
        raise _not_a_journal(path)
    mark = data.get(JOURNAL_KEY)
    if not isinstance(mark, dict):
        raise _not_a_journal(path, "its game line has no 'journal' mark: a plain event log, "
                             "or a journal written by an older bruno")
    version = mark.get("version")
    if version != JOURNAL_VERSION:
        raise JournalError(f"{path} line 1: a journal of version {version!r}, and this bruno "
                           f"reads version {JOURNAL_VERSION}; resume it with the bruno that "
                           "wrote it")
    profile = mark.get("profile")
    if profile is not None and not isinstance(profile, str):
        raise JournalError(f"{path} line 1: the journal's 'profile' must be a path or null, "
                           f"got {profile!r}")
    game = {key: value for key, value in data.items() if key != JOURNAL_KEY}
    try:
        setup = parse_game_line(game)
    except EventError as error:
        raise JournalError(f"{path} line 1: {error}") from None
    return JournalContents(path, setup, profile=None if profile is None else Path(profile))


def _decode(line: bytes) -> dict[str, Any] | None:
    if not line.strip():
        return {}
    try:
        data = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def _take(contents: JournalContents, data: dict[str, Any], path: Path, number: int) -> None:
    if not data:
        return  # a blank line
    t = data.get("t")
    if isinstance(t, bool) or not isinstance(t, int | float):
        raise JournalError(f"{path} line {number}: no time 't'; the journal is damaged there")
    contents.last_t = max(contents.last_t, float(t))
    if data.get("kind") in RULING_KINDS:
        contents.rulings.append(data)
    else:
        contents.entries.append(data)


def repair(contents: JournalContents) -> None:
    """Cut a torn last line off the file, so appended lines start on a line of their own."""
    if contents.torn:
        with contents.path.open("r+b") as handle:
            handle.truncate(contents.good_bytes)
            handle.flush()
            os.fsync(handle.fileno())
        contents.torn = False


def replay_entries(contents: JournalContents, session: Session,
                   seen: Callable[[Event], None] | None = None) -> list[Ruling]:
    """Feed a journal's events and clock moments to `session` (a fresh one) as the live session
    did, and return the rulings they give: the journal's own, when the same bruno wrote it.
    `seen(event)`: told of each event fed. JournalError for an event that is not valid."""
    rulings: list[Ruling] = []
    for entry in contents.entries:
        if entry.get("kind") == CLOCK_KIND:
            rulings += session.advance(float(entry["t"]))
            continue
        try:
            event = parse_event(entry, contents.setup.players)
        except EventError as error:
            raise JournalError(f"{contents.path}: the event at t={entry.get('t')}: "
                               f"{error}") from None
        if seen is not None:
            seen(event)
        rulings += session.feed(event)
    return rulings


def is_journal(path: str | os.PathLike[str]) -> bool:
    """Does the file at `path` start with a `bruno live` journal's game line?"""
    try:
        with Path(path).open("rb") as handle:
            first = _decode(handle.readline())
    except OSError:
        return False
    return first is not None and first.get("kind") == "game" and "journal" in first
