"""The sound track of synthetic footage: knocks at the scenario's times in room noise.

The knocks are the recordings the caller hands over (`knock_sounds`: the evaluations pass real
knuckle knocks, `evaluation.knock_data.real_knock_excerpts`), else synthesised
(`synth.sounds.knock`, the knuckle knock the detector's own tests use; an earlier home-made one
here was missed by the detector 33 times in 40). Nothing from the shared data is written
anywhere but into the rendered (untracked) footage.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from synth.scenario import Scenario

ROOM_NOISE_DBFS = -52.0
"""Level of the room's background noise (RMS, dB re full scale): a quiet kitchen."""

KNOCK_PEAK = 0.5
"""Peak amplitude a knock is scaled to (full scale 1.0): a firm knuckle near the microphone."""


def render_sound_track(scenario: Scenario, duration_s: float, rate_hz: int = 48_000,
                       knock_sounds: Sequence[np.ndarray] = ()) -> np.ndarray:
    """Mono float32 samples: room noise plus a knock at every scenario knock time, each one
    drawn from `knock_sounds` (excerpts at `rate_hz` with their onset `EXCERPT_LEAD_S` in) or,
    when there are none, synthesised."""
    from synth.mixer import EXCERPT_LEAD_S
    from synth.sounds import knock as synthetic_knock

    rng = np.random.default_rng(scenario.seed + 2)
    n = int(duration_s * rate_hz)
    # Room noise falling off above ~300 Hz (hum, ventilation): white noise shaped in the
    # frequency domain, then scaled to its level.
    spectrum = np.fft.rfft(rng.normal(0, 1, n))
    freqs = np.fft.rfftfreq(n, 1 / rate_hz)
    noise = np.fft.irfft(spectrum / np.sqrt(1 + (freqs / 300.0) ** 2), n)
    noise *= 10 ** (ROOM_NOISE_DBFS / 20) / (np.sqrt(np.mean(noise ** 2)) or 1.0)
    track = noise
    excerpts = tuple(knock_sounds)
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
