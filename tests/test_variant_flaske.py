"""Flaske UNO (`--variant flaske`, docs/rules/flaske.md): every card announced, nothing ruled."""

from __future__ import annotations

from referee.variants import FlaskeUno, find_variant

from scenario_helpers import card, infos, penalties, referee


def flaske(*events, players: int = 4):
    return referee(*events, players=players, variant="flaske")


def said(rulings) -> list[tuple[int | None, str, int | None]]:
    return [(r["seat"], r["card"], r.get("count")) for r in infos(rulings, "flaske")]


def test_flaske_is_found_by_name():
    assert find_variant("Flaske UNO") is FlaskeUno


def test_f1_nothing_is_ever_a_penalty():
    rulings = flaske(card(1, "r_5", None), card(2, "b_9", 1), card(2.5, "g_2", 3))
    assert penalties(rulings) == []


def test_f1_the_dealers_turned_card_is_the_dealers():
    assert said(flaske(card(1, "r_2", None))) == [(0, "r_2", 2)]


def test_f2_a_low_number_is_that_many_sips_for_who_laid_it():
    assert said(flaske(card(1, "r_5", None), card(2, "r_3", 1)))[-1] == (1, "r_3", 3)


def test_f3_a_high_number_is_a_game_not_sips():
    rulings = flaske(card(1, "r_5", None), card(2, "r_9", 1))
    (line,) = [r for r in infos(rulings, "flaske") if r["card"] == "r_9"]
    assert line["seat"] == 1 and "count" not in line and "finger" in line["message"]


def test_f4_a_red_draw_two_is_for_the_right_hand_neighbour_a_green_one_for_the_left():
    rulings = flaske(card(1, "r_5", None), card(2, "r_draw_2", 1), card(4, "g_draw_2", 0))
    assert said(rulings)[1:] == [(0, "r_draw_2", 2), (1, "g_draw_2", 2)]


def test_f4_a_wild_draw_four_is_four_sips_for_both_neighbours():
    rulings = flaske(card(1, "r_5", None), card(2, "wild_draw_4", 2))
    assert said(rulings)[1:] == [(1, "wild_draw_4", 4), (3, "wild_draw_4", 4)]


def test_f4_a_draw_card_whose_player_was_not_seen_is_still_announced():
    rulings = flaske(card(1, "r_5", None), card(2, "b_draw_2", None), card(4, "wild_draw_4", None))
    assert said(rulings)[1:] == [(None, "b_draw_2", 2), (None, "wild_draw_4", 4)]
    lines = infos(rulings, "flaske")
    assert "right of whoever laid it" in lines[1]["message"]
    assert "both neighbours of whoever laid it" in lines[2]["message"]


def test_f5_a_wild_is_for_everyone():
    assert said(flaske(card(1, "r_5", None), card(2, "wild", 1)))[-1] == (None, "wild", None)


def test_a_card_read_unsure_is_not_announced():
    rulings = flaske(card(1, "r_5", None), card(2, "r_3", 1, confidence=0.2))
    assert said(rulings) == [(0, "r_5", 5)]


def test_a_corrected_card_is_announced_again_with_who_drinks_now():
    rulings = flaske(card(1, "r_9", None), card(2, "r_3", 1),
                     {"t": 3.0, "kind": "correct", "card": "r_draw_2"},
                     card(4, "g_5", 2, confidence=0.3),
                     {"t": 5.0, "kind": "correct", "seat": 2})
    again = [(r["t"], r["seat"], r["message"]) for r in rulings
             if r["rule"] == "flaske" and r["t"] in (3.0, 5.0)]
    assert again == [(3.0, 0, "Red draw two: two sips for the player on seat 1's right, "
                               "seat 0."),
                     (5.0, 2, "Green 5: five sips for seat 2.")]
