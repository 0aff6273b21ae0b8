"""The detector on the real knocks-dev recordings (../shared/data or $BRUNO_SHARED_DATA).

These guard the numbers in audio/README.md from getting worse; they skip when the shared
data is absent. Only short clips are used, so the file runs in a few seconds.
"""

import statistics

import pytest

from audio.blocks import array_blocks
from audio.calibration import knock_model_for, measure_mic
from audio.detector import DETECTOR_RATE_HZ, KnockDetector, detect_knocks
from audio.knock_score import KnockModel
from audio.sources import open_recording
from evaluation.knock_data import knocks_dir, load_clips, split_of
from evaluation.knocks import load_samples
from evaluation.matching import match_onsets
from evaluation.shared_data import shared_data_dir
from synth.sounds import reverberate

KNOCKS_DEV = knocks_dir(shared_data_dir())

pytestmark = pytest.mark.skipif(
    not (KNOCKS_DEV / "labels.csv").exists(),
    reason=f"shared data not found at {KNOCKS_DEV} (set BRUNO_SHARED_DATA)",
)


def clip(name):
    (found,) = [c for c in load_clips(KNOCKS_DEV) if c.name == name]
    return found


def heard(path):
    return [k.t_s for k in detect_knocks(open_recording(path, DETECTOR_RATE_HZ).blocks)]


def test_every_clip_is_in_the_tune_or_the_test_split_and_both_have_knocks():
    clips = load_clips(KNOCKS_DEV)
    assert len(clips) == 37
    assert {c.split for c in clips} == {"tune", "test"}
    assert {c.name for c in clips if c.cls == "knuckle"} == {"knuckle_train", "knuckle_test"}
    assert split_of(KNOCKS_DEV / "audio/sharwin24/laugh_small_2.flac") == "test"


def test_knuckle_knocks_of_the_test_split_are_heard_near_their_labels():
    knuckles = clip("knuckle_test")
    match = match_onsets(heard(knuckles.path), knuckles.event_times_s)
    # Measured: see audio/README.md. A floor under the measurement, not a target.
    assert len(match.errors_s) >= 11
    assert statistics.median(abs(e) for e in match.errors_s) <= 0.020


def test_knuckle_knocks_are_heard_through_a_reverberant_room():
    # Tune knocks, as a microphone across a table in a room with RT60 0.4 s hears them
    # (+10 dB direct over reverberant sound). The third round's rules heard 21 of 30: the
    # room smears the strike's click above 2 kHz past the decision (audio/README.md).
    knuckles = clip("knuckle_train")
    samples = load_samples(knuckles.path)
    roomy = reverberate(samples, DETECTOR_RATE_HZ, rt60_s=0.4, direct_to_reverb_db=10.0)
    blocks = array_blocks(roomy, DETECTOR_RATE_HZ, DETECTOR_RATE_HZ, 1600)
    match = match_onsets([k.t_s for k in detect_knocks(blocks)], knuckles.event_times_s)
    assert len(match.errors_s) >= 28


def test_calibrating_in_a_room_that_echoes_hears_that_rooms_knocks():
    # RT60 0.8 s with the direct sound only 3 dB over the room's: the defaults hear almost
    # none of these knocks; a profile calibrated on the first ones, in the same room, hears
    # the later ones (tune clip; audio/NOTEBOOK.md, fourth round).
    knuckles = clip("knuckle_train")
    roomy = reverberate(load_samples(knuckles.path), DETECTOR_RATE_HZ, rt60_s=0.8,
                        direct_to_reverb_db=3.0)
    calibration_end_s = 14.5  # 3.3 s of quiet, then five knocks
    blocks = list(array_blocks(roomy, DETECTOR_RATE_HZ, DETECTOR_RATE_HZ, 1600))
    profile = measure_mic([b for b in blocks if b.t_s < calibration_end_s], quiet_s=3.0).profile
    later = [t for t in knuckles.event_times_s if t > calibration_end_s + 0.5]

    def heard_later(model, classifier="shipped"):
        detector = KnockDetector(model=model) if classifier else \
            KnockDetector(model=model, classifier=None)
        return len(match_onsets([k.t_s for k in detect_knocks(blocks, detector)], later).errors_s)

    assert heard_later(KnockModel(), classifier=None) <= 5  # the gates alone
    assert heard_later(knock_model_for(profile), classifier=None) >= 20
    # The learned classifier, asked about what the gates refuse, hears them without a profile.
    assert heard_later(KnockModel()) >= 20


def test_finger_pad_taps_on_the_table_are_knocks():
    # knocks-wide counts a fingertip's tap on the table as a knock (the signal a player
    # gives), and the classifier learned so; knocks-dev had called them hard negatives, and
    # the hand-set gates alone still refuse them.
    pads = clip("finger_pad_tap_test")
    assert len(heard(pads.path)) >= 13  # of 15
    gates = KnockDetector(classifier=None)
    samples = load_samples(pads.path)
    blocks = array_blocks(samples, DETECTOR_RATE_HZ, DETECTOR_RATE_HZ, 1600)
    assert len(list(detect_knocks(blocks, gates))) <= 2


def test_an_odd_sample_rate_recording_is_read_and_resampled():
    babble = clip("babble")  # 19 980 Hz
    opened = open_recording(babble.path, DETECTOR_RATE_HZ)
    seconds = sum(b.duration_s for b in opened.blocks)
    assert seconds == pytest.approx(opened.duration_s, abs=0.05)


def test_calibrating_on_the_knuckle_recording_measures_its_knocks():
    knuckles = clip("knuckle_train")  # 3.3 s of quiet before the first knock
    measurement = measure_mic(open_recording(knuckles.path, DETECTOR_RATE_HZ).blocks, quiet_s=3.0)
    assert measurement.profile.knocks_heard == 5 and measurement.knock_like == 5
    assert measurement.margin_is_safe


def test_the_room_table_calibrates_on_a_protocol_recording_of_the_first_five_knocks():
    # `python -m evaluation.knocks --rooms` calibrated on knuckle_train as recorded, whose
    # first knock lies inside the 5 quiet seconds the calibration asks for, and died with a
    # CalibrationError. Its calibrated columns are the shipped path: model and room calibration.
    from evaluation.knocks import calibrated_in, protocol_recording_of

    recording = protocol_recording_of(clip("knuckle_train"))
    hearing = calibrated_in(reverberate(recording, DETECTOR_RATE_HZ, 0.4, 10.0))
    assert hearing.model is not None and hearing.room is not None
