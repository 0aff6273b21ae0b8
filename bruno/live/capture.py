"""The camera and microphone threads: the review's own detectors (`TableWatcher` over frames,
`KnockDetector` over sound blocks), their events fed to the live session as they come.

Each thread runs until its source ends (a recording) or the stop event is set; a source that
fails mid-game is reported in the session's `sources` and the game goes on without it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

from audio.blocks import AudioBlock, AudioSourceError
from audio.detector import KnockDetector
from audio.hearing import heard_events
from bruno.live.session import LiveSession
from referee.events import Event
from vision.frames import Frame, FrameSourceError
from vision.pile_watcher import CardReader
from vision.table_watcher import TableWatcher

Note = Callable[[str], None]


class _Capture(threading.Thread):
    source = ""
    source_error: type[Exception] = Exception
    """What the source raises when it breaks (a camera unplugged, a file cut short)."""

    def __init__(self, session: LiveSession, note: Note) -> None:
        super().__init__(name=f"bruno-{self.source}", daemon=True)
        self.session = session
        self.note = note
        self.events = 0

    def _feed(self, event: Event) -> None:
        try:
            self.session.feed(event)
            self.events += 1
        except ValueError as error:  # a detector's event the referee cannot take: say so
            self.note(f"{self.source}: dropped an event ({error})")

    def _status(self, status: str) -> None:
        self.session.sources[self.source] = status

    def run(self) -> None:
        self._status("ok")
        try:
            self._capture()
        except self.source_error as error:
            self._fail(str(error))
            return
        except Exception as error:  # a bug must not end the game: manual events go on
            self._fail(f"stopped ({type(error).__name__}: {error})")
            return
        self._status("ended")

    def _capture(self) -> None:
        raise NotImplementedError

    def _fail(self, reason: str) -> None:
        self._status(f"error: {reason}")
        self.note(f"{self.source}: {reason}; the game goes on without it (correct it on the "
                  "dashboard)")


class CameraCapture(_Capture):
    """Frames -> card, card_removed and draw events; the newest frame goes to the dashboard.
    When the dashboard saves a new calibration, the watcher starts again with its layout."""

    source = "camera"
    source_error = FrameSourceError

    def __init__(self, session: LiveSession, frames: Iterator[Frame], read_card: CardReader,
                 note: Note) -> None:
        super().__init__(session, note)
        self.frames = frames
        self.read_card = read_card
        self.frame_count = 0

    def _capture(self) -> None:
        watcher: TableWatcher | None = None
        layout = -1
        for frame in self.frames:
            self.session.show_frame(frame)
            if layout != self.session.layout_version:
                if watcher is not None:
                    for event in watcher.finish():
                        self._feed(event)
                layout = self.session.layout_version
                watcher = TableWatcher(self.session.camera, self.read_card,
                                       read_sure=self.session.rules.min_card_confidence)
            for event in watcher.update(frame):
                self._feed(event)
            self.frame_count += 1
        if watcher is not None:
            for event in watcher.finish():
                self._feed(event)


class MicCapture(_Capture):
    """Sound blocks -> knock events (none while the announcer's voice is muted) and the loud
    moments a knock could drown in."""

    source = "mic"
    source_error = AudioSourceError

    def __init__(self, session: LiveSession, blocks: Iterator[AudioBlock],
                 detector: KnockDetector, note: Note) -> None:
        super().__init__(session, note)
        self.blocks = blocks
        self.detector = detector

    def _capture(self) -> None:
        for event in heard_events(self.blocks, self.detector):
            self._feed(event)
