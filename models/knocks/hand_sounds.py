"""Synthetic hand claps and finger snaps: not-a-knock training sound (training only).

Why: held out by leave-one-source-out, the classifier heard a knock in about half of the real
claps and finger snaps of the one source that has them (svais): without that source, the
training data holds a single clap clip, so nothing teaches the model that a sharp sound made
by hands in the air is not a knock on the table. People at a card table clap, snap and slap
hands together all evening.

What the sounds are, physically (from the literature on clap and snap acoustics, not from any
recording in the data sets; the parameters below were set before any measurement):

- **A clap** is the air between two palms pushed out at once: the cavity between the hands
  rings as a Helmholtz resonator excited by a short pulse. Its spectrum is one broad peak
  whose centre depends on how the hands meet (cupped low, about 0.6-1 kHz; flat palm to palm
  or fingers to palm higher, up to about 3 kHz), with a low Q (about 1.5-8), over a noise floor
  from the skin; it is over in 5-20 ms. There is no structure below it that rings on
  (a table's modes ring for tens of ms; a knock's body is mostly under 1 kHz). Claps often
  come in series (applause, a rhythm) 0.12-0.5 s apart.
- **A finger snap** is the middle finger hitting the palm's base after it slips off the thumb:
  a very sharp click (well under 1 ms of rise) whose energy lies mostly in 1.5-5 kHz, dying in
  a few ms, often after a faint friction hiss of the finger sliding over the thumb.

Each returns (16 kHz samples, onset index), as `knock_augment.card_slap` does, and goes
through the same room, microphone and codec chain as every other bank item.
"""

from __future__ import annotations

import numpy as np

from models.knocks.knock_augment import RATE_HZ, fft_convolve, shaped_noise


def _resonator_ir(rng, n: int, rate_hz: int, centre_hz: float, q: float) -> np.ndarray:
    """Impulse response of a damped resonance at `centre_hz` with quality factor `q`."""
    t = np.arange(n) / rate_hz
    tau = q / (np.pi * centre_hz)  # a resonance's amplitude decays with time constant Q/(pi f)
    return np.sin(2 * np.pi * centre_hz * t + rng.uniform(0, 0.5)) * np.exp(-t / tau)


def _one_clap(rng, n: int, rate_hz: int) -> np.ndarray:
    """One clap starting at sample 0 of an `n`-sample buffer (unnormalised)."""
    cupped = rng.random() < 0.5
    centre = np.exp(rng.uniform(np.log(600), np.log(1100))) if cupped else \
        np.exp(rng.uniform(np.log(1000), np.log(3000)))
    q = rng.uniform(1.5, 8.0)
    # The excitation: the palms' contact pushing the air out, a noise pulse of 0.3-2 ms.
    width = max(3, round(rng.uniform(0.0003, 0.002) * rate_hz))
    pulse = rng.standard_normal(width) * np.hanning(width)
    y = fft_convolve(pulse, _resonator_ir(rng, min(n, round(0.05 * rate_hz)), rate_hz,
                                          centre, q))[:n]
    y = np.pad(y, (0, max(0, n - len(y))))[:n]
    y /= np.abs(y).max() + 1e-12
    # Skin and fingers: broadband noise with a fast decay (2-8 ms), 6-20 dB under the peak.
    t = np.arange(n) / rate_hz
    skin = shaped_noise(rng, n, rate_hz, 500, 8000, rng.uniform(-3.0, 0.0))
    y += 10 ** (-rng.uniform(6, 20) / 20) * skin * np.exp(-t / rng.uniform(0.002, 0.008))
    # Flesh meeting flesh adds a faint, very short low thump (palms, not a table: 3-8 ms).
    if rng.random() < 0.5:
        thump = np.sin(2 * np.pi * rng.uniform(80, 300) * t) * np.exp(
            -t / rng.uniform(0.003, 0.008))
        y += 10 ** (-rng.uniform(15, 30) / 20) * thump
    return y


def hand_clap(rng: np.random.Generator, rate_hz: int = RATE_HZ, seconds: float = 0.4
              ) -> tuple[np.ndarray, int]:
    """One hand clap at the onset (a series' other claps, 0.12 s or more away, fall outside
    the classifier's window)."""
    n = round(seconds * rate_hz)
    onset = round(rng.uniform(0.08, 0.15) * rate_hz)
    y = np.zeros(n)
    y[onset:] = _one_clap(rng, n - onset, rate_hz)
    return (0.3 * y / (np.abs(y).max() + 1e-12)).astype(np.float32), onset


