"""Live microphone input: a PortAudio callback fills a ring buffer and never blocks.

`sounddevice` is imported only when a microphone is opened, so everything else runs on
machines without PortAudio or a sound card.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import numpy as np

from audio.blocks import AudioSourceError, RawChunk

#: Ring buffer length in seconds: how far the reader may fall behind before samples are lost.
RING_SECONDS = 10.0
#: Frames PortAudio hands the callback at a time (about 5 ms at 48 kHz): keeps latency low.
CALLBACK_FRAMES = 256


class SampleRing:
    """Single-writer, single-reader ring of mono float32 samples.

    The writer (the audio callback) never waits: when the reader lags by more than the
    ring holds, the oldest samples are overwritten and counted in `dropped`.
    """

    def __init__(self, capacity: int) -> None:
        self._data = np.zeros(capacity, dtype=np.float32)
        self._written = 0  # total samples ever written
        self._read = 0  # total samples ever read
        self.dropped = 0
        self._ready = threading.Event()

    def write(self, samples: np.ndarray) -> None:
        total = len(samples)
        capacity = len(self._data)
        samples = samples[-capacity:]  # older ones would be overwritten at once anyway
        n = len(samples)
        start = (self._written + total - n) % capacity
        first = min(n, capacity - start)
        self._data[start : start + first] = samples[:first]
        self._data[: n - first] = samples[first:]
        self._written += total
        self._ready.set()

    def read_available(self, timeout_s: float) -> tuple[int, np.ndarray]:
        """(absolute index of the first sample, samples) written since the last read.

        Samples lost to overwriting come back as silence, so the sample count, and with it the
        session clock, stays right.
        """
        if self._written == self._read:
            self._ready.wait(timeout_s)
        self._ready.clear()
        written = self._written
        capacity = len(self._data)
        start_index = self._read
        lost = max(0, written - self._read - capacity)
        self.dropped += lost
        indices = np.arange(self._read + lost, written) % capacity
        self._read = written
        samples = self._data[indices]
        if lost:
            samples = np.concatenate([np.zeros(lost, dtype=np.float32), samples])
        return start_index, samples


class NoPortAudio(AudioSourceError):
    """The PortAudio library is missing, so no microphone can be opened. The message advises
    a recording instead of --mic (`bruno live`, `bruno listen`); a command whose option for a
    recording is another says so with `NO_PORTAUDIO` and its own."""


NO_PORTAUDIO = "no PortAudio library: install it (Debian/Ubuntu: apt-get install libportaudio2)"


def _import_sounddevice():
    try:
        import sounddevice
    except OSError as error:  # the module exists but libportaudio is missing
        raise NoPortAudio(f"{NO_PORTAUDIO} or give a recording instead of --mic") from error
    except ImportError as error:
        raise AudioSourceError(
            "the sounddevice package is missing: pip install sounddevice"
        ) from error
    return sounddevice


def _device(device: str | int | None) -> str | int | None:
    """PortAudio takes a device number as an int; a name (or part of one) as a string."""
    return int(device) if isinstance(device, str) and device.strip().isdigit() else device


def check_microphone(device: str | int | None = None) -> dict:
    """The input device's PortAudio info; AudioSourceError when there is none or no PortAudio."""
    device = _device(device)
    sounddevice = _import_sounddevice()
    try:
        return sounddevice.query_devices(device, kind="input")
    except (ValueError, sounddevice.PortAudioError) as error:
        raise AudioSourceError(
            f"no microphone found ({error}); plug one in, or name one with --device NAME"
        ) from error


def read_microphone(
    device: str | int | None = None,
    rate_hz: int | None = None,
    session_start_s: float | None = None,
    stop: threading.Event | None = None,
) -> Iterator[RawChunk]:
    """Chunks from a live microphone until `stop` is set (or the consumer stops iterating).

    `device` is a PortAudio name or index (default: the system's input), `rate_hz` the rate to
    open it at (default: the device's own). `t_s` is seconds since `session_start_s` on
    `time.monotonic()` (default: now), taken from the sample count so it does not jitter.
    """
    device = _device(device)
    sounddevice = _import_sounddevice()
    info = check_microphone(device)
    rate = int(rate_hz or info["default_samplerate"])
    ring = SampleRing(int(RING_SECONDS * rate))

    def on_audio(indata, frames, time_info, status):  # runs on PortAudio's thread
        ring.write(indata[:, 0] if indata.shape[1] == 1 else indata.mean(axis=1))

    session_start_s = time.monotonic() if session_start_s is None else session_start_s
    try:
        stream = sounddevice.InputStream(
            device=device,
            samplerate=rate,
            channels=min(2, int(info["max_input_channels"])) or 1,
            dtype="float32",
            blocksize=CALLBACK_FRAMES,
            callback=on_audio,
        )
    except (ValueError, sounddevice.PortAudioError) as error:
        message = f"cannot open the microphone ({error}); check --device NAME"
        raise AudioSourceError(message) from error
    with stream:
        opened_at_s = time.monotonic() - session_start_s
        while stop is None or not stop.is_set():
            start_index, samples = ring.read_available(timeout_s=0.1)
            if len(samples):
                yield RawChunk(samples=samples, rate_hz=rate, t_s=opened_at_s + start_index / rate)
