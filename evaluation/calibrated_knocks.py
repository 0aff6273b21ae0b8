"""What `bruno calibrate mic` buys on real tables: per real knock source, calibrate on its
first 5 knocks and score the detector on its later ones, with and without the calibration.

    python -m evaluation.calibrated_knocks [DATA_DIR] [--fold-models DIR]

DATA_DIR is the shared data folder (knocks-dev/ and knocks-wide/ in it; default: the shared
data beside the repository). For every source with at least 10 labelled knocks, the protocol
recording is built from that source alone: 5 s of quiet (noise at the level of the source's
quietest moments: several sources hold no quiet stretch of their own) and then its first 5
knocks, each cut from 0.1 s before to 0.5 s after its onset, a second apart, over the same
noise. `audio.calibration.measure_mic` measures it (or refuses it, which is reported); the
source's later knocks are then scored with the default detector and with the calibrated one
(the room profile's knock model and the classifier's room calibration), and the false knocks
of the calibrated detector on every negative clip of both data sets (backgrounds and
distractors, per 10 min; hard-negative clips with a knock) beside the default's. Nothing here
is tuned: the calibration's constants were fixed before this was first run.

The shipped classifier was trained on most of every one of these sources, so with it the
figures show what the calibration does end to end, not how it generalises. `--fold-models DIR`
scores each source with `DIR/loso_<source><TAG>.onnx` (`--model-tag`, default _v4), the model
trained without that source (the knock recipe's leave-one-source-out folds,
models/knocks/REPORT.md): its recall is then on knocks the classifier never heard (its false
knocks are still partly on negatives it trained on). Every clip is padded with 0.5 s of its
source's quiet before and 0.3 s after, as the recipe does: some clips begin with their knock,
and the onset stage needs a little history.
"""

from __future__ import annotations

import argparse
import csv
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from audio.blocks import array_blocks
from audio.calibration import (
    CalibrationError,
    knock_model_for,
    measure_mic,
    room_calibration_for,
)
from audio.detector import DETECTOR_RATE_HZ, KnockDetector, detect_knocks
from audio.knock_classifier import KnockClassifier, default_classifier
from evaluation.knock_data import load_samples
from evaluation.matching import match_onsets
from evaluation.shared_data import shared_data_dir

RATE = DETECTOR_RATE_HZ
CALIBRATION_KNOCKS = 5
MIN_KNOCKS = 10
QUIET_S = 5.0


@dataclass(frozen=True)
class LabelledClip:
    path: Path
    kind: str
    source: str
    times_s: tuple[float, ...]


def read_clips(data_dir: Path) -> list[LabelledClip]:
    """The clips of knocks-dev and knocks-wide, with their source."""
    clips = []
    for folder in ("knocks-dev", "knocks-wide"):
        labels = data_dir / folder / "labels.csv"
        if not labels.exists():
            continue
        with labels.open(newline="") as handle:
            for row in csv.DictReader(handle):
                times = tuple(float(t) for t in (row.get("event_times") or "").split(";")
                              if t.strip())
                clips.append(LabelledClip(data_dir / folder / row["path"], row["kind"],
                                          row["source"], times))
    return clips


def quietest_rms(samples: list[np.ndarray]) -> float:
    """The rms of a source's quietest 20 ms (its 5th percentile), never below -90 dBFS."""
    frame = round(0.02 * RATE)
    powers = [float(np.mean(x[i:i + frame] ** 2)) for x in samples
              for i in range(0, len(x) - frame, frame)]
    return max(np.sqrt(np.percentile(powers, 5)), 10 ** (-90 / 20))


def protocol_recording(knocks: list[tuple[np.ndarray, float]], quiet_rms: float,
                       seed: int = 0) -> np.ndarray:
    """5 s of noise at `quiet_rms`, then each (samples, onset) knock cut -0.1..+0.5 s around
    its onset, a second apart, over the same noise."""
    rng = np.random.default_rng(seed)
    total = round((QUIET_S + len(knocks) + 1.5) * RATE)
    sound = rng.normal(0.0, quiet_rms, total).astype(np.float32)
    for index, (samples, onset_s) in enumerate(knocks):
        start = max(0, round((onset_s - 0.1) * RATE))
        piece = samples[start:round((onset_s + 0.5) * RATE)]
        at = round((QUIET_S + 0.5 + index) * RATE) - (round(onset_s * RATE) - start)
        sound[at:at + len(piece)] += piece
    return sound


def heard(samples: np.ndarray, detector: KnockDetector) -> list[float]:
    blocks = array_blocks(samples, RATE, RATE, 4000)
    return [k.t_s for k in detect_knocks(blocks, detector)]


@dataclass
class SourceResult:
    source: str
    scored: int = 0
    default_found: int = 0
    calibrated_found: int = 0
    refusal: str | None = None
    separation: float | None = None
    false_default: int = 0
    false_calibrated: int = 0
    negative_s: float = 0.0
    hard_default: int = 0
    hard_calibrated: int = 0
    hard_clips: int = 0


PAD_BEFORE_S, PAD_AFTER_S = 0.5, 0.3


