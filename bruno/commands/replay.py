"""`bruno replay EVENTS.jsonl`: the rulings an event log gives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from bruno.errors import UserError
from bruno.rulings_table import add_ruling_row, counted, penalty_summary, rulings_table
from referee.eventlog import EventLogError, GameSetup, checked_seats, dumps, read_event_log
from referee.events import EventError
from referee.rulings import Ruling, tally_totals
from referee.session import replay as replay_events
from referee.variants import find_variant


def replay(
    events: Annotated[Path, typer.Argument(help="An event log (JSONL, game line first).")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
    players: Annotated[int | None, typer.Option(help="Override the log's player count.")] = None,
    dealer: Annotated[int | None, typer.Option(help="Override the log's dealer seat.")] = None,
    variant: Annotated[str | None, typer.Option(help="Override the log's variant.")] = None,
    setting: Annotated[
        list[str] | None,
        typer.Option("--set", metavar="NAME=VALUE",
                     help="Override a rule setting, e.g. --set seg_after_s=8 (JSON value)."),
    ] = None,
) -> None:
    """Print the rulings an event log gives: penalties, insticks (jump-ins), turns, scores.
    The game is the log's game line's unless --variant names another: the options win over
    the log, as for every other value on the game line."""
    from bruno.live.journal import is_journal

    if is_journal(events):
        if any(option is not None for option in (players, dealer, variant, setting)):
            raise UserError(f"{events}: a bruno live journal replays as its table was "
                            "refereed; leave out --players, --dealer, --variant and --set")
        setup, rulings = _replay_journal(events)
        log_setup = setup
    else:
        try:
            log = read_event_log(events)
            setup = log.setup.with_overrides(variant=variant, players=players, dealer=dealer,
                                             settings=parse_settings(setting or []))
            rulings = replay_events(setup.new_game(), checked_seats(log.events, setup.players))
        except (EventLogError, EventError) as error:
            raise UserError(str(error)) from None
        log_setup = log.setup
    if find_variant(setup.variant) is not find_variant(log_setup.variant):
        # Said on stderr: stdout is the rulings' (with --json, the contract's).
        typer.echo(f"bruno: note: {events} is a game of {log_setup.words.game}; refereed as "
                   f"{setup.words.game}, as --variant says", err=True)
    if as_json:
        for ruling in rulings:
            typer.echo(dumps(ruling.to_dict()))
    else:
        print_rulings(setup, rulings, source=str(events))


def _replay_journal(path: Path) -> tuple[GameSetup, list[Ruling]]:
    """A `bruno live` journal's game and the rulings its events and clock moments give: those
    its table heard (the live session ended where the journal ends, so no later deadline)."""
    from bruno.live.journal import JournalError, read_journal, replay_entries
    from bruno.live.session import LIVE_REORDER_WINDOW_S
    from referee.session import Session

    try:
        contents = read_journal(path)
        # The live session's own reorder window: its clock lines released events by it.
        session = Session(contents.setup.new_game(), LIVE_REORDER_WINDOW_S)
        return contents.setup, replay_entries(contents, session)
    except JournalError as error:
        raise UserError(str(error)) from None


def parse_settings(items: list[str]) -> dict[str, object]:
    """`NAME=VALUE` pairs; the value is JSON (`8`, `null`, `true`) or else a plain string."""
    settings: dict[str, object] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name:
            raise UserError(f"--set {item!r}: expected NAME=VALUE, e.g. --set seg_after_s=8")
        try:
            settings[name] = json.loads(raw)
        except json.JSONDecodeError:
            settings[name] = raw
    return settings


def print_rulings(setup: GameSetup, rulings: list[Ruling], source: str) -> None:
    console = Console(highlight=False)
    console.print(f"[bold]{escape(source)}[/]: {setup.words.game}, {setup.players} players, "
                  f"dealer seat {setup.dealer}")
    table = rulings_table()
    for ruling in rulings:
        style = "bold red" if ruling.is_penalty else ("dim" if ruling.rule == "turn" else "")
        add_ruling_row(table, ruling.to_dict(), style)
    console.print(table)
    penalties = [r for r in rulings if r.is_penalty]
    console.print(f"[bold]{counted(len(penalties), 'penalty', 'penalties')}[/] in "
                  f"{counted(len(rulings), 'ruling')}.")
    if penalties:
        console.print("Penalty cards: " + penalty_summary([r.to_dict() for r in penalties]))
    tally = find_variant(setup.variant).tally
    if tally is not None:  # a game's running count per seat (DrukUNO's sips): where it ended
        rule, name = tally
        totals = tally_totals([r.to_dict() for r in rulings], rule)
        console.print(f"{name}: " + (", ".join(f"seat {seat} {total}" for seat, total
                                               in totals.items()) or "none"))
