"""`bruno review` over several files: one process per file (`--jobs`), a progress bar per file
on stderr (and an overall line with several files), then the rulings (or JSONL with `--json`).

A file's bar counts seconds of footage watched (the annotated video is drawn as it is watched);
when the video has to be drawn again in a second pass, the bar grows by the footage's duration
for it. The report at the end is not counted (a second or two). With `--jobs`, the reviewing
processes send their progress to this one through a queue; this one alone draws.
"""

from __future__ import annotations

import queue as queue_module
import sys
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from functools import partial
from multiprocessing import get_context
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Column

from bruno.errors import INCOMPLETE_EXIT_CODE, UserError
from bruno.review.footage import forked_pool, stop_at_once
from bruno.review.notes import NotesError, read_notes
from bruno.review.outputs import REVIEW_FILES, REVIEW_MARK
from bruno.review.pipeline import ReviewError, ReviewOutcome, ReviewProgress, review_footage
from bruno.rulings_table import counted
from calibration.profile import ProfileError
from referee.eventlog import dumps
from referee.words import Words
from vision.frames import IMAGE_SUFFIXES, FrameSourceError, video_duration_s
from vision.pile_watcher import CardReader

PASSES = ("watch",)
"""The passes over the footage a file's bar counts from the start, each the footage's duration
long; a second pass for the annotated video ("annotate") is added when it happens."""

STAGE_WORDS = {"watch": "watching", "annotate": "annotating"}


def no_sound_line(footage: Path, game: Words, events_only: bool = False) -> str | None:
    """The one stderr line that says the game's knock rules were not checked: no sound
    track. None for a game without knocks: it needs nothing heard."""
    if not game.has_knocks:
        return None
    if events_only:
        return (f"bruno: warning: {footage} has no sound track: the event log has no knocks, "
                f"so {game.knock_rules} cannot be checked from it; replay it with "
                "--set check_knocks=false")
    return (f"bruno: warning: {footage} has no sound track: knocks cannot be heard, so "
            f"{game.knock_rules} were not checked and no missed knock is reported")


def incomplete_line(footage: Path, error: str) -> str:
    """The one stderr line that says a review is incomplete, and where the video broke."""
    where = error if error.startswith(f"{footage}:") else f"{footage}: {error}"
    return (f"bruno: warning: {where}. The review is incomplete (exit code "
            f"{INCOMPLETE_EXIT_CODE}): it covers what came before the break")


def _folder_for(out: Path, footage: Path, taken: set[str], reading: set[Path]) -> Path:
    """One subfolder per file, named after it; numbered when two files share a name, when a
    folder (or file) of that name is not an earlier review's, or when one of the review's
    files there would be a file this run reads (`reading`: the footage, notes and profile)."""
    name, number = footage.stem, 2
    while name in taken or not _ours_to_write(out / name, reading):
        name, number = f"{footage.stem}-{number}", number + 1
    taken.add(name)
    return out / name


def _ours_to_write(folder: Path, reading: set[Path]) -> bool:
    if folder.exists() and not (folder.is_dir() and (
            (folder / REVIEW_MARK).is_file() or not any(folder.iterdir()))):
        return False
    return not any((folder / name).resolve() in reading for name in REVIEW_FILES)


def _review_one(footage: Path, folder: Path, read_card: CardReader, options: dict,
                progress: ReviewProgress | None = None) -> ReviewOutcome | str:
    try:
        return review_footage(footage, folder, read_card, progress=progress, **options)
    except (ReviewError, ProfileError, OSError) as error:
        message = str(error)
        # Errors about the footage itself name it already ("game.mp4: cannot be read ...").
        return message if message.startswith(f"{footage}:") else f"{footage}: {message}"


_worker_reader: CardReader | None = None
"""The card reader of a reviewing process of `--jobs`, handed over when it was forked: the
recogniser's reader holds a model session and cannot be pickled with each file's task."""


def _keep_reader(read_card: CardReader) -> None:
    global _worker_reader
    _worker_reader = read_card


def _review_in_worker(footage: Path, folder: Path, options: dict,
                      progress: ReviewProgress) -> ReviewOutcome | str:
    assert _worker_reader is not None, "a reviewing process is started by _review_in_parallel"
    return _review_one(footage, folder, _worker_reader, options, progress)


def _send(queue, index: int, stage: str, seconds: float) -> None:
    """A reviewing process's progress, on its way to the one that draws."""
    queue.put((index, stage, seconds))


def footage_duration_s(path: Path) -> float | None:
    """The footage's stated duration, or None (unknown: its bar is then indeterminate)."""
    try:
        duration = video_duration_s(path)
    except FrameSourceError:
        return None
    return duration if duration and duration > 0 else None


