"""The decisions of docs/missed-observations.md, one scenario each: what the referee assumes
when play only makes sense if it missed something, and what stays a penalty."""

import pytest

from referee.rules import RuleSet

from scenario_helpers import (
    call,
    card,
    color,
    draw,
    infos,
    knock,
    penalties,
    referee,
    removed,
    turns,
)


def penalty_rulings(rulings):
    return [r for r in rulings if r["kind"] == "ruling"]


# Implied passes ------------------------------------------------------------------------------

def test_a_turn_holder_who_drew_passed_when_the_next_seat_plays():
    rulings = referee(card(1, "r_5", 0), draw(2, 1), card(4, "r_2", 2))
    assert penalties(rulings) == []
    assert turns(rulings) == [1, 2, 3]
    assert "Seat 1 took a card and passed" in infos(rulings, "turn")[1]["message"]


def test_a_card_taken_to_pay_a_penalty_also_counts_for_the_implied_pass():
    # Seat 1 owes two penalty cards; it takes one on its turn and seat 2 plays: it passed.
    rulings = referee(card(1, "r_5", 0), card(2, "g_7", 1), card(3, "g_5", 2),
                      card(5, "g_6", 3), card(6, "g_8", 0), draw(7, 1), card(8, "g_9", 2))
    assert penalties(rulings) == [("illegal_card", 1)]


def test_after_bruno_s_three_cards_half_seen_the_next_seat_may_play():
    # The silent Bruno draw moves the turn at three cards; two were seen.
    rulings = referee(card(1, "r_5", 0), call(1.5, "bruno", 1), draw(2, 1), draw(2.5, 1),
                      card(4, "r_2", 2))
    assert penalties(rulings) == []
    assert turns(rulings)[-1] == 3


def test_a_spoken_pass_still_passes_the_turn():
    rulings = referee(card(1, "r_5", 0), draw(2, 1), call(3, "pass", 1), card(4, "r_2", 2))
    assert penalties(rulings) == [] and turns(rulings) == [1, 2, 3]


def test_after_a_seg_call_the_next_seat_plays():
    rulings = referee(card(1, "r_5", 0), call(4, "seg", 3), draw(5, 1), draw(6, 1),
                      card(7, "r_6", 2))
    assert penalties(rulings) == [("too_slow", 1)]
    assert turns(rulings) == [1, 2, 3]


def test_the_next_seat_drawing_and_passing_after_the_turn_holder_drew():
    rulings = referee(card(1, "r_5", 0), draw(2, 1), draw(3, 2), call(4, "pass", 2),
                      card(5, "r_7", 3))
    assert penalties(rulings) == []
    assert turns(rulings) == [1, 2, 3, 0]


def test_a_pass_from_the_next_seat_ends_the_turn_before_it_even_without_a_draw_seen():
    rulings = referee(card(1, "r_5", 0), call(3, "pass", 2), card(5, "r_7", 3))
    assert penalties(rulings) == []
    assert "Seat 1 must have passed" in infos(rulings, "turn")[1]["message"]


def test_the_next_seat_drawing_three_cards_shows_the_turn_holder_passed_unseen():
    # Seat 1's draw and "pass" went unseen; seat 2 takes three cards (more than a penalty's
    # two, and it owes nothing): that is its own turn's draw, so seat 3 plays in turn.
    rulings = referee(card(1, "r_5", 0), draw(3, 2), draw(3.5, 2), draw(4, 2),
                      card(6, "r_2", 3))
    assert penalties(rulings) == []
    assert turns(rulings) == [1, 2, 3, 0]


def test_two_cards_taken_by_the_next_seat_may_be_a_penalty_and_move_no_turn():
    rulings = referee(card(1, "r_5", 0), draw(3, 2), draw(3.5, 2), card(6, "r_2", 3))
    assert penalties(rulings) == [("out_of_turn", 3)]


def test_implied_passes_can_be_switched_off():
    rulings = referee(card(1, "r_5", 0), draw(2, 1), card(4, "r_2", 2), implied_pass=False)
    assert penalties(rulings) == [("out_of_turn", 2)]


# What stays a penalty, and how sure it is ----------------------------------------------------

def test_the_next_seat_playing_before_any_draw_is_out_of_turn_but_unsure():
    rulings = referee(card(1, "r_5", 0), card(2, "r_6", 2))
    (ruling,) = penalty_rulings(rulings)
    assert (ruling["rule"], ruling["seat"]) == ("out_of_turn", 2)
    assert ruling["confidence"] == RuleSet().missed_draw_confidence
    assert ruling["confidence"] < RuleSet().announce_min_confidence


