"""A small reorder buffer: detectors have different delays, so events are held back a moment
and released strictly in time order (docs/DESIGN.md: merged by time)."""

from __future__ import annotations

import heapq
from itertools import count

from referee.events import Event

REORDER_WINDOW_S = 0.5
"""Events may arrive up to this late relative to the newest one seen (docs/DESIGN.md, One
pipeline, two clocks)."""

TIME_SLACK_S = 1e-6
"""Times a float's rounding apart are one time: an event exactly REORDER_WINDOW_S late is in
time (1.1 - 0.5 is 0.6000000000000001, which would have released a card at 0.6 before
another card at 0.6 that arrived with the line at 1.1)."""


class ReorderBuffer:
    """Holds events until no earlier event can still arrive, then releases them in order.

    Order is `Event.sort_key()`: time first, then a fixed order of kinds and contents, so any
    arrival order of the same events within the window releases the same sequence.
    """

    def __init__(self, window_s: float = REORDER_WINDOW_S) -> None:
        self.window_s = window_s
        self.newest_t = float("-inf")
        self._heap: list[tuple[tuple, int, Event]] = []
        self._arrival = count()

    def __len__(self) -> int:
        return len(self._heap)

    def push(self, event: Event) -> list[Event]:
        """Add an event; return those now safe to release (older than the window)."""
        heapq.heappush(self._heap, (event.sort_key(), next(self._arrival), event))
        if event.t > self.newest_t:
            self.newest_t = event.t
        return self.release_before(self.newest_t - self.window_s - TIME_SLACK_S)

    def release_before(self, t: float) -> list[Event]:
        """Release every held event stamped strictly before `t`, in order."""
        heap = self._heap
        if not heap or heap[0][2].t >= t:
            return []  # the common case while events stream in
        released = []
        while heap and heap[0][2].t < t:
            released.append(heapq.heappop(heap)[2])
        return released

    def drain(self) -> list[Event]:
        """Release everything (end of a log or of a session)."""
        return self.release_before(float("inf"))
