"""The shipped detector, with its defaults and the shipped model, on real knocks that model
never trained on (the last fifth of every real knock source, held out of `make train-knocks`:
models.knocks.knock_data.shipped_test_subset), and on synthetic card slaps. Nothing is trained
here; the real part skips without ../shared/data (or $BRUNO_SHARED_DATA)."""

from __future__ import annotations

import numpy as np
import pytest

from audio.blocks import array_blocks
from audio.detector import DETECTOR_RATE_HZ, KnockDetector, detect_knocks
from evaluation.shared_data import shared_data_dir
from models.knocks.knock_augment import card_slap
from models.knocks.knock_data import KNOCK_SOURCES

HAVE_DATA = (shared_data_dir() / "knocks-wide" / "labels.csv").exists() and (
    shared_data_dir() / "knocks-dev" / "labels.csv").exists()


@pytest.fixture(scope="module")
def holdout():
    if not HAVE_DATA:
        pytest.skip(f"shared data not found at {shared_data_dir()} (set BRUNO_SHARED_DATA)")
    from models.knocks.holdout import holdout_recall

    return {row.source: row for row in holdout_recall()}


#: Sources on which the shipped model misses the bar, as measured when it was trained (the
#: issue's bar is not lowered for them: they are expected to fail, and the test says so the
#: day they pass). Both are tiny: 3 and 7 knocks in all, 1 and 2 held out.
MISSES_THE_BAR = {
    "krisanth_knock_unlock": "0 of 1 held-out knock heard (each of its knocks is a double "
                             "transient 50 ms apart; 0 of 3 when left out entirely, too)",
    "tanay_voicedifference": "0 of 2 held-out knocks heard (1 of 2 before the room was "
                             "subtracted from the patch)",
}


@pytest.mark.parametrize("source", [
    pytest.param(s, marks=pytest.mark.xfail(reason=MISSES_THE_BAR[s], strict=True))
    if s in MISSES_THE_BAR else s for s in KNOCK_SOURCES])
def test_the_shipped_detector_hears_nine_in_ten_held_out_knocks_of_every_source(
        holdout, source):
    from models.knocks.holdout import MIN_RECALL

    row = holdout[source]
    assert row.knocks >= 1
    assert row.recall >= MIN_RECALL, f"{source}: {row.heard} of {row.knocks} held-out knocks"


def test_synthetic_card_slaps_on_a_quiet_table_are_not_knocks():
    rng = np.random.default_rng(2024)
    heard = 0
    for _ in range(20):
        slap, onset = card_slap(rng)
        room = rng.normal(0, 3e-4, DETECTOR_RATE_HZ).astype(np.float32)
        track = np.concatenate([room, room]).astype(np.float32)
        at = DETECTOR_RATE_HZ - onset
        track[at: at + len(slap)] += slap[: len(track) - at]
        blocks = array_blocks(track, DETECTOR_RATE_HZ, DETECTOR_RATE_HZ, 160)
        heard += bool(list(detect_knocks(blocks, KnockDetector())))
    assert heard <= 2  # the bar: at most 10 % of card slaps heard as knocks


#: The sources with 30 knocks or more (6-10 held out each; the two tiny ones are above).
LARGE_SOURCES = ("mini_tapsense", "adjwang_knockat", "justinklchan_taps", "svais")


@pytest.fixture(scope="module")
def through_room_sound():
    if not HAVE_DATA:
        pytest.skip(f"shared data not found at {shared_data_dir()} (set BRUNO_SHARED_DATA)")
    from models.knocks.in_room_sound import run

    return run(15.0)


@pytest.mark.parametrize("source", LARGE_SOURCES)
def test_held_out_knocks_are_heard_through_real_room_sound_at_15_db(through_room_sound, source):
    """Issue 20's footage puts real knocks about 15 dB over real room sound: the same held-out
    knocks under each of the data's 15 real background recordings."""
    counts = through_room_sound.per_source[source]
    assert counts.knocks >= 6 * 15
    assert counts.heard >= 0.9 * counts.knocks, \
        f"{source}: {counts.heard} of {counts.knocks} ({counts.no_onset} with no onset)"


def test_a_calibration_recording_made_in_a_room_has_its_quiet_start_and_five_knocks():
    # The in-room evaluation's protocol (`in_room_sound --calibrated`): the room's sound alone
    # for 5 s, then the knocks a second apart over it, at the SNR asked for.
    from audio.calibration import measure_mic
    from models.knocks.in_room_sound import QUIET_S, protocol_in_room
    from synth.sounds import knock, noise, place

    rate = DETECTOR_RATE_HZ
    clip = place(noise(rate, seconds=2.0, rms=1e-4), knock(rate, amplitude=0.5), [1.0], rate)
    room = noise(rate, seconds=3.0, rms=0.01)
    recording = protocol_in_room([(clip, 1.0)] * 5, room, 20.0, np.random.default_rng(0))
    assert len(recording) == round((QUIET_S + 6.5) * rate)
    quiet = recording[: round(QUIET_S * rate)]
    assert 0 < np.sqrt(np.mean(quiet ** 2)) < 0.1 * np.abs(recording).max()
    blocks = array_blocks(recording.astype(np.float32), rate, rate, 160)
    mic = measure_mic(blocks).profile
    assert mic.knocks_heard == 5


def test_false_knock_rates_count_the_recorded_sound_not_the_padding_around_it():
    # evaluate_loso's minutes of room sound were the padded clips' (0.8 s of noise added to
    # each): its false knocks per 10 minutes came out 8-17 % low.
    if not HAVE_DATA:
        pytest.skip(f"shared data not found at {shared_data_dir()} (set BRUNO_SHARED_DATA)")
    from audio.blocks import laid_out
    from audio.sources import open_recording
    from models.knocks.knock_data import RATE_HZ, load_audio, load_clips, recorded_seconds

    clips = [c for c in load_clips() if c.kind in ("background", "distractor")][:5]
    for clip in clips:
        recorded = laid_out(open_recording(clip.path, RATE_HZ, block_samples=4000).blocks)
        assert recorded_seconds(load_audio(clip)) == pytest.approx(len(recorded) / RATE_HZ)
