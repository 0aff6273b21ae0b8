"""`bruno review FOOTAGE... [--out DIR]`: review recorded games into a folder per file
(events.jsonl, rulings.jsonl, report.html, annotated.mp4).

`bruno review FOOTAGE --events-only --json` prints only the merged event log, game line first,
exactly as `bruno replay` reads it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from bruno.commands.card_reader import card_reader
from bruno.commands.replay import parse_settings
from bruno.errors import UserError
from bruno.review.footage import review_video
from bruno.review.pipeline import ReviewError, prepare_review
from calibration.profile import ProfileError
from referee.eventlog import GameSetup, dumps
from referee.events import EventError, in_time_order
from vision.frames import FrameSourceError


def review(
    footage: Annotated[list[Path], typer.Argument(
        help="Videos of the table (MP4, MKV, MOV...).")],
    events_only: Annotated[bool, typer.Option(
        "--events-only", help="Only the events (no rulings).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
    profile: Annotated[Path | None, typer.Option(
        "--profile", help="Room profile with a \\[camera] section.", show_default=False)] = None,
    players: Annotated[int | None, typer.Option(
        "--players", min=2, max=10, help="Players, when no profile says (default 4).",
        show_default=False)] = None,
    dealer: Annotated[int | None, typer.Option(
        "--dealer", min=0, help="The dealer's seat (default: the notes', else 0).",
        show_default=False)] = None,
    cards_from: Annotated[Path | None, typer.Option(
        "--cards-from", help="Read cards from this ground-truth event log instead of the card "
        "model (for synthetic footage).", show_default=False)] = None,
    out: Annotated[Path, typer.Option(
        "--out", help="Folder for the results: one subfolder per footage file.")
    ] = Path("review"),
    variant: Annotated[str | None, typer.Option(
        "--variant", help="The game played (default: the notes', else bruno).",
        show_default=False)] = None,
    notes: Annotated[Path | None, typer.Option(
        "--notes", help="What the camera cannot see, written down: an event log whose game "
        "line sets the table (players, dealer, settings such as seg_after_s) and whose calls, "
        "colours and final hands join the review. One footage file only.",
        show_default=False)] = None,
    jobs: Annotated[int, typer.Option(
        "--jobs", min=1, help="Files reviewed at once, one process each.")] = 1,
    no_video: Annotated[bool, typer.Option(
        "--no-video", help="No annotated video: the events, rulings and report only.")
    ] = False,
    full_size_video: Annotated[bool, typer.Option(
        "--full-size-video", help="The annotated video at the footage's own size and frame "
        "rate (default: half its width and height, at most 960x540 and 30 frames a second; "
        "full size takes about twice as long).")] = False,
    setting: Annotated[list[str] | None, typer.Option(
        "--set", metavar="NAME=VALUE", help="A rule setting over the notes' game line, e.g. "
        "--set seg_after_s=8 (JSON value), as for `bruno replay`.", show_default=False)
    ] = None,
) -> None:
    """Review recorded games: events, rulings, an HTML report and an annotated video."""
    settings = _checked_settings(setting or [])
    _check_variant(variant)
    _check_footage(footage)
    if no_video and full_size_video:
        raise UserError("--no-video and --full-size-video contradict each other; give one "
                        "(--full-size-video for the video at the footage's size)")
    if not events_only:
        from bruno.review.run import review_files

        review_files(footage, out, card_reader(cards_from), profile=profile, players=players,
                     dealer=dealer, variant=variant, jobs=jobs, as_json=as_json, notes=notes,
                     annotate=not no_video, full_size_video=full_size_video,
                     settings=settings)
        return
    if len(footage) != 1:
        raise UserError("--events-only takes one footage file at a time")
    footage = footage[0]
    try:
        prepared = prepare_review(footage, profile=profile, players=players, dealer=dealer,
                                  variant=variant, notes=notes, event_log_only=True,
                                  settings=settings)
        read = card_reader(cards_from)
        result = review_video(footage, prepared.setup.camera, read, listen=prepared.sound,
                              read_sure=prepared.game.rules().min_card_confidence)
    except (ReviewError, ProfileError, FrameSourceError) as error:
        raise UserError(str(error)) from None
    events = in_time_order(result.events, prepared.added)
    log = [prepared.game.to_dict(), *(event.to_dict() for event in events)]
    if as_json:
        for event in log:
            typer.echo(dumps(event))
    else:
        _print_table(footage, prepared.game, log)
    from bruno.errors import INCOMPLETE_EXIT_CODE
    from bruno.review.run import incomplete_line, no_sound_line

    for note in [*prepared.setup.notes, *result.notes]:
        print(f"bruno: warning: {note}", file=sys.stderr)
    warning = None if prepared.sound else \
        no_sound_line(footage, prepared.game.words, events_only=True)
    if warning is not None:
        print(warning, file=sys.stderr)
    if result.error:
        print(incomplete_line(footage, result.error), file=sys.stderr)
        raise SystemExit(INCOMPLETE_EXIT_CODE)


def _checked_settings(items: list[str]) -> dict[str, object]:
    """`--set` pairs, checked now (an unknown setting is one line before any video is read)."""
    settings = parse_settings(items)
    try:
        GameSetup().with_overrides(settings=settings)
    except EventError as error:
        raise UserError(f"--set: {error}") from None
    return settings


def _check_variant(variant: str | None) -> None:
    """An unknown `--variant` is one line before any video is read (it was blamed on the
    footage, after a failed progress bar and an empty review folder)."""
    from referee.variants import UnknownVariantError, find_variant

    if variant is not None:
        try:
            find_variant(variant)
        except UnknownVariantError as error:
            raise UserError(f"--variant: {error}") from None


def _check_footage(footage: list[Path]) -> None:
    """A folder given as footage is named as one (the review takes video files)."""
    for path in footage:
        if path.is_dir():
            raise UserError(f"{path}: is a folder; give the video files in it, e.g. "
                            f"bruno review {path}/*.mp4")


def _print_table(footage: Path, game: GameSetup, log: list[dict]) -> None:
    console = Console(highlight=False)
    console.print(f"[bold]{escape(str(footage))}[/]: {game.words.game}, {game.players} players, "
                  f"dealer seat {game.dealer}")
    table = Table(show_edge=False, pad_edge=False)
    for column in ("t (s)", "kind", "seat", "card", "confidence", "from"):
        table.add_column(column)
    for event in log[1:]:
        seat = event.get("seat")
        table.add_row(f"{event['t']:.2f}", event["kind"], "" if seat is None else str(seat),
                      event.get("card", ""), str(event.get("confidence", "")),
                      event.get("source", ""))
    console.print(table)