def test_a_seat_further_on_playing_out_of_turn_is_a_sure_penalty():
    (ruling,) = penalty_rulings(referee(card(1, "r_5", 0), card(2, "r_6", 3)))
    assert ruling["rule"] == "out_of_turn" and ruling["confidence"] == 1.0


def test_the_missed_draw_confidence_is_a_setting():
    (ruling,) = penalty_rulings(referee(card(1, "r_5", 0), card(2, "r_6", 2),
                                        missed_draw_confidence=0.9))
    assert ruling["confidence"] == 0.9


def test_a_card_that_does_not_match_stays_an_illegal_card_with_its_reading_confidence():
    (ruling,) = penalty_rulings(referee(card(1, "r_5", 0), card(2, "g_7", 1, confidence=0.8)))
    assert ruling["rule"] == "illegal_card" and ruling["confidence"] == 0.8


def test_a_missed_knock_stays_a_penalty_with_the_confidence_of_the_card_reading():
    (ruling,) = penalty_rulings(referee(card(1, "r_5", 0), card(2, "r_0", 1, confidence=0.7)))
    assert ruling["rule"] == "missed_knock" and ruling["confidence"] == 0.7


def test_every_penalty_carries_a_confidence_between_zero_and_one():
    rulings = referee(card(1, "r_5", 0), card(2, "g_7", 1), card(3, "g_8", 3),
                      call(4, "uno", 2), card(5, "g_0", 3))
    assert penalty_rulings(rulings)
    for ruling in penalty_rulings(rulings):
        assert list(ruling)[-2:] == ["confidence", "message"]
        assert 0 <= ruling["confidence"] <= 1


# Following the table after a card out of turn -------------------------------------------------

def test_when_play_goes_on_from_a_card_out_of_turn_the_referee_follows_with_one_penalty():
    # Seat 1 drew and passed unseen and unheard; seat 2 plays, then 3, 0, 1 as at the table.
    rulings = referee(card(1, "r_5", 0), card(3, "r_6", 2), card(4, "r_7", 3),
                      card(5, "r_8", 0), card(6, "r_9", 1))
    assert penalties(rulings) == [("out_of_turn", 2)]
    assert turns(rulings)[-1] == 2
    assert "Play went on from the red 6" in infos(rulings, "turn")[1]["message"]


def test_without_following_the_table_every_later_card_is_out_of_turn():
    rulings = referee(card(1, "r_5", 0), card(3, "r_6", 2), card(4, "r_7", 3),
                      card(5, "r_8", 0), follow_the_table=False)
    assert penalties(rulings) == [("out_of_turn", 2), ("out_of_turn", 3), ("out_of_turn", 0)]


def test_following_the_table_applies_the_card_s_effect():
    # Seat 2's skip out of turn, then seat 0 plays: the skip counted at the table.
    rulings = referee(card(1, "r_5", 0), card(3, "r_skip", 2), card(4, "r_7", 0),
                      card(5, "r_8", 1))
    assert penalties(rulings) == [("out_of_turn", 2)]


def test_the_seat_a_draw_card_out_of_turn_hits_taking_its_cards_shows_the_table_went_on():
    # Three players: seat 1 passed unseen; seat 2's draw two hits seat 0, who takes two.
    rulings = referee(card(1, "r_5", 0), card(3, "r_draw_2", 2), draw(4, 0), draw(4.5, 0),
                      card(6, "r_3", 1), card(7, "r_4", 2), players=3)
    assert penalties(rulings) == [("out_of_turn", 2)]
    assert "Play went on from the red draw two; seat 1 to play." in [
        r["message"] for r in infos(rulings, "turn")]


def test_the_turn_holder_playing_on_a_card_out_of_turn_is_p4_and_must_match_it():
    rulings = referee(card(1, "r_5", 0), card(2, "g_5", 3), card(3, "r_1", 1))
    assert penalties(rulings) == [("out_of_turn", 3), ("illegal_card", 1)]


