"""A notes file for `bruno review --notes`: what a camera cannot see, written down by a person
who watched the footage — the table's settings, the calls people made, the colour named for a
wild, the cards left in each hand at the end.

It is an event log (docs/DESIGN.md): the game line first (variant, players, dealer and any rule
setting, e.g. `"seg_after_s": 8`), then events, usually `call`, `color` and `round_end`:

    {"t": 0.0, "kind": "game", "variant": "bruno", "players": 4, "dealer": 0, "seg_after_s": 8}
    {"t": 33.4, "kind": "call", "seat": 3, "word": "pass"}
    {"t": 69.8, "kind": "color", "seat": 2, "color": "g"}
    {"t": 129.0, "kind": "round_end", "hands": {"0": ["y_3"], "1": [], "2": ["g_8"], "3": []}}

`t` is seconds into the footage. The events are merged with what the review saw and heard, and
carry `source` "notes" (written `"source": "notes"` in the review's events.jsonl; the referee
ignores it), so the report can say which observations a person added.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from referee.eventlog import EventLogError, GameSetup, checked_seats, read_event_log
from referee.events import Event, EventError

NOTES_SOURCE = "notes"
"""The `source` of an event that came from a notes file."""


class NotesError(ValueError):
    """A notes file that cannot be used; the message is one line naming the file."""


@dataclass(frozen=True)
class ReviewNotes:
    path: Path
    setup: GameSetup
    events: list[Event]
    """The events, each with `source` "notes", in the file's order."""


def read_notes(path: str | Path) -> ReviewNotes:
    """Read and check a notes file (game line first); NotesError names the line at fault."""
    path = Path(path)
    try:
        log = read_event_log(path)
    except EventLogError as error:
        raise NotesError(f"notes: {error}") from None
    events = [replace(event, source=NOTES_SOURCE) for event in log.events]
    return ReviewNotes(path, log.setup, events)


def table_setup(notes: ReviewNotes | None, *, variant: str | None, players: int | None,
                dealer: int | None, settings: dict | None = None) -> GameSetup:
    """The game reviewed: the notes' game line with the command line's options over it (the
    command line wins); without notes, the options over the defaults."""
    base = notes.setup if notes is not None else GameSetup()
    try:
        return base.with_overrides(variant=variant, players=players, dealer=dealer,
                                   settings=settings)
    except EventError as error:
        where = f"{notes.path}: " if notes is not None else ""
        raise NotesError(f"{where}{error}") from None


def checked_events(notes: ReviewNotes, players: int) -> list[Event]:
    """The notes' events, checked against the table finally reviewed (a seat that is not at
    the table, once `--players` overrides the notes, is an error naming the event)."""
    try:
        return checked_seats(notes.events, players)
    except EventError as error:
        raise NotesError(f"{notes.path}: {error}") from None
