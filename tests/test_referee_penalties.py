"""P1-P4: penalties, SEG, and what an erroneous card does to the game."""

from scenario_helpers import call, card, last_turn, penalties, referee, removed, turns

# P1 -------------------------------------------------------------------------------------------

def test_every_penalty_costs_two_cards_by_default():
    rulings = referee(card(1, "r_5", 0), card(2, "g_7", 1), card(3, "b_1", 3))
    assert [r["penalty"] for r in rulings if r["kind"] == "ruling"] == [2, 2]


def test_the_penalty_size_is_a_setting():
    rulings = referee(card(1, "r_5", 0), card(2, "g_7", 1), penalty_cards=3)
    ruling = next(r for r in rulings if r["kind"] == "ruling")
    assert ruling["penalty"] == 3 and "three penalty cards" in ruling["message"]


def test_a_legal_game_gets_no_penalty():
    rulings = referee(card(1, "r_5", 0), card(2, "r_6", 1), card(3, "g_6", 2), card(4, "g_1", 3))
    assert penalties(rulings) == []


# P2 -------------------------------------------------------------------------------------------

def test_a_card_from_someone_whose_turn_it_is_not_is_out_of_turn():
    rulings = referee(card(1, "r_5", 0), card(2, "r_6", 3))
    assert penalties(rulings) == [("out_of_turn", 3)]
    assert "seat 1's turn" in rulings[-1]["message"]


def test_a_card_out_of_turn_that_also_does_not_match_gets_one_ruling():
    rulings = referee(card(1, "r_5", 0), card(2, "g_6", 3))
    assert penalties(rulings) == [("out_of_turn", 3)]


def test_saying_uno_instead_of_bruno_is_a_wrong_call():
    rulings = referee(card(1, "r_5", 0), call(2, "uno", 2))
    assert penalties(rulings) == [("wrong_call", 2)]


def test_saying_bruno_is_fine():
    assert penalties(referee(card(1, "r_5", 0), call(2, "bruno", 2))) == []


# P3 -------------------------------------------------------------------------------------------

def test_with_seg_on_a_slow_player_is_called_too_slow_and_the_turn_passes():
    rulings = referee(card(1, "r_5", 0), card(12, "r_6", 2), seg_after_s=8)
    assert penalties(rulings) == [("too_slow", 1)]
    too_slow = next(r for r in rulings if r["kind"] == "ruling")
    assert too_slow["t"] == 9.0 and too_slow["ref"] == "P3" and too_slow["card"] is None
    assert turns(rulings) == [1, 2, 3]


def test_with_seg_on_a_quick_player_is_not_called():
    rulings = referee(card(1, "r_5", 0), card(8.5, "r_6", 1), seg_after_s=8)
    assert penalties(rulings) == []


def test_a_card_taken_back_late_gives_the_turn_back_on_a_fresh_clock():
    # Found by the property test: the turn given back at 20 s had started at 1 s, so a SEG
    # dated 9 s came out after the take-back, out of time order.
    rulings = referee(card(1, "r_5", 0), card(2, "r_6", 1), removed(20, "r_6"), seg_after_s=8)
    times = [r["t"] for r in rulings]
    assert times == sorted(times)
    # While the r_6 lay, seats 2 and 3 were slow (at 10 s and 18 s); then seat 1 plays again.
    assert penalties(rulings) == [("too_slow", 2), ("too_slow", 3)]
    assert last_turn(rulings) == 1
    assert max(times) == 20


def test_with_seg_off_nobody_is_ever_too_slow():
    rulings = referee(card(1, "r_5", 0), card(60, "r_6", 1))
    assert penalties(rulings) == []


def test_a_seg_called_by_another_player_penalises_the_turn_holder():
    rulings = referee(card(1, "r_5", 0), call(4, "seg", 3), card(5, "r_6", 2))
    assert penalties(rulings) == [("too_slow", 1)]
    assert turns(rulings) == [1, 2, 3]


def test_seg_deadlines_after_the_end_of_the_log_do_not_fire():
    assert penalties(referee(card(1, "r_5", 0), seg_after_s=8)) == []


# P4 -------------------------------------------------------------------------------------------

def test_an_illegal_card_not_taken_back_stays_and_counts_as_the_play():
    rulings = referee(card(1, "r_5", 0), card(2, "g_skip", 1), card(3, "g_4", 3))
    assert penalties(rulings) == [("illegal_card", 1)]
    assert last_turn(rulings) == 0  # the skip took effect


def test_an_illegal_card_taken_back_gives_the_turn_back_to_the_same_player():
    rulings = referee(card(1, "r_5", 0), card(2, "g_7", 1), removed(2.5, "g_7"),
                      card(3, "r_7", 1))
    assert penalties(rulings) == [("illegal_card", 1)]
    assert turns(rulings) == [1, 2, 1, 2]


def test_an_out_of_turn_card_stays_on_top_but_the_turn_stays():
    rulings = referee(card(1, "r_5", 0), card(2, "r_skip", 3), card(3, "r_1", 1))
    assert penalties(rulings) == [("out_of_turn", 3)]
    assert last_turn(rulings) == 2  # no skip effect; seat 1 played on the out-of-turn card


def test_later_cards_must_match_the_out_of_turn_card():
    rulings = referee(card(1, "r_5", 0), card(2, "g_5", 3), card(3, "r_1", 1))
    assert penalties(rulings) == [("out_of_turn", 3), ("illegal_card", 1)]


def test_taking_back_a_card_that_is_not_on_top_changes_nothing():
    rulings = referee(card(1, "r_5", 0), card(2, "r_6", 1), removed(2.5, "b_9"),
                      card(3, "r_7", 2))
    assert penalties(rulings) == [] and turns(rulings) == [1, 2, 3]


def test_an_instick_taken_back_needs_no_knock():
    rulings = referee(card(1, "r_5", 0), card(2, "r_6", 1), card(2.2, "r_6", 3),
                      removed(2.6, "r_6"))
    assert penalties(rulings) == []
    assert last_turn(rulings) == 2
