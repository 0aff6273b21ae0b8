"""The real knock / not-knock clips of ../shared/data (knocks-dev and knocks-wide), for training
and leave-one-source-out (LOSO) evaluation of the knock classifier.

Why a module of its own: training and evaluation must agree exactly on *which clip is a knock*,
*which source a clip belongs to* and *which fold a negative clip is in*, or a LOSO number
quietly leaks. Everything here is decided by file names and labels.csv, never by results.

Label policy (see REPORT.md, "What is a knock"):

- knocks-dev `knock` (knuckle) and every knocks-wide `knock` (knuckles, fingertip, pen, small
  hammer struck on a table) are knocks: the referee must hear any deliberate strike on the table.
- knocks-dev finger-pad / nail taps stay *hard negatives* as the issue lists them (they are
  TapSense taps, most likely on a device, soft or clicky). This conflicts with knocks-wide's
  fingertip taps on a table being knocks; the conflict is reported, not hidden.

Clips are loaded with the project's own reader and resampler (`audio.sources.open_recording`
at `DETECTOR_RATE_HZ`), i.e. exactly what the detector hears, and cached as .npy files under
``cache/`` in this lab folder (never in the repository).
"""

from __future__ import annotations

import csv
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evaluation.shared_data import shared_data_dir

DATA_ROOT = shared_data_dir()
CACHE_DIR = Path(os.environ.get("BRUNO_KNOCK_LAB", "/tmp/bruno-knock-lab")) / "cache" / "v2"
RATE_HZ = 16_000  # audio.detector.DETECTOR_RATE_HZ

#: The real sources of knocks, each a LOSO fold. The two tiny ones (3 and 7 knocks) are one
#: fold together: both are left out at once, and each is still scored on its own.
KNOCK_SOURCES = ("mini_tapsense", "adjwang_knockat", "justinklchan_taps", "svais",
                 "krisanth_knock_unlock", "tanay_voicedifference")
LOSO_FOLDS = {
    "mini_tapsense": ("mini_tapsense",),
    "adjwang_knockat": ("adjwang_knockat",),
    "justinklchan_taps": ("justinklchan_taps",),
    "svais": ("svais",),
    "small (krisanth + tanay)": ("krisanth_knock_unlock", "tanay_voicedifference"),
}
#: Negative clips of sources that have no knocks are split into this many folds (by clip,
#: stratified by class); LOSO fold i also leaves out negative fold i % N_NEG_FOLDS, so the
#: false-knock rates are measured on clips the model never trained on.
N_NEG_FOLDS = 3
#: Room sound put before and after every clip: some clips start with their knock (knockat:
#: 145 ms windows, tap at 0-22 ms) and the onset stage needs a little history. The pad is noise
#: with the level and spectrum of the clip's own quietest frames, so the clip's start is no
#: onset. Onsets before `SCORED_FROM_S` (the stream's own start) are never scored or used.
PAD_BEFORE_S = 0.5
PAD_AFTER_S = 0.3
SCORED_FROM_S = 0.3


def recorded_seconds(padded: np.ndarray) -> float:
    """How long the clip that `load_audio` padded lasts as recorded: rates of false knocks
    are per minute of real room sound, not of the noise padded around it (which took 11-17 %
    off the rates of the tables of 5 December and before)."""
    return max(0.0, len(padded) / RATE_HZ - PAD_BEFORE_S - PAD_AFTER_S)


@dataclass(frozen=True)
class Clip:
    path: Path
    kind: str  # knock, hard_negative, distractor, background
    cls: str
    source: str
    event_times_s: tuple[float, ...]  # in the padded clip's time
    neg_fold: int  # -1 for clips of knock sources

    @property
    def name(self) -> str:
        return f"{self.source}/{self.path.stem}"

    @property
    def is_knock(self) -> bool:
        return self.kind == "knock"


def _source_name(row: dict) -> str:
    source = row["source"]
    return "adjwang_knockat" if source == "knockat" else source


def _stable_hash(text: str) -> int:
    return int(hashlib.sha1(text.encode()).hexdigest()[:8], 16)


def load_clips(root: Path = DATA_ROOT) -> list[Clip]:
    """Every clip of knocks-dev and knocks-wide with its source and negative fold."""
    rows = []
    for folder in ("knocks-dev", "knocks-wide"):
        with (root / folder / "labels.csv").open(newline="") as handle:
            for row in csv.DictReader(handle):
                rows.append((folder, row))
    # Stratified fold assignment for negatives of non-knock sources: within each
    # (source, class) sort by a stable hash of the path and deal round-robin.
    groups: dict[tuple[str, str], list[str]] = {}
    for _folder, row in rows:
        source = _source_name(row)
        if source not in KNOCK_SOURCES:
            groups.setdefault((source, row["class"]), []).append(row["path"])
    fold_of = {}
    for (source, cls), paths in groups.items():
        offset = _stable_hash(source + cls) % N_NEG_FOLDS
        for i, path in enumerate(sorted(paths, key=_stable_hash)):
            fold_of[path] = (i + offset) % N_NEG_FOLDS
    clips = []
    for folder, row in rows:
        source = _source_name(row)
        times = tuple(PAD_BEFORE_S + float(t) for t in row["event_times"].split(";") if t.strip())
        clips.append(Clip(root / folder / row["path"], row["kind"], row["class"], source,
                          times,
                          fold_of.get(row["path"], -1)))
    return clips


