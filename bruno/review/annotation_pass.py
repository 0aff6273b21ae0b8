"""The annotated video drawn while the footage is watched, not in a second pass over it.

A second pass decoded the whole footage again and encoded it at full size after the rulings
were known: two thirds of a review's time. Here each decoded frame is also handed to a thread
of its own, which scales it down (half the width and height by default), holds it until the
watch is `LAG_S` past it, then draws the scene due at its time and encodes it.

Why a lag is enough: what the overlay shows at a moment depends only on what happened up to
that moment (plays and take-backs, knocks, rulings: the referee decides from the past), and
vision reports a play at most about two seconds after the card landed. The knocks come whole
from the sound track's process. The rulings come from a referee session of the annotator's
own, fed the events in time order up to each frame drawn and told the clock stands there
(`RefereeAsItGoes`): one pass over the game, as live play rules, not a replay per new event.

Every frame's scene is kept, and `finish` compares them with the scenes of the final events
and rulings: when any differs (vision reported something later than the lag allowed for), the
caller draws the video again in a second pass (`write_annotated_video`), so the video always
shows exactly the review's rulings.
"""

from __future__ import annotations

import queue
import threading
from bisect import bisect_right, insort
from collections import deque
from collections.abc import Callable
from pathlib import Path

from bruno.review.annotated_video import AnnotatedWriter, Overlay, Scene, scene_at
from referee.events import Event, Knock
from referee.session import Session
from vision.frames import Frame

LAG_S = 4.0
"""A frame is drawn once the watch is this far past it. Vision reported plays at most 2.03 s
after the card landed, take-backs 0.17 s and draws 0.73 s (the demo and the blind games 301,
305 and 309, measured when this was written); twice that leaves room for a slower table."""

QUEUE_FRAMES = 32
"""Decoded frames handed over and not yet scaled: the watch waits when this many are waiting
(at 720p about 45 MB)."""

HOLD_BYTES = 320_000_000
"""Scaled frames held at most while the sound track is still being listened to (the knock
detector's process reads 130 s of sound in about 1.5 s, so the first 10-30 s of footage wait
for it; a long file, longer): past this the annotator waits for it, and so, soon, does the
watch. 900 frames of 720p footage at half size, 100 of 1080p at full size."""

INF = float("inf")

_AT_S = 1e-5
"""A frame's rulings are those due up to its time: the clock is set this much past it (past
the referee's slack for float rounding, `referee.reorder.TIME_SLACK_S`, and under the 0.1 ms
to which event times are written)."""


class RefereeAsItGoes:
    """The rulings up to a moment, from a referee session fed the events in time order up to
    it: the events known before the watch (a notes file's), the knocks (all at once), and
    what vision reports as it reports it (up to two seconds late, always ahead of the moment
    asked for; one reported behind it is noted in `late`, and the final comparison will find
    what it changed)."""

    def __init__(self, session: Session, known: list[Event]) -> None:
        self.session = session
        self.pending: list[tuple[tuple, Event]] = []
        """Known events not yet fed, in the final log's order (`Event.sort_key`)."""
        self.fed: list[Event] = []
        self.rulings: list[dict] = []
        self.until = -INF
        self.late = False
        self.arrivals = 0
        self._add(known)

    def see(self, events: list[Event]) -> None:
        """Events vision reported."""
        self.late = self.late or any(e.t <= self.until for e in events)
        self._add(events)

    def hear(self, knocks: list[Knock]) -> None:
        self._add(knocks)

    def up_to(self, t: float) -> bool:
        """Feed the events up to `t` and move the clock there; True when anything changed."""
        count = bisect_right(self.pending, (t, INF), key=lambda p: p[0][:2])
        due = []
        if count:
            due, self.pending = self.pending[:count], self.pending[count:]
        said = []
        for _, event in due:
            self.fed.append(event)
            said += self.session.feed(event)
        said += self.session.advance(t + self.session.buffer.window_s + _AT_S)
        self.rulings += [ruling.to_dict() for ruling in said]
        self.until = max(self.until, t)
        return bool(due or said)

    def _add(self, events: list[Event]) -> None:
        for event in events:
            self.arrivals += 1
            # The final log's order, then (for twins) the order of arrival.
            key = (*event.sort_key(), self.arrivals)
            insort(self.pending, (key, event), key=lambda p: p[0])