def padded(samples: np.ndarray, quiet_rms: float, seed: int = 1) -> np.ndarray:
    """`samples` with noise at `quiet_rms` before (`PAD_BEFORE_S`) and after."""
    rng = np.random.default_rng(seed)
    before = rng.normal(0.0, quiet_rms, round(PAD_BEFORE_S * RATE)).astype(np.float32)
    after = rng.normal(0.0, quiet_rms, round(PAD_AFTER_S * RATE)).astype(np.float32)
    return np.concatenate([before, samples, after])


def evaluate_source(source: str, clips: list[LabelledClip], negatives: list[LabelledClip],
                    negative_sound: dict[Path, np.ndarray],
                    classifier: KnockClassifier | None) -> SourceResult:
    result = SourceResult(source)
    raw = {c.path: load_samples(c.path) for c in clips}
    quiet_rms = quietest_rms(list(raw.values()))
    sound = {path: padded(samples, quiet_rms) for path, samples in raw.items()}
    events = [(c, t + PAD_BEFORE_S) for c in clips for t in c.times_s]
    calibration, later = events[:CALIBRATION_KNOCKS], events[CALIBRATION_KNOCKS:]
    recording = protocol_recording([(sound[c.path], t) for c, t in calibration], quiet_rms)
    try:
        mic = measure_mic(array_blocks(recording, RATE, RATE, 4000),
                          classifier=classifier).profile
    except CalibrationError as refusal:
        result.refusal = str(refusal)
        mic = None
    result.separation = None if mic is None or mic.classifier is None \
        else mic.classifier.separation

    def default() -> KnockDetector:
        return KnockDetector(classifier=classifier)

    calibrated = (lambda: KnockDetector(model=knock_model_for(mic), classifier=classifier,
                                        room=room_calibration_for(mic))) if mic else None
    later_by_clip: dict[Path, list[float]] = {}
    for clip, t in later:
        later_by_clip.setdefault(clip.path, []).append(t)
    for path, times in later_by_clip.items():
        result.scored += len(times)
        result.default_found += len(match_onsets(heard(sound[path], default()), times).errors_s)
        if calibrated:
            result.calibrated_found += len(
                match_onsets(heard(sound[path], calibrated()), times).errors_s)
    for clip in negatives:
        samples = negative_sound[clip.path]
        n_default = len(heard(samples, default()))
        n_calibrated = len(heard(samples, calibrated())) if calibrated else 0
        if clip.kind == "hard_negative":
            result.hard_clips += 1
            result.hard_default += n_default > 0
            result.hard_calibrated += n_calibrated > 0
        else:
            result.negative_s += len(samples) / RATE
            result.false_default += n_default
            result.false_calibrated += n_calibrated
    return result


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f}%" if d else "-"


def table(results: list[SourceResult]) -> str:
    lines = [
        "| source | knocks scored | recall, default | recall, calibrated | separation (logits) "
        "| false / 10 min, default → calibrated | hard-negative clips with a knock, default → "
        "calibrated |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        per10 = 600 / r.negative_s if r.negative_s else 0.0
        calibrated = "refused: " + r.refusal if r.refusal else \
            f"{_pct(r.calibrated_found, r.scored)}"
        separation = "-" if r.separation is None else f"{r.separation:.1f}"
        lines.append(
            f"| {r.source} | {r.scored} | {_pct(r.default_found, r.scored)} | {calibrated} | "
            f"{separation} | {r.false_default * per10:.1f} → {r.false_calibrated * per10:.1f} "
            f"| {_pct(r.hard_default, r.hard_clips)} → {_pct(r.hard_calibrated, r.hard_clips)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.calibrated_knocks",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", nargs="?", type=Path, default=None)
    parser.add_argument("--fold-models", type=Path, default=None,
                        help="score each source with DIR/loso_<source><TAG>.onnx")
    parser.add_argument("--model-tag", default="_v4",
                        help="the fold models' tag (default _v4; the shipped recipe: _v45)")
    args = parser.parse_args(argv)
    data_dir = args.data_dir or shared_data_dir()
    clips = read_clips(data_dir)
    if not clips:
        print(f"evaluation.calibrated_knocks: error: no knocks-dev or knocks-wide labels under "
              f"{data_dir}", file=sys.stderr)
        return 2
    negatives = [c for c in clips if c.kind in ("background", "distractor", "hard_negative")]
    negative_sound = {c.path: load_samples(c.path) for c in negatives}
    by_source: dict[str, list[LabelledClip]] = {}
    for clip in clips:
        if clip.kind == "knock":
            by_source.setdefault(clip.source, []).append(clip)
    results = []
    for source, source_clips in sorted(by_source.items()):
        if sum(len(c.times_s) for c in source_clips) < MIN_KNOCKS:
            continue
        classifier = default_classifier()
        if args.fold_models is not None:
            fold_model = args.fold_models / f"loso_{source}{args.model_tag}.onnx"
            if not fold_model.is_file():
                print(f"evaluation.calibrated_knocks: error: {fold_model} not found",
                      file=sys.stderr)
                return 2
            classifier = KnockClassifier(fold_model)
        results.append(evaluate_source(source, source_clips, negatives, negative_sound,
                                       classifier))
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
