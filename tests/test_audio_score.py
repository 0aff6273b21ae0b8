"""How the onset features' margins combine into a knock's confidence (audio.knock_score)."""

import math
from dataclasses import replace

import pytest

from audio.knock_score import (
    KnockModel,
    OnsetFeatures,
    combined_margin,
    knock_confidence,
    knock_margins,
    ring_limit_db,
)

MODEL = KnockModel()
CLEAR = {"strength": 10.0, "jump": 10.0, "decay": 5.0, "flatness": 5.0, "attack": 5.0,
         "centroid": 5.0, "ring": 5.0}


def test_every_margin_clear_is_a_knock_and_one_shape_margin_far_off_is_not():
    assert combined_margin(CLEAR, MODEL) > 0
    for name in ("decay", "flatness", "attack", "centroid", "ring"):
        assert combined_margin({**CLEAR, name: -1.0}, MODEL) < 0, name


def test_one_borderline_shape_feature_passes_but_several_together_do_not():
    # A knock through another microphone: flatness just past its limit, the rest clear.
    assert combined_margin({**CLEAR, "flatness": -0.2}, MODEL) > 0
    # A laugh: decay, centroid and ring all only just on the knock side.
    laugh = {**CLEAR, "decay": 0.2, "centroid": 0.2, "ring": 0.2}
    assert combined_margin(laugh, MODEL) < 0
    # The plain minimum would have taken the laugh and refused the knock.
    assert min(laugh.values()) > 0 > min({**CLEAR, "flatness": -0.2}.values())


def test_the_level_margins_are_hard_limits():
    assert combined_margin({**CLEAR, "strength": -0.1}, MODEL) == -0.1
    assert combined_margin({**CLEAR, "jump": -0.1}, MODEL) == -0.1


def test_confidence_is_one_half_on_the_acceptance_line():
    knock = OnsetFeatures(strength_db=40, pre_level_db=0, decay_db=12, flux_db=20,
                          centroid_hz=450, flatness=0.005, floor_db=-60, attack_ms=4.0,
                          ring_high_db=3.0, ring_low_db=40.0)
    margins = knock_margins(knock, MODEL)
    assert min(margins.values()) > 0
    score = combined_margin(margins, MODEL)
    assert knock_confidence(knock, MODEL) == 1 / (1 + math.exp(-2 * score)) > 0.5
    slow = OnsetFeatures(**{**knock.__dict__, "decay_db": 2.0})  # a voice: barely falls
    assert knock_confidence(slow, MODEL) < 0.5


def test_the_tune_scorers_vectorised_rule_is_the_detectors_rule():
    import numpy as np

    from evaluation.tune_knocks import Onset, Table, version

    rng = np.random.default_rng(0)
    found = []
    for _ in range(300):
        features = OnsetFeatures(
            strength_db=rng.uniform(5, 60), pre_level_db=rng.uniform(-5, 30),
            decay_db=rng.uniform(0, 15), flux_db=10.0, centroid_hz=rng.uniform(80, 3000),
            flatness=10 ** rng.uniform(-3, -0.5), floor_db=-60.0,
            attack_ms=rng.uniform(0, 15), ring_high_db=rng.uniform(0, 30),
            ring_low_db=rng.uniform(0, 50), high_peak_db=rng.uniform(0, 60))
        found.append(Onset(features, fold=0, group="knock"))
    table = Table(found)
    for model in (MODEL, replace(MODEL, min_level_db=-30.0)):  # a profile's level gate too
        accepted = table.accepted(model)
        expected = [knock_confidence(o.features, model) >= 0.5 for o in found]
        assert accepted.tolist() == expected
        assert 0 < sum(expected) < len(expected)  # both kinds of onset were drawn

    def gain(name, hz):
        tone = np.sin(np.arange(16000) * 2 * np.pi * hz / 16000).astype(np.float32)
        return np.abs(version(tone, name)[100:]).max() / np.abs(tone).max()

    # A brighter microphone: highs over lows up (> 3x at a = 0.7); a darker one: down.
    assert gain("bright 0.7", 4000) / gain("bright 0.7", 200) > 3
    assert gain("dark", 4000) / gain("dark", 200) < 0.5
    assert len(version(np.zeros(16000, np.float32), "faster 1.15")) == int(16000 / 1.15)
    # A room: an impulse gets a tail, as long as the input, at its direct-to-reverberant ratio.
    click = np.zeros(16000, np.float32)
    click[0] = 1.0
    roomy = version(click, "room 0.4 10")
    assert len(roomy) == 16000 and roomy[0] == 1.0
    tail_energy = np.sum(roomy[1:].astype(np.float64) ** 2)
    assert 10 * np.log10(1 / tail_energy) == pytest.approx(10, abs=0.1)


def test_a_room_ringing_above_2khz_is_allowed_only_once_the_strike_has_faded():
    # A knuckle across the table in a reverberant room: 20 ms after the peak the room still
    # carries the click 25 dB over its own level above 2 kHz, but 30 dB under the strike.
    knock = OnsetFeatures(strength_db=50, pre_level_db=0, decay_db=10, flux_db=20,
                          centroid_hz=450, flatness=0.005, floor_db=-60, attack_ms=4.0,
                          ring_high_db=25.0, ring_low_db=32.0, high_peak_db=55.0)
    assert ring_limit_db(knock, MODEL) == 55.0 - MODEL.ring_high_drop_db
    assert knock_margins(knock, MODEL)["ring"] > 0
    assert knock_confidence(knock, MODEL) > 0.5
    # The third round's rule (no such allowance) refused it on the ring.
    third = replace(MODEL, ring_high_drop_db=math.inf)
    assert knock_margins(knock, third)["ring"] < 0
    # A cough goes on breathing: its high band is as loud at the decision as at its peak.
    breath = OnsetFeatures(**{**knock.__dict__, "high_peak_db": 27.0})
    assert knock_margins(breath, MODEL)["ring"] < 0


def test_the_tune_scorer_refuses_a_cache_that_is_not_one_in_one_line(tmp_path, capsys):
    from evaluation.tune_knocks import main

    cache = tmp_path / "onsets.pkl"
    cache.write_text("not a pickle")
    assert main([str(tmp_path), "--cache", str(cache)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "not a cache of collected onsets" in error