def test_a_reverse_out_of_turn_from_the_next_seat_then_the_table_goes_the_other_way():
    # Seat 1 passed unseen; seat 2's reverse was a play; seat 1 plays, then seat 0.
    rulings = referee(card(1, "r_5", 0), card(3, "r_reverse", 2), card(4, "r_7", 1),
                      card(5, "r_8", 0), card(6, "r_9", 3))
    assert penalties(rulings) == [("out_of_turn", 2)]
    assert turns(rulings)[-1] == 2
    assert any("other way round" in r["message"] for r in infos(rulings, "turn"))


def test_the_victim_the_other_way_round_taking_its_cards_shows_the_reverse_counted():
    # Seat 3 drew and passed unseen; seat 2's reverse was a play. Seat 3, the turn holder
    # either way, plays a wild draw four: seat 0 takes the four, which only the reverse
    # explains. (Taken for seat 0's own turn, three sure penalties followed: simulated round
    # 438 with a whole turn left out.)
    rulings = referee(card(1, "y_5", 0), card(2, "y_reverse", 1), card(3, "y_6", 0),
                      card(5, "y_reverse", 2), draw(6, 3), card(7, "wild_draw_4", 3),
                      color(7.2, "b"), *(draw(8 + k / 2, 0) for k in range(4)),
                      card(11, "b_draw_2", 1), draw(12, 2), draw(12.5, 2), draw(13, 3),
                      card(14, "b_5", 3), card(15, "b_7", 0), card(16, "b_8", 1))
    assert penalties(rulings) == [("out_of_turn", 2)]
    assert [(r["seat"], r["count"]) for r in infos(rulings, "draw_due")][-1] == (2, 2)
    assert turns(rulings)[-1] == 2


def test_after_a_reverse_out_of_turn_play_going_on_as_p4_says_is_no_penalty_either():
    rulings = referee(card(1, "r_5", 0), card(3, "r_reverse", 2), card(4, "r_7", 1),
                      card(5, "r_8", 2), card(6, "r_9", 3))
    assert penalties(rulings) == [("out_of_turn", 2)]


# A take-back the camera missed ----------------------------------------------------------------

def test_a_seat_that_plays_again_on_the_card_beneath_its_illegal_card_took_it_back():
    rulings = referee(card(1, "r_5", 0), card(2, "g_7", 1), card(4, "r_7", 1),
                      card(5, "r_8", 2))
    assert penalties(rulings) == [("illegal_card", 1)]
    assert any("must have been taken back" in r["message"] for r in infos(rulings, "turn"))


def test_a_take_back_seen_gives_the_same_rulings_but_the_message():
    seen = referee(card(1, "r_5", 0), card(2, "g_7", 1), removed(3, "g_7"), card(4, "r_7", 1),
                   card(5, "r_8", 2))
    unseen = referee(card(1, "r_5", 0), card(2, "g_7", 1), card(4, "r_7", 1), card(5, "r_8", 2))
    assert penalties(seen) == penalties(unseen)
    assert turns(seen) == turns(unseen)


def test_without_assuming_take_backs_the_second_card_is_a_second_penalty():
    rulings = referee(card(1, "r_5", 0), card(2, "g_7", 1), card(4, "r_7", 1),
                      assume_missed_take_back=False)
    # (a red 7 after the green 7 in one turn: B5)
    assert penalties(rulings) == [("illegal_card", 1), ("same_number_two_colors", 1)]


# Cards read unsure ------------------------------------------------------------------------------

def test_after_a_card_read_unsure_the_next_card_says_whose_turn_it_is():
    # The "r_6" may have been a skip: seat 3 plays next, then seat 0.
    rulings = referee(card(1, "r_5", 0), card(2, "r_6", 1, confidence=0.3), card(3, "r_2", 3),
                      card(4, "r_3", 0))
    assert penalties(rulings) == []


def test_a_card_identical_to_a_top_card_read_unsure_owes_no_knock():
    rulings = referee(card(1, "r_5", 0), card(2, "r_6", 1, confidence=0.3), card(3, "r_6", 3),
                      card(6, "r_3", 0))
    assert penalties(rulings) == []


def test_a_draw_card_read_unsure_makes_nobody_owe_cards():
    rulings = referee(card(1, "r_5", 0), card(2, "r_draw_2", 1, confidence=0.3))
    assert infos(rulings, "draw_due") == []


def test_a_card_read_unsure_that_may_have_been_a_reverse_direction_follows_the_table():
    # The "r_6" was a reverse: seat 0 plays, then seat 3.
    rulings = referee(card(1, "r_5", 0), card(2, "r_6", 1, confidence=0.3), card(3, "r_2", 0),
                      card(4, "r_3", 3), card(5, "r_4", 2))
    assert penalties(rulings) == []
    assert turns(rulings)[-1] == 1


