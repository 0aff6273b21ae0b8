"""Test material with known answers: real knocks placed into real background noise at a
chosen signal-to-noise ratio.

SNR here is the mean power of the knock excerpts (each `EXCERPT_S` long from its onset)
over the mean power of the background, in dB. Excerpts are cut from a labelled recording,
so the placed onsets are the labelled onsets shifted to their new times.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Length of a knock excerpt, from 20 ms before its labelled onset: 0.25 s holds the ring-out.
EXCERPT_S = 0.25
EXCERPT_LEAD_S = 0.020


@dataclass(frozen=True)
class Mixture:
    """A mixed signal at `rate_hz` and the onset times of the knocks placed in it (s)."""

    samples: np.ndarray
    rate_hz: int
    onsets_s: tuple[float, ...]


def cut_excerpts(samples: np.ndarray, rate_hz: int, onsets_s: Sequence[float]) -> list[np.ndarray]:
    """`EXCERPT_S`-long pieces starting `EXCERPT_LEAD_S` before each onset (that fit)."""
    excerpts = []
    length = round(EXCERPT_S * rate_hz)
    for onset in onsets_s:
        start = round((onset - EXCERPT_LEAD_S) * rate_hz)
        if start >= 0 and start + length <= len(samples):
            excerpts.append(samples[start : start + length].astype(np.float32))
    return excerpts


def mix_at_snr(
    excerpts: Sequence[np.ndarray],
    background: np.ndarray,
    rate_hz: int,
    snr_db: float,
    spacing_s: float = 1.5,
    seed: int = 0,
) -> Mixture:
    """Place excerpts every `spacing_s` (±0.3 s jitter) into `background`, scaled to `snr_db`.

    The background is scaled, not the knocks, so the knocks keep their recorded level; the
    mixture is then normalised to a peak of 0.9 if it would clip.
    """
    rng = np.random.default_rng(seed)
    knock_power = float(np.mean([np.mean(e.astype(np.float64) ** 2) for e in excerpts]))
    noise_power = float(np.mean(background.astype(np.float64) ** 2)) or 1e-12
    gain = np.sqrt(knock_power / noise_power / 10 ** (snr_db / 10))
    mixed = background.astype(np.float64) * gain
    onsets = []
    t = 1.0
    for index in range(10**6):
        start_s = t + rng.uniform(-0.3, 0.3)
        excerpt = excerpts[index % len(excerpts)]
        start = round(start_s * rate_hz)
        if start + len(excerpt) > len(mixed) - rate_hz // 2:
            break
        mixed[start : start + len(excerpt)] += excerpt
        onsets.append(start_s + EXCERPT_LEAD_S)
        t += spacing_s
    peak = float(np.max(np.abs(mixed))) or 1.0
    if peak > 0.9:
        mixed *= 0.9 / peak
    return Mixture(mixed.astype(np.float32), rate_hz, tuple(onsets))
