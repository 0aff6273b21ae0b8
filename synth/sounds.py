"""Synthetic sounds with known answers, for tests and benchmarks (no recordings needed)."""

from __future__ import annotations

import numpy as np

RATE_HZ = 16_000


def knock(rate_hz: int = RATE_HZ, seconds: float = 0.25, amplitude: float = 0.5) -> np.ndarray:
    """A knuckle-like knock: two table resonances (440 and 910 Hz) struck with a 3 ms attack
    and ringing out with a 15 ms time constant. Starts at sample 0."""
    t = np.arange(round(seconds * rate_hz)) / rate_hz
    attack = np.clip(t / 0.003, 0, 1)
    ring = np.sin(2 * np.pi * 440 * t) + 0.6 * np.sin(2 * np.pi * 910 * t + 1.0)
    return (amplitude * attack * np.exp(-t / 0.015) * ring / 1.6).astype(np.float32)


def clap(rate_hz: int = RATE_HZ, seconds: float = 0.2, amplitude: float = 0.5, seed: int = 1):
    """A clap-like broadband burst: white noise with a 1 ms attack and 10 ms decay."""
    rng = np.random.default_rng(seed)
    t = np.arange(round(seconds * rate_hz)) / rate_hz
    envelope = np.clip(t / 0.001, 0, 1) * np.exp(-t / 0.010)
    return (amplitude * envelope * rng.standard_normal(len(t)) / 3).astype(np.float32)


def speech_like(
    rate_hz: int = RATE_HZ, seconds: float = 3.0, amplitude: float = 0.3, seed: int = 2
):
    """Voiced, syllable-rate modulated sound: a 150 Hz harmonic series (with some noise)
    swelling and fading four times a second, like talk or laughter."""
    rng = np.random.default_rng(seed)
    t = np.arange(round(seconds * rate_hz)) / rate_hz
    voice = sum(np.sin(2 * np.pi * 150 * k * t) / k for k in range(1, 20))
    voice = voice + 0.3 * rng.standard_normal(len(t))
    syllables = np.maximum(0.0, np.sin(2 * np.pi * 4 * t)) ** 2
    return (amplitude * syllables * voice / np.max(np.abs(voice))).astype(np.float32)


def noise(rate_hz: int = RATE_HZ, seconds: float = 3.0, rms: float = 0.001, seed: int = 3):
    """Steady white room noise at `rms` (0.001 = -60 dBFS)."""
    rng = np.random.default_rng(seed)
    return (rms * rng.standard_normal(round(seconds * rate_hz))).astype(np.float32)


def place(background: np.ndarray, sound: np.ndarray, at_s: list[float], rate_hz: int = RATE_HZ):
    """`background` with `sound` added starting at each time in `at_s` (seconds)."""
    out = background.copy()
    for t in at_s:
        start = round(t * rate_hz)
        end = min(len(out), start + len(sound))
        out[start:end] += sound[: end - start]
    return out


def reverberate(
    samples: np.ndarray,
    rate_hz: int = RATE_HZ,
    rt60_s: float = 0.4,
    direct_to_reverb_db: float = 10.0,
    seed: int = 4,
) -> np.ndarray:
    """`samples` as heard in a room: the direct sound plus a diffuse tail of decaying noise
    that starts 3 ms later, falls 60 dB in `rt60_s` and is darker than the direct sound
    (walls absorb highs), `direct_to_reverb_db` below it in energy. Same length as the input.

    A laptop or webcam microphone across a kitchen table hears about +3 to +10 dB of direct
    sound over the room at RT60 0.3-0.8 s; a phone next to the knock (the knocks-dev
    recordings) hears far more direct sound."""
    rng = np.random.default_rng(seed)
    t = np.arange(round(rt60_s * rate_hz)) / rate_hz
    tail = rng.standard_normal(len(t)) * np.exp(-6.91 * t / rt60_s)
    tail[: round(0.003 * rate_hz)] = 0.0
    darken = 0.5  # one-pole low-pass: -7 dB at a quarter of the rate, nothing at 500 Hz
    tail = np.convolve(tail, (1 - darken) * darken ** np.arange(30))[: len(t)]
    tail *= np.sqrt(10 ** (-direct_to_reverb_db / 10) / np.sum(tail**2))
    tail[0] += 1.0
    wet = np.convolve(samples.astype(np.float64), tail)[: len(samples)]
    return wet.astype(np.float32)