class AnnotatingAlong:
    """Follows the watch (`bruno.review.footage.FrameFollower`): `start`, `see` each frame, then
    `finish` with the final events and rulings. `abandon` on failure deletes the video."""

    def __init__(self, source: str | Path, out: str | Path, overlay: Overlay,
                 referee: RefereeAsItGoes, *, full_size: bool = False,
                 lag_s: float | None = None) -> None:
        """`overlay`: the pile and seats; `referee`: a fresh session over the events known
        before the watch. Raises AnnotationError when the video cannot be written."""
        self.writer = AnnotatedWriter(source, out, full_size=full_size)
        self.base = overlay
        self.referee = referee
        self.heard = False
        self.lag_s = LAG_S if lag_s is None else lag_s
        self.handed: queue.Queue = queue.Queue(maxsize=QUEUE_FRAMES)
        height, width = self.writer.size
        self.hold_frames = max(1, HOLD_BYTES // (height * width * 3 // 2))
        self.waiting: deque = deque()
        """(t, canvas, pts, time_base) of the frames scaled and not yet drawn."""
        self.knocks: Callable[[bool], list[Knock] | None] | None = None
        self.overlay: Overlay | None = None
        """What the frames being drawn show (the final overlay at the end)."""
        self.drawn: list[tuple[float, Scene]] = []
        self.failure: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="annotator", daemon=True)

    # --- the watch's side ------------------------------------------------------------------

    def start(self, knocks: Callable[[bool], list[Knock] | None]) -> None:
        """`knocks(wait)`: the sound track's knock events, None while not yet heard (see
        `bruno.review.footage.FrameFollower`)."""
        self.knocks = knocks
        self.thread.start()

    def see(self, frame: Frame, events: list[Event]) -> None:
        """The frame just watched (from a video file: `frame.decoded`) and what it showed."""
        self.handed.put(("frame", frame, events))

    def finish(self, events: list[Event], rulings: list[dict], whole: bool = True) -> bool:
        """Draw the frames still held with the final events and rulings and close the file
        (`whole=False`: the footage broke off). True when every frame shows what the final
        rulings give; False when the video must be drawn again. Raises AnnotationError when it
        could not be written."""
        self.handed.put(("end", Overlay(events, rulings, self.base.pile_box,
                                        self.base.seat_angles_deg), whole))
        self.thread.join()
        if self.failure is not None:
            self.writer.abandon()
            raise self.failure
        final = self.overlay
        assert final is not None
        return all(scene == scene_at(final, t) for t, scene in self.drawn)

    def abandon(self) -> None:
        """The review failed: stop, and delete what was written."""
        if self.thread.is_alive():
            self.handed.put(("stop", None, None))
            self.thread.join()
        self.writer.abandon()

    # --- the annotator's thread ------------------------------------------------------------

    def _run(self) -> None:
        while True:
            kind, item, extra = self.handed.get()
            if kind == "stop":
                return
            if self.failure is not None:
                if kind == "end":
                    return
                continue  # keep taking frames, so the watch never waits on a dead thread
            try:
                if kind == "end":
                    self.overlay = item
                    self._draw_until(INF)
                    self.writer.close(whole=extra)
                    return
                self._take(item, extra)
            except BaseException as error:  # raised in the review's thread, by `finish`
                self.failure = error
                if kind == "end":
                    return

    def _take(self, frame: Frame, events: list[Event]) -> None:
        decoded = frame.decoded
        if self.writer.wants(frame.t_s):
            self.waiting.append((frame.t_s, self.writer.canvas(decoded, frame.plane_shrunk),
                                 decoded.pts, decoded.time_base))
        if events:
            self.referee.see(events)
        self._draw_until(frame.t_s - self.lag_s)

    def _draw_until(self, until_s: float) -> None:
        final = until_s == INF
        while self.waiting and self.waiting[0][0] <= until_s:
            if not final and not self._heard(wait=len(self.waiting) >= self.hold_frames):
                return  # the knocks are not heard yet: hold the frames a while
            t, canvas, pts, time_base = self.waiting.popleft()
            if not final and (self.referee.up_to(t) or self.overlay is None):
                self.overlay = Overlay(list(self.referee.fed), list(self.referee.rulings),
                                       self.base.pile_box, self.base.seat_angles_deg)
            assert self.overlay is not None
            self.drawn.append((t, self.writer.write_canvas(canvas, t, pts, time_base,
                                                           self.overlay)))

    def _heard(self, wait: bool) -> bool:
        if not self.heard:
            assert self.knocks is not None
            knocks = self.knocks(wait)
            if knocks is None:
                return False
            self.referee.hear(knocks)
            self.heard = True
        return True
