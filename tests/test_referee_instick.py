"""B7-B10 and the knock timing decision: insticks, zeros, going out, and when a knock counts."""

from scenario_helpers import card, infos, knock, last_turn, penalties, referee

# B7 -------------------------------------------------------------------------------------------

def test_an_identical_number_card_may_be_inserted_by_anyone_with_a_knock():
    rulings = referee(card(1, "r_5", 0), card(2, "y_5", 1), card(2.5, "y_5", 3), knock(2.8))
    assert penalties(rulings) == []
    assert [(r["seat"], r["card"]) for r in infos(rulings, "instick")] == [(3, "y_5")]
    assert last_turn(rulings) == 0  # play continues after the jumper


def test_an_instick_without_a_knock_costs_two_cards_when_the_window_closes():
    rulings = referee(card(1, "r_5", 0), card(2, "y_5", 1), card(2.5, "y_5", 3))
    assert penalties(rulings) == [("missed_knock", 3)]
    missed = rulings[-1]
    assert missed["t"] == 4.0 and missed["ref"] == "B7" and missed["card"] == "y_5"
    assert missed["message"] == ("Seat 3 inserted the yellow 5 without knocking: "
                                 "two penalty cards.")


def test_a_card_only_similar_to_the_top_card_is_no_instick_but_out_of_turn():
    rulings = referee(card(1, "r_5", 0), card(2, "y_5", 1), card(2.5, "g_5", 3))
    assert penalties(rulings) == [("out_of_turn", 3)]


def test_an_instick_skip_skips_the_player_after_the_jumper():
    rulings = referee(card(1, "r_5", 0), card(2, "r_skip", 1), card(2.5, "r_skip", 0),
                      knock(2.7))
    assert penalties(rulings) == [] and last_turn(rulings) == 2


def test_an_identical_card_on_your_own_turn_is_an_instick_and_needs_a_knock():
    rulings = referee(card(1, "r_5", 0), card(2, "r_5", 1))
    assert penalties(rulings) == [("missed_knock", 1)]


def test_a_wild_draw_four_may_be_inserted_on_a_wild_draw_four():
    rulings = referee(card(1, "r_5", 0), card(2, "wild_draw_4", 1), card(2.4, "wild_draw_4", 3),
                      knock(2.5))
    assert penalties(rulings) == []
    assert [(r["seat"], r["count"]) for r in infos(rulings, "draw_due")] == [(2, 4), (0, 4)]
    assert last_turn(rulings) == 1


# B8 -------------------------------------------------------------------------------------------

def test_a_zero_played_on_turn_needs_a_knock():
    assert penalties(referee(card(1, "r_5", 0), card(2, "r_0", 1), knock(2.3))) == []
    rulings = referee(card(1, "r_5", 0), card(2, "r_0", 1))
    assert penalties(rulings) == [("missed_knock", 1)]
    assert rulings[-1]["ref"] == "B8"


def test_two_zeros_in_one_turn_need_two_knocks():
    rulings = referee(card(1, "r_5", 0), card(2, "r_0", 1), card(2.5, "g_0", 1), knock(2.7))
    assert penalties(rulings) == [("missed_knock", 1)]
    # One knock satisfies the earliest card: the second zero is the one without a knock.
    assert rulings[-1]["card"] == "g_0"


def test_a_zero_may_be_inserted_on_a_zero_of_any_colour():
    rulings = referee(card(1, "r_5", 0), card(2, "r_0", 1), knock(2.1), card(3, "b_0", 3),
                      knock(3.1))
    assert penalties(rulings) == []
    assert [r["seat"] for r in infos(rulings, "instick")] == [3]
    assert last_turn(rulings) == 0


def test_a_zero_inserted_across_colours_without_a_knock_is_penalised():
    rulings = referee(card(1, "r_5", 0), card(2, "r_0", 1), knock(2.1), card(3, "b_0", 3))
    assert penalties(rulings) == [("missed_knock", 3)]


# B9 -------------------------------------------------------------------------------------------

def test_the_draw_two_victim_may_insert_and_still_takes_its_cards_and_the_next_takes_too():
    rulings = referee(card(1, "r_5", 0), card(2, "r_draw_2", 1), card(2.5, "r_draw_2", 2),
                      knock(2.6))
    assert penalties(rulings) == []
    assert [(r["seat"], r["count"]) for r in infos(rulings, "draw_due")] == [(2, 2), (3, 2)]
    assert last_turn(rulings) == 0


