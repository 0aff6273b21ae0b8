"""What a review leaves in its folder: events.jsonl, rulings.jsonl, report.html, annotated.mp4.

Every file is written whole or not at all (through a temporary name), so an interrupted review
never leaves a half-written report that looks complete.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from bruno.review.annotated_video import Overlay, write_annotated_video
from bruno.review.report import ReportInput, SoundEnvelope, evidence_times, write_report
from referee.eventlog import dumps
from referee.events import Event
from vision.frames import media_pts, media_time_s, upright

ANNOTATED_PART = "annotated.part.mp4"

REVIEW_MARK = ".bruno-review"
"""Marks a folder a review made: a review writes only into a folder it made (or a folder of
an earlier review), never into the user's own folder of the same name."""

REVIEW_FILES = ("events.jsonl", "rulings.jsonl", "report.html", "annotated.mp4", ANNOTATED_PART,
                REVIEW_MARK)
"""Every file a review writes into its folder."""


def make_review_folder(folder: Path) -> None:
    """Make `folder` (if missing) and mark it as a review's."""
    folder.mkdir(parents=True, exist_ok=True)
    mark = folder / REVIEW_MARK
    if not mark.exists():
        mark.write_text("bruno review wrote this folder; a review of the same footage "
                        "replaces its files.\n", encoding="utf-8")
"""The annotated video while it is written; renamed to annotated.mp4 once whole."""

ENVELOPE_RATE_HZ = 16_000
"""The sound is read at this rate for the report's loudness strip: plenty for an envelope."""


SEEK_BEYOND_S = 4.0
"""Frames for the report are grabbed by seeking to the keyframe before each moment; a moment
less than this after the last frame decoded is reached by decoding on instead."""


def grab_frames(video: str | Path, times: Iterable[float]) -> dict[float, np.ndarray]:
    """The full frames at (the first frame at or after) each time. Times past a break in a
    damaged file, or past the end, get the last frame decoded.

    Seeking, not a pass over the video: a report needs a frame per ruling, and decoding the
    whole video for them took an eighth of a review."""
    import av

    wanted = sorted(set(times))
    found: dict[float, np.ndarray] = {}
    if not wanted:
        return found
    try:
        container = av.open(str(video))
    except (av.error.FFmpegError, OSError):
        return found
    last = None
    with container:
        if not container.streams.video:
            return found
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        try:
            while len(found) < len(wanted):
                target = wanted[len(found)]
                container.seek(media_pts(target, stream), stream=stream, backward=True)
                for frame in container.decode(stream):
                    if frame.pts is None:
                        continue
                    t = media_time_s(frame.pts, stream)
                    frame = upright(frame)  # as the watch saw it
                    last = frame
                    while len(found) < len(wanted) and t + 1e-6 >= wanted[len(found)]:
                        found[wanted[len(found)]] = frame.to_ndarray(format="bgr24")
                    if len(found) == len(wanted):
                        break
                    upcoming = wanted[len(found)]
                    if upcoming != target and upcoming - t > SEEK_BEYOND_S:
                        break  # seek to it (a seek lands at or before it: never seek twice)
                else:
                    break  # the end of the video
        except (av.error.FFmpegError, OSError):
            pass  # a damaged file: what came before the damage
        if last is not None:
            image = last.to_ndarray(format="bgr24")
            for t in wanted[len(found):]:
                found[t] = image
    return found


def sound_envelope(video: str | Path) -> SoundEnvelope | None:
    """The loudness envelope of the video's sound track, placed by media time; None when the
    file has no sound track."""
    from audio.blocks import RECORDING_BLOCK_SAMPLES, AudioSourceError, laid_out
    from audio.sources import open_recording

    try:
        source = open_recording(video, ENVELOPE_RATE_HZ, RECORDING_BLOCK_SAMPLES)
        track = laid_out(source.blocks, source.duration_s)
    except AudioSourceError:
        return None
    return envelope_of(track, ENVELOPE_RATE_HZ)


def _envelope(video: str | Path, sound: tuple[np.ndarray, int] | None) -> SoundEnvelope | None:
    return envelope_of(*sound) if sound is not None else sound_envelope(video)


def envelope_of(track: np.ndarray | None, rate_hz: int) -> SoundEnvelope | None:
    """The envelope of a sound track already read (see `audio.blocks.laid_out`)."""
    if track is None or not len(track):
        return None
    return SoundEnvelope.from_samples(track, rate_hz)


def write_jsonl(path: Path, objects: Iterable[dict]) -> None:
    temporary = path.with_name(path.name + ".part")
    with temporary.open("w", encoding="utf-8") as handle:
        for obj in objects:
            handle.write(dumps(obj) + "\n")
    os.replace(temporary, path)


def write_review_folder(folder: str | Path, video: str | Path, game: dict,
                        events: list[Event], rulings: list[dict], *,
                        pile_box: tuple[float, float, float, float] | None = None,
                        seat_angles_deg: tuple[float, ...] | None = None,
                        sound_checked: bool = True,
                        calibration_picture: np.ndarray | None = None,
                        notes: list[str] | None = None,
                        duration_s: float | None = None,
                        annotate: bool = True,
                        progress: Callable[[float], None] | None = None,
                        sound: tuple[np.ndarray, int] | None = None) -> dict[str, Path]:
    """Write the four files of a review into `folder`; return their paths by name.

    `duration_s`: the footage's length, for the report (else its last event's time).

    `sound`: the sound track already read (samples from t = 0, their rate), for the report's
    loudness strip; else it is read from `video`.

    `progress`: called with the seconds of footage annotated so far while the annotated video
    is written (see `write_annotated_video`); never called when not annotating."""
    folder = Path(folder)
    make_review_folder(folder)
    paths = {name: folder / name for name in
             ("events.jsonl", "rulings.jsonl", "report.html", "annotated.mp4")}
    write_jsonl(paths["events.jsonl"], [game, *(event.to_dict() for event in events)])
    write_jsonl(paths["rulings.jsonl"], rulings)

    report = ReportInput(
        title=Path(video).name, game=game, events=events, rulings=rulings,
        pile_box=pile_box, envelope=_envelope(video, sound) if sound_checked else None,
        sound_checked=sound_checked, calibration_picture=calibration_picture,
        notes=list(notes or []), duration_s=duration_s,
    )
    frames = grab_frames(video, evidence_times(report))
    report.frame_at = frames.get
    temporary = paths["report.html"].with_name("report.html.part")
    write_report(temporary, report)
    os.replace(temporary, paths["report.html"])

    if annotate:
        overlay = Overlay(events=events, rulings=rulings, pile_box=pile_box,
                          seat_angles_deg=seat_angles_deg)
        place_annotated_video(folder, video, overlay, progress=progress)
    else:
        del paths["annotated.mp4"]
    return paths


def place_annotated_video(folder: Path, video: str | Path, overlay: Overlay, *,
                          drawn: bool = False, full_size: bool = True,
                          progress: Callable[[float], None] | None = None) -> Path:
    """annotated.mp4 in `folder`, written whole or not at all: the video already drawn into
    `ANNOTATED_PART` (`drawn`: a review draws it while it watches), else drawn now in a pass
    over `video` (see `write_annotated_video`). Raises AnnotationError."""
    part = folder / ANNOTATED_PART
    if not drawn:
        write_annotated_video(video, part, overlay, full_size=full_size, progress=progress)
    placed = folder / "annotated.mp4"
    os.replace(part, placed)
    return placed
