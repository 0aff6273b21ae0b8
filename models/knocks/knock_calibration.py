"""`bruno calibrate mic` for the learned classifier: quiet, then 5 knocks -> RoomCalibration.

Why separate from knock_classifier.py: this part needs the onset stage (audio.detector) and
implements the protocol's refusals; the classifier itself stays a pure numpy+onnxruntime
module. Protocol (as calibration/mic.py): `QUIET_S` of quiet, then `KNOCKS` knocks.

Refusals (one line each, `CalibrationError`):
- the recording is shorter than the quiet part plus a second;
- the quiet part is not quiet: an onset there that the classifier calls a knock, or the quiet
  part is not at least `QUIET_MARGIN_DB` below the loudest onsets after it;
- fewer than `KNOCKS` clear knocks after the quiet part: onsets `MIN_STRENGTH_DB` over the
  floor that the classifier scores at least `near_floor` below its threshold (so 20 s of
  claps, or talk, is refused: the classifier does not hear them as knocks at all).
The result also says how clearly this table's knocks stand apart from the other onsets heard
(`RoomCalibration.separation`, in logits).
"""

from __future__ import annotations

import numpy as np

from audio.knock_classifier import KnockClassifier, RoomCalibration
from models.knocks.onset_stage import find_onsets

RATE_HZ = 16_000
QUIET_S = 5.0
KNOCKS = 5
MIN_STRENGTH_DB = 15.0  # the detector's default level gate
QUIET_MARGIN_DB = 10.0


class CalibrationError(Exception):
    """The recording does not follow the protocol. One line for people."""


def calibrate_room(samples: np.ndarray, classifier: KnockClassifier,
                   quiet_s: float = QUIET_S, knocks: int = KNOCKS) -> RoomCalibration:
    """The room's calibration from a 16 kHz recording of the protocol."""
    seconds = len(samples) / RATE_HZ
    if seconds < quiet_s + 1.0:
        raise CalibrationError(f"the recording is {seconds:.1f} s long; the protocol is "
                               f"{quiet_s:g} s of quiet, then {knocks} knocks a second apart")
    # The stream's first 0.3 s: the onset stage starts from silence and may fire there.
    onsets = [o for o in find_onsets(samples, block_samples=4000) if o.t_s >= 0.3]
    verdicts = [(o, classifier.judge(samples, round(o.t_s * RATE_HZ), o.features))
                for o in onsets]
    quiet = [(o, v) for o, v in verdicts if o.t_s < quiet_s]
    rest = [(o, v) for o, v in verdicts if o.t_s >= quiet_s]
    if any(classifier.is_knock(v)[0] for _, v in quiet):
        raise CalibrationError(f"the first {quiet_s:g} s are not quiet (a knock-like sound was "
                               "heard); start the recording with silence")
    floor = float(np.percentile(_frame_levels(samples[: round(quiet_s * RATE_HZ)]), 20))
    loud = max((o.strength_db for o, _ in rest), default=0.0)
    quiet_peak = float(np.max(_frame_levels(samples[: round(quiet_s * RATE_HZ)])))
    rest_peak = floor + loud
    if quiet_peak > rest_peak - QUIET_MARGIN_DB:
        raise CalibrationError(f"the first {quiet_s:g} s are about as loud as the knocks; "
                               "start the recording with silence")
    near_floor = classifier.calibration_params.get("near_floor", 3.0)
    clear = [(o, v) for o, v in rest if o.strength_db >= MIN_STRENGTH_DB
             and v.logit >= classifier.threshold - near_floor]
    if len(clear) < knocks:
        raise CalibrationError(f"heard {len(clear)} clear knocks after the quiet part, need "
                               f"{knocks}; knock {knocks} times firmly on the table, about a "
                               "second apart")
    chosen = sorted(clear, key=lambda ov: ov[1].logit, reverse=True)[:knocks]
    chosen_ids = {id(o) for o, _ in chosen}
    others = [v for o, v in verdicts if id(o) not in chosen_ids]
    return classifier.calibrate([v for _, v in chosen], others)


def _frame_levels(x: np.ndarray, window: int = 256, hop: int = 80) -> np.ndarray:
    """Frame levels in dB (16 ms Hann frames, 5 ms hop), as the detector measures them."""
    if len(x) < window:
        x = np.pad(x, (0, window - len(x)))
    starts = np.arange(0, len(x) - window + 1, hop)
    w = np.hanning(window)
    frames = x[starts[:, None] + np.arange(window)] * (w / w.sum() * 2)
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    return 10 * np.log10(power.sum(axis=1) + 1e-10)
