"""The learned knock classifier (audio.knock_classifier, models/knocks.onnx; issue 20): what
the shipped model says of a synthetic knuckle knock and of synthetic card slaps, and how a room
calibration moves its line. It decides every onset the detector finds (audio.detector); how
well it does on real sources is tests/test_knock_holdout.py and models/knocks/REPORT.md."""

from __future__ import annotations

import numpy as np
import pytest

from audio.knock_classifier import DEFAULT_MODEL_PATH, KnockClassifier, PatchSpec, log_mel_patch
from models.knocks.knock_augment import card_slap
from synth.sounds import knock

QUIET = np.random.default_rng(7).normal(0, 1e-4, 3200).astype(np.float32)  # 0.2 s of room


@pytest.fixture(scope="module")
def classifier() -> KnockClassifier:
    return KnockClassifier()


def test_the_shipped_model_is_small_and_carries_its_patch_spec(classifier):
    assert DEFAULT_MODEL_PATH.stat().st_size < 5_000_000
    spec = classifier.spec
    assert spec.rate_hz == 16_000 and spec.post_s <= 0.05  # decided within the 60 ms budget
    patch = classifier.patch(np.concatenate([QUIET, knock(16_000)]), len(QUIET))
    assert patch.shape == (spec.n_mels, spec.n_frames)
    np.testing.assert_array_equal(patch, log_mel_patch(
        np.concatenate([QUIET, knock(16_000)])[len(QUIET) - spec.n_pre:
                                               len(QUIET) + spec.n_post], spec))


def test_a_synthetic_knuckle_knock_is_a_knock(classifier):
    verdict = classifier.judge(np.concatenate([QUIET, knock(16_000)]), len(QUIET))
    assert classifier.is_knock(verdict)[0]


def test_synthetic_card_slaps_are_not_knocks(classifier):
    heard = 0
    for seed in range(20):
        slap, onset = card_slap(np.random.default_rng(seed))
        track = np.concatenate([QUIET, slap]).astype(np.float32)
        heard += classifier.is_knock(classifier.judge(track, len(QUIET) + onset))[0]
    assert heard <= 2  # the bar: at most 10 % of card slaps


def test_a_room_calibration_lowers_the_line_only_for_onsets_like_its_knocks():
    from audio.knock_classifier import RoomCalibration, Verdict

    knock_like = np.array([1.0, 0.0, 0.0])
    room = RoomCalibration(prototype=(1.0, 0.0, 0.0), min_similarity=0.8, threshold=0.0,
                           near_threshold=-2.0, separation=3.0)
    # A logit of -1 is under the line for any onset, over it for one that sounds like this
    # table's knocks.
    assert room.margin(Verdict(-1.0, knock_like)) == pytest.approx(1.0)
    assert room.margin(Verdict(-1.0, np.array([0.0, 1.0, 0.0]))) == pytest.approx(-1.0)
    assert room.margin(Verdict(0.5, np.array([0.0, 1.0, 0.0]))) == pytest.approx(0.5)


def test_a_room_calibration_never_refuses_an_onset_the_default_line_accepts():
    # Other players knock with other knuckles, fingers or a pen: a sound unlike the five
    # calibration knocks keeps the default line.
    from audio.knock_classifier import RoomCalibration, Verdict

    room = RoomCalibration(prototype=(1.0, 0.0, 0.0), min_similarity=0.8, threshold=0.0,
                           near_threshold=-2.0, separation=3.0)
    rng = np.random.default_rng(0)
    for _ in range(200):
        embedding = rng.normal(size=3)
        embedding /= np.linalg.norm(embedding)
        logit = float(rng.uniform(-4.0, 4.0))
        margin = room.margin(Verdict(logit, embedding))
        assert margin >= logit - room.threshold
        if logit < room.threshold and margin >= 0:  # only sounds like the knocks are let in
            assert float(embedding[0]) >= room.min_similarity
    unlike = np.array([0.0, 1.0, 0.0])
    assert room.margin(Verdict(0.5, unlike)) == pytest.approx(0.5)


def test_the_higher_line_of_a_profile_of_4_5_december_is_ignored():
    from audio.knock_classifier import RoomCalibration, Verdict

    written = {"prototype": [1.0, 0.0, 0.0], "min_similarity": 0.8, "threshold": 0.0,
               "near_threshold": -2.0, "separation": 3.0, "far_similarity": 0.5,
               "far_threshold": 2.0}
    room = RoomCalibration.from_dict(written)
    assert room.margin(Verdict(1.0, np.array([0.0, 1.0, 0.0]))) == pytest.approx(1.0)
    assert RoomCalibration.from_dict(room.to_dict()) == room
    assert "far_threshold" not in room.to_dict()


def test_a_detector_line_other_than_the_calibrated_one_moves_both_bars():
    from audio.knock_classifier import RoomCalibration, Verdict

    room = RoomCalibration(prototype=(1.0, 0.0, 0.0), min_similarity=0.8, threshold=0.0,
                           near_threshold=-2.0, separation=3.0)
    for embedding in ([1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 1.0, 0.0]):  # like, between, unlike
        verdict = Verdict(0.5, np.array(embedding))
        assert room.margin(verdict, line=1.5) == pytest.approx(room.margin(verdict) - 1.5)
        assert room.margin(verdict, line=0.0) == pytest.approx(room.margin(verdict))


def test_calibrating_a_classifier_works_around_the_operating_threshold(classifier):
    from audio.knock_classifier import Verdict

    unit = np.eye(3)[0]
    knocks = [Verdict(logit, unit) for logit in (1.0, 0.5, -0.5, 2.0, 0.8)]
    room = classifier.calibrate(knocks, [Verdict(-4.0, np.eye(3)[1])], threshold=0.0)
    assert room.threshold == 0.0
    # the weakest knock's logit minus 1, never more than 3 under the line, never over it
    assert room.near_threshold == pytest.approx(-1.5)
    assert room.separation == pytest.approx(3.5)
    # an onset unlike the knocks keeps the default line
    assert room.margin(Verdict(0.5, np.eye(3)[1])) == pytest.approx(0.5)


def test_subtracting_the_room_brings_a_knock_in_noise_closer_to_the_quiet_knock():
    spec = PatchSpec()
    onset = spec.n_pre
    clean = np.zeros(spec.n_pre + spec.n_post, np.float32)
    clean[onset:] = knock(16_000)[:spec.n_post]
    hum = np.random.default_rng(3).normal(0, 0.005, len(clean)).astype(np.float32)
    distance = {}
    for frames in (0, 11):
        room_spec = PatchSpec(denoise_frames=frames)
        distance[frames] = np.abs(log_mel_patch(clean + hum, room_spec)
                                  - log_mel_patch(clean, room_spec))[:, -5:].mean()
    assert distance[11] < 0.75 * distance[0]  # 0.63 when written


def test_a_model_made_before_room_subtraction_reads_as_without_it():
    assert PatchSpec(**{"rate_hz": 16_000, "post_s": 0.04}).denoise_frames == 0