def test_a_draw_card_instick_without_a_knock_is_penalised():
    rulings = referee(card(1, "r_5", 0), card(2, "r_draw_2", 1), card(2.5, "r_draw_2", 2))
    assert penalties(rulings) == [("missed_knock", 2)]


# B10 ------------------------------------------------------------------------------------------

def test_going_out_on_a_self_instick_with_a_knock_is_fine():
    rulings = referee(card(1, "r_5", 0), card(2, "g_5", 1), card(2.1, "g_5", 1), knock(2.5))
    assert penalties(rulings) == []


def test_going_out_by_self_instick_without_a_knock_costs_two_cards():
    rulings = referee(card(1, "r_5", 0), card(2, "g_5", 1), card(2.1, "g_5", 1),
                      {"t": 4.0, "kind": "round_end", "hands": {"1": []}})
    assert penalties(rulings) == [("missed_knock", 1)]


def test_going_out_on_a_zero_without_a_knock_costs_two_cards():
    rulings = referee(card(1, "r_5", 0), card(2, "r_0", 1),
                      {"t": 2.5, "kind": "round_end", "hands": {"1": []}})
    assert penalties(rulings) == [("missed_knock", 1)]


# Knock timing ---------------------------------------------------------------------------------

def test_a_knock_0_2_s_before_the_card_counts():
    assert penalties(referee(card(1, "r_5", 0), knock(1.8), card(2, "r_0", 1))) == []


def test_a_knock_0_4_s_before_the_card_is_too_early():
    rulings = referee(card(1, "r_5", 0), knock(1.6), card(2, "r_0", 1))
    assert penalties(rulings) == [("missed_knock", 1)]


def test_a_knock_1_6_s_after_the_card_is_too_late():
    rulings = referee(card(1, "r_5", 0), card(2, "r_0", 1), knock(3.6))
    assert penalties(rulings) == [("missed_knock", 1)]
    assert rulings[-1]["t"] == 3.5


def test_a_knock_exactly_at_the_end_of_the_window_still_counts():
    assert penalties(referee(card(1, "r_5", 0), card(2, "r_0", 1), knock(3.5))) == []


def test_knocks_exactly_on_the_window_edges_count_whatever_the_floats_make_of_them():
    # 2.2 - 0.3 is 1.9000000000000001 and 3.03 + 1.5 is 4.529999999999999.
    assert penalties(referee(card(1, "r_5", 0), knock(1.9), card(2.2, "r_0", 1))) == []
    assert penalties(referee(card(1, "r_5", 0), card(3.03, "r_0", 1), knock(4.53))) == []


def test_with_zero_insticks_by_colour_a_turns_zeros_of_other_colours_are_still_one_turn():
    # B4 (b): any number of zeros of different colours in one turn, a knock for each (B8).
    rulings = referee(card(1, "r_5", 0), card(2, "r_0", 1), knock(2.1), card(2.5, "g_0", 1),
                      knock(2.6), card(4, "g_3", 2), zero_instick_any_color=False)
    assert penalties(rulings) == []
    rulings = referee(card(1, "r_5", 0), card(2, "r_0", 1), knock(2.1), card(2.5, "g_0", 1),
                      card(4, "g_3", 2), zero_instick_any_color=False)
    assert penalties(rulings) == [("missed_knock", 1)]


def test_the_knock_window_is_a_setting():
    rulings = referee(card(1, "r_5", 0), card(2, "r_0", 1), knock(3.6), knock_after_s=2.0)
    assert penalties(rulings) == []


def test_one_knock_satisfies_one_card_and_knocks_nobody_needs_are_not_penalised():
    rulings = referee(knock(0.5), card(1, "r_5", 0), knock(1.5), card(2, "r_0", 1),
                      card(2.5, "y_0", 2), knock(2.7), knock(2.8), knock(9))
    assert penalties(rulings) == []


def test_without_ears_the_knock_rules_are_not_checked_rather_than_all_missed():
    events = (card(1, "r_5", 0), card(2, "r_0", 1), card(2.5, "r_0", 2))
    assert penalties(referee(*events)) == [("missed_knock", 1), ("missed_knock", 2)]
    rulings = referee(*events, check_knocks=False)
    assert penalties(rulings) == []
    assert [r["seat"] for r in infos(rulings, "instick")] == [2]
