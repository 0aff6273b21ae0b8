"""Is this onset a knock? A small learned classifier run on each onset the detector finds.

Why: the detector's seven hand-set shape gates (attack, centroid, decay, flatness, ring, ...)
were drawn from one device's 45 knuckle taps and hear almost nothing on other tables and
microphones (issue 20). The streaming onset stage stays (its timing is good); what it finds is
judged here from a short log-mel patch around the onset by a CNN trained on many sources with
heavy augmentation (train_knocks.py), shipped as ONNX and run by onnxruntime.

Runtime needs only numpy and onnxruntime (no torch, librosa or scipy).

Sample rate: the patch is computed from the detector's own 16 kHz stream
(`audio.detector.DETECTOR_RATE_HZ`); every source (48 kHz microphones, 44.1 kHz files, AAC
sound tracks) has already been resampled to it by `audio.blocks.conform`, so the classifier sees
exactly what the onset stage saw and needs no resampler of its own. 16 kHz keeps everything a
knock has (energy mostly below 2 kHz, the strike's click up to ~6 kHz).

Window: `PRE_S` before the onset (context: the room just before, which the onset must cut
through) and `POST_S` after it. The detector must wait for `POST_S` of audio after the onset
before it can decide, so POST_S sets the latency (onset to event <= POST_S + one block; the
budget is 60 ms with 10 ms blocks). The values are stored in the ONNX file's metadata and read
from there, so the model and its features can never disagree.

Inputs: the patch, and the onset stage's own 9 measurements of the onset (`OnsetFeatures`,
see FEATURE_NAMES), which the detector has at its decision anyway.

Calibration (`calibrate`): from 5 knocks of the room, the mean of their embeddings (a
prototype, 16 numbers) and a threshold; onsets that sound like *this table's* knocks
(cosine similarity to the prototype at least `min_similarity`) are accepted at a lower
threshold. Everything it needs fits in a room profile as a few numbers
(`RoomCalibration.to_dict`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np


def _model_path() -> Path:
    """Where the installed `models` package keeps knocks.onnx (package data, as cards.onnx)."""
    try:
        return Path(str(resources.files("models").joinpath("knocks.onnx")))
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[1] / "models" / "knocks.onnx"


#: The shipped model (trained by `python -m models.knocks.train_knocks`).
DEFAULT_MODEL_PATH = _model_path()


@dataclass(frozen=True)
class PatchSpec:
    """How the log-mel patch is computed (stored in the model's metadata)."""

    rate_hz: int = 16_000
    pre_s: float = 0.100
    post_s: float = 0.040
    window: int = 320  # 20 ms Hann frames
    hop: int = 80  # every 5 ms
    n_fft: int = 512
    n_mels: int = 40
    fmin_hz: float = 50.0
    fmax_hz: float = 8_000.0
    floor_db: float = -80.0  # below the patch's loudest bin
    #: Leading frames whose per-band median power is taken as the room's sound and subtracted
    #: from every frame before the dB step (0: none). A knock in a noisy room then looks like
    #: the same knock in a quiet one.
    denoise_frames: int = 0

    @property
    def n_pre(self) -> int:
        return round(self.pre_s * self.rate_hz)

    @property
    def n_post(self) -> int:
        return round(self.post_s * self.rate_hz)

    @property
    def n_frames(self) -> int:
        return (self.n_pre + self.n_post - self.window) // self.hop + 1


@lru_cache(maxsize=8)
def _mel_matrix(spec: PatchSpec) -> np.ndarray:
    """(n_mels, n_fft//2+1) triangular mel filters (HTK mel scale), area-normalised."""
    def mel(f):
        return 2595.0 * np.log10(1.0 + np.asarray(f) / 700.0)

    def hz(m):
        return 700.0 * (10 ** (np.asarray(m) / 2595.0) - 1.0)

    freqs = np.fft.rfftfreq(spec.n_fft, 1.0 / spec.rate_hz)
    edges = hz(np.linspace(mel(spec.fmin_hz), mel(min(spec.fmax_hz, spec.rate_hz / 2)),
                           spec.n_mels + 2))
    bank = np.zeros((spec.n_mels, len(freqs)))
    for m in range(spec.n_mels):
        lo, mid, hi = edges[m], edges[m + 1], edges[m + 2]
        rise = (freqs - lo) / max(mid - lo, 1e-9)
        fall = (hi - freqs) / max(hi - mid, 1e-9)
        bank[m] = np.maximum(0.0, np.minimum(rise, fall))
        if bank[m].sum() == 0:  # narrower than a bin: take the nearest bin
            bank[m, np.argmin(np.abs(freqs - mid))] = 1.0
        bank[m] /= bank[m].sum()
    return bank.astype(np.float32)


@lru_cache(maxsize=8)
def _hann(window: int) -> np.ndarray:
    return np.hanning(window).astype(np.float32)


def onset_window(samples: np.ndarray, onset_index: int, spec: PatchSpec) -> np.ndarray:
    """The `pre_s + post_s` samples around `onset_index` (zeros where the track has none)."""
    start = onset_index - spec.n_pre
    out = np.zeros(spec.n_pre + spec.n_post, np.float32)
    lo, hi = max(0, start), min(len(samples), onset_index + spec.n_post)
    if hi > lo:
        out[lo - start: hi - start] = samples[lo:hi]
    return out


#: What a denoised bin keeps of its power at least (-17 dB).
DENOISE_FLOOR = 0.02


def log_mel_patch(window_samples: np.ndarray, spec: PatchSpec) -> np.ndarray:
    """(n_mels, n_frames) float32 log-mel patch of one onset window, level-free.

    dB relative to the patch's loudest mel bin, floored at `floor_db`, scaled to about
    -1..0 (divided by -floor_db): a knock is a knock however loud the microphone is; how far
    it stands above the room is still visible in the pre-onset frames.
    """
    x = np.asarray(window_samples, np.float32)
    idx = np.arange(spec.window)[None, :] + spec.hop * np.arange(spec.n_frames)[:, None]
    frames = x[idx] * _hann(spec.window)
    spectrum = np.fft.rfft(frames, n=spec.n_fft, axis=1)
    power = spectrum.real ** 2 + spectrum.imag ** 2
    mel = _mel_matrix(spec) @ power.T.astype(np.float32)
    if spec.denoise_frames:
        room = np.median(mel[:, :spec.denoise_frames], axis=1, keepdims=True)
        # Keep a little of each bin (a spectral floor) so that no bin is left empty.
        mel = np.maximum(mel - room, DENOISE_FLOOR * mel)
    db = 10.0 * np.log10(mel + 1e-12)
    db = np.maximum(db - db.max(), spec.floor_db)
    return (db / -spec.floor_db).astype(np.float32)


#: The onset stage's own measurements (audio.knock_score.OnsetFeatures) that the model also
#: sees, each scaled to about -1..1 and clipped to +-3: how far the onset stands over the room
#: and over the sound just before it (the old level gates), and the old shape features
#: (decay, attack, centroid, flatness, the ring above / below 2 kHz). The old gates drew fixed
#: boundaries on them from one device; here they are learned, with the patch, on many.
FEATURE_NAMES = ("strength", "jump", "decay", "attack", "centroid", "flatness", "ring_high",
                 "ring_low", "high_drop")


def onset_feature_vector(f) -> np.ndarray:
    """(9,) float32 from an `OnsetFeatures` (see FEATURE_NAMES); zeros when None."""
    if f is None:
        return np.zeros(len(FEATURE_NAMES), np.float32)
    v = np.array([
        f.strength_db / 40.0,
        (f.strength_db - f.pre_level_db) / 40.0,
        f.decay_db / 20.0,
        f.attack_ms / 10.0,
        np.log2(max(f.centroid_hz, 50.0) / 500.0) / 2.0,
        np.log10(max(f.flatness, 1e-4)) / 2.0 + 1.0,
        f.ring_high_db / 20.0,
        f.ring_low_db / 40.0,
        (f.high_peak_db - f.ring_high_db) / 20.0,
    ], np.float32)
    return np.clip(np.nan_to_num(v), -3.0, 3.0)


@dataclass(frozen=True)
class Verdict:
    """The classifier's view of one onset."""

    logit: float
    embedding: np.ndarray  # L2-normalised

    @property
    def probability(self) -> float:
        return float(1.0 / (1.0 + np.exp(-np.clip(self.logit, -60, 60))))


@dataclass(frozen=True)
class RoomCalibration:
    """What 5 knocks of the room taught the classifier; a few numbers for the room profile.

    An onset is a knock when its logit >= `threshold`, or when it also sounds like this
    table's knocks (cosine similarity to `prototype` >= `min_similarity`) and its logit is
    >= `near_threshold` (lower: this table's knocks may be quiet, dull or far away).
    Calibration only ever adds knocks: an onset the default line accepts is a knock however
    unlike the five it sounds, since other players at the table knock with other knuckles,
    fingers or a pen, and a knock not heard is a wrongful penalty (audio/README.md).
    """

    prototype: tuple[float, ...]
    min_similarity: float
    threshold: float
    near_threshold: float
    separation: float  # how clearly the knocks stand apart (see `calibrate`)

    def margin(self, verdict: Verdict, line: float | None = None) -> float:
        """How far (in logits) `verdict` is over this room's line (negative: under it):
        `line` (default `threshold`) for most onsets, lowered for one like this table's
        knocks. A `line` other than the one the room was calibrated at moves the near bar by
        the difference (it was set relative to that line)."""
        shift = 0.0 if line is None else line - self.threshold
        logit = verdict.logit - shift
        margin = logit - self.threshold
        similarity = float(np.dot(verdict.embedding, np.asarray(self.prototype)))
        if similarity >= self.min_similarity:
            margin = max(margin, logit - self.near_threshold)
        return margin

    def to_dict(self) -> dict:
        d = asdict(self)
        d["prototype"] = [round(v, 4) for v in self.prototype]
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in d.items()}

    @classmethod
    def from_dict(cls, d: dict) -> RoomCalibration:
        # (Profiles written on 4-5 December also hold a higher "far" line for sounds unlike
        # the five knocks; it refused other players' real knocks and is ignored.)
        return cls(tuple(float(v) for v in d["prototype"]), float(d["min_similarity"]),
                   float(d["threshold"]), float(d["near_threshold"]), float(d["separation"]))


