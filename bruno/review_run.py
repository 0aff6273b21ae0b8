"""`bruno review` over several files: one process per file (`--jobs`), a progress line per
file, the rulings printed as they are decided (or as JSONL with `--json`)."""

from __future__ import annotations

import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from bruno.errors import UserError
from bruno.review_notes import NotesError, read_notes
from bruno.review_pipeline import ReviewError, ReviewOutcome, review_footage
from calibration.profile import ProfileError
from referee.eventlog import dumps
from vision.pile_watcher import CardReader


def _folder_for(out: Path, footage: Path, taken: set[str]) -> Path:
    """One subfolder per file, named after it (numbered when two files share a name)."""
    name, number = footage.stem, 2
    while name in taken:
        name, number = f"{footage.stem}-{number}", number + 1
    taken.add(name)
    return out / name


def _review_one(footage: Path, folder: Path, read_card: CardReader, options: dict
                ) -> ReviewOutcome | str:
    try:
        return review_footage(footage, folder, read_card, **options)
    except (ReviewError, ProfileError, OSError) as error:
        return f"{footage}: {error}"


def unwritable(out: Path) -> str | None:
    """Why the review cannot be written into `out` (created when missing), or None."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".bruno-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        return error.strerror or str(error)
    return None


def review_files(footage: list[Path], out: Path, read_card: CardReader, *,
                 profile: Path | None, players: int | None, dealer: int | None,
                 variant: str | None, jobs: int, as_json: bool,
                 notes: Path | None = None) -> None:
    """Review the files, then print each one's rulings (as JSONL with `as_json`); exit 2 when
    any file could not be reviewed."""
    results, failures = run_reviews(footage, out, read_card, profile=profile, players=players,
                                    dealer=dealer, variant=variant, jobs=jobs, notes=notes,
                                    quiet=as_json)
    screen = Console(highlight=False)
    for outcome in results:
        if as_json:
            for ruling in outcome.rulings:
                print(dumps(ruling))
        else:
            _summary(screen, outcome)
    report_failures(failures)


def report_failures(failures: list[str]) -> None:
    for failure in failures:
        print(f"bruno: error: {failure}", file=sys.stderr)
    if failures:
        raise SystemExit(2)


def run_reviews(footage: list[Path], out: Path, read_card: CardReader, *,
                profile: Path | None = None, players: int | None = None,
                dealer: int | None = None, variant: str | None = None, jobs: int = 1,
                notes: Path | None = None, quiet: bool = False
                ) -> tuple[list[ReviewOutcome], list[str]]:
    """Review every file into its own folder under `out`, with a progress line on stderr;
    return the outcomes (in the order given) and one line per file that failed."""
    problem = unwritable(out)
    if problem:
        raise UserError(f"{out}: cannot write the review there ({problem}); "
                        "choose another folder with --out")
    if notes is not None and len(footage) > 1:
        raise UserError("--notes describes one game: review its footage file on its own")
    if notes is not None:
        if not notes.is_file():
            raise UserError(f"{notes}: no such notes file")
        try:
            read_notes(notes)  # a bad line is reported now, not after the video
        except NotesError as error:
            raise UserError(str(error)) from None
    for path in footage:
        if not path.is_file():
            raise UserError(f"{path}: no such file")
    taken: set[str] = set()
    plan = [(path, _folder_for(out, path, taken)) for path in footage]
    options = dict(profile=profile, players=players, dealer=dealer, variant=variant,
                   notes=notes)
    console = Console(stderr=True, highlight=False)
    failures: list[str] = []
    results: list[ReviewOutcome] = []
    with Progress(TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn(),
                  TextColumn("ETA"), TimeRemainingColumn(), console=console,
                  transient=quiet) as progress:
        task = progress.add_task(f"reviewing {len(plan)} file(s)", total=len(plan))
        if jobs == 1 or len(plan) == 1:
            done = (_review_one(path, folder, read_card, options) for path, folder in plan)
            for result in done:
                _collect(result, results, failures)
                progress.advance(task)
        else:
            with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("fork")) as pool:
                futures = [pool.submit(_review_one, path, folder, read_card, options)
                           for path, folder in plan]
                for future in as_completed(futures):
                    _collect(future.result(), results, failures)
                    progress.advance(task)
    order = {path: i for i, (path, _) in enumerate(plan)}
    return sorted(results, key=lambda o: order[o.footage]), failures


def _collect(result: ReviewOutcome | str, results: list, failures: list) -> None:
    (failures if isinstance(result, str) else results).append(result)


def _summary(console: Console, outcome: ReviewOutcome) -> None:
    penalties = [r for r in outcome.rulings if r["kind"] == "ruling"]
    console.print(f"[bold]{outcome.footage}[/]: {sum(e['kind'] == 'card' for e in outcome.events)}"
                  f" plays, {len(penalties)} penalties")
    for ruling in penalties:
        console.print(f"  {ruling['t']:7.2f} s  {ruling['message']}")
    for note in outcome.notes:
        console.print(f"  [yellow]note:[/] {note}")
    console.print(f"  report: {outcome.files['report.html']}")