# Settings ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name, value", [
    ("implied_pass", False), ("follow_the_table", False), ("assume_missed_take_back", False),
    ("missed_draw_confidence", 0.3), ("announce_min_confidence", 0.9),
])
def test_the_decisions_are_rule_settings_by_name(name, value):
    assert getattr(RuleSet().with_overrides({name: value}), name) == value


def test_an_unseen_knock_window_is_not_an_assumption_a_knock_still_counts_late():
    rulings = referee(card(1, "r_5", 0), card(2, "r_0", 1), knock(3.4), card(4, "r_7", 2))
    assert penalties(rulings) == []


def test_after_an_unsure_card_its_other_neighbour_playing_shows_play_goes_that_way_round():
    # Seat 2 reverses (play goes 2 -> 1), then lays a card read unsure: it was its pair, a
    # second red reverse, and play goes 2 -> 3 again. Seat 3 playing shows it; seat 0 follows.
    rulings = referee(card(1, "r_5", 0), card(2, "r_7", 1), card(3, "r_reverse", 2),
                      card(3.6, "b_reverse", 2, confidence=0.3), knock(3.8),
                      card(5, "r_8", 3), card(6, "r_9", 0))
    assert penalties(rulings) == []
    # In step at once: no detour through seat 2 and "play goes the other way round".
    assert turns(rulings) == [1, 2, 1, 3, 0, 1]


def test_a_card_given_to_the_wrong_seat_does_not_turn_play_round_for_good():
    # Three players, all red: seat 2's red 9 is seen as seat 1's. Taken as seat 1 playing
    # again with play reversed, every later card was out of turn (seven penalties in one
    # simulated game); the turn holder playing it fits as well, so the direction stays in
    # doubt until the next cards tell: one penalty, the one said for the card itself.
    rulings = referee(card(1, "r_5", 0), card(3, "r_2", 1), card(5, "r_9", 1),
                      card(7, "r_3", 0), card(9, "r_4", 1), card(11, "r_6", 2),
                      card(13, "r_7", 0), card(15, "r_skip", 1), card(17, "r_1", 0),
                      card(19, "r_8", 1), card(21, "r_3", 2), card(23, "r_4", 0), players=3)
    assert penalties(rulings) == [("out_of_turn", 1)]


def test_a_card_read_unsure_that_the_table_plays_past_was_never_there():
    # A blue 8 read at 0.6 from seat 3 (out of turn: a check), then seat 2, whose turn it was,
    # plays a red 6 on the red 5 beneath: judged against the blue 8 it was an illegal card
    # said aloud, and so was every card after it.
    rulings = referee(card(1, "r_9", None), card(2, "r_5", 1), card(3, "b_8", 3, confidence=0.6),
                      card(5, "r_6", 2), card(7, "r_2", 3), card(9, "r_7", 0))
    said = [(r["rule"], r["seat"]) for r in rulings
            if r["kind"] == "ruling" and r["confidence"] >= 0.7]
    assert said == [] and ("out_of_turn", 3) in penalties(rulings)
    first = next(r["message"] for r in rulings if r["t"] == 5 and r["rule"] == "turn")
    assert first.startswith("The blue 8, read unsure, was not played, it seems")


# A card read again -----------------------------------------------------------------------------

def test_a_reverse_read_again_that_the_table_plays_past_was_one_card():
    # Seat 1's red reverse is seen again 0.6 s later as its hand lifts: an instick on its own
    # card that turns play back. Seat 0 plays, as one reverse wants: the second was the same
    # card, and neither its knock nor seat 0's card is a penalty.
    rulings = referee(card(1, "r_5", 0), card(2, "r_reverse", 1),
                      card(2.6, "r_reverse", 1, confidence=0.8), card(3.5, "r_3", 0),
                      card(5, "r_4", 3))
    assert penalties(rulings) == []
    assert turns(rulings)[-2:] == [3, 2]
    said = next(r["message"] for r in rulings if r["t"] == 3.5 and r["rule"] == "turn")
    assert said.startswith("The second red reverse was the same card seen twice")


