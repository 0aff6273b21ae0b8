"""Score the knock detector on the knocks-dev recordings.

    python -m evaluation.knocks DATA_DIR [--split test|tune|all] [--snr] [--profile ROOM.toml]
                                      [--operating-points]

DATA_DIR is the knocks-dev folder or the shared data folder holding it. Prints, per class
and overall: recall and precision of knuckle knocks (onsets matched within ±50 ms of the
labels), mean/median/worst onset error, what happens to hard negatives, and false knocks
per minute on the clips with no knocks. `--snr` adds recall and false rate of real knocks
mixed into real backgrounds at +20, +10, +5 and 0 dB. `--profile` uses a calibrated [mic]
section instead of the detector's defaults.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from audio.blocks import array_blocks
from audio.calibration import RoomCalibration
from audio.detector import DETECTOR_RATE_HZ, DetectorParams, KnockDetector, detect_knocks
from audio.knock_score import KnockModel
from calibration.profile import MicProfile, ProfileError
from evaluation.knock_data import Clip, load_clips, load_samples
from evaluation.matching import MatchResult, match_onsets
from synth.mixer import cut_excerpts, mix_at_snr
from synth.sounds import reverberate

SNRS_DB = (20.0, 10.0, 5.0, 0.0)


@dataclass
class ClassScore:
    """Totals for one class of clips."""

    kind: str
    cls: str
    clips: int = 0
    seconds: float = 0.0
    labelled: int = 0
    detected: int = 0
    match: MatchResult = field(default_factory=MatchResult)


@dataclass(frozen=True)
class Hearing:
    """What the detector is given besides the sound: a profile's knock model and its
    classifier's room calibration, both, as `bruno listen --profile` uses them (the defaults:
    neither)."""

    model: KnockModel | None = None
    room: RoomCalibration | None = None

    @classmethod
    def of(cls, mic: MicProfile) -> Hearing:
        """What a profile's `[mic]` section gives the detector."""
        from audio.calibration import knock_model_for, room_calibration_for

        return cls(knock_model_for(mic), room_calibration_for(mic))


def knock_times(
    samples: np.ndarray, hearing: Hearing | None = None, params: DetectorParams | None = None
) -> list[float]:
    """Onsets of the knocks heard in mono samples at the detector rate."""
    hearing = hearing or Hearing()
    blocks = array_blocks(samples, DETECTOR_RATE_HZ, DETECTOR_RATE_HZ)
    extra = {"classifier": None} if GATES_ONLY else {}
    detector = KnockDetector(params=params or DetectorParams(),
                             model=hearing.model or KnockModel(), room=hearing.room, **extra)
    return [k.t_s for k in detect_knocks(blocks, detector)]


#: `--gates`: score the hand-set gates alone (how the tables of audio/NOTEBOOK.md's
#: "Evaluation" section were made, before the learned classifier decided).
GATES_ONLY = False


def score_clips(
    clips: list[Clip], hearing: Hearing | None = None
) -> dict[tuple[str, str], ClassScore]:
    scores: dict[tuple[str, str], ClassScore] = {}
    for clip in clips:
        samples = load_samples(clip.path)
        detected = knock_times(samples, hearing)
        score = scores.setdefault((clip.kind, clip.cls), ClassScore(clip.kind, clip.cls))
        score.clips += 1
        score.seconds += len(samples) / DETECTOR_RATE_HZ
        score.labelled += len(clip.event_times_s)
        score.detected += len(detected)
        score.match.add(match_onsets(detected, clip.event_times_s))
    return scores


def _pct(numerator: int, denominator: int) -> str:
    return f"{100 * numerator / denominator:.1f}%" if denominator else "–"


def _ms(errors_s: list[float], how) -> str:
    return f"{1000 * how([abs(e) for e in errors_s]):.1f}" if errors_s else "–"


def _per_min(count: int, seconds: float) -> str:
    return f"{60 * count / seconds:.2f}" if seconds else "–"


