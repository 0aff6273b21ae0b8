"""One footage file reviewed from end to end: the camera set-up (from a profile, or proposed
from the footage itself), vision and audio over the video, the referee, and the review folder.

The same referee path as live play and `bruno replay`: the merged events go through
`referee.session.replay`, so the folder's events.jsonl replays to its rulings.jsonl.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from bruno.review.annotated_video import AnnotationError, Overlay
from bruno.review.annotation_pass import AnnotatingAlong, RefereeAsItGoes
from bruno.review.footage import review_video
from bruno.review.notes import NotesError, ReviewNotes, checked_events, read_notes, table_setup
from calibration.camera import CameraProfile, load_camera_profile
from calibration.layout import default_camera_profile
from referee.eventlog import GameSetup
from referee.events import Event, in_time_order
from referee.session import Session, replay
from referee.variants import find_variant
from referee.words import Words
from vision.frames import FrameSourceError, video_duration_s
from vision.pile_watcher import CardReader

PROPOSAL_FRAME_AT_S = 3.0
"""With no profile, the camera set-up is proposed from the frame this far in: past the deal,
with the dealer's card on the pile (as `bruno calibrate camera --from` does)."""


PROGRESS_EVERY_S = 0.25
"""Progress is passed on at most this often (wall time), and always at the end of a pass: a
review reports a few times a second, whatever its frame rate."""

ReviewProgress = Callable[[str, float], None]
"""`progress(stage, seconds)`: `stage` is "watch" (vision over the frames; `seconds` of footage
watched so far; the annotated video is drawn meanwhile), "annotate" (the annotated video
drawn again in a second pass, only when the one drawn while watching differs from the final
rulings; `seconds` of footage annotated so far), then "report" (the report is being written;
`seconds` is 0). Each pass's seconds never decrease and its last report is its end: the
video's duration, or where a damaged file breaks off."""


class ThrottledProgress:
    """Passes a stage's progress on to `report` at most every `every_s` of wall time; `end`
    passes on its latest value, so each stage's last report is where it ended."""

    def __init__(self, report: ReviewProgress, every_s: float | None = None) -> None:
        self.report = report
        self.every_s = PROGRESS_EVERY_S if every_s is None else every_s
        self.last_sent = float("-inf")
        self.pending: tuple[str, float] | None = None

    def stage(self, name: str) -> Callable[[float], None]:
        def update(seconds: float) -> None:
            now = time.monotonic()
            if now - self.last_sent >= self.every_s:
                self.last_sent, self.pending = now, None
                self.report(name, seconds)
            else:
                self.pending = (name, seconds)
        return update

    def end(self) -> None:
        if self.pending is not None:
            self.report(*self.pending)
            self.pending = None
        self.last_sent = time.monotonic()


class ReviewError(Exception):
    """A footage file that cannot be reviewed at all; the message is one line for people."""


@dataclass
class CameraSetup:
    camera: CameraProfile
    picture: np.ndarray | None = None
    notes: list[str] = field(default_factory=list)


@dataclass
class ReviewOutcome:
    footage: Path
    folder: Path
    files: dict[str, Path]
    events: list[Event]
    rulings: list[dict]
    sound_checked: bool
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    game: dict = field(default_factory=dict)
    """The game line reviewed (players, dealer, variant, settings)."""

    @property
    def words(self) -> Words:
        """What the game reviewed calls things (its name, its knock rules)."""
        return find_variant(self.game.get("variant", "bruno")).words


def has_sound_track(path: str | Path) -> bool:
    import av

    try:
        with av.open(str(path)) as container:
            return bool(container.streams.audio)
    except (av.error.FFmpegError, OSError):
        return False


