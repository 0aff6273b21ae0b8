"""Loud moments: stretches where the room is so loud that a knock could drown in it.

The referee asks for a knock after every zero and instick; when none is heard it rules a
missed knock. That ruling rests on the microphone having been able to hear one: while the
table laughs or talks over the game, a knock 10 dB over the room is heard about half the time
(audio/NOTEBOOK.md, the SNR table: recall 88% at +20 dB, 49% at +10 dB, 31% at +5 dB). This
watcher reports such stretches as `loud` events so that a missed knock inside one is an
unsure ruling (docs/missed-observations.md), shown to the table to check, not spoken.

A moment is loud when the median level of the last `median_s` stands `over_floor_db` over
the room's quiet floor (a low percentile of the last `floor_history_s`). The median ignores
short sounds: a knock, a card slap or a clap last well under half the window, so they never
make a moment loud by themselves; talk, laughter and clattering dishes do.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from audio.blocks import AudioBlock
from referee.events import Loud

#: A table's knocks stand about 20-30 dB over its quiet room (the calibrations of the dev
#: recordings and of the demo's room); a room 12 dB louder leaves them 8-18 dB over it, where
#: the SNR table shows recall falling towards half.
OVER_FLOOR_DB = 12.0


@dataclass
class LoudWatcher:
    """Feed `process(block)` with blocks (any rate); `finish()` at the end. Each returns the
    `Loud` events decided, at most `chunk_s` long each, so that a long loud stretch reaches
    the referee piece by piece, soon after it happened (its reorder buffer is short)."""

    over_floor_db: float = OVER_FLOOR_DB
    frame_s: float = 0.02
    median_s: float = 0.3
    floor_history_s: float = 30.0
    floor_percentile: float = 10.0
    #: No moment is loud before this much sound has been heard: the floor needs a history.
    warm_up_s: float = 1.0
    chunk_s: float = 0.25
    _rate_hz: int | None = field(default=None, init=False)
    _pending: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32), init=False)
    _t_s: float | None = field(default=None, init=False)  # time of _pending[0]
    _recent: deque = field(default_factory=deque, init=False)
    _history: deque = field(default_factory=deque, init=False)
    _floor_db: float | None = field(default=None, init=False)
    _frames: int = field(default=0, init=False)
    _run: list[float] | None = field(default=None, init=False)  # [start, end, peak excess]
    _still_loud_from: float | None = field(default=None, init=False)

    def process(self, block: AudioBlock) -> list[Loud]:
        if self._rate_hz is None:
            self._rate_hz, self._t_s = block.rate_hz, block.t_s
            self._recent = deque(maxlen=max(1, round(self.median_s / self.frame_s)))
            self._history = deque(maxlen=max(1, round(self.floor_history_s / self.frame_s)))
        self._pending = np.concatenate([self._pending, np.asarray(block.samples, np.float32)])
        size = max(1, round(self.frame_s * self._rate_hz))
        out: list[Loud] = []
        while len(self._pending) >= size:
            frame, self._pending = self._pending[:size], self._pending[size:]
            self._t_s += size / self._rate_hz
            out += self._on_frame(float(np.mean(frame.astype(np.float64) ** 2)), self._t_s)
        return out

    def finish(self) -> list[Loud]:
        return self._close()

    def _on_frame(self, power: float, end_s: float) -> list[Loud]:
        level = 10 * np.log10(power + 1e-12)
        self._recent.append(level)
        self._history.append(level)
        self._frames += 1
        if self._floor_db is None or self._frames % 25 == 0:  # every half second is plenty
            self._floor_db = float(np.percentile(self._history, self.floor_percentile))
        if self._frames * self.frame_s < self.warm_up_s:
            return []
        excess = float(np.median(self._recent)) - self._floor_db
        if excess < self.over_floor_db:
            self._still_loud_from = None
            return self._close()
        if self._run is None:
            # The median rose when half its window was loud: that is where the moment began
            # (or where the last piece of a long one ended).
            start = self._still_loud_from
            self._run = [end_s - self.median_s / 2 if start is None else start, end_s, excess]
        self._run[1:] = [end_s, max(excess, self._run[2])]
        if end_s - self._run[0] >= self.chunk_s:
            self._still_loud_from = end_s
            return self._close()
        return []

    def _close(self) -> list[Loud]:
        run, self._run = self._run, None
        if run is None:
            return []
        start, end, excess = run
        return [Loud(round(start, 3), duration=round(end - start, 3), level=round(excess, 1))]