def print_table(title: str, scores: dict[tuple[str, str], ClassScore]) -> None:
    print(f"\n### {title}\n")
    print(
        "| kind | class | clips | min | taps | knocks heard | recall | precision "
        "| onset err mean / median / worst (ms) | knocks/min |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
    order = ["knock", "hard_negative", "distractor", "background"]
    for score in sorted(scores.values(), key=lambda s: (order.index(s.kind), s.cls)):
        m = score.match
        is_knock = score.kind == "knock"
        matched = len(m.errors_s)
        print(
            f"| {score.kind} | {score.cls} | {score.clips} | {score.seconds / 60:.1f} "
            f"| {score.labelled or '–'} | {score.detected} "
            f"| {_pct(matched, score.labelled) if is_knock else '–'} "
            f"| {_pct(matched, score.detected) if is_knock else '–'} "
            f"| {_ms(m.errors_s, statistics.mean)} / {_ms(m.errors_s, statistics.median)} / "
            f"{_ms(m.errors_s, max)} | {_per_min(score.detected, score.seconds)} |"
        )
    _print_by_kind(scores)
    _print_overall(scores)


def _print_by_kind(scores: dict[tuple[str, str], ClassScore]) -> None:
    print("\n| kind | clips | min | taps | knocks heard | taps heard as knocks | knocks/min |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for kind in ["knock", "hard_negative", "distractor", "background"]:
        group = [s for s in scores.values() if s.kind == kind]
        if not group:
            continue
        seconds = sum(s.seconds for s in group)
        labelled = sum(s.labelled for s in group)
        matched = sum(len(s.match.errors_s) for s in group)
        detected = sum(s.detected for s in group)
        print(f"| {kind} | {sum(s.clips for s in group)} | {seconds / 60:.1f} | "
              f"{labelled or '–'} | {detected} | {_pct(matched, labelled)} | "
              f"{_per_min(detected, seconds)} |")


def _print_overall(scores: dict[tuple[str, str], ClassScore]) -> None:
    knock = [s for s in scores.values() if s.kind == "knock"]
    quiet = [s for s in scores.values() if s.kind in ("distractor", "background")]
    total = MatchResult()
    for s in knock:
        total.add(s.match)
    labelled = sum(s.labelled for s in knock)
    detected = sum(s.detected for s in knock)
    false = sum(s.detected for s in quiet)
    quiet_s = sum(s.seconds for s in quiet)
    print(
        f"\nOverall knuckle knocks: recall {_pct(len(total.errors_s), labelled)} "
        f"({len(total.errors_s)}/{labelled}), precision {_pct(len(total.errors_s), detected)}, "
        f"onset error mean {_ms(total.errors_s, statistics.mean)} ms, median "
        f"{_ms(total.errors_s, statistics.median)} ms, worst {_ms(total.errors_s, max)} ms."
    )
    print(
        f"False knocks on distractor + background clips: {false} in {quiet_s / 60:.1f} min "
        f"= {10 * 60 * false / quiet_s:.2f} per 10 min."
        if quiet_s
        else ""
    )


def print_snr_table(clips: list[Clip], hearing: Hearing | None = None) -> None:
    knocks = [c for c in clips if c.cls == "knuckle"]
    backgrounds = [c for c in clips if c.kind == "background"]
    excerpts = []
    for clip in knocks:
        excerpts += cut_excerpts(load_samples(clip.path), DETECTOR_RATE_HZ, clip.event_times_s)
    print("\n### Knocks mixed into background noise\n")
    print(
        f"Knocks: {', '.join(c.name for c in knocks)} ({len(excerpts)} excerpts); "
        f"backgrounds: {', '.join(c.name for c in backgrounds)}.\n"
    )
    print("| SNR (dB) | knocks placed | recall | false knocks/min | median onset err (ms) |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    background_samples = [load_samples(c.path) for c in backgrounds]
    for snr_db in SNRS_DB:
        total = MatchResult()
        seconds = 0.0
        for seed, background in enumerate(background_samples):
            mixture = mix_at_snr(excerpts, background, DETECTOR_RATE_HZ, snr_db, seed=seed)
            total.add(match_onsets(knock_times(mixture.samples, hearing), mixture.onsets_s))
            seconds += len(background) / DETECTOR_RATE_HZ
        placed = len(total.errors_s) + total.missed
        print(
            f"| {snr_db:+.0f} | {placed} | {_pct(len(total.errors_s), placed)} "
            f"| {_per_min(total.extra, seconds)} | {_ms(total.errors_s, statistics.median)} |"
        )


#: The rooms of --rooms (and of evaluation.tune_knocks): RT60 (s), direct-to-reverberant (dB).
ROOMS = ((0.4, 10.0), (0.8, 3.0), (0.3, 6.0))


def print_room_table(
    clips: list[Clip], hearing: Hearing | None = None, calibration: Clip | None = None
) -> None:
    """The split's knuckle knocks, and its distractors and backgrounds, as a microphone
    across the table hears them in reverberant rooms (`synth.sounds.reverberate`): with
    `hearing`, and with a profile calibrated in the same room on `calibration`'s first 5
    knocks (the protocol of `bruno calibrate mic --from`: 5 s of the clip's quiet level, then
    the knocks a second apart, through the room). The calibrated columns do not score the
    calibration clip (its first knocks taught the profile)."""
    knocks = [(c, load_samples(c.path)) for c in clips if c.cls == "knuckle"]
    quiet = [load_samples(c.path) for c in clips if c.kind in ("distractor", "background")]
    quiet_s = sum(len(q) for q in quiet) / DETECTOR_RATE_HZ
    recording = protocol_recording_of(calibration) if calibration else None
    print("\n### Knocks in reverberant rooms\n")
    if calibration:
        print(f"Calibrated: a profile measured on the first 5 knocks of {calibration.name} "
              "through the same room (that clip not scored in the calibrated columns).\n")
    print("| RT60 (s) | direct/reverberant (dB) | knuckle recall | median onset err (ms) "
          "| false knocks per 10 min (distractor + background) "
          "| calibrated: recall | calibrated: false per 10 min |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for rt60_s, direct_db in ROOMS:
        def room(samples, rt60_s=rt60_s, direct_db=direct_db):
            return reverberate(samples, DETECTOR_RATE_HZ, rt60_s, direct_db)

        roomy_knocks = [(clip, room(samples)) for clip, samples in knocks]
        roomy_quiet = [room(q) for q in quiet]
        cells = []
        setups = [(hearing, roomy_knocks)]
        if recording is not None:
            setups.append((calibrated_in(room(recording)),
                           [(c, x) for c, x in roomy_knocks if c is not calibration]))
        for which, (room_hearing, scored) in enumerate(setups):
            total = MatchResult()
            for clip, samples in scored:
                total.add(match_onsets(knock_times(samples, room_hearing), clip.event_times_s))
            false = sum(len(knock_times(q, room_hearing)) for q in roomy_quiet)
            placed = len(total.errors_s) + total.missed
            recall = f"{_pct(len(total.errors_s), placed)} ({len(total.errors_s)}/{placed})"
            errors = [] if which else [_ms(total.errors_s, statistics.median)]
            cells += [recall, *errors, f"{600 * false / quiet_s:.1f}"]
        if recording is None:
            cells += ["–", "–"]
        print(f"| {rt60_s:.1f} | {direct_db:+.0f} | " + " | ".join(cells) + " |")


def protocol_recording_of(clip: Clip) -> np.ndarray:
    """A calibration recording made of `clip`: its quiet level for 5 s, then its first 5
    knocks a second apart (the clip as recorded starts knocking inside the 5 quiet seconds
    the calibration asks for, and is refused)."""
    from evaluation.calibrated_knocks import protocol_recording, quietest_rms

    samples = load_samples(clip.path)
    return protocol_recording([(samples, t) for t in clip.event_times_s[:5]],
                              quietest_rms([samples]))


def calibrated_in(samples: np.ndarray) -> Hearing:
    from audio.calibration import measure_mic

    blocks = array_blocks(samples, DETECTOR_RATE_HZ, DETECTOR_RATE_HZ)
    return Hearing.of(measure_mic(blocks).profile)


#: Confidence thresholds compared by --operating-points.
MIN_CONFIDENCES = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)


def print_operating_points(clips: list[Clip], hearing: Hearing | None = None) -> None:
    """Recall and false knocks for several `min_confidence` values (each a full run)."""
    print("\n### Operating points (min_confidence)\n")
    print("| min confidence | knuckle recall | false knocks per 10 min (distractor + background) "
          "| hard negatives heard per min |")
    print("| ---: | ---: | ---: | ---: |")
    loaded = [(clip, load_samples(clip.path)) for clip in clips]
    for min_confidence in MIN_CONFIDENCES:
        params = DetectorParams(min_confidence=min_confidence)
        matched = labelled = false = hard = 0
        quiet_s = hard_s = 0.0
        for clip, samples in loaded:
            detected = knock_times(samples, hearing, params)
            seconds = len(samples) / DETECTOR_RATE_HZ
            if clip.kind == "knock":
                matched += len(match_onsets(detected, clip.event_times_s).errors_s)
                labelled += len(clip.event_times_s)
            elif clip.kind == "hard_negative":
                hard += len(detected)
                hard_s += seconds
            else:
                false += len(detected)
                quiet_s += seconds
        print(f"| {min_confidence:.1f} | {_pct(matched, labelled)} ({matched}/{labelled}) "
              f"| {600 * false / quiet_s:.1f} | {_per_min(hard, hard_s)} |")


def _hearing(profile: Path | None) -> Hearing:
    if profile is None:
        return Hearing()
    from calibration.profile import load_profile

    mic = load_profile(profile).mic
    if mic is None:
        raise ProfileError(f"{profile}: has no [mic] section")
    return Hearing.of(mic)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation.knocks", description=__doc__.split("\n")[0]
    )
    parser.add_argument("data_dir", type=Path, help="knocks-dev, or the folder holding it")
    parser.add_argument("--split", choices=["test", "tune", "all"], default="test")
    parser.add_argument("--snr", action="store_true", help="also score knocks mixed into noise")
    parser.add_argument("--rooms", action="store_true",
                        help="also score the knocks and quiet clips through reverberant rooms")
    parser.add_argument("--profile", type=Path, help="room profile with a calibrated [mic]")
    parser.add_argument("--operating-points", action="store_true",
                        help="also compare min_confidence values (slow: one run each)")
    parser.add_argument("--gates", action="store_true",
                        help="the hand-set gates alone (the detector without its classifier)")
    args = parser.parse_args(argv)
    global GATES_ONLY
    GATES_ONLY = args.gates
    try:
        clips = load_clips(args.data_dir)
        hearing = _hearing(args.profile)
    except (FileNotFoundError, ProfileError) as error:
        print(f"evaluation.knocks: error: {error}", file=sys.stderr)
        return 2
    if args.profile:
        print(f"Detector model from {args.profile}: {hearing}")
    groups = defaultdict(list)
    for clip in clips:
        groups[clip.split].append(clip)
    splits = ["tune", "test"] if args.split == "all" else [args.split]
    for split in splits:
        print_table(f"{split} split", score_clips(groups[split], hearing))
        if args.snr:
            print_snr_table(groups[split], hearing)
        if args.rooms:
            knuckle_train = [c for c in clips if c.name == "knuckle_train"]
            print_room_table(groups[split], hearing, knuckle_train[0] if knuckle_train else None)
        if args.operating_points:
            print_operating_points(groups[split], hearing)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
