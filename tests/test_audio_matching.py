"""The evaluation's own parts: matching onsets to labels, and mixing knocks into noise."""

import numpy as np
import pytest

from evaluation.matching import match_onsets
from synth.mixer import EXCERPT_LEAD_S, cut_excerpts, mix_at_snr


def test_each_label_matches_at_most_one_detection_and_the_closest_wins():
    result = match_onsets([1.00, 1.015, 3.0], [1.01, 2.0])
    assert result.errors_s == [pytest.approx(0.005)]
    assert result.missed == 1 and result.extra == 2


def test_a_detection_further_than_50_ms_does_not_match():
    result = match_onsets([1.051], [1.0])
    assert result.errors_s == [] and result.missed == 1 and result.extra == 1


def test_the_mixer_places_knocks_at_known_times_and_the_chosen_snr():
    rate = 16_000
    rng = np.random.default_rng(0)
    recording = np.zeros(rate * 4, np.float32)
    for t in (1.0, 2.0, 3.0):
        recording[int(t * rate) : int(t * rate) + 400] = 0.5
    excerpts = cut_excerpts(recording, rate, [1.0, 2.0, 3.0])
    background = (0.01 * rng.standard_normal(rate * 20)).astype(np.float32)
    mixture = mix_at_snr(excerpts, background, rate, snr_db=10.0)
    assert len(mixture.onsets_s) >= 10
    first = round((mixture.onsets_s[0] - EXCERPT_LEAD_S) * rate) + round(EXCERPT_LEAD_S * rate)
    assert mixture.samples[first + 10] > 0.3  # the knock's plateau is where the onset says
    knock_power = np.mean([np.mean(e.astype(float) ** 2) for e in excerpts])
    noise_only = mixture.samples[: rate // 2].astype(float)  # before the first knock
    assert 10 * np.log10(knock_power / np.mean(noise_only**2)) == pytest.approx(10.0, abs=0.5)
