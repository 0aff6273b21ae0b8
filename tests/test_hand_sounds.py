"""Synthetic hand claps and finger snaps (the knock recipe's hand-sound negatives) and hard
taps (positives), models/knocks/hand_sounds.py: they are what the module says they are (claps
and snaps short, their energy where claps and snaps have it, well above a knock's body; hard
taps higher than a knuckle's knock), the same seed makes the same sound, and the onset stage
finds them (a sound it never finds would teach the classifier nothing)."""

from __future__ import annotations

import numpy as np
import pytest

from models.knocks.hand_sounds import finger_snap, hand_clap, hard_tap
from models.knocks.knock_augment import RATE_HZ, modal_knock


def _centroid_hz(x: np.ndarray) -> float:
    power = np.abs(np.fft.rfft(x)) ** 2
    return float((power * np.fft.rfftfreq(len(x), 1 / RATE_HZ)).sum() / power.sum())


def _ms_above_tenth_of_peak(x: np.ndarray) -> float:
    loud = np.nonzero(np.abs(x) > 0.1 * np.abs(x).max())[0]
    return 1000 * (loud[-1] - loud[0]) / RATE_HZ


@pytest.mark.parametrize("maker", [hand_clap, finger_snap, hard_tap])
def test_the_same_seed_makes_the_same_sound_with_its_onset_where_it_says(maker):
    first, onset = maker(np.random.default_rng(5))
    again, onset_again = maker(np.random.default_rng(5))
    np.testing.assert_array_equal(first, again)
    assert onset == onset_again and first.dtype == np.float32
    assert np.abs(first[:onset]).max() < 0.5 * np.abs(first[onset:]).max()


def test_claps_and_snaps_are_short_and_higher_than_a_knock_s_body():
    def medians(maker):
        sounds = [maker(np.random.default_rng(seed)) for seed in range(60)]
        return (np.median([_centroid_hz(x[o: o + 640]) for x, o in sounds]),
                np.median([_ms_above_tenth_of_peak(x[o:]) for x, o in sounds]))

    clap_hz, clap_ms = medians(hand_clap)
    snap_hz, snap_ms = medians(finger_snap)
    knock_hz, knock_ms = medians(modal_knock)
    assert 800 < clap_hz < 2500 and 1500 < snap_hz < 4500  # the literature's bands
    assert snap_hz > clap_hz > 2 * knock_hz
    assert clap_ms < 20 and snap_ms < 20 and knock_ms > 2 * max(clap_ms, snap_ms)
    tap_hz, tap_ms = medians(hard_tap)
    assert tap_hz > 2 * knock_hz and tap_ms < knock_ms  # higher and shorter than a knuckle's


def test_the_onset_stage_finds_them_where_they_start():
    from models.knocks.onset_stage import find_onsets

    found = 0
    for seed in range(20):
        for maker in (hand_clap, finger_snap, hard_tap):
            sound, onset = maker(np.random.default_rng(seed))
            quiet = (1e-4 * np.random.default_rng(seed).standard_normal(RATE_HZ // 2))
            track = np.concatenate([quiet, sound]).astype(np.float32)
            at = (len(quiet) + onset) / RATE_HZ
            found += any(abs(o.t_s - at) <= 0.02 for o in find_onsets(track))
    assert found >= 54  # of 60
