"""A recorded game's footage turned into events: vision over its frames
(`vision.video_watch`) while the knock detector listens to its sound track in another process
(`audio.recording`), then both merged in the one order of events (`Event.sort_key`).

    result = review_video("game.mp4", camera_profile, read_card)
    log = [game_line, *(event.to_dict() for event in result.events)]
"""

from __future__ import annotations

import gc
import signal
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from audio.recording import HeardRecording, knocks_in_recording
from calibration.camera import CameraProfile
from referee.events import Event, Knock, in_time_order
from vision.frames import Frame
from vision.pile_watcher import READ_SURE, CardReader
from vision.video_watch import watch_video


@dataclass
class ReviewResult:
    """The footage's events in time order, the frames watched, the time of the last one,
    where the video broke off (None when whole) and notes for people."""

    events: list[Event]
    frames: int = 0
    duration_s: float = 0.0
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    sound: tuple[np.ndarray, int] | None = None
    """The sound track as the knock detector heard it (samples from t = 0, their rate), when
    asked for (`keep_sound`): the report draws its loudness without reading it again."""


class FrameFollower(Protocol):
    """Something that follows the watch frame by frame (the annotated video, drawn while the
    footage is watched: `bruno.review.annotation_pass`)."""

    def start(self, knocks: Callable[[bool], list[Knock] | None]) -> None:
        """Before the first frame. `knocks(wait)`: the sound track's knock events once it has
        been listened to; until then None, or with `wait` waits for them."""

    def see(self, frame: Frame, events: list[Event]) -> None:
        """After each frame is watched, with the events it gave; must not hold the watch up."""


def review_video(path: str | Path, camera: CameraProfile, read_card: CardReader,
                 listen: bool = True, progress: Callable[[float], None] | None = None,
                 keep_sound: bool = False,
                 follower: FrameFollower | None = None,
                 read_sure: float = READ_SURE) -> ReviewResult:
    """Events from the video's frames and (with `listen`) its sound. Raises FrameSourceError
    when not one frame can be read. `progress`, `follower` and `read_sure` (the game's
    `min_card_confidence`): see `vision.video_watch`."""
    # The sound track is listened to in another process while this one watches the frames:
    # the two halves share nothing until the merge, and a review has two cores to use.
    pool = forked_pool(1) if listen else None
    try:  # (a Ctrl-C while the sound worker is handed its task stops it too)
        heard = pool.submit(knocks_in_recording, path, keep_sound) if pool else None
        if follower is not None:
            # Started after the fork above: a forked process gets no copy of its thread.
            follower.start(lambda wait: _knocks_heard(heard, wait))
        watch = watch_video(path, camera, read_card, progress, follower, read_sure)
    except BaseException:
        if pool:
            stop_at_once(pool)
        raise
    result = ReviewResult([], watch.frames, watch.duration_s, watch.error, watch.notes)
    heard_events: list[Event] = []
    if heard is not None and pool is not None:
        try:
            recording: HeardRecording = heard.result()
        except BaseException:  # (Ctrl-C while the sound is still being listened to)
            stop_at_once(pool)
            raise
        pool.shutdown()
        heard_events, result.sound = [*recording.knocks, *recording.loud], recording.sound
        if recording.note:
            result.notes.append(recording.note)
        if watch.error:
            heard_events = [e for e in heard_events if e.t <= watch.duration_s]
    result.events = in_time_order(watch.events, heard_events)
    return result


def forked_pool(workers: int, initializer: Callable[..., None] | None = None,
                initargs: tuple = ()) -> ProcessPoolExecutor:
    """A pool of `workers` forked processes, safe to fork from a process that decodes and
    watches footage. A forked process has none of its parent's threads, so:

    - OpenCV's thread pool is stopped first (reviews use one OpenCV thread anyway): a forked
      process that set it (the table watcher does) waited forever on the pool's threads;
    - each process freezes what it inherits before anything else, so its collector never
      frees the parent's objects (a decoded frame's scaler, freed there, waited forever on
      the scaler's threads).

    `initializer(*initargs)` then runs in each process; being forked, they are handed over
    as they are, never pickled (a card reader holding a model session cannot be)."""
    cv2.setNumThreads(1)
    return ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork"),
                               initializer=_forked_start, initargs=(initializer, initargs))


def stop_at_once(pool: ProcessPoolExecutor) -> None:
    """Stop `pool` without waiting for its work (an interrupted review): its processes are
    terminated. Waited on instead, a pool interrupted while it was being fed could wait for
    ever, and one busy with a whole review for minutes."""
    for process in list((pool._processes or {}).values()):  # (no public way to them)
        process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def _exit_on_term(signum, frame) -> None:
    raise SystemExit(128 + signum)


def _forked_start(initializer: Callable[..., None] | None, initargs: tuple) -> None:
    # Ctrl-C reaches every process of the terminal's group: the parent handles it (and
    # stops this one); here it would only print a worker's traceback. Stopped (SIGTERM), a
    # process exits through its own `finally` and `except` clauses, so a review worker stops
    # the sound worker it forked too (left alone, that one kept the parent waiting for ever).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_on_term)
    gc.freeze()
    if initializer is not None:
        initializer(*initargs)


def _knocks_heard(heard, wait: bool) -> list[Knock] | None:
    if heard is None:
        return []
    if not wait and not heard.done():
        return None
    return heard.result().knocks
