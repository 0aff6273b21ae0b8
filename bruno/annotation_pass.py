"""The annotated video drawn while the footage is watched, not in a second pass over it.

A second pass decoded the whole footage again and encoded it at full size after the rulings
were known: two thirds of a review's time. Here each decoded frame is also handed to a thread
of its own, which scales it down (half the width and height by default), holds it until the
watch is `LAG_S` past it, then draws the scene due at its time and encodes it.

Why a lag is enough: what the overlay shows at a moment depends only on what happened up to
that moment (plays and take-backs, knocks, rulings: the referee decides from the past), and
vision reports a play at most about two seconds after the card landed. The knocks come whole
from the sound track's process; the rulings are the referee's over everything known so far,
re-derived whenever vision reports something new (the same `replay` as the final ones).

Every frame's scene is kept, and `finish` compares them with the scenes of the final events
and rulings: when any differs (vision reported something later than the lag allowed for), the
caller draws the video again in a second pass (`write_annotated_video`), so the video always
shows exactly the review's rulings.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path

from bruno.annotated_video import AnnotatedWriter, Overlay, Scene, scene_at
from vision.frames import Frame
from vision.review import merge_events

LAG_S = 4.0
"""A frame is drawn once the watch is this far past it. Vision reported plays at most 2.03 s
after the card landed, take-backs 0.17 s and draws 0.73 s (the demo and the blind games 301,
305 and 309, measured when this was written); twice that leaves room for a slower table."""

QUEUE_FRAMES = 32
"""Decoded frames handed over and not yet scaled: the watch waits when this many are waiting
(at 720p about 45 MB)."""

HOLD_FRAMES = 900
"""Scaled frames held at most while the sound track is still being listened to (the knock
detector's process usually ends a second or two into a review, 10-30 s of footage): past
this the annotator waits for it, and so, soon, does the watch. 900 frames of 720p footage
are 310 MB at half size."""

INF = float("inf")

Rule = Callable[[list[dict]], list[dict]]
"""The referee over events in time order: their rulings as dicts."""


class AnnotatingAlong:
    """Follows the watch (`vision.review.FrameFollower`): `start`, `see` each frame, then
    `finish` with the final events and rulings. `abandon` on failure deletes the video."""

    def __init__(self, source: str | Path, out: str | Path, overlay: Overlay, rule: Rule, *,
                 full_size: bool = False, lag_s: float | None = None) -> None:
        """`overlay`: the pile and seats, and the events known before the watch (a notes
        file's); `rule`: the referee (see `Rule`). Raises AnnotationError when the video
        cannot be written."""
        self.writer = AnnotatedWriter(source, out, full_size=full_size)
        self.base = overlay
        self.rule = rule
        self.lag_s = LAG_S if lag_s is None else lag_s
        self.handed: queue.Queue = queue.Queue(maxsize=QUEUE_FRAMES)
        self.waiting: deque = deque()
        """(t, canvas, pts, time_base) of the frames scaled and not yet drawn."""
        self.seen: list[dict] = []
        self.knocks: Callable[[bool], list[dict] | None] | None = None
        self.overlay: Overlay | None = None
        """What is known now (None: to be worked out again, vision reported something)."""
        self.drawn: list[tuple[float, Scene]] = []
        self.failure: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="annotator", daemon=True)

    # --- the watch's side ------------------------------------------------------------------

    def start(self, knocks: Callable[[bool], list[dict] | None]) -> None:
        """`knocks(wait)`: the sound track's knock events, None while not yet heard (see
        `vision.review.FrameFollower`)."""
        self.knocks = knocks
        self.thread.start()

    def see(self, frame: Frame, events: list[dict]) -> None:
        """The frame just watched (from a video file: `frame.decoded`) and what it showed."""
        self.handed.put(("frame", frame, events))

    def finish(self, events: list[dict], rulings: list[dict], whole: bool = True) -> bool:
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

    def _take(self, frame: Frame, events: list[dict]) -> None:
        decoded = frame.decoded
        self.waiting.append((frame.t_s, self.writer.canvas(decoded), decoded.pts,
                             decoded.time_base))
        if events:
            self.seen += events
            self.overlay = None
        self._draw_until(frame.t_s - self.lag_s)

    def _draw_until(self, until_s: float) -> None:
        while self.waiting and self.waiting[0][0] <= until_s:
            overlay = self._known(wait=len(self.waiting) >= HOLD_FRAMES or until_s == INF)
            if overlay is None:
                return  # the knocks are not heard yet: hold the frames a while
            t, canvas, pts, time_base = self.waiting.popleft()
            self.drawn.append((t, self.writer.write_canvas(canvas, t, pts, time_base, overlay)))

    def _known(self, wait: bool) -> Overlay | None:
        if self.overlay is None:
            assert self.knocks is not None
            knocks = self.knocks(wait)
            if knocks is None:
                return None
            events = merge_events(self.base.events, self.seen, knocks)
            self.overlay = Overlay(events, self.rule(events), self.base.pile_box,
                                   self.base.seat_angles_deg)
        return self.overlay
