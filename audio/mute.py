"""Time ranges the detector must not hear (the product's own speech through the speakers)."""

from __future__ import annotations

import bisect
import threading


class MuteWindows:
    """A thread-safe set of [start_s, end_s) ranges on the session clock.

    The announcer calls `mute(start_s, end_s)` before it speaks; the detector asks
    `is_muted(t_s)` for each onset. Ranges may overlap and may be added at any time.
    """

    def __init__(self) -> None:
        self._ranges: list[tuple[float, float]] = []
        self._lock = threading.Lock()

    def mute(self, start_s: float, end_s: float) -> None:
        """Ignore onsets at `start_s` <= t < `end_s` (seconds, session clock)."""
        if end_s < start_s:
            raise ValueError(f"mute window ends ({end_s}) before it starts ({start_s})")
        with self._lock:
            bisect.insort(self._ranges, (float(start_s), float(end_s)))

    def is_muted(self, t_s: float) -> bool:
        """Whether time `t_s` (seconds) lies inside any mute window."""
        with self._lock:
            index = bisect.bisect_right(self._ranges, (t_s, float("inf")))
            return any(start <= t_s < end for start, end in self._ranges[:index])

    def forget_before(self, t_s: float) -> None:
        """Drop windows that ended before `t_s`, so a long session keeps the list short."""
        with self._lock:
            self._ranges = [(s, e) for s, e in self._ranges if e > t_s]
