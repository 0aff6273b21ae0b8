"""A live table running: the session and its ticker, the camera and microphone threads, the
announcer. `bruno live` builds one from its options; tests and the benchmark build one from
recordings.

    runtime = LiveRuntime(session, announcer, frames=..., blocks=..., read_card=...)
    runtime.start()
    runtime.wait()        # until every recording has ended and its knock windows closed
    runtime.stop()
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

from audio.blocks import AudioBlock
from audio.detector import KnockDetector
from audio.knock_classifier import RoomCalibration
from audio.knock_score import KnockModel
from bruno.live.announcer import Announcer
from bruno.live.capture import CameraCapture, MicCapture
from bruno.live.session import TICK_S, LiveSession
from vision.frames import Frame
from vision.pile_watcher import CardReader

END_MARGIN_S = 0.1
"""After the last recording ends, the clock runs this much past the last knock window."""


class LiveRuntime:
    """The threads of a live table around one session. `frames`/`blocks` None: no camera /
    no microphone (a recording or a device either way: see `bruno.live.sources`)."""

    def __init__(self, session: LiveSession, announcer: Announcer, *,
                 frames: Iterator[Frame] | None = None, blocks: Iterator[AudioBlock] | None = None,
                 read_card: CardReader | None = None, knock_model: KnockModel | None = None,
                 knock_room: RoomCalibration | None = None,
                 stop: threading.Event | None = None,
                 note: Callable[[str], None] | None = None) -> None:
        self.session = session
        self.announcer = announcer
        self.stop_event = stop or threading.Event()
        self.note = note or announcer.note
        session.add_listener(announcer.announce)
        session.speech = announcer
        self.captures: list[CameraCapture | MicCapture] = []
        if frames is not None:
            if read_card is None:
                raise ValueError("a camera needs a card reader")
            self.captures.append(CameraCapture(session, frames, read_card, self.note))
        if blocks is not None:
            detector = KnockDetector(model=knock_model or KnockModel(), mute=announcer.mute,
                                     room=knock_room)
            self.captures.append(MicCapture(session, blocks, detector, self.note))

    def start(self) -> None:
        self.session.start()
        for capture in self.captures:
            capture.start()

    def sources_ended(self) -> bool:
        """Whether every source has ended (recordings run out; devices never do)."""
        return bool(self.captures) and not any(c.is_alive() for c in self.captures)

    def finished(self) -> bool:
        """Whether the sources have ended and the knock windows they left open have closed
        (never, with a camera or microphone that is a device)."""
        if not self.sources_ended():
            return False
        session = self.session
        last = session.last_event_t
        if last is not None and session.clock.now() < (
                last + session.rules.knock_after_s + session.window_s + TICK_S + END_MARGIN_S):
            return False
        session.advance()
        return True

    def wait(self, poll_s: float = 0.1) -> bool:
        """Block until `finished()` (True) or until stopped (False)."""
        while not self.stop_event.wait(poll_s):
            if self.finished():
                return True
        return False

    def stop(self, finish_speech_s: float = 5.0) -> None:
        """Stop the sources, the ticker and the journal, then let the announcer finish."""
        self.stop_event.set()
        deadline = time.monotonic() + 3.0
        for capture in self.captures:
            capture.join(timeout=max(0.1, deadline - time.monotonic()))
        self.session.close()
        self.announcer.close(finish_speech_s)
