"""Downmix and streaming sample-rate conversion, with nothing but numpy.

The detector works at one internal rate (see `audio.detector.DETECTOR_RATE_HZ`), so every source
is converted on the way in. The converter is streaming: it keeps a few samples of history
between blocks, so a signal converted whole or block by block gives the same samples.
"""

from __future__ import annotations

import numpy as np

# Taps of the anti-alias filter per unit of decimation ratio. 16 gives about 60 dB of
# stop-band rejection with a Blackman window, far more than a transient detector needs.
_TAPS_PER_RATIO = 16


CANCELLED_DB = -20.0
"""A mean of the channels this far under the loudest channel cancelled itself out."""


def downmix(samples: np.ndarray) -> np.ndarray:
    """Mono float32 from a (frames,) or (frames, channels) array: the mean of the channels;
    the loudest channel when the mean cancels (a microphone pair wired with one channel's
    polarity turned: its mean is near silence, and every knock was lost)."""
    samples = np.asarray(samples, dtype=np.float32)
    if samples.ndim == 1:
        return samples
    if samples.ndim != 2:
        raise ValueError(f"expected (frames,) or (frames, channels) samples, got {samples.shape}")
    mono = samples.mean(axis=1, dtype=np.float32)
    if samples.shape[1] > 1 and len(mono):
        levels = np.sqrt(np.mean(np.square(samples, dtype=np.float64), axis=0))
        loudest = int(np.argmax(levels))
        if levels[loudest] > 1e-5 and np.sqrt(np.mean(np.square(mono, dtype=np.float64))) \
                < levels[loudest] * 10 ** (CANCELLED_DB / 20):
            return np.ascontiguousarray(samples[:, loudest])
    return mono


def lowpass_taps(cutoff_ratio: float, n_taps: int) -> np.ndarray:
    """Blackman-windowed sinc low-pass; `cutoff_ratio` is the cutoff over the sample rate."""
    centre = (n_taps - 1) / 2
    k = np.arange(n_taps) - centre
    taps = 2 * cutoff_ratio * np.sinc(2 * cutoff_ratio * k) * np.blackman(n_taps)
    return (taps / taps.sum()).astype(np.float32)


class StreamingResampler:
    """Convert mono blocks from `rate_in_hz` to `rate_out_hz`, block by block.

    Down-sampling low-passes at 45% of the output rate, then interpolates linearly (for a
    whole-number ratio it just keeps every ratio-th filtered sample); the
    filter is linear-phase, so its delay is constant and given by `delay_s` (the caller
    subtracts it from timestamps). Up-sampling only interpolates. Output sample n lies at
    input position n * rate_in / rate_out, computed in integers so nothing drifts.
    """

    def __init__(self, rate_in_hz: int, rate_out_hz: int) -> None:
        if rate_in_hz <= 0 or rate_out_hz <= 0:
            raise ValueError("sample rates must be positive")
        self.rate_in_hz = int(rate_in_hz)
        self.rate_out_hz = int(rate_out_hz)
        self._passthrough = self.rate_in_hz == self.rate_out_hz
        if self.rate_in_hz > self.rate_out_hz:
            ratio = self.rate_in_hz / self.rate_out_hz
            n_taps = int(np.ceil(_TAPS_PER_RATIO * ratio)) | 1  # odd: integer delay
            self._taps = lowpass_taps(0.45 * self.rate_out_hz / self.rate_in_hz, n_taps)
        else:
            self._taps = np.ones(1, dtype=np.float32)
        self._history = np.zeros(len(self._taps) - 1, dtype=np.float32)
        # A whole-number ratio (48 -> 16 kHz) needs no interpolation, only every ratio-th sample.
        self._step = self.rate_in_hz // self.rate_out_hz
        self._decimate = self.rate_in_hz % self.rate_out_hz == 0 and self._step > 1
        self._next_filtered = 0  # absolute index of the next filtered sample (decimation)
        self._filtered = np.zeros(0, dtype=np.float32)  # filtered samples not yet passed
        self._filtered_base = 0  # absolute index of self._filtered[0]
        self._next_out = 0  # absolute index of the next output sample

    @property
    def delay_s(self) -> float:
        """Delay of the anti-alias filter in seconds (0 when no filter is needed)."""
        if self._passthrough:
            return 0.0
        return (len(self._taps) - 1) / 2 / self.rate_in_hz

    def process(self, block: np.ndarray) -> np.ndarray:
        """Convert one mono block; returns the output samples that are complete so far."""
        block = np.asarray(block, dtype=np.float32)
        if self._passthrough:
            return block
        padded = np.concatenate([self._history, block])
        if self._decimate:
            return self._decimated(padded)
        if len(self._taps) > 1:
            filtered = np.convolve(padded, self._taps[::-1], mode="valid").astype(np.float32)
            self._history = padded[len(padded) - (len(self._taps) - 1) :]
        else:
            filtered = block
        self._filtered = np.concatenate([self._filtered, filtered])
        return self._interpolate()

    def _decimated(self, padded: np.ndarray) -> np.ndarray:
        n_taps = len(self._taps)
        self._history = padded[len(padded) - (n_taps - 1) :]
        n_filtered = len(padded) - n_taps + 1  # filtered samples this block could give
        first = (-self._next_filtered) % self._step  # the first one on the output grid
        self._next_filtered += n_filtered
        if first >= n_filtered:
            return np.zeros(0, dtype=np.float32)
        filtered = np.convolve(padded, self._taps[::-1], mode="valid")
        return filtered[first :: self._step].astype(np.float32)

    def _interpolate(self) -> np.ndarray:
        end = self._filtered_base + len(self._filtered)  # absolute index one past the last
        # Output n needs filtered samples floor(p) and floor(p) + 1, p = n * rate_in / rate_out.
        last_n = ((end - 1) * self.rate_out_hz - 1) // self.rate_in_hz
        if last_n < self._next_out:
            return np.zeros(0, dtype=np.float32)
        n = np.arange(self._next_out, last_n + 1, dtype=np.int64)
        numerator = n * self.rate_in_hz
        index = numerator // self.rate_out_hz
        fraction = ((numerator % self.rate_out_hz) / self.rate_out_hz).astype(np.float32)
        local = index - self._filtered_base
        left = self._filtered[local]
        right = self._filtered[local + 1]
        out = left + fraction * (right - left)
        self._next_out = int(last_n + 1)
        keep_from = int(index[-1] + 1 - self._filtered_base)  # keep floor(p) of the next output
        next_index = (self._next_out * self.rate_in_hz) // self.rate_out_hz
        keep_from = min(keep_from, int(next_index - self._filtered_base))
        self._filtered = self._filtered[keep_from:]
        self._filtered_base += keep_from
        return out.astype(np.float32)
