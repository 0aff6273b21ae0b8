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

    def band_matrix(self, n_bands: int, low_hz: float, high_hz: float) -> np.ndarray:
        """(n_bands, bins) 0/1 matrix summing bins into log-spaced bands from low to high Hz."""
        edges = np.geomspace(low_hz, high_hz, n_bands + 1)
        matrix = np.zeros((n_bands, len(self.freqs_hz)))
        for band in range(n_bands):
            inside = (self.freqs_hz >= edges[band]) & (self.freqs_hz < edges[band + 1])
            if not inside.any():  # a band narrower than a bin takes the nearest bin
                inside[np.argmin(np.abs(self.freqs_hz - edges[band]))] = True
            matrix[band, inside] = 1.0
        return matrix

    def power(self, frames: np.ndarray) -> np.ndarray:
        """Power spectra of a frame (len `window_samples`) or of rows of frames."""
        spectrum = np.fft.rfft(frames * self._window, axis=-1)
        return (spectrum.real**2 + spectrum.imag**2).astype(np.float64)


def level_db(power: np.ndarray) -> float:
    """Total power of a spectrum in dB (re a full-scale sine)."""
    return float(10 * np.log10(power.sum() + POWER_FLOOR))


def levels_db(powers: np.ndarray) -> np.ndarray:
    """`level_db` of each row of spectra."""
    return 10 * np.log10(powers.sum(axis=-1) + POWER_FLOOR)


def log_power_db(power: np.ndarray) -> np.ndarray:
    """Power per bin in dB, floored at `POWER_FLOOR`."""
    return 10 * np.log10(np.maximum(power, POWER_FLOOR))


def spectral_flux_db(log_now: np.ndarray, log_before: np.ndarray, top: int = 0) -> np.ndarray:
    """Mean rise in dB per band (falls count as zero): the onset function, one per row.

    With `top` > 0 only the `top` largest rises are averaged, so a knock that rings in a few
    bands is not diluted by the many bands where only the room noise is.
    """
    rises = np.maximum(np.atleast_2d(log_now) - np.atleast_2d(log_before), 0.0)
    bands = rises.shape[1]
    if 0 < top < bands:
        rises = np.partition(rises, bands - top, axis=1)[:, bands - top :]
    return rises.mean(axis=1)


def centroid_hz(power: np.ndarray, freqs_hz: np.ndarray) -> float:
    """Power-weighted mean frequency in Hz."""
    total = power.sum()
    if total <= 0:
        return 0.0
    return float((power * freqs_hz).sum() / total)


def flatness(power: np.ndarray, dynamic_range_db: float = 50.0) -> float:
    """Spectral flatness 0..1: 1 for white noise, near 0 for a few strong resonances.

    Bins more than `dynamic_range_db` below the strongest count as that far below: how deep
    the quiet bins are is a matter of the recording's noise and codec, not of the sound.
    """
    floor = max(float(power.max()) * 10 ** (-dynamic_range_db / 10), POWER_FLOOR)
    floored = np.maximum(power, floor)
    return float(np.exp(np.log(floored).mean()) / floored.mean())


#: Where the detector's "high" band starts (the ring check, `KnockModel.ring_*`): above a
#: knuckle's ringing modes, where breath, hiss and the slap of skin on skin put their power.
HIGH_BAND_HZ = 2_000.0

