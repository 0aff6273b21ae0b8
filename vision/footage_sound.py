"""The sound track of synthetic footage: knocks at the scenario's times in room noise.

Knocks are real knuckle knocks from knocks-dev's *test* split (`knuckle_test`, see
`audio.dataset`) when the shared data is present — the split the knock detector was not tuned
on — and otherwise synthesised (`audio.synthetic.knock`, the knuckle knock the detector's own tests
use; an earlier home-made one here was missed by the detector 33 times in 40).
Nothing from the shared data is written anywhere but into the rendered (untracked) footage.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from vision.scenario import Scenario

ROOM_NOISE_DBFS = -52.0
"""Level of the room's background noise (RMS, dB re full scale): a quiet kitchen."""

KNOCK_PEAK = 0.5
"""Peak amplitude a knock is scaled to (full scale 1.0): a firm knuckle near the microphone."""


@lru_cache(maxsize=2)
def real_knocks(rate_hz: int) -> tuple[np.ndarray, ...]:
    """Knock excerpts (onset `EXCERPT_LEAD_S` in) from knocks-dev's test split, or ()."""
    try:
        import soundfile

        from audio.dataset import default_shared_data, load_clips
        from audio.mixer import cut_excerpts

        clips = [c for c in load_clips(default_shared_data())
                 if c.kind == "knock" and c.split == "test"]
    except (FileNotFoundError, OSError, ImportError):
        return ()
    excerpts: list[np.ndarray] = []
    for clip in clips:
        samples, clip_rate = soundfile.read(str(clip.path), dtype="float32", always_2d=True)
        if clip_rate != rate_hz:
            continue
        excerpts += cut_excerpts(samples.mean(axis=1), clip_rate, clip.event_times_s)
    return tuple(excerpts)


def render_sound_track(scenario: Scenario, duration_s: float, rate_hz: int = 48_000
                       ) -> np.ndarray:
    """Mono float32 samples: room noise plus a knock at every scenario knock time."""
    from audio.mixer import EXCERPT_LEAD_S
    from audio.synthetic import knock as synthetic_knock

    rng = np.random.default_rng(scenario.seed + 2)
    n = int(duration_s * rate_hz)
    # Room noise falling off above ~300 Hz (hum, ventilation): white noise shaped in the
    # frequency domain, then scaled to its level.
    spectrum = np.fft.rfft(rng.normal(0, 1, n))
    freqs = np.fft.rfftfreq(n, 1 / rate_hz)
    noise = np.fft.irfft(spectrum / np.sqrt(1 + (freqs / 300.0) ** 2), n)
    noise *= 10 ** (ROOM_NOISE_DBFS / 20) / (np.sqrt(np.mean(noise ** 2)) or 1.0)
    track = noise
    excerpts = real_knocks(rate_hz)
    for knock in scenario.knocks:
        if excerpts:
            sound = excerpts[int(rng.integers(len(excerpts)))]
            lead_s = EXCERPT_LEAD_S
        else:
            sound = synthetic_knock(rate_hz)
            lead_s = 0.0
        sound = sound * (KNOCK_PEAK / (np.max(np.abs(sound)) or 1.0))
        start = round((knock.t - lead_s) * rate_hz)
        if start < 0 or start >= n:
            continue
        end = min(n, start + len(sound))
        track[start:end] += sound[:end - start]
    return np.clip(track, -1, 1).astype(np.float32)
