"""The sound track of synthetic footage: knocks at the scenario's times in room noise.

Knocks are real knuckle knocks from knocks-dev's *test* split (`knuckle_test`, see
`audio.dataset`) when the shared data is present — the split the knock detector was not tuned
on — and otherwise synthesised: a short damped resonance of a wooden table top plus a click.
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


def synth_knock(rate_hz: int, rng: np.random.Generator) -> np.ndarray:
    """A knuckle on a table: two damped modes between 250 and 900 Hz and a 2 ms click."""
    n = int(0.12 * rate_hz)
    t = np.arange(n) / rate_hz
    sound = np.zeros(n)
    for _ in range(2):
        f = rng.uniform(250, 900)
        decay_s = rng.uniform(0.012, 0.03)
        sound += np.sin(2 * np.pi * f * t + rng.uniform(0, 6.3)) * np.exp(-t / decay_s)
    click = int(0.002 * rate_hz)
    sound[:click] += rng.normal(0, 1.0, click) * np.linspace(1, 0, click)
    attack = int(0.001 * rate_hz)
    sound[:attack] *= np.linspace(0, 1, attack)
    return (sound / np.max(np.abs(sound))).astype(np.float32)


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
            sound = synth_knock(rate_hz, rng)
            lead_s = 0.0
        sound = sound * (KNOCK_PEAK / (np.max(np.abs(sound)) or 1.0))
        start = round((knock.t - lead_s) * rate_hz)
        if start < 0 or start >= n:
            continue
        end = min(n, start + len(sound))
        track[start:end] += sound[:end - start]
    return np.clip(track, -1, 1).astype(np.float32)
