"""B2-B6: playing on your turn."""

from scenario_helpers import (
    call,
    card,
    color,
    draw,
    infos,
    knock,
    last_turn,
    penalties,
    referee,
    turns,
)

# B2 -------------------------------------------------------------------------------------------

def test_a_card_of_the_same_colour_or_value_or_black_is_legal():
    rulings = referee(card(1, "r_5", 0), card(2, "r_9", 1), card(3, "g_9", 2),
                      card(4, "wild", 3), color(4.5, "b"), card(6, "b_2", 0))
    assert penalties(rulings) == []


def test_a_card_that_matches_neither_colour_nor_value_is_an_illegal_card():
    rulings = referee(card(1, "r_5", 0), card(2, "g_7", 1))
    assert penalties(rulings) == [("illegal_card", 1)]
    ruling = rulings[1]
    assert ruling["ref"] == "B2" and ruling["card"] == "g_7" and ruling["penalty"] == 2
    assert "Seat 1" in ruling["message"] and "green 7" in ruling["message"]


def test_after_a_wild_the_named_colour_must_be_followed():
    rulings = referee(card(1, "r_5", 0), card(2, "wild", 1), color(2.5, "y"),
                      card(4, "g_3", 2))
    assert penalties(rulings) == [("illegal_card", 2)]
    assert infos(rulings, "color")[0]["color"] == "y"


def test_after_a_wild_without_a_named_colour_the_next_card_sets_it():
    rulings = referee(card(1, "r_5", 0), card(2, "wild", 1), card(4, "g_3", 2),
                      card(5, "r_3", 3), card(6, "b_8", 0))
    assert penalties(rulings) == [("illegal_card", 0)]


def test_wild_draw_four_may_be_played_at_any_time():
    rulings = referee(card(1, "r_5", 0), card(2, "wild_draw_4", 1))
    assert penalties(rulings) == []
    assert [(r["seat"], r["count"]) for r in infos(rulings, "draw_due")] == [(2, 4)]
    assert last_turn(rulings) == 3


# B3 -------------------------------------------------------------------------------------------

def test_skip_skips_the_next_player():
    assert last_turn(referee(card(1, "r_5", 0), card(2, "r_skip", 1))) == 3


def test_reverse_flips_the_direction():
    rulings = referee(card(1, "r_5", 0), card(2, "r_reverse", 1), card(3, "r_4", 0))
    assert turns(rulings) == [1, 0, 3]
    assert penalties(rulings) == []


def test_with_two_players_reverse_acts_as_skip():
    rulings = referee(card(1, "r_5", 0), card(2, "r_reverse", 1), players=2)
    assert turns(rulings) == [1, 1]


def test_with_two_players_reverse_can_be_set_to_flip_instead():
    rulings = referee(card(1, "r_5", 0), card(2, "r_reverse", 1), players=2,
                      two_player_reverse_skips=False)
    assert turns(rulings) == [1, 0]


def test_draw_two_makes_the_next_player_take_two_and_miss_the_turn():
    rulings = referee(card(1, "r_5", 0), card(2, "r_draw_2", 1))
    assert [(r["seat"], r["count"]) for r in infos(rulings, "draw_due")] == [(2, 2)]
    assert last_turn(rulings) == 3


# B4 -------------------------------------------------------------------------------------------

def test_a_second_different_card_in_the_same_turn_is_out_of_turn():
    rulings = referee(card(1, "r_5", 0), card(2, "r_7", 1), card(3, "r_8", 1))
    assert penalties(rulings) == [("out_of_turn", 1)]
    assert rulings[-1]["ref"] == "B4"


def test_two_identical_cards_together_are_an_instick_on_yourself_with_one_knock():
    rulings = referee(card(1, "r_5", 0), card(2, "r_7", 1), card(2.2, "r_7", 1), knock(2.5))
    assert penalties(rulings) == []
    assert [r["seat"] for r in infos(rulings, "instick")] == [1]


def test_a_pair_of_draw_twos_makes_the_next_player_take_two_plus_two():
    rulings = referee(card(1, "r_5", 0), card(2, "r_draw_2", 1), card(2.2, "r_draw_2", 1),
                      knock(2.6))
    due = [(r["seat"], r["count"]) for r in infos(rulings, "draw_due")]
    assert due == [(2, 2), (2, 2)]
    assert last_turn(rulings) == 3 and penalties(rulings) == []


def test_a_pair_of_skips_skips_one_player():
    rulings = referee(card(1, "r_5", 0), card(2, "r_skip", 1), card(2.2, "r_skip", 1),
                      knock(2.6))
    assert last_turn(rulings) == 3 and penalties(rulings) == []


def test_zeros_of_different_colours_may_be_played_in_one_turn_with_one_knock_each():
    rulings = referee(card(1, "r_5", 0), card(2, "r_0", 1), knock(2.1), card(3, "g_0", 1),
                      knock(3.2), card(4, "b_0", 1), knock(4.1))
    assert penalties(rulings) == []
    assert last_turn(rulings) == 2


# B5 -------------------------------------------------------------------------------------------

