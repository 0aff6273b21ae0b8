"""Per-frame spectral measures used by the knock detector (all plain numpy functions)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Bins below this power are treated as this power, so silent bins cannot produce huge
# log ratios in the spectral flux. 1e-10 is -100 dB re full scale.
POWER_FLOOR = 1e-10


@dataclass(frozen=True)
class FrameAnalyser:
    """Hann-windowed power spectra of `window_samples`-long frames at `rate_hz`."""

    rate_hz: int
    window_samples: int

    def __post_init__(self) -> None:
        window = np.hanning(self.window_samples).astype(np.float32)
        # Scale so a full-scale sine reads about 0 dB in `level_db`.
        object.__setattr__(self, "_window", window / window.sum() * 2)
        freqs = np.fft.rfftfreq(self.window_samples, 1 / self.rate_hz)
        object.__setattr__(self, "freqs_hz", freqs)

    def power(self, frame: np.ndarray) -> np.ndarray:
        """Power spectrum of one frame (len `window_samples`)."""
        spectrum = np.fft.rfft(frame * self._window)
        return (spectrum.real**2 + spectrum.imag**2).astype(np.float64)


def level_db(power: np.ndarray) -> float:
    """Total power of a spectrum in dB (re a full-scale sine)."""
    return float(10 * np.log10(power.sum() + POWER_FLOOR))


def log_power_db(power: np.ndarray) -> np.ndarray:
    """Power per bin in dB, floored at `POWER_FLOOR`."""
    return 10 * np.log10(np.maximum(power, POWER_FLOOR))


def spectral_flux_db(log_now: np.ndarray, log_before: np.ndarray) -> float:
    """Mean rise in dB per bin (falls count as zero): the onset function.

    Averaging the rise over bins, rather than the energy, makes a broadband transient stand
    out even when a louder narrow-band sound (a fan, a voice) dominates the total level.
    """
    return float(np.maximum(log_now - log_before, 0.0).mean())


def centroid_hz(power: np.ndarray, freqs_hz: np.ndarray) -> float:
    """Power-weighted mean frequency in Hz."""
    total = power.sum()
    if total <= 0:
        return 0.0
    return float((power * freqs_hz).sum() / total)


def flatness(power: np.ndarray) -> float:
    """Spectral flatness 0..1: 1 for white noise, near 0 for a few strong resonances."""
    floored = np.maximum(power, POWER_FLOOR)
    return float(np.exp(np.log(floored).mean()) / floored.mean())