class ReviewBars:
    """The bars on stderr: one per file, in seconds of footage over its passes (watching, and
    annotating when the video is drawn again), and with several files one more for them all."""

    def __init__(self, progress: Progress, footage: list[Path]) -> None:
        self.progress = progress
        self.durations = [footage_duration_s(path) for path in footage]
        self.done: list[dict[str, float]] = [{} for _ in footage]
        self.extra: list[set[str]] = [set() for _ in footage]
        """Passes a file's review added on the way (a second pass for its video)."""
        self.finished = [False] * len(footage)
        self.started: set[int] = set()
        width = max(len(path.name) for path in footage)
        self.tasks: list[TaskID] = [
            progress.add_task(path.name.ljust(width), total=self._total(i), start=False,
                              stage="waiting")
            for i, path in enumerate(footage)]
        self.overall: TaskID | None = None
        if len(footage) > 1:
            known = None if None in self.durations else sum(
                self._total(i) or 0 for i in range(len(footage)))
            self.overall = progress.add_task(f"all {len(footage)} files".ljust(width),
                                             total=known, stage="")

    def _total(self, index: int) -> float | None:
        duration = self.durations[index]
        return None if duration is None else \
            duration * (len(PASSES) + len(self.extra[index]))

    def update(self, index: int, stage: str, seconds: float) -> None:
        """What a review reported (`bruno.review.pipeline.ReviewProgress`)."""
        if self.finished[index]:
            return
        duration, done = self.durations[index], self.done[index]
        if stage == "report":
            done["watch"] = duration or done.get("watch", 0.0)  # the watching is over
            words = "writing the report"
        else:
            if stage not in PASSES and stage not in self.extra[index]:
                self.extra[index].add(stage)
                self.progress.update(self.tasks[index], total=self._total(index))
            done[stage] = min(seconds, duration) if duration else seconds
            shown = f"{seconds:.0f}/{duration:.0f} s" if duration else f"{seconds:.0f} s"
            words = f"{STAGE_WORDS.get(stage, stage)} {shown}"
        self._start(index)
        self.progress.update(self.tasks[index], completed=sum(done.values()), stage=words)
        self._update_overall()

    def finish(self, index: int, ok: bool) -> None:
        """The file's review is over (`ok`: written; else failed): its bar is full."""
        self.finished[index] = True
        task = self.tasks[index]
        total = self._total(index) or 1.0
        self.done[index] = {"all": total}
        self._start(index)
        self.progress.update(task, total=total, completed=total,
                             stage="done" if ok else "[red]failed[/]")
        self.progress.stop_task(task)
        self._update_overall()

    def _start(self, index: int) -> None:
        """The file's clock starts with its first report (it may wait for a free process)."""
        if index not in self.started:
            self.started.add(index)
            self.progress.start_task(self.tasks[index])

    def _update_overall(self) -> None:
        if self.overall is None:
            return
        if all(self.finished):
            self.progress.update(self.overall, total=1.0, completed=1.0, stage="done")
            return
        self.progress.update(self.overall, completed=sum(sum(d.values()) for d in self.done),
                             stage=f"{sum(self.finished)} of {len(self.tasks)} done")


def _progress(console: Console, transient: bool) -> Progress:
    return Progress(TextColumn("{task.description}"),
                    TextColumn("{task.fields[stage]}", table_column=Column(min_width=22)),
                    BarColumn(), TaskProgressColumn(), TimeElapsedColumn(), TextColumn("ETA"),
                    TimeRemainingColumn(), console=console, transient=transient)


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
                 notes: Path | None = None, annotate: bool = True,
                 full_size_video: bool = False, settings: dict | None = None) -> None:
    """Review the files, then print each one's rulings (as JSONL with `as_json`); exit 2 when
    any file could not be reviewed, else 3 when any was damaged and reviewed only up to the
    break. `annotate`: write the annotated video too (small; `full_size_video`: at the
    footage's own size and frame rate)."""
    results, failures = run_reviews(footage, out, read_card, profile=profile, players=players,
                                    dealer=dealer, variant=variant, jobs=jobs, notes=notes,
                                    quiet=as_json, annotate=annotate,
                                    full_size_video=full_size_video, settings=settings)
    screen = Console(highlight=False)
    for outcome in results:
        if as_json:
            for ruling in outcome.rulings:
                print(dumps(ruling))
        else:
            _summary(screen, outcome)
    for outcome in results:
        warning = None if outcome.sound_checked else \
            no_sound_line(outcome.footage, outcome.words)
        if warning is not None:
            print(warning, file=sys.stderr)
    report_failures(failures, results)


