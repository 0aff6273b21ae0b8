"""Review a video: vision over its frames, the knock detector over its sound track, and the
events of both merged in time order — the event log `bruno replay` reads.

    result = review_video("game.mp4", camera_profile, read_card, players=4, dealer=0)
    print(result.log_lines())

A video that breaks off keeps the events seen up to the break; `result.error` says where.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from calibration.camera import CameraProfile
from referee.events import EVENT_KINDS
from vision.frames import Frame, FrameSourceError, decoded_ahead, read_video
from vision.pile_watcher import CardReader
from vision.table_watcher import TableWatcher

#: Order of kinds at equal `t`: the referee's own (`Event.order`), so the log reads as replayed.
KIND_ORDER = {kind: event_type.order for kind, event_type in EVENT_KINDS.items()}


@dataclass
class ReviewResult:
    game: dict
    events: list[dict]
    frames: int = 0
    duration_s: float = 0.0
    error: str | None = None
    notes: list[str] = field(default_factory=list)
    sound: tuple[np.ndarray, int] | None = None
    """The sound track as the knock detector heard it (samples from t = 0, their rate), when
    asked for (`keep_sound`): the report draws its loudness without reading it again."""

    def log(self) -> list[dict]:
        """The event log: the game line first, then the events in time order."""
        return [self.game, *self.events]


def merge_events(*streams: list[dict]) -> list[dict]:
    """All events of all streams, in time order (ties in the referee's order of kinds)."""
    merged = [e for stream in streams for e in stream]
    return sorted(merged, key=lambda e: (e["t"], KIND_ORDER.get(e["kind"], 9)))


class FrameFollower(Protocol):
    """Something that follows the watch frame by frame (the annotated video, drawn while the
    footage is watched: `bruno.annotation_pass`)."""

    def start(self, knocks: Callable[[bool], list[dict] | None]) -> None:
        """Before the first frame. `knocks(wait)`: the sound track's knock events once it has
        been listened to; until then None, or with `wait` waits for them."""

    def see(self, frame: Frame, events: list[dict]) -> None:
        """After each frame is watched, with the events it gave; must not hold the watch up."""


def review_video(path: str | Path, camera: CameraProfile, read_card: CardReader,
                 players: int | None = None, dealer: int = 0, listen: bool = True,
                 progress: Callable[[float], None] | None = None,
                 keep_sound: bool = False,
                 follower: FrameFollower | None = None) -> ReviewResult:
    """Events from the video's frames and sound. `players` defaults to the profile's seats.

    `progress`, when given, is called after every frame with the seconds of footage watched so
    far (the end of that frame: never decreasing, the video's duration after its last frame);
    it runs in the frame loop, so it should be cheap (`bruno.review_pipeline` throttles it).
    `follower`, when given, is shown every frame and what it gave (see `FrameFollower`)."""
    path = Path(path)
    players = players or camera.players
    game = {"t": 0.0, "kind": "game", "variant": "bruno", "players": players, "dealer": dealer}
    watcher = TableWatcher(camera, read_card)
    # The sound track is listened to in another process while this one watches the frames:
    # the two halves share nothing until the merge, and a review has two cores to use.
    pool = forked_pool(1) if listen else None
    heard = pool.submit(listen_to, path, keep_sound) if pool else None
    if follower is not None:
        # Started after the fork above: a forked process gets no copy of its thread.
        follower.start(lambda wait: _knocks_heard(heard, wait))
    seen: list[dict] = []
    frames = 0
    last_t = 0.0
    watched = 0.0
    error = None
    try:
        for frame in decoded_ahead(read_video(path, decoder_threads=1)):
            new = watcher.update(frame)
            seen += new
            if follower is not None:
                follower.see(frame, new)
            frames += 1
            if progress is not None:
                # A frame lasts until the next one: its end is its start plus the last step.
                step = frame.t_s - last_t if frames > 1 else 0.0
                watched = max(watched, frame.t_s + step)
                progress(watched)
            last_t = frame.t_s
    except FrameSourceError as failure:
        if frames == 0:
            if pool:
                pool.shutdown(cancel_futures=True)
            raise
        error = str(failure)
    seen += watcher.finish()
    result = ReviewResult(game, [], frames, last_t, error)
    pile = watcher.pile
    if pile is not None and pile.unread:
        result.notes.append(f"{len(pile.unread)} card(s) came to rest but could not be read, "
                            f"at t = {', '.join(f'{t:.2f}' for t in pile.unread)} s")
    knocks: list[dict] = []
    if heard is not None and pool is not None:
        knocks, note, result.sound = heard.result()
        pool.shutdown()
        if note:
            result.notes.append(note)
        if error:
            knocks = [k for k in knocks if k["t"] <= last_t]
    result.events = merge_events(seen, knocks)
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


def _forked_start(initializer: Callable[..., None] | None, initargs: tuple) -> None:
    gc.freeze()
    if initializer is not None:
        initializer(*initargs)


def _knocks_heard(heard, wait: bool) -> list[dict] | None:
    if heard is None:
        return []
    if not wait and not heard.done():
        return None
    return heard.result()[0]


def listen_to(path: Path, keep_sound: bool = False
              ) -> tuple[list[dict], str | None, tuple[np.ndarray, int] | None]:
    """The knocks in the sound track of `path` as events, a note when it could not be
    (wholly) read, and with `keep_sound` the track itself (see `ReviewResult.sound`); knocks
    heard before a break are kept."""
    from audio.blocks import RECORDING_BLOCK_SAMPLES, AudioSourceError, laid_out
    from audio.detector import DETECTOR_RATE_HZ, detect_knocks
    from audio.sources import open_recording

    knocks: list[dict] = []
    heard: list = []
    try:
        source = open_recording(path, DETECTOR_RATE_HZ, RECORDING_BLOCK_SAMPLES)
        blocks = source.blocks
        if keep_sound:
            blocks = _kept(blocks, heard)
        for knock in detect_knocks(blocks):
            knocks.append(knock.to_event())
    except AudioSourceError as failure:
        return knocks, f"sound: {failure}", None
    track = laid_out(heard, source.duration_s) if keep_sound else None
    return knocks, None, None if track is None else (track, DETECTOR_RATE_HZ)


def _kept(blocks, into: list):
    for block in blocks:
        into.append(block)
        yield block