def test_a_reverse_read_again_costs_at_most_its_knock_once_that_is_ruled():
    # The table's next card comes after the knock window: the missed knock was said, and the
    # card that shows the reverse was one is not a second penalty.
    rulings = referee(card(1, "r_5", 0), card(2, "r_reverse", 1),
                      card(2.6, "r_reverse", 1, confidence=0.8), card(5, "r_3", 0))
    assert penalties(rulings) == [("missed_knock", 1)]


def test_a_reverse_read_again_and_the_pass_of_the_seat_one_reverse_gives_the_turn():
    # Seen again, seat 1's reverse would give seat 2 the turn. Seat 0 takes a card and says
    # "pass": it was its turn, so the reverse was one card, and seat 3 plays next.
    rulings = referee(card(1, "r_5", 0), card(2, "r_reverse", 1),
                      card(2.7, "r_reverse", 1, confidence=0.85), draw(3.2, 0),
                      call(3.6, "pass", 0), card(5, "r_2", 3))
    assert penalties(rulings) == []
    assert turns(rulings)[-2:] == [3, 2]


def test_two_reverses_the_turn_holder_took_a_card_after_were_both_laid():
    # A table of three: seat 1 lays two red reverses (the second its instick, knocked), so play
    # goes on to seat 2, which takes a card; its "pass" is not heard, and seat 0 takes a card
    # and plays. One reverse would have given seat 0 the turn too, but seat 2 taking a card
    # showed the table took both: nothing was read twice, and play goes on from seat 0 to 1.
    # (A simulated round found it: four wrongful penalties after the one missed "pass".)
    rulings = referee(card(1, "r_5", 0), card(2, "r_reverse", 1), card(2.6, "r_reverse", 1),
                      knock(2.8), draw(3.5, 2), draw(5, 0), card(6, "r_3", 0), card(7.5, "r_4", 1),
                      players=3)
    assert penalties(rulings) == []
    assert not [r for r in rulings if "seen twice" in r.get("message", "")]


def test_two_reverses_really_laid_still_owe_their_knock_and_turn_play_back():
    # The same seat lays its second red reverse as an instick; the table plays on after two
    # reverses (seat 2), so nothing was read twice: the missed knock stands.
    rulings = referee(card(1, "r_5", 0), card(2, "r_reverse", 1), card(2.6, "r_reverse", 1),
                      card(4.5, "r_3", 2))
    assert penalties(rulings) == [("missed_knock", 1)]
    assert not [r for r in rulings if "seen twice" in r.get("message", "")]
    rulings = referee(card(1, "r_5", 0), card(2, "r_reverse", 1), card(2.6, "r_reverse", 1),
                      knock(2.8), card(4.5, "r_3", 2))
    assert penalties(rulings) == []


# An instick hidden with its twin ---------------------------------------------------------------

def test_a_knock_then_a_card_from_the_seat_after_an_unseen_jumper_is_that_instick():
    # Seat 1 plays a green 5; seat 3 inserts its twin at once and knocks, and the camera never
    # sees the second green 5 apart from the first. Seat 0, after the jumper, plays next.
    rulings = referee(card(1, "r_5", 0), card(2, "g_5", 1), knock(2.6), card(4, "g_7", 0),
                      card(5.5, "g_8", 1))
    assert penalties(rulings) == []
    said = next(r["message"] for r in rulings if r["t"] == 4 and r["rule"] == "turn")
    assert said.startswith("A knock was heard: someone inserted a green 5 the camera did not")
    assert [r["seat"] for r in infos(rulings, "instick")] == [None]


def test_without_the_knock_the_card_is_out_of_turn():
    rulings = referee(card(1, "r_5", 0), card(2, "g_5", 1), card(4, "g_7", 0))
    assert penalties(rulings) == [("out_of_turn", 0)]


def test_a_knock_outside_the_top_card_s_window_explains_nothing():
    # Heard 2 s after the green 5 (its window closes at 1.5 s): no instick of it.
    rulings = referee(card(1, "r_5", 0), card(2, "g_5", 1), knock(4.0), card(5, "g_7", 0))
    assert penalties(rulings) == [("out_of_turn", 0)]


def test_an_unseen_reverse_instick_turns_play_back():
    # Seat 1's red reverse sends play to seat 0; seat 2 inserts its twin unseen, which turns
    # play back from seat 2: seat 3 plays, and after it seat 0 (not seat 2).
    rulings = referee(card(1, "r_5", 0), card(2, "r_reverse", 1), knock(2.5),
                      card(4, "r_3", 3), card(5.5, "r_4", 0))
    assert penalties(rulings) == []
    assert turns(rulings)[-1] == 1