def report_failures(failures: list[str], results: Sequence[ReviewOutcome] = ()) -> None:
    """One line on stderr per file that failed (exit 2) and per file reviewed only up to a
    break (exit 3, when none failed)."""
    for outcome in results:
        if outcome.error:
            print(incomplete_line(outcome.footage, outcome.error), file=sys.stderr)
    for failure in failures:
        print(f"bruno: error: {failure}", file=sys.stderr)
    if failures:
        raise SystemExit(2)
    if any(outcome.error for outcome in results):
        raise SystemExit(INCOMPLETE_EXIT_CODE)


def run_reviews(footage: list[Path], out: Path, read_card: CardReader, *,
                profile: Path | None = None, players: int | None = None,
                dealer: int | None = None, variant: str | None = None, jobs: int = 1,
                notes: Path | None = None, quiet: bool = False, annotate: bool = True,
                full_size_video: bool = False, settings: dict | None = None
                ) -> tuple[list[ReviewOutcome], list[str]]:
    """Review every file into its own folder under `out`, with progress bars on stderr
    (`quiet`: they vanish when done); return the outcomes (in the order given) and one line
    per file that failed."""
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
        if path.suffix.lower() in IMAGE_SUFFIXES:
            raise UserError(f"{path}: a still photo, not a recording of a game; "
                            f"`bruno identify {path}` reads the cards in a photo")
    taken: set[str] = set()
    reading = {path.resolve() for path in [*footage, notes, profile] if path is not None}
    plan = [(path, _folder_for(out, path, taken, reading)) for path in footage]
    options = dict(profile=profile, players=players, dealer=dealer, variant=variant,
                   notes=notes, annotate=annotate, full_size_video=full_size_video,
                   settings=settings)
    console = Console(stderr=True, highlight=False)
    failures: list[str] = []
    results: list[ReviewOutcome] = []
    with _progress(console, transient=quiet) as progress:
        bars = ReviewBars(progress, [path for path, _ in plan])
        if jobs == 1 or len(plan) == 1:
            for index, (path, folder) in enumerate(plan):
                result = _review_one(path, folder, read_card, options,
                                     partial(bars.update, index))
                bars.finish(index, _collect(result, results, failures))
        else:
            _review_in_parallel(plan, read_card, options, jobs, bars, results, failures)
    order = {path: i for i, (path, _) in enumerate(plan)}
    return sorted(results, key=lambda o: order[o.footage]), failures


def _review_in_parallel(plan: list[tuple[Path, Path]], read_card: CardReader, options: dict,
                        jobs: int, bars: ReviewBars, results: list, failures: list) -> None:
    """One process per file, `jobs` at a time; their progress comes back through a queue that
    this process drains while it waits."""
    with get_context("fork").Manager() as manager:
        queue = manager.Queue()
        pool = forked_pool(jobs, _keep_reader, (read_card,))
        try:
            futures: dict[Future, int] = {
                pool.submit(_review_in_worker, path, folder, options,
                            partial(_send, queue, index)): index
                for index, (path, folder) in enumerate(plan)}
            pending = set(futures)
            while pending:
                finished, pending = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
                _drain(queue, bars)  # a finished file's last words are in the queue by now
                for future in finished:
                    bars.finish(futures[future], _collect(future.result(), results, failures))
        except BaseException:
            stop_at_once(pool)  # (Ctrl-C: the reviews under way are not waited for)
            raise
        pool.shutdown()


def _drain(queue, bars: ReviewBars) -> None:
    while True:
        try:
            index, stage, seconds = queue.get_nowait()
        except queue_module.Empty:
            return
        bars.update(index, stage, seconds)


def _collect(result: ReviewOutcome | str, results: list, failures: list) -> bool:
    """File the result; True when the file was reviewed."""
    (failures if isinstance(result, str) else results).append(result)
    return not isinstance(result, str)


def _summary(console: Console, outcome: ReviewOutcome) -> None:
    penalties = [r for r in outcome.rulings if r["kind"] == "ruling"]
    plays = sum(e.kind == "card" for e in outcome.events)
    console.print(f"[bold]{outcome.footage}[/]: {outcome.words.game}, "
                  f"{counted(plays, 'play')}, {counted(len(penalties), 'penalty', 'penalties')}")
    for ruling in penalties:
        console.print(f"  {ruling['t']:7.2f} s  {ruling['message']}")
    for note in outcome.notes:
        console.print(f"  [yellow]note:[/] {note}")
    console.print(f"  report: {outcome.files['report.html']}")