@lru_cache(maxsize=1)
def _shipped() -> KnockClassifier | None:
    return KnockClassifier() if DEFAULT_MODEL_PATH.is_file() else None


def default_classifier() -> KnockClassifier | None:
    """The shipped model (one session per process, shared by every detector: a detector runs
    in one thread), or None when it is not installed."""
    return _shipped()


class KnockClassifier:
    """The ONNX knock model and its features. One instance per detector; not thread-safe."""

    def __init__(self, model_path: str | Path = DEFAULT_MODEL_PATH, threads: int = 1) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(str(model_path), options,
                                             providers=["CPUExecutionProvider"])
        meta = self._session.get_modelmeta().custom_metadata_map
        self.spec = PatchSpec(**json.loads(meta["patch_spec"]))
        #: The logit above which an onset is a knock without calibration (chosen in training
        #: on the training sources only, see train_knocks.py).
        self.threshold = float(meta.get("threshold_logit", 0.0))
        #: Bounds for the calibration (chosen the same way).
        self.calibration_params = json.loads(meta.get("calibration", "{}"))
        mean = json.loads(meta.get("embedding_mean", "[]"))
        self._embedding_mean = np.asarray(mean, np.float32) if mean else 0.0
        self._inputs = [i.name for i in self._session.get_inputs()]
        embedding = next(o for o in self._session.get_outputs() if o.name == "embedding")
        #: The length of an onset's embedding (a room's prototype must be as long).
        self.embedding_size = int(embedding.shape[-1])

    def patch(self, samples: np.ndarray, onset_index: int) -> np.ndarray:
        """The log-mel patch of the onset at `onset_index` in 16 kHz `samples`."""
        return log_mel_patch(onset_window(samples, onset_index, self.spec), self.spec)

    def judge_patches(self, patches: np.ndarray, features: np.ndarray | None = None
                      ) -> list[Verdict]:
        """Verdicts for a batch of patches (n, n_mels, n_frames) and, for a model that takes
        them, the onsets' feature vectors (n, 9) (`onset_feature_vector`)."""
        feeds = {self._inputs[0]: np.asarray(patches, np.float32)[:, None]}
        if len(self._inputs) > 1:
            if features is None:
                features = np.zeros((len(patches), len(FEATURE_NAMES)), np.float32)
            feeds[self._inputs[1]] = np.asarray(features, np.float32)
        logits, embeddings = self._session.run(None, feeds)
        centred = embeddings - self._embedding_mean
        units = centred / (np.linalg.norm(centred, axis=1, keepdims=True) + 1e-9)
        return [Verdict(float(lg), u) for lg, u in zip(logits.reshape(-1), units, strict=True)]

    def judge(self, samples: np.ndarray, onset_index: int, features=None) -> Verdict:
        """The verdict on one onset: `samples` must hold `spec.pre_s` before and `spec.post_s`
        after `onset_index` (16 kHz mono float32); `features` is the onset's `OnsetFeatures`
        from the detector (needed by a model with a features input)."""
        return self.judge_patches(self.patch(samples, onset_index)[None],
                                  onset_feature_vector(features)[None])[0]

    def is_knock(self, verdict: Verdict, calibration: RoomCalibration | None = None
                 ) -> tuple[bool, float]:
        """(is it a knock, confidence 0..1 with 0.5 on the line) with or without a room's
        calibration."""
        margin = verdict.logit - self.threshold
        if calibration is not None:
            margin = calibration.margin(verdict)
        confidence = float(1.0 / (1.0 + np.exp(-np.clip(margin, -60, 60))))
        return margin >= 0.0, confidence

    def calibrate(self, knocks: list[Verdict], others: list[Verdict] = (),
                  threshold: float | None = None) -> RoomCalibration:
        """A room's calibration from the verdicts on its calibration knocks (5) and, when
        known, on the other onsets heard while calibrating (the quiet part's), around the
        operating `threshold` (the model's own when None).

        The default threshold is kept for every onset; those that sound like *this table's*
        knocks get a lower one too:
        prototype: the knocks' mean (centred, unit) embedding; min_similarity: the least
        leave-one-out similarity of a knock to the other four's prototype, minus
        `sim_margin`, never below `min_sim_floor`; near_threshold: the weakest knock's logit
        minus `logit_margin`, kept between `near_floor` below the default and the default.
        separation: the weakest knock's logit minus the strongest other onset's (how clearly
        the table's knocks stand apart; NaN when no other onset was heard).
        Refusing a recording with fewer than 5 clear knocks is the caller's job.
        The constants were fixed before any evaluation (REPORT.md); a model may carry
        others.
        """
        p = {"sim_margin": 0.1, "min_sim_floor": 0.6, "logit_margin": 1.0, "near_floor": 3.0,
             **self.calibration_params}
        emb = np.stack([v.embedding for v in knocks])
        proto = emb.mean(axis=0)
        proto /= np.linalg.norm(proto) + 1e-9
        loo = []
        for i in range(len(emb)):
            rest = np.delete(emb, i, axis=0).mean(axis=0)
            loo.append(float(np.dot(emb[i], rest / (np.linalg.norm(rest) + 1e-9))))
        weakest = min(v.logit for v in knocks)
        strongest_other = max((v.logit for v in others), default=float("nan"))
        threshold = self.threshold if threshold is None else threshold
        near = min(threshold, max(threshold - p["near_floor"], weakest - p["logit_margin"]))
        return RoomCalibration(
            prototype=tuple(float(v) for v in proto),
            min_similarity=max(p["min_sim_floor"], min(loo) - p["sim_margin"]),
            threshold=threshold,
            near_threshold=near,
            separation=weakest - strongest_other,
        )
