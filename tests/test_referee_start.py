"""B1: the dealer's turned card acts as if an invisible player in the dealer's seat played it."""

from scenario_helpers import card, infos, last_turn, penalties, referee, turns


def test_a_number_card_lets_the_player_left_of_the_dealer_start():
    assert turns(referee(card(1, "r_5", 0), dealer=0)) == [1]
    assert turns(referee(card(1, "r_5", 2), dealer=2)) == [3]


def test_a_skip_skips_the_player_left_of_the_dealer():
    assert turns(referee(card(1, "g_skip", None), dealer=0)) == [2]


def test_a_reverse_turns_play_counter_clockwise_and_the_dealer_starts():
    rulings = referee(card(1, "b_reverse", 1), card(3, "b_4", 1), dealer=1)
    assert turns(rulings) == [1, 0]
    assert penalties(rulings) == []


def test_a_draw_two_makes_the_player_left_of_the_dealer_draw_and_miss_the_turn():
    rulings = referee(card(1, "y_draw_2", 0), dealer=0)
    assert [(r["seat"], r["count"]) for r in infos(rulings, "draw_due")] == [(1, 2)]
    assert last_turn(rulings) == 2


def test_a_wild_lets_the_player_left_of_the_dealer_play_any_card():
    rulings = referee(card(1, "wild", 0), card(3, "g_7", 1), dealer=0)
    assert penalties(rulings) == []
    assert turns(rulings) == [1, 2]


def test_a_wild_draw_four_makes_the_next_draw_four_and_the_one_after_play_any_card():
    rulings = referee(card(1, "wild_draw_4", 3), card(3, "b_2", 1), dealer=3)
    assert [(r["seat"], r["count"]) for r in infos(rulings, "draw_due")] == [(0, 4)]
    assert turns(rulings) == [1, 2]
    assert penalties(rulings) == []


def test_the_turned_card_is_not_judged_even_when_the_camera_names_a_seat():
    assert penalties(referee(card(1, "r_5", 3), dealer=0)) == []


def test_the_dealers_turned_zero_needs_no_knock_unless_the_table_says_so():
    assert penalties(referee(card(1, "r_0", 0))) == []
    assert penalties(referee(card(1, "r_0", 0), first_card_needs_knock=True)) == [
        ("missed_knock", 0)]


def test_a_reverse_with_two_players_acts_as_skip_so_the_dealer_starts():
    assert turns(referee(card(1, "r_reverse", 0), players=2, dealer=0)) == [0]