def camera_setup(footage: Path, profile: Path | None, players: int | None,
                 propose: bool = True) -> CameraSetup:
    """The camera part: the profile's when given; else (with `propose`) proposed from the
    footage and shown in the report; else the default layout, with a note saying so when a
    proposal found nothing."""
    from calibration.camera import DEFAULT_SEAT0_ANGLE_DEG
    from vision.camera_calibration import CameraCalibrationError, draw_proposal, footage_frames
    from vision.plane_from_backs import LEANING_NOTE, as_watched, propose_camera_for_footage

    if profile is not None:
        return CameraSetup(load_camera_profile(profile))
    seats = players or 4
    if not propose:
        return CameraSetup(default_camera_profile(seats))
    try:
        # Several frames a second apart: in any one an arm may cover a draw pile, or a card
        # being carried may pass for the pile.
        images = footage_frames(str(footage), PROPOSAL_FRAME_AT_S)
    except FrameSourceError as error:
        raise ReviewError(str(error)) from None
    image = images[0]
    try:
        proposal, warnings = propose_camera_for_footage(images, seats, DEFAULT_SEAT0_ANGLE_DEG,
                                                        None)
    except CameraCalibrationError as error:
        camera = default_camera_profile(seats)
        return CameraSetup(camera, draw_proposal(image, camera),
                           [f"No room profile, and the table could not be found in the footage "
                            f"({error}); the default layout was used."])
    notes = ["No room profile: the pile, draw piles and seats were proposed from the footage "
             "(see the picture at the end).", *warnings]
    if proposal.table_plane is not None:
        notes.append(LEANING_NOTE[0].upper() + LEANING_NOTE[1:] + ".")
    return CameraSetup(proposal, draw_proposal(as_watched(image, proposal), proposal), notes)


@dataclass
class PreparedReview:
    """What a review knows before it watches: the camera set-up, the game reviewed, the
    events of the notes file (checked against the table), whether there is sound to hear."""

    setup: CameraSetup
    game: GameSetup
    added: list[Event]
    sound: bool
    written: ReviewNotes | None


def prepare_review(footage: Path, *, profile: Path | None, players: int | None,
                   dealer: int | None, variant: str | None, notes: Path | None,
                   event_log_only: bool = False,
                   settings: dict | None = None) -> PreparedReview:
    """The table reviewed: the notes' game line with the options over it, the camera set-up
    (`camera_setup`), and `check_knocks` off when the footage has no sound. Raises
    ReviewError.

    `event_log_only` (`bruno review --events-only`): no camera proposal without a profile
    (the default layout; a proposal is shown in the full review's report for a person to
    check), and the game line as the notes and options give it."""
    written = _read_notes(notes)
    said = f"--players {players}" if players else None
    if not players and written is not None:
        players = written.setup.players
        said = f"{written.path} says {players} players"
    setup = camera_setup(footage, profile, players, propose=not event_log_only)
    players = players or setup.camera.players
    if players != setup.camera.players:
        raise ReviewError(f"{said} but the profile has {setup.camera.players} seats; "
                          "calibrate the camera for this table")
    sound = has_sound_track(footage)
    try:
        silent = not sound and not event_log_only
        game = table_setup(written, variant=variant, players=players, dealer=dealer,
                           settings={**(settings or {}),
                                     **({"check_knocks": False} if silent else {})})
        added = checked_events(written, players) if written else []
    except NotesError as error:
        raise ReviewError(str(error)) from None
    return PreparedReview(setup, game, added, sound, written)


