"""`bruno demo [--out DIR] [--json]`: review the bundled demo footage (`examples/demo/`) with
its notes, as `bruno review` would, and print the rulings and where the report is.

The results go to `bruno-demo/` in the current folder; when that cannot be written (a
read-only checkout), to a new temporary folder, and the command says which. An `--out` that
cannot be written is an error, as for `bruno review`.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from bruno.demo_files import NOTES, ROOM, VIDEO
from bruno.errors import UserError
from bruno.rulings_table import add_ruling_row, counted, penalty_summary, rulings_table
from referee.eventlog import dumps
from referee.events import Event

DEFAULT_OUT = Path("bruno-demo")

HIDDEN_INFO = ("turn",)
"""Info lines left out of the terminal table (there is one per turn); rulings.jsonl has them."""


def demo(
    out: Annotated[Path | None, typer.Option(
        "--out", help="Folder for the review (default: bruno-demo/ here, else a temporary "
        "folder).", show_default=False)] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the rulings as JSON lines, like `bruno review --json`.")] = False,
) -> None:
    """Review the bundled demo footage and print its rulings and the report's path."""
    from bruno.review.run import report_failures, run_reviews
    from vision.card_readers import CardModelMissing, recogniser_reader

    for needed in (VIDEO, NOTES, ROOM):
        if not needed.is_file():
            raise UserError(f"{needed}: the demo footage is missing; render it with "
                            "`python -m synth.demo_footage`")
    folder = _out_folder(out, quiet=as_json)
    try:
        read_card = recogniser_reader()
    except CardModelMissing as error:
        raise UserError(str(error)) from None
    if not as_json:
        Console(stderr=True, highlight=False).print(
            f"Reviewing {VIDEO.name}, a staged four-player round of Bruno with every penalty "
            f"in it; {NOTES.name} adds what a camera cannot see, {ROOM.name} says where the "
            "piles and seats are. This takes under a minute on two cores...")
    results, failures = run_reviews([VIDEO], folder, read_card, profile=ROOM, notes=NOTES,
                                    quiet=as_json)
    report_failures(failures)
    outcome = results[0]
    if as_json:
        for ruling in outcome.rulings:
            typer.echo(dumps(ruling))
        return
    _print_rulings(outcome.rulings, outcome.events)
    console = Console(highlight=False)
    for note in outcome.notes:
        console.print(f"[yellow]note:[/] {escape(note)}")
    console.print("The report (open it in a browser): "
                  f"[bold]{escape(str(outcome.files['report.html']))}[/]")
    video = outcome.files.get("annotated.mp4", "(none)")
    console.print(f"The annotated video: {escape(str(video))}")


def _out_folder(out: Path | None, quiet: bool) -> Path:
    """`--out` as given; by default bruno-demo/ here, or a temporary folder when that cannot
    be written."""
    from bruno.review.run import unwritable

    if out is not None:
        problem = unwritable(out)  # said before the demo is introduced, as one line
        if problem:
            raise UserError(f"{out}: cannot write the review there ({problem}); choose "
                            "another folder with --out")
        return out
    if unwritable(DEFAULT_OUT) is None:
        return DEFAULT_OUT
    folder = Path(tempfile.mkdtemp(prefix="bruno-demo-"))
    if not quiet:
        Console(stderr=True, highlight=False).print(
            f"{DEFAULT_OUT}/ cannot be written here; the review goes to {folder}")
    return folder


def _print_rulings(rulings: list[dict], events: list[Event]) -> None:
    noted = {(e.t, getattr(e, "seat", None)) for e in events if e.source == "notes"}
    console = Console(highlight=False)
    table = rulings_table()
    shown = [r for r in rulings if r["rule"] not in HIDDEN_INFO]
    for ruling in shown:
        penalty = ruling["kind"] == "ruling"
        if penalty and (ruling["t"], ruling.get("seat")) in noted:
            ruling = {**ruling, "message": ruling["message"] + " (from notes)"}
        add_ruling_row(table, ruling, style="bold red" if penalty else "")
    console.print(table)
    penalties = [r for r in rulings if r["kind"] == "ruling"]
    console.print(f"[bold]{counted(len(penalties), 'penalty', 'penalties')}[/] in "
                  f"{counted(len(rulings), 'ruling')} "
                  f"({counted(len(rulings) - len(shown), 'turn line')} not shown). "
                  + ("Penalty cards: " + penalty_summary(penalties) if penalties else ""))
