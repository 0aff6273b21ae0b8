"""The evaluation's own parts: matching onsets to labels, and mixing knocks into noise."""

import numpy as np
import pytest

from evaluation.footage import score
from evaluation.matching import match_onsets, one_to_one
from synth.mixer import EXCERPT_LEAD_S, cut_excerpts, mix_at_snr


def test_each_label_matches_at_most_one_detection_and_the_closest_wins():
    result = match_onsets([1.00, 1.015, 3.0], [1.01, 2.0])
    assert result.errors_s == [pytest.approx(0.005)]
    assert result.missed == 1 and result.extra == 2


def test_a_detection_further_than_50_ms_does_not_match():
    result = match_onsets([1.051], [1.0])
    assert result.errors_s == [] and result.missed == 1 and result.extra == 1


def test_as_many_pairs_as_can_be_made_not_closest_first():
    # Closest first pairs 1.04 with 1.06 (20 ms) and leaves 1.105 (45 ms from 1.06) alone.
    result = match_onsets([1.04, 1.105], [1.0, 1.06])
    assert result.missed == 0 and result.extra == 0
    assert sorted(round(e, 3) for e in result.errors_s) == [0.04, 0.045]


def test_a_detection_exactly_50_ms_off_matches_whatever_the_float_rounding():
    labels = [round(k * 0.001, 3) for k in range(1, 2001)]
    assert all(len(match_onsets([t + 0.05], [t]).errors_s) == 1 for t in labels)


def test_pairs_never_join_times_out_of_reach_and_unsorted_input_is_fine():
    pairs = one_to_one([5.0, 1.02, 9.0, 1.2], [1.0, 1.21, 5.04, 7.0], 0.05)
    assert sorted(pairs) == [(0, 2), (1, 0), (3, 1)]


def test_a_jump_in_chain_found_late_scores_both_plays():
    truth = [{"kind": "card", "t": 10.0, "seat": 0, "card": "r_5"},
             {"kind": "card", "t": 10.6, "seat": 2, "card": "r_5"}]
    found = [{"kind": "card", "t": 10.45, "seat": 0, "card": "r_5"},
             {"kind": "card", "t": 11.05, "seat": 2, "card": "r_5"}]
    s = score(truth, found)
    assert (s.found, s.phantom, s.seat_right) == (2, 0, 2)


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


def test_boxes_pair_with_cards_as_many_as_can_be_made():
    from evaluation.matching import most_pairs

    # Card A overlaps boxes 0 (0.6) and 1 (0.54); card B only box 0 (0.74). Each card taking
    # its best free box in turn found one card of two.
    assert most_pairs([[0.6, 0.54], [0.74, 0.0]], 0.5) == {0: 1, 1: 0}
    assert most_pairs([[0.4, 0.3]], 0.5) == {}