def test_the_same_number_in_two_colours_in_one_turn_is_penalised():
    rulings = referee(card(1, "r_5", 0), card(2, "r_1", 1), card(3, "y_1", 1))
    assert penalties(rulings) == [("same_number_two_colors", 1)]
    assert rulings[-1]["ref"] == "B5" and rulings[-1]["card"] == "y_1"


def test_changing_colour_with_the_same_number_on_the_previous_players_card_is_legal():
    rulings = referee(card(1, "r_5", 0), card(2, "r_1", 1), card(3, "y_1", 2))
    assert penalties(rulings) == []
    assert last_turn(rulings) == 3


# B6 -------------------------------------------------------------------------------------------

def test_a_player_who_cannot_play_takes_one_card_and_passes():
    rulings = referee(card(1, "r_5", 0), draw(2, 1), call(3, "pass", 1), card(4, "r_2", 2))
    assert penalties(rulings) == []
    assert turns(rulings) == [1, 2, 3]


def test_a_player_on_bruno_takes_three_cards_silently_and_the_turn_moves_on():
    rulings = referee(card(1, "r_5", 0), call(1.5, "bruno", 1), draw(2, 1, count=3),
                      card(4, "r_2", 2))
    assert penalties(rulings) == []
    assert turns(rulings) == [1, 2, 3]


def test_saying_pass_while_on_bruno_is_a_wrong_call():
    rulings = referee(card(1, "r_5", 0), call(1.5, "bruno", 1), call(3, "pass", 1))
    assert penalties(rulings) == [("wrong_call", 1)]


def test_drawing_what_a_draw_card_made_you_owe_does_not_end_the_next_turn():
    rulings = referee(card(1, "r_5", 0), card(2, "r_draw_2", 1), draw(3, 2, count=2),
                      card(4, "r_3", 3))
    assert penalties(rulings) == []
    assert turns(rulings) == [1, 3, 0]


def test_saying_pass_after_the_silent_bruno_draw_is_a_wrong_call():
    rulings = referee(card(1, "r_5", 0), call(1.5, "bruno", 1), draw(2, 1, count=3),
                      call(2.5, "pass", 1), card(4, "r_2", 2))
    assert penalties(rulings) == [("wrong_call", 1)]
    assert turns(rulings) == [1, 2, 3]


def test_a_player_who_said_bruno_and_later_drew_may_pass_normally_on_a_later_turn():
    rulings = referee(card(1, "r_5", 0), call(1.5, "bruno", 1), draw(2, 1, count=3),
                      card(4, "r_2", 2), card(5, "r_3", 3), card(6, "r_4", 0),
                      draw(7, 1), call(8, "pass", 1))
    assert penalties(rulings) == []
    assert turns(rulings)[-1] == 2


def test_a_later_turn_that_began_unseen_ends_the_silent_bruno_draw():
    # An instick from a seat the camera did not see leaves whose turn it is unknown; seat 2's
    # card after its whole three-card Bruno draw is a later turn's, so it may say "pass".
    rulings = referee(card(1, "r_5", 0), card(2, "r_6", 1), call(2.5, "bruno", 2),
                      draw(3, 2, count=3), card(4, "r_7", 3), draw(5, 4), call(5.5, "pass", 4),
                      card(6, "r_draw_2", 5), card(6.4, "r_draw_2", None), knock(6.5),
                      draw(7, 0, count=2), draw(8, 1, count=2), draw(9, 2), call(10, "pass", 2),
                      players=6)
    assert penalties(rulings) == []


def test_a_pass_within_the_silent_bruno_draw_is_still_a_wrong_call():
    rulings = referee(card(1, "r_5", 0), call(1.5, "bruno", 1), draw(2, 1), draw(2.5, 1),
                      call(3, "pass", 1))
    assert penalties(rulings) == [("wrong_call", 1)]


def test_a_colour_named_just_before_the_wild_comes_to_rest_counts_for_it():
    rulings = referee(card(1, "r_5", 0), color(1.8, "b"), card(2, "wild", 1), card(3, "g_3", 2))
    assert penalties(rulings) == [("illegal_card", 2)]
    assert [(r["t"], r["color"]) for r in infos(rulings, "color")] == [(2.0, "b")]


def test_a_colour_named_long_before_a_wild_does_not_count_for_it():
    rulings = referee(card(1, "r_5", 0), color(1.0, "b"), card(4, "wild", 1), card(5, "g_3", 2))
    assert penalties(rulings) == [] and infos(rulings, "color") == []


def test_a_colour_another_seat_names_is_for_its_own_wild_not_the_wild_on_the_pile():
    # B2: the colour is the one the wild's player names; seat 0's green is for its own wild.
    named = [card(1, "r_5", 0), card(5, "wild", 1), color(5.3, "b", 1), color(7.5, "g", 0)]
    assert penalties(referee(*named, card(7.7, "b_4", 2))) == []
    # ... and that wild, landing within a second, takes it (a red 3 on it is then illegal).
    assert penalties(referee(*named, card(8.0, "wild", 0), knock(8.1),
                             card(9, "r_3", 1))) == [("illegal_card", 1)]
