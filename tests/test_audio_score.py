"""How the onset features' margins combine into a knock's confidence (audio.knock_score)."""

import math

from audio.knock_score import (
    KnockModel,
    OnsetFeatures,
    combined_margin,
    knock_confidence,
    knock_margins,
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

    from audio.tune_scorer import Onset, Table, version

    rng = np.random.default_rng(0)
    found = []
    for _ in range(300):
        features = OnsetFeatures(
            strength_db=rng.uniform(5, 60), pre_level_db=rng.uniform(-5, 30),
            decay_db=rng.uniform(0, 15), flux_db=10.0, centroid_hz=rng.uniform(80, 3000),
            flatness=10 ** rng.uniform(-3, -0.5), floor_db=-60.0,
            attack_ms=rng.uniform(0, 15), ring_high_db=rng.uniform(0, 30),
            ring_low_db=rng.uniform(0, 50))
        found.append(Onset(features, fold=0, group="knock"))
    accepted = Table(found).accepted(MODEL)
    expected = [knock_confidence(o.features, MODEL) >= 0.5 for o in found]
    assert accepted.tolist() == expected
    assert 0 < sum(expected) < len(expected)  # both kinds of onset were drawn

    def gain(name, hz):
        tone = np.sin(np.arange(16000) * 2 * np.pi * hz / 16000).astype(np.float32)
        return np.abs(version(tone, name)[100:]).max() / np.abs(tone).max()

    # A brighter microphone: highs over lows up (> 3x at a = 0.7); a darker one: down.
    assert gain("bright 0.7", 4000) / gain("bright 0.7", 200) > 3
    assert gain("dark", 4000) / gain("dark", 200) < 0.5
    assert len(version(np.zeros(16000, np.float32), "faster 1.15")) == int(16000 / 1.15)