def review_footage(footage: str | Path, out_folder: str | Path, read_card: CardReader, *,
                   profile: Path | None = None, players: int | None = None,
                   dealer: int | None = None, variant: str | None = None,
                   notes: Path | None = None, annotate: bool = True,
                   full_size_video: bool = False, settings: dict | None = None,
                   progress: ReviewProgress | None = None) -> ReviewOutcome:
    """Review one file into `out_folder`; raise ReviewError when nothing can be read.

    `notes`: a notes file (`bruno.review.notes`) whose game line sets the table and whose
    events join what was seen and heard; `players`, `dealer` and `variant` win over it.
    `annotate`: make the annotated video, drawn while the footage is watched, small (half the
    footage's size, see `AnnotatedWriter`) or with `full_size_video` at its own (slower).
    `settings`: rule settings (`--set NAME=VALUE`) over the notes' game line.
    `progress`: told how far the review is, a few times a second (see `ReviewProgress`)."""
    from bruno.review.outputs import write_review_folder

    footage = Path(footage)
    prepared = prepare_review(footage, profile=profile, players=players, dealer=dealer,
                              variant=variant, notes=notes, settings=settings)
    setup, game, added, sound = prepared.setup, prepared.game, prepared.added, prepared.sound
    written = prepared.written
    throttle = ThrottledProgress(progress) if progress is not None else None
    overlay = Overlay([], [], setup.camera.pile.box(), setup.camera.seat_angles_deg)

    def rule(events: list[Event]) -> list[dict]:
        return [r.to_dict() for r in replay(game.new_game(), events)]

    folder = Path(out_folder)
    along = _annotating_along(
        footage, folder, overlay,
        RefereeAsItGoes(Session(game.new_game()), added),
        full_size_video) if annotate else None
    try:
        result = review_video(footage, setup.camera, read_card, listen=sound,
                              progress=throttle and throttle.stage("watch"),
                              keep_sound=sound, follower=along,
                              read_sure=game.rules().min_card_confidence)
    except BaseException as error:
        if along is not None:
            along.abandon()
        if isinstance(error, FrameSourceError):
            raise ReviewError(str(error)) from None
        raise
    if throttle is not None:
        throttle.end()
    events = in_time_order(result.events, added)
    rulings = rule(events)
    video = _finish_video(along, footage, folder, replace(overlay, events=events,
                                                          rulings=rulings),
                          whole=result.error is None, full_size=full_size_video,
                          progress=throttle and throttle.stage("annotate"))
    if throttle is not None:
        throttle.end()
        progress("report", 0.0)
    notes_text = setup.notes + result.notes
    if written:
        notes_text.append(f"{len(added)} event(s) come from the notes file {written.path.name} "
                          "(calls, colours, hands: what a camera cannot see); they are "
                          "marked 'from notes'.")
    late = _notes_after_the_end(added, _footage_duration_s(footage))
    if late:
        notes_text.append(late)
    if result.error:
        notes_text.insert(0, f"Incomplete review: the video breaks off ({result.error}). "
                             "Everything here covers only what came before the break.")
    files = write_review_folder(
        out_folder, footage, game.to_dict(), events, rulings,
        pile_box=overlay.pile_box, seat_angles_deg=overlay.seat_angles_deg,
        sound_checked=sound, calibration_picture=setup.picture, notes=notes_text,
        duration_s=_footage_duration_s(footage), annotate=False, sound=result.sound,
    )
    if video is not None:
        files["annotated.mp4"] = video
    if throttle is not None:
        throttle.end()
    return ReviewOutcome(footage, folder, files, events, rulings, sound,
                         result.error, notes_text, game.to_dict())


def _notes_after_the_end(added: list[Event], end_s: float | None) -> str | None:
    """A note when events of the notes file lie after the footage ends (a video trimmed, the
    full notes kept): the time up to them passed unseen, so the rulings there (a SEG clock
    running out, a card nobody saw) rest on the notes alone."""
    if end_s is None:
        return None
    late = [e for e in added if e.t > end_s + NOTES_PAST_END_SLACK_S]
    if not late:
        return None
    return (f"{len(late)} event(s) of the notes file lie after the footage ends at "
            f"{end_s:.1f} s (the first at {min(e.t for e in late):.1f} s): what happened after "
            f"{end_s:.1f} s was not seen, and rulings there rest on the notes alone; check "
            "that the notes belong to this video.")


NOTES_PAST_END_SLACK_S = 1.0
"""A note this close after the footage's end is still of it (the last card, written late)."""


def _footage_duration_s(footage: Path) -> float | None:
    """The video's stated length (the report's "Duration"), or None when it does not say."""
    try:
        return video_duration_s(footage)
    except FrameSourceError:
        return None


def _annotating_along(footage: Path, folder: Path, overlay: Overlay,
                      referee: RefereeAsItGoes, full_size: bool) -> AnnotatingAlong:
    from bruno.review.outputs import ANNOTATED_PART, make_review_folder

    make_review_folder(folder)
    try:
        return AnnotatingAlong(footage, folder / ANNOTATED_PART, overlay, referee,
                               full_size=full_size)
    except AnnotationError as error:
        raise ReviewError(str(error)) from None


def _finish_video(along: AnnotatingAlong | None, footage: Path, folder: Path, final: Overlay,
                  *, whole: bool, full_size: bool,
                  progress: Callable[[float], None] | None) -> Path | None:
    """The annotated video in the folder: the one drawn during the watch, or (when a frame of
    it differs from the final rulings) drawn again in a second pass."""
    from bruno.review.outputs import place_annotated_video

    if along is None:
        return None
    try:
        drawn = along.finish(final.events, final.rulings, whole=whole)
        return place_annotated_video(folder, footage, final, drawn=drawn,
                                     full_size=full_size, progress=progress)
    except AnnotationError as error:
        raise ReviewError(str(error)) from None


def _read_notes(path: Path | None) -> ReviewNotes | None:
    if path is None:
        return None
    try:
        return read_notes(path)
    except NotesError as error:
        raise ReviewError(str(error)) from None
