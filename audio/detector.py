"""The streaming knock detector: blocks in, `HeardKnock`s out.

It is causal and keeps small state: every frame is a window of the most recent samples, so
the knocks found do not depend on how the samples were cut into blocks. Per frame (hop
`hop_s`) it computes the level and the spectral flux in log-spaced bands (the onset
function); an onset is a frame whose flux beats an adaptive threshold (median + k·MAD of
the last second) while the level stands clear of the noise floor (a low percentile of the
last seconds' levels). The detector then listens `decay_window_s` past the loudest frame and
measures the onset's features (`audio.knock_score.OnsetFeatures`). Whether the onset is a
knock is the learned classifier's verdict (`audio.knock_classifier`, models/knocks.onnx) on
a short window around it, given once `post_s` (40 ms) after the onset has been heard; only
when that model is not installed do the hand-set shape gates of `audio.knock_score` decide.
A knock's `t_s` is its onset, found to the sample on the waveform, not the moment it was
decided (`decided_at_s`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace

import numpy as np

from audio.blocks import AudioBlock
from audio.knock_classifier import KnockClassifier, RoomCalibration, default_classifier
from audio.knock_score import KnockModel, OnsetFeatures, knock_confidence
from audio.mute import MuteWindows
from audio.spectral import (
    HIGH_BAND_HZ,
    FrameAnalyser,
    centroid_hz,
    flatness,
    levels_db,
    log_power_db,
    spectral_flux_db,
)
from referee.events import Knock

#: The rate the detector works at. Every source is resampled to it. 16 kHz keeps all of a
#: knock's energy (measured knuckle knocks: centroid 300-1300 Hz) and is the lowest rate in
#: the dev data, so every clip is analysed with the same band.
DETECTOR_RATE_HZ = 16_000


@dataclass(frozen=True)
class DetectorParams:
    """Every tunable of the detector, with its unit in the name.

    Defaults were chosen on the *tune* split of knocks-dev (`evaluation.knock_data`): the
    knuckle_train clip, the *_train hard negatives, clap/laugh/cough takes 0 and 1, and the
    dude_miaowing and running_tap backgrounds. Two design choices were revisited after the
    test split had been looked at; `audio/NOTEBOOK.md` says which and gives both numbers.
    """

    #: Frame length: 256 samples at 16 kHz = 16 ms, long enough to see 125 Hz resolution.
    window_s: float = 0.016
    #: Hop between frames: 5 ms, so an onset is located to within a few ms before refinement.
    hop_s: float = 0.005
    #: The flux compares a frame with the one this long before: 10 ms, a knuckle's rise time.
    flux_lag_s: float = 0.010
    #: The flux is measured in this many log-spaced bands between `flux_low_hz` and
    #: `flux_high_hz`; 0 means per FFT bin.
    flux_bands: int = 16
    flux_low_hz: float = 100.0
    flux_high_hz: float = 7_900.0
    #: Average only the largest rises of this many bands (0: all).
    flux_top_bands: int = 4
    #: Past the adaptive threshold runs over: 1 s of onset-function values.
    threshold_history_s: float = 1.0
    #: k in median + k·MAD (MAD scaled to a standard deviation).
    threshold_k: float = 4.0
    #: The threshold never drops below this mean rise of the top bands, in dB (quiet rooms).
    min_flux_db: float = 6.0
    #: Noise floor: this percentile of the frame levels of the last `floor_history_s` seconds.
    floor_percentile: float = 20.0
    floor_history_s: float = 3.0
    #: After a knock, no other onset for this long: a knock rings for about 50-80 ms.
    refractory_s: float = 0.08
    #: While an onset is watched, a new onset this many dB louder than its peak so far, and
    #: at least `rise_s` after it, takes its place (a knock during a laugh is not lost).
    new_onset_jump_db: float = 6.0
    rise_s: float = 0.015
    #: The decay is measured over this long after the loudest frame; the detector decides
    #: then. A knuckle peaks 5-10 ms after its onset, so decisions come 25-30 ms after it.
    decay_window_s: float = 0.020
    #: The latest a decision comes after the onset, for sounds that keep swelling.
    max_decision_delay_s: float = 0.060
    #: The hand-set gates (used only without the learned classifier): knocks whose
    #: confidence is below this are dropped.
    min_confidence: float = 0.5
    #: The learned classifier's line: an onset is a knock when its logit reaches this (the
    #: knock's confidence is 0.5 on the line). 0 (p = 0.5) was fixed before the classifier's
    #: leave-one-source-out validation; models/knocks/REPORT.md gives what higher lines
    #: chosen on the training sources cost in recall.
    knock_logit: float = 0.0
    #: Where the refined onset is placed: where the waveform's envelope first reaches this
    #: fraction of the peak envelope (0.1 = -20 dB below the peak).
    onset_envelope_fraction: float = 0.1


@dataclass(frozen=True)
class HeardKnock:
    """A knock heard at `t_s` (onset, session clock) with `strength_db` above the noise floor,
    with what the detector measured of it (for calibration and tuning). What the rest of the
    system is told is its `event()`."""

    t_s: float
    strength_db: float
    confidence: float
    features: OnsetFeatures | None = None
    decided_at_s: float | None = None

    def event(self) -> Knock:
        """The knock as the referee's event, rounded as the event log writes it."""
        return Knock(round(self.t_s, 3), strength=round(self.strength_db, 1),
                     confidence=round(self.confidence, 2))