def test_the_setting_off_rules_the_card_out_of_turn():
    rulings = referee(card(1, "r_5", 0), card(2, "g_5", 1), knock(2.6), card(4, "g_7", 0),
                      unseen_instick_by_knock=False)
    assert ("out_of_turn", 0) in penalties(rulings)


def test_a_turn_card_seen_late_under_its_instick_lets_play_go_on_from_the_jumper():
    # Seat 1 lays a red 7 at about 2 s, a hand over it till 3.0 s; seat 2 inserts its twin at
    # 2.4 s and knocks. Seen in that order, seat 2's card is out of turn (said); seat 1's then
    # came first, and play goes on from seat 2: seat 3's card is no second penalty.
    rulings = referee(card(1, "r_5", 0), card(2.4, "r_7", 2), knock(2.7), card(3.0, "r_7", 1),
                      card(4.5, "r_2", 3))
    assert penalties(rulings) == [("out_of_turn", 2)]
    assert [r["seat"] for r in rulings if r["rule"] == "turn" and r["t"] == 3.0] == [3]
    said = next(r["message"] for r in rulings if r["t"] == 3.0 and r["rule"] == "turn")
    assert said.startswith("Seat 1's red 7 came first, seen late; seat 2's was an instick on it")


def test_the_turn_holder_s_twin_with_its_knock_after_it_is_its_own_instick():
    # The knock comes after seat 1's card: seat 1 inserted on a card whose seat the camera may
    # have got wrong; play goes on from seat 1 (seat 2 is next).
    rulings = referee(card(1, "r_5", 0), card(2.4, "r_7", 2), card(3.0, "r_7", 1), knock(3.3),
                      card(4.5, "r_2", 2))
    assert penalties(rulings) == [("out_of_turn", 2)]
    assert not [r for r in rulings if "seen late" in r.get("message", "")]


def test_the_twin_of_the_card_beneath_a_card_ruled_out_of_turn_shows_that_card_never_lay_there():
    # A green reverse seen from seat 3 at 0.85 (out of turn, said); seat 0 then inserts the
    # twin of the red 9 beneath it, and knocks. Nobody inserts on a covered card: the reverse
    # was never there, and seat 0's card is no illegal card; seat 1 plays on after it.
    rulings = referee(card(1, "r_5", 0), card(2, "r_9", 1),
                      card(2.5, "g_reverse", 3, confidence=0.85), card(3.0, "r_9", 0),
                      knock(3.2), card(4.5, "r_3", 1))
    assert penalties(rulings) == [("out_of_turn", 3)]
    said = next(r["message"] for r in rulings if r["t"] == 3.0 and r["rule"] == "turn")
    assert said == "The green reverse was not played, it seems: seat 0 inserted on the red 9 " \
        "under it."


def test_after_a_draw_two_named_for_the_wrong_seat_its_victim_takes_two_and_play_goes_on():
    # Six players; seat 5's green draw two is seen from seat 2 (out of turn, said). Seat 0
    # takes two cards: the victim of the draw two as the turn holder's play, and also the
    # seat after seat 2's card had play gone the other way round. A seat taking cards after a
    # draw card is likelier its victim: play goes on with seat 1 (not turned round, which
    # made seat 1's card out of turn too).
    rulings = referee(card(1, "g_3", 3), card(1.7, "g_8", 4), card(3.1, "g_draw_2", 2),
                      draw(4.1, 0), draw(4.7, 0), card(7.1, "g_reverse", 1), card(9, "g_4", 0),
                      players=6, dealer=3)
    assert penalties(rulings) == [("out_of_turn", 2)]


def test_an_instick_on_the_card_beneath_by_the_seat_named_for_the_top_card_unwinds_it_too():
    # A red 2 seen from seat 2 at 0.8 between seat 2's yellow zero and its green zero (a zero
    # on a zero, with its knock): the green zero lands on the yellow one, so the red 2 was
    # never there, and the zero is no illegal card.
    rulings = referee(card(1, "r_5", 0), card(2, "r_0", 1), knock(2.2), card(3.5, "y_0", 2),
                      knock(3.7), card(3.9, "r_2", 2, confidence=0.8), card(4.6, "g_0", 2),
                      knock(4.8), players=3)
    assert penalties(rulings) == [("out_of_turn", 2)]
