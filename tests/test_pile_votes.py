"""How the readings of a card's clean frames are joined (`vision.pile_cards.vote_readings`)."""

from __future__ import annotations

import pytest

from vision.pile_cards import CardReading, vote_readings


def test_one_sure_reading_outweighs_scattered_guesses():
    # Rendered webcam game 313, 16.9 s: a crop half off the card, one off it, then the card
    # whole. Counting votes took the first guess (r_0 at 0.15); the readings' weight is r_5's.
    joined = vote_readings([CardReading("r_0", 0.44), CardReading("y_9", 0.02),
                            CardReading("r_5", 1.0)])
    assert joined is not None and joined.card == "r_5"
    assert joined.confidence == pytest.approx(1.0 / 3)


def test_readings_that_agree_still_win_against_one_that_does_not():
    joined = vote_readings([CardReading("b_4", 0.9), CardReading("b_1", 0.95),
                            CardReading("b_4", 0.8)])
    assert joined is not None and joined.card == "b_4"
    assert joined.confidence == pytest.approx((0.9 + 0.8) / 3)
    assert joined.runner_up == "b_1"


def test_a_tie_goes_to_the_first_reading_and_nothing_read_is_none():
    joined = vote_readings([CardReading("g_2", 0.5), CardReading("g_7", 0.5)])
    assert joined is not None and joined.card == "g_2"
    assert vote_readings([]) is None
