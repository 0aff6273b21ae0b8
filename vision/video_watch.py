"""Watching recorded footage: the table watcher over every frame of a video file, giving the
card, take-back and draw events it saw (the sound track is the knock detector's business:
`audio.recording`; `bruno.review.footage` runs both and merges them).

A video that breaks off keeps the events seen up to the break; `VideoWatch.error` says where.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from calibration.camera import CameraProfile
from referee.events import Event
from vision.frames import Frame, FrameSourceError, decoded_ahead, read_video
from vision.pile_watcher import READ_SURE, CardReader
from vision.table_watcher import TableWatcher


@dataclass
class VideoWatch:
    """What watching a video gave: its events in the order seen, the frames watched, the time
    of the last frame, where it broke off (None when whole), and notes for people."""

    events: list[Event]
    frames: int = 0
    duration_s: float = 0.0
    error: str | None = None
    notes: list[str] = field(default_factory=list)


class FrameWatcher(Protocol):
    """Something shown each frame as it is watched, with the events it gave (the annotated
    video, drawn during the watch); it must not hold the watch up."""

    def see(self, frame: Frame, events: list[Event]) -> None: ...


def watch_video(path: str | Path, camera: CameraProfile, read_card: CardReader,
                progress: Callable[[float], None] | None = None,
                follower: FrameWatcher | None = None,
                read_sure: float = READ_SURE) -> VideoWatch:
    """The events in the frames of `path`. Raises FrameSourceError when not one frame can be
    read.

    `progress`, when given, is called after every frame with the seconds of footage watched so
    far (the end of that frame: never decreasing, the video's duration after its last frame);
    it runs in the frame loop, so it should be cheap (`bruno.review.pipeline` throttles it).
    `follower`, when given, is shown every frame and what it gave. `read_sure`: the game's
    `min_card_confidence` (see `TableWatcher`)."""
    watcher = TableWatcher(camera, read_card, read_sure=read_sure)
    seen: list[Event] = []
    frames = 0
    last_t = 0.0
    watched = 0.0
    error = None
    try:
        for frame in decoded_ahead(read_video(Path(path))):
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
            raise
        error = str(failure)
    seen += watcher.finish()
    watch = VideoWatch(seen, frames, last_t, error)
    pile = watcher.pile
    if pile is not None and pile.unread:
        watch.notes.append(f"{len(pile.unread)} card(s) came to rest but could not be read, "
                           f"at t = {', '.join(f'{t:.2f}' for t in pile.unread)} s")
    return watch