def finger_snap(rng: np.random.Generator, rate_hz: int = RATE_HZ, seconds: float = 0.4
                ) -> tuple[np.ndarray, int]:
    """A finger snap: a sharp click ringing at 1.5-5 kHz for a few ms, often after a faint
    friction hiss (10-40 ms) of the finger sliding off the thumb."""
    n = round(seconds * rate_hz)
    onset = round(rng.uniform(0.08, 0.15) * rate_hz)
    t = np.arange(n - onset) / rate_hz
    width = max(2, round(rng.uniform(0.0001, 0.0005) * rate_hz))
    pulse = np.hanning(width + 2)[1:-1] * rng.choice([-1.0, 1.0])
    ring = _resonator_ir(rng, len(t), rate_hz, np.exp(rng.uniform(np.log(1500), np.log(5000))),
                         rng.uniform(2.0, 8.0))
    y = np.zeros(n)
    y[onset:] = fft_convolve(pulse, ring)[: n - onset]
    y[onset:] /= np.abs(y[onset:]).max() + 1e-12
    click = shaped_noise(rng, len(t), rate_hz, 1000, 8000, rng.uniform(-1.5, 1.5))
    y[onset:] += 10 ** (-rng.uniform(3, 15) / 20) * click * np.exp(-t / rng.uniform(0.001, 0.005))
    if rng.random() < 0.6:  # the slide before the snap
        length = round(rng.uniform(0.01, 0.04) * rate_hz)
        hiss = shaped_noise(rng, length, rate_hz, 2000, 8000, 0.0) * np.hanning(length)
        y[onset - length: onset] += 10 ** (-rng.uniform(15, 30) / 20) * hiss
    return (0.3 * y / (np.abs(y).max() + 1e-12)).astype(np.float32), onset


def hard_tap(rng: np.random.Generator, rate_hz: int = RATE_HZ, seconds: float = 0.4
             ) -> tuple[np.ndarray, int]:
    """A knock by something hard on something stiff (a pen, a ring or a knuckle's bone on a
    glass or stone top, on a phone lying on the table): a positive, unlike the rest of this
    module. Modal synthesis as `knock_augment.modal_knock`, but a contact of 0.05-0.3 ms
    excites modes up to 6 kHz (2-6 of them, 400-6000 Hz, 2-30 ms), with a click of contact
    noise, and the table's own low mode (100-300 Hz) only faintly (-25..-6 dB) or not at all.
    Short, high and with little under 500 Hz: the shape of knocks that sources held out (pen
    taps, a close-miked knock) show and the other knocks do not."""
    n = round(seconds * rate_hz)
    onset = round(rng.uniform(0.08, 0.15) * rate_hz)
    t = np.arange(n - onset) / rate_hz
    ir = np.zeros(n - onset)
    for f in np.exp(rng.uniform(np.log(400), np.log(6000), int(rng.integers(2, 7)))):
        tau = rng.uniform(0.002, 0.03)
        ir += rng.uniform(0.2, 1.0) * np.sin(2 * np.pi * f * t + rng.uniform(0, 2 * np.pi)) * \
            np.exp(-t / tau)
    if rng.random() < 0.6:
        low = np.sin(2 * np.pi * rng.uniform(100, 300) * t) * np.exp(-t / rng.uniform(0.01, 0.05))
        ir += 10 ** (-rng.uniform(6, 25) / 20) * np.abs(ir).max() * low
    width = max(2, round(rng.uniform(0.00005, 0.0003) * rate_hz))
    y = np.zeros(n)
    y[onset:] = fft_convolve(ir, np.hanning(width + 2)[1:-1])[: n - onset]
    click = shaped_noise(rng, round(rng.uniform(0.0005, 0.002) * rate_hz), rate_hz, 1000,
                          8000, 0.0)
    y[onset: onset + len(click)] += rng.uniform(0.1, 1.0) * np.abs(y).max() * click * \
        np.hanning(len(click))
    return (0.3 * y / (np.abs(y).max() + 1e-12)).astype(np.float32), onset
