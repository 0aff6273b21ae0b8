"""The session clock: monotonic seconds since the session started (docs/DESIGN.md: live events carry
`t` on this clock). A resumed session starts it where its journal left off, so the times of a
game continue across a crash instead of starting again at zero."""

from __future__ import annotations

import time
from collections.abc import Callable


class SessionClock:
    """`now()` reads `start_at` when the clock is made and then runs with `time.monotonic()`.

    `origin` is the monotonic time that reads 0.0 on this clock: what the camera and
    microphone readers take as their `session_start_s`, so their stamps are session times.
    """

    def __init__(self, start_at: float = 0.0,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self._monotonic = monotonic
        self.origin = monotonic() - start_at

    def now(self) -> float:
        return self._monotonic() - self.origin