class _Ring:
    """The last `size` floats (or rows of `width` floats), in no particular order (enough
    for medians and percentiles)."""

    def __init__(self, size: int, width: int = 0) -> None:
        self._data = np.zeros((size, width) if width else size)
        self.count = 0

    def push(self, value) -> None:
        self._data[self.count % len(self._data)] = value
        self.count += 1

    def values(self) -> np.ndarray:
        return self._data[: min(self.count, len(self._data))]


@dataclass
class _Pending:
    onset_frame: int
    onset_end_sample: int
    pre_level_db: float
    pre_power: np.ndarray
    floor_db: float
    flux_db: float
    peak_level_db: float = -np.inf
    peak_frame: int = 0
    peak_power: np.ndarray | None = None
    last_level_db: float = -np.inf
    high_floor_db: float = 0.0
    last_high_db: float = 0.0
    peak_high_db: float = -np.inf
    low_floor_db: float = 0.0
    last_low_db: float = 0.0


@dataclass
class KnockDetector:
    """Feed `process(block)` with `AudioBlock`s at `DETECTOR_RATE_HZ`; call `finish()` at the end.

    `model` describes what a knock sounds like (from a room profile, or the defaults);
    `mute` holds time ranges to ignore; `keep_rejected` keeps the onsets that were not
    judged knocks in `rejected` (for evaluation and calibration).
    """

    params: DetectorParams = field(default_factory=DetectorParams)
    model: KnockModel = field(default_factory=KnockModel)
    mute: MuteWindows = field(default_factory=MuteWindows)
    rate_hz: int = DETECTOR_RATE_HZ
    keep_rejected: bool = False
    classifier: KnockClassifier | None = field(default_factory=default_classifier)
    """The learned judge of every onset (None: the hand-set gates decide instead)."""
    room: RoomCalibration | None = None
    """What this table's calibration knocks taught the classifier (`audio.calibration
    .room_calibration_for`): onsets that sound like them pass from a lower logit."""

    def __post_init__(self) -> None:
        p = self.params
        self._window = round(p.window_s * self.rate_hz)
        self._hop = round(p.hop_s * self.rate_hz)
        self._lag = max(1, round(p.flux_lag_s / p.hop_s))
        self._decay_frames = max(1, round(p.decay_window_s / p.hop_s))
        self._max_decision_frames = max(1, round(p.max_decision_delay_s / p.hop_s))
        self._refractory_frames = round(p.refractory_s / p.hop_s)
        self._analyser = FrameAnalyser(self.rate_hz, self._window)
        self._window_index = np.arange(self._window)
        self._bands = (
            self._analyser.band_matrix(p.flux_bands, p.flux_low_hz, p.flux_high_hz)
            if p.flux_bands
            else None
        )
        # Enough history for the onset's refinement and for the classifier's patch (from
        # before the onset to after it, judged up to a few frames later).
        self._keep_samples = self._window + round(0.3 * self.rate_hz)
        self._deferred: list[HeardKnock] = []
        """Onsets waiting for the classifier's window after the onset to be heard."""
        self._last_knock_s = -np.inf  # the last knock's onset (refractory for judged onsets)
        self._recent = np.zeros(self._window, dtype=np.float32)  # zeros before the start
        self._recent_start = -self._window  # absolute sample index of _recent[0]
        self._next_frame_end = self._hop
        self._frame = 0
        self._t0_s: float | None = None
        n_bands = p.flux_bands or len(self._analyser.freqs_hz)
        self._log_tail = np.zeros((0, n_bands))  # the last `lag` frames' log band powers
        self._levels: deque[float] = deque(maxlen=self._lag + 1)
        self._powers: deque[np.ndarray] = deque(maxlen=self._lag + 1)
        self._flux_history = _Ring(round(p.threshold_history_s / p.hop_s))
        # Per frame: the level, and the levels above and below HIGH_BAND_HZ (the room's
        # floor and its floors in those bands are percentiles of these, computed together).
        self._level_history = _Ring(round(p.floor_history_s / p.hop_s), width=3)
        self._threshold_db = p.min_flux_db
        self._floor_db = self.model.noise_floor_db
        self._last_knock_frame = -(10**9)
        self._rise_frames = max(1, round(p.rise_s / p.hop_s))
        self._pending: _Pending | None = None
        # The first FFT bin at or above HIGH_BAND_HZ (bins rise, so the band is a slice).
        self._high_start = int(np.searchsorted(self._analyser.freqs_hz, HIGH_BAND_HZ))
        self._high_floor_db: float | None = None
        self._low_floor_db: float | None = None
        self.rejected: list[HeardKnock] = []

    # -- public -------------------------------------------------------------------------

    def process(self, block: AudioBlock) -> list[HeardKnock]:
        """Analyse one block; returns the knocks decided while doing so (usually none)."""
        if block.rate_hz != self.rate_hz:
            raise ValueError(f"detector runs at {self.rate_hz} Hz, block is {block.rate_hz} Hz")
        if self._t0_s is None:
            self._t0_s = block.t_s
        self._recent = np.concatenate([self._recent, np.asarray(block.samples, np.float32)])
        end = self._recent_start + len(self._recent)
        knocks: list[HeardKnock] = []
        n_frames = max(0, (end - self._next_frame_end) // self._hop + 1)
        if n_frames:
            # Spectra of all the block's frames at once (numpy is fast per call, slow per
            # frame); the state machine below then walks them one by one.
            starts = self._next_frame_end - self._window - self._recent_start
            starts = starts + self._hop * np.arange(n_frames)
            powers = self._analyser.power(self._recent[starts[:, None] + self._window_index])
            levels = levels_db(powers)
            logs = log_power_db(powers if self._bands is None else powers @ self._bands.T)
            fluxes = self._fluxes(logs)
            highs = levels_db(powers[:, self._high_start :]).tolist()
            lows = levels_db(powers[:, : self._high_start]).tolist()
            for power, level, flux, high, low in zip(
                powers, levels.tolist(), fluxes.tolist(), highs, lows, strict=True
            ):
                knocks += self._on_frame(power, level, flux, high, low)
                if self._deferred:
                    knocks += self._judge_deferred(self._next_frame_end)
                self._next_frame_end += self._hop
                self._frame += 1
        drop = max(0, len(self._recent) - self._keep_samples)
        self._recent = self._recent[drop:]
        self._recent_start += drop
        return knocks

    def finish(self) -> list[HeardKnock]:
        """Decide an onset still being watched at the end of the input (and those waiting for
        the classifier, with what there is)."""
        knocks: list[HeardKnock] = []
        if self._pending is not None:
            knock = self._decide(self._pending)
            self._pending = None
            knocks += [knock] if knock is not None else []
        return knocks + (self._judge_deferred(None) if self._deferred else [])

    # -- per frame ----------------------------------------------------------------------

    def _fluxes(self, logs: np.ndarray) -> np.ndarray:
        """The onset function of each new frame, against the frame `flux_lag_s` before it."""
        every = np.concatenate([self._log_tail, logs])
        fluxes = np.zeros(len(logs))
        first = max(0, self._lag - len(self._log_tail))  # no frame that far back yet: 0
        if first < len(logs):
            now = every[len(self._log_tail) + first :]
            before = every[len(self._log_tail) + first - self._lag : len(every) - self._lag]
            fluxes[first:] = spectral_flux_db(now, before, self.params.flux_top_bands)
        self._log_tail = every[-self._lag :]
        return fluxes

    def _on_frame(
        self, power: np.ndarray, level: float, flux: float, high: float, low: float
    ) -> list[HeardKnock]:
        pre_level = self._levels[0] if self._levels else level
        pre_power = self._powers[0] if self._powers else np.zeros_like(power)
        self._levels.append(level)
        self._powers.append(power)
        self._update_floors(level, high, low)
        self._update_threshold(flux)
        is_onset = (
            flux > self._threshold_db
            # Half the knock strength at the first frame: the peak comes a few ms later.
            and level - self._floor_db >= self.model.min_strength_db * 0.5
            and self._frame - self._last_knock_frame >= self._refractory_frames
        )
        pending = self._pending
        if pending is not None:
            if not (is_onset and self._interrupts(pending, level)):
                return self._watch(pending, level, power, high, low)
            # A louder onset while one is being watched: a knock during a laugh, or a knock
            # that strikes in two steps. Watch the new onset, but measure its jump and added
            # spectrum from before the first one, so the first step cannot hide the second.
            pre_level = min(pre_level, pending.pre_level_db)
            pre_power = np.minimum(pre_power, pending.pre_power)
        if not is_onset:
            return []
        self._pending = _Pending(
            onset_frame=self._frame,
            onset_end_sample=self._next_frame_end,
            pre_level_db=pre_level,
            pre_power=pre_power,
            floor_db=self._floor_db,
            flux_db=flux,
            high_floor_db=self._high_floor_db,
            low_floor_db=self._low_floor_db,
        )
        return self._watch(self._pending, level, power, high, low)

    def _interrupts(self, pending: _Pending, level: float) -> bool:
        """Whether an onset is a new event rather than the rise of the one being watched."""
        settled = self._frame - pending.onset_frame >= self._rise_frames
        return settled and level > pending.peak_level_db + self.params.new_onset_jump_db

    def _keep(self, knock: HeardKnock | None) -> list[HeardKnock]:
        if knock is None:
            return []
        self._last_knock_frame = self._frame
        return [knock]

    def _watch(
        self, pending: _Pending, level: float, power: np.ndarray, high: float, low: float
    ) -> list[HeardKnock]:
        if level > pending.peak_level_db:
            pending.peak_level_db = level
            pending.peak_frame = self._frame
            pending.peak_power = power
        pending.last_level_db = level
        pending.last_high_db = high
        pending.peak_high_db = max(pending.peak_high_db, high)
        pending.last_low_db = low
        waited = self._frame - pending.onset_frame
        if self._frame - pending.peak_frame < self._decay_frames and (
            waited < self._max_decision_frames
        ):
            return []
        self._pending = None
        return self._keep(self._decide(pending))

    def _update_floors(self, level: float, high: float, low: float) -> None:
        self._level_history.push((level, high, low))
        # Re-estimated every 20 frames (100 ms): the floors move slowly and this keeps the
        # cost negligible. A profile's floor is trusted until 0.5 s of sound has been heard;
        # the room's level above and below HIGH_BAND_HZ is estimated from the first frame.
        if self._frame % 20 == 0 or self._high_floor_db is None:
            floors = np.percentile(
                self._level_history.values(), self.params.floor_percentile, axis=0
            )
            self._high_floor_db, self._low_floor_db = float(floors[1]), float(floors[2])
            heard_enough = (
                self._level_history.count * self.params.hop_s >= 0.5
                or self.model.noise_floor_db is None
            )
            if self._frame % 20 == 0 and heard_enough:
                self._floor_db = float(floors[0])
        if self._floor_db is None:
            self._floor_db = level

    def _update_threshold(self, flux: float) -> None:
        self._flux_history.push(flux)
        if self._frame % 10:  # every 50 ms is plenty; the medians are the costly part
            return
        history = self._flux_history.values()
        median = float(np.median(history))
        mad = 1.4826 * float(np.median(np.abs(history - median)))
        self._threshold_db = max(self.params.min_flux_db, median + self.params.threshold_k * mad)

    # -- decision -----------------------------------------------------------------------

    def _decide(self, pending: _Pending) -> HeardKnock | None:
        # Shape features use what the onset added to the sound just before it, so a steady
        # background (a fan, a running tap) does not blur a knock's spectrum.
        added = np.maximum(pending.peak_power - pending.pre_power, 0.0)
        onset_s, attack_s = self._refine_onset(pending)
        features = OnsetFeatures(
            attack_ms=1000 * attack_s,
            strength_db=pending.peak_level_db - pending.floor_db,
            pre_level_db=pending.pre_level_db - pending.floor_db,
            decay_db=pending.peak_level_db - pending.last_level_db,
            flux_db=pending.flux_db,
            centroid_hz=centroid_hz(added, self._analyser.freqs_hz),
            flatness=flatness(added),
            floor_db=pending.floor_db,
            ring_high_db=pending.last_high_db - pending.high_floor_db,
            ring_low_db=pending.last_low_db - pending.low_floor_db,
            high_peak_db=pending.peak_high_db - pending.high_floor_db,
        )
        decided_at_s = self._time_of_sample(self._next_frame_end)
        muted = self.mute.is_muted(onset_s)
        if self.classifier is None or self.model.from_table:
            # The hand-set gates: alone when the learned model is not installed, and beside it
            # when a room profile fitted them to this table's own calibration knocks (then
            # they describe this table, not the one device they were first drawn from; with
            # them, every calibrated left-out source hears 100 % of its later knocks, against
            # 77.4 % for the worst with the classifier alone: audio/README.md).
            confidence = knock_confidence(features, self.model)
            knock = HeardKnock(onset_s, features.strength_db, confidence, features, decided_at_s)
            if confidence >= self.params.min_confidence and not muted:
                self._last_knock_s = onset_s
                return knock
            if self.classifier is None:
                if self.keep_rejected:
                    self.rejected.append(knock)
                return None
        knock = HeardKnock(onset_s, features.strength_db, 0.0, features, decided_at_s)
        # A room profile's level gate holds: calibrated on this table's knocks, it refuses
        # sounds far quieter than they are.
        level_db = features.floor_db + features.strength_db
        loud_enough = self.model.min_level_db is None or level_db >= self.model.min_level_db
        if not muted and loud_enough:
            # The classifier needs the sound up to its window's end after the onset: judged
            # a little later (`_judge_deferred`).
            self._deferred.append(knock)
        elif self.keep_rejected:
            self.rejected.append(knock)
        return None

    def _judge_deferred(self, frame_end: int | None) -> list[HeardKnock]:
        """The classifier's verdicts on the onsets whose window has been heard up to
        `frame_end` (an absolute sample index; None: the input ended, judge them all)."""
        assert self.classifier is not None
        spec = self.classifier.spec
        knocks: list[HeardKnock] = []
        while self._deferred:
            knock = self._deferred[0]
            onset = round((knock.t_s - (self._t0_s or 0.0)) * self.rate_hz)
            if frame_end is not None and onset + spec.n_post > frame_end:
                break  # (in onset order: the later ones are not ready either)
            self._deferred.pop(0)
            # Up to the window's end (at the end of the input, what there is: zeros after it).
            heard = self._recent[: max(0, onset + spec.n_post - self._recent_start)]
            verdict = self.classifier.judge(heard, onset - self._recent_start, knock.features)
            margin = verdict.logit - self.params.knock_logit if self.room is None \
                else self.room.margin(verdict, line=self.params.knock_logit)
            confidence = float(1.0 / (1.0 + np.exp(-np.clip(margin, -60.0, 60.0))))
            # An onset found while an earlier one waited for its verdict is inside that
            # knock's refractory time once the earlier one is a knock (a knock's own ring).
            ringing = knock.t_s - self._last_knock_s < self.params.refractory_s
            if margin >= 0 and not ringing:
                decided = knock.decided_at_s if frame_end is None else \
                    self._time_of_sample(frame_end)
                self._last_knock_s = knock.t_s
                knocks += self._keep(replace(knock, confidence=confidence,
                                             decided_at_s=decided))
            elif self.keep_rejected:
                self.rejected.append(replace(knock, confidence=confidence))
        return knocks

    def _refine_onset(self, pending: _Pending) -> tuple[float, float]:
        """(onset time, attack in s): walk back from the envelope's peak to where it was small.

        The attack is the time from that onset to the peak; a knuckle's is a few ms, a voice
        takes longer to swell.
        """
        peak_end = pending.onset_end_sample + (pending.peak_frame - pending.onset_frame) * self._hop
        start = pending.onset_end_sample - self._window - round(0.010 * self.rate_hz)
        lo = max(0, start - self._recent_start)
        hi = max(lo + 1, peak_end - self._recent_start)
        segment = np.abs(self._recent[lo:hi])
        smooth = max(1, round(0.001 * self.rate_hz))  # 1 ms envelope
        envelope = np.convolve(segment, np.ones(smooth) / smooth, mode="same")
        if len(envelope) == 0 or envelope.max() <= 0:
            return self._time_of_sample(pending.onset_end_sample - self._window // 2), 0.0
        peak_index = int(np.argmax(envelope))
        threshold = self.params.onset_envelope_fraction * envelope[peak_index]
        below = np.nonzero(envelope[: peak_index + 1] < threshold)[0]
        first = int(below[-1] + 1) if len(below) else 0
        onset_s = self._time_of_sample(self._recent_start + lo + first)
        return onset_s, (peak_index - first) / self.rate_hz

    def _time_of_sample(self, index: int) -> float:
        return (self._t0_s or 0.0) + index / self.rate_hz


def detect_knocks(
    blocks: Iterable[AudioBlock], detector: KnockDetector | None = None
) -> Iterator[HeardKnock]:
    """Every knock in a stream of blocks, in time order, as they are decided."""
    detector = detector or KnockDetector()
    for block in blocks:
        yield from detector.process(block)
    yield from detector.finish()