def load_audio(clip: Clip) -> np.ndarray:
    """The clip as the detector hears it (16 kHz mono float32), padded (see PAD_*_S); cached."""
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    cached = CACHE_DIR / (clip.name.replace("/", "__") + ".npy")
    if cached.exists():
        return np.load(cached)
    padded = padded_audio(clip)
    # Written aside and renamed: a process running beside this one may read the cache while
    # it is written (two evaluations at once did, and read an empty file).
    partial = cached.with_name(f"{cached.stem}.{os.getpid()}.partial.npy")
    np.save(partial, padded)
    os.replace(partial, cached)
    return padded


def padded_audio(clip: Clip) -> np.ndarray:
    """`load_audio` without the cache (what the tests read)."""
    from audio.blocks import laid_out
    from audio.sources import open_recording

    samples = laid_out(open_recording(clip.path, RATE_HZ, block_samples=4000).blocks)
    rng = np.random.default_rng(_stable_hash(clip.name))
    before = room_noise_like(samples, round(PAD_BEFORE_S * RATE_HZ), rng)
    after = room_noise_like(samples, round(PAD_AFTER_S * RATE_HZ), rng)
    return np.concatenate([before, samples, after]).astype(np.float32)


#: The share of every knock source that the shipped model never trains on: its test subset
#: (tests/test_knock_holdout.py, `python -m models.knocks.holdout`).
TEST_SUBSET_SHARE = 0.2


def shipped_test_subset(clips: list[Clip]) -> list[tuple[Clip, tuple[float, ...]]]:
    """[(clip, its held-out knock times)]: for every real knock source, the last
    `TEST_SUBSET_SHARE` of its labelled knocks (at least one) in the order of clip name, then
    time. Decided by names and labels only, so training and the test agree without a list."""
    out: dict[str, list[float]] = {}
    by_name = {c.name: c for c in clips}
    for source in KNOCK_SOURCES:
        events = [(c.name, t) for c in sorted(clips, key=lambda c: c.name)
                  if c.source == source and c.is_knock for t in c.event_times_s]
        n = max(1, int(np.ceil(TEST_SUBSET_SHARE * len(events))))
        for name, t in events[len(events) - n:]:
            out.setdefault(name, []).append(t)
    return [(by_name[name], tuple(times)) for name, times in out.items()]


def room_noise_like(samples: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """`n` samples of noise with the mean power spectrum of the quietest fifth of `samples`'
    16 ms frames (at least one frame; -90 dBFS if the clip is digital silence)."""
    window = 256
    if len(samples) < window:
        samples = np.pad(samples, (0, window - len(samples)))
    starts = np.arange(0, len(samples) - window + 1, window // 2)
    frames = samples[starts[:, None] + np.arange(window)] * np.hanning(window)
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    quiet = power[np.argsort(power.sum(axis=1))[: max(1, len(power) // 5)]].mean(axis=0)
    quiet = np.maximum(quiet, 1e-18)
    size = 1 << (n + window).bit_length()
    spectrum = np.fft.rfft(rng.standard_normal(size))
    gain = np.sqrt(np.interp(np.linspace(0, 1, len(spectrum)), np.linspace(0, 1, len(quiet)),
                             quiet))
    noise = np.fft.irfft(spectrum * gain, size)[:n]
    # Match the quiet frames' power (the Hann window's energy is sum(hann**2)).
    target = quiet.sum() * 2 / window / np.sum(np.hanning(window) ** 2)
    noise *= np.sqrt(target / (np.mean(noise ** 2) + 1e-30))
    return (noise + 3e-5 * rng.standard_normal(n)).astype(np.float32)


def held_out(clips: list[Clip], fold: str) -> tuple[list[Clip], list[Clip]]:
    """(training clips, held-out clips) of a LOSO fold: the fold's knock sources (all their
    clips, knocks and negatives) and one negative fold are held out."""
    sources = set(LOSO_FOLDS[fold])
    neg_fold = list(LOSO_FOLDS).index(fold) % N_NEG_FOLDS
    out = [c for c in clips if c.source in sources or c.neg_fold == neg_fold]
    keep = [c for c in clips if c not in out]
    return keep, out
