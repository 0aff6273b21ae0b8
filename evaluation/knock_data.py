"""The knocks-dev recordings (../shared/data/knocks-dev): clips, labels and the tune/test split.

The split is by file and fixed here, so every number of the hand-set gates in audio/NOTEBOOK.md
says which part it was measured on:

- tune: knuckle_train and the *_train finger/nail taps; clap, laugh and cough takes 0 and 1
  (small and large room); the dude_miaowing and running_tap backgrounds.
- test: knuckle_test and the *_test taps; takes 2 and 3; doing_the_dishes, exercise_bike
  and babble.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from evaluation.shared_data import shared_data_dir

_TUNE_BACKGROUNDS = frozenset({"dude_miaowing", "running_tap"})


@dataclass(frozen=True)
class Clip:
    """One labelled recording. `event_times_s` are the labelled tap times (may be empty)."""

    path: Path
    kind: str  # knock, hard_negative, distractor, background
    cls: str  # knuckle, nail_tap, clap, laugh, ...
    event_times_s: tuple[float, ...]
    split: str  # tune or test

    @property
    def name(self) -> str:
        return self.path.stem


def knocks_dir(data_dir: Path) -> Path:
    """The knocks-dev folder given either it or the shared data folder above it."""
    data_dir = Path(data_dir)
    return data_dir if (data_dir / "labels.csv").exists() else data_dir / "knocks-dev"


def split_of(path: Path) -> str:
    """`tune` or `test` for a knocks-dev file (see the module docstring)."""
    stem = path.stem
    if stem.endswith("_train"):
        return "tune"
    if stem.endswith("_test"):
        return "test"
    if stem[-1:].isdigit():
        return "tune" if int(stem[-1]) in (0, 1) else "test"
    return "tune" if stem in _TUNE_BACKGROUNDS else "test"


def load_clips(data_dir: Path) -> list[Clip]:
    """Every clip listed in knocks-dev/labels.csv."""
    root = knocks_dir(data_dir)
    labels = root / "labels.csv"
    if not labels.exists():
        raise FileNotFoundError(f"{labels} not found: give the knocks-dev folder or its parent")
    clips = []
    with labels.open(newline="") as handle:
        for row in csv.DictReader(handle):
            times = tuple(float(t) for t in row["event_times"].split(";") if t.strip())
            path = root / row["path"]
            clips.append(Clip(path, row["kind"], row["class"], times, split_of(path)))
    return clips


@lru_cache(maxsize=2)
def real_knock_excerpts(rate_hz: int) -> tuple[np.ndarray, ...]:
    """Knock excerpts at `rate_hz` (onset `synth.mixer.EXCERPT_LEAD_S` in) from knocks-dev's
    *test* split (`knuckle_test`, the split the knock detector was not tuned on), or () when
    the shared data is absent: what rendered footage knocks with (`synth.footage_sound`)."""
    try:
        import soundfile

        from synth.mixer import cut_excerpts

        clips = [c for c in load_clips(shared_data_dir())
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


def load_samples(path: Path) -> np.ndarray:
    """A recording as mono float32 at the detector rate."""
    from audio.detector import DETECTOR_RATE_HZ
    from audio.sources import open_recording

    blocks = list(open_recording(path, DETECTOR_RATE_HZ, block_samples=4000).blocks)
    return np.concatenate([b.samples for b in blocks])
