"""The pile watcher's glare test on real card photos (`evaluation.glare_on_real_cards`): a real
card laid on another is no glare, a real card under a glare spot is. Skips without
../shared/data."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.card_scenes import labelled_photos
from evaluation.glare_on_real_cards import count_pairs, single_card_crops, taken_for_light
from evaluation.shared_data import shared_data_dir

CARDS_DEV = shared_data_dir() / "cards-dev"

pytestmark = pytest.mark.skipif(not (CARDS_DEV / "labels.csv").is_file(),
                                reason="needs ../shared/data/cards-dev")


def test_a_real_card_laid_on_another_is_never_light_and_one_under_a_glare_spot_is():
    rng = np.random.default_rng(0)
    crops = single_card_crops(labelled_photos(shared_data_dir()), 12, seed=3)
    assert len(crops) >= 10
    light, judged = count_pairs(crops, rng, len(crops))
    assert judged >= 40 and light == 0
    ys, xs = np.mgrid[0:32, 0:21]
    spot = 80.0 * np.exp(-((xs / 32 - 0.3) ** 2 + (ys / 32 - 0.5) ** 2) / 0.1).reshape(-1, 1)
    for _, crop in crops:
        before = 0.7 * crop.reshape(-1, 3)  # a dim room, so that the glare clips nowhere
        assert taken_for_light(before + spot, before)
