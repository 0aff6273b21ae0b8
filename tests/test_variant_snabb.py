"""Snabb-UNO (`--variant snabb`, docs/rules/snabb.md): each rule id, kept and broken."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from referee.variants import SnabbUno, find_variant

from scenario_helpers import card, color, draw, infos, penalties, referee, removed, round_end, turns

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "snabb_every_rule.jsonl"


def snabb(*events, players: int = 4, **settings):
    return referee(*events, players=players, variant="snabb", **settings)


def refs(rulings) -> list[str]:
    return [r["ref"] for r in rulings if r["kind"] == "ruling"]


def test_snabb_is_found_by_name():
    assert find_variant("snabb") is SnabbUno and find_variant("Snabb-UNO") is SnabbUno


# Q1 (decision): a black card turned up is shuffled back; the next card turned starts.
def test_q1_a_black_card_turned_up_does_not_count_and_the_next_one_turned_starts():
    rulings = snabb(card(1, "wild_draw_4", None), card(4, "r_5", None), card(5, "r_6", 1),
                    card(6, "r_7", 2))
    assert penalties(rulings) == [] and turns(rulings) == [1, 2, 3]
    assert not [r for r in rulings if r["rule"] == "draw_due"]  # nobody takes four


def test_q1_a_black_card_turned_up_and_taken_back_is_not_played_for_its_effect():
    rulings = snabb(card(1, "wild_draw_4", None), removed(3, "wild_draw_4"),
                    card(4, "r_5", None), card(5, "r_6", 1))
    assert penalties(rulings) == [] and turns(rulings) == [1, 2]
    assert not [r for r in rulings if r["rule"] == "draw_due"]


# Q2: colour, number or symbol, or black.
def test_q2_a_matching_card_is_no_penalty():
    assert penalties(snabb(card(1, "r_5", None), card(2, "r_9", 1), card(3, "wild", 2))) == []


def test_q2_a_card_that_does_not_match_is_an_illegal_card():
    rulings = snabb(card(1, "r_5", None), card(2, "b_9", 1))
    assert penalties(rulings) == [("illegal_card", 1)] and refs(rulings) == ["Q2"]


# Q3: a jump-in is the jumper's play and turns the direction round; no knock.
def test_q3_a_jump_in_out_of_turn_goes_on_the_other_way_from_the_jumper():
    rulings = snabb(card(1, "r_5", None), card(2, "r_7", 1), card(2.5, "r_7", 3))
    assert penalties(rulings) == [] and turns(rulings) == [1, 2, 2]  # 3's right hand: seat 2


def test_q3_a_jump_in_on_your_own_turn_gives_the_turn_back():
    rulings = snabb(card(1, "r_5", None), card(2, "r_7", 1), card(3, "r_7", 2))
    assert penalties(rulings) == [] and turns(rulings)[-1] == 1


def test_q3_a_jumped_in_reverse_keeps_the_direction_and_skips_to_after_the_jumper():
    rulings = snabb(card(1, "r_5", None), card(2, "r_reverse", 1), card(2.5, "r_reverse", 3))
    # After the first reverse play goes 1 -> 0; the jump-in by 3 turns twice: on to seat 2.
    assert penalties(rulings) == [] and turns(rulings)[-1] == 2


def test_q3_a_jump_in_by_an_unseen_seat_turns_the_direction_round_too():
    # The jumper was not seen: the next card says whose turn it is, and play goes on the
    # other way from there (it went on the old way, and seat 1's turn cost it a card).
    rulings = snabb(card(1, "r_9", None), card(2, "r_5", 1), card(3, "r_5", None),
                    card(4, "r_6", 2), card(5, "r_7", 1), card(6, "r_8", 0))
    assert penalties(rulings) == [] and turns(rulings)[-2:] == [0, 3]


def test_q3_a_black_twin_is_no_jump_in():
    rulings = snabb(card(1, "r_5", None), card(2, "wild", 1), color(2.2, "g"),
                    card(2.5, "wild", 3))
    assert penalties(rulings) == [("out_of_turn", 3)]


# Q4: one card per turn, in turn; one penalty card.
def test_q4_cards_in_turn_are_no_penalty():
    assert penalties(snabb(card(1, "r_5", None), card(2, "r_8", 1), card(3, "r_1", 2))) == []


def test_q4_a_card_out_of_turn_costs_one_card_and_is_taken_back():
    rulings = snabb(card(1, "r_5", None), card(2, "r_8", 3), removed(2.6, "r_8"),
                    card(4, "r_1", 1))
    (ruling,) = [r for r in rulings if r["kind"] == "ruling"]
    assert (ruling["rule"], ruling["seat"], ruling["penalty"], ruling["ref"]) == (
        "out_of_turn", 3, 1, "Q4")
    assert turns(rulings)[-1] == 2  # seat 1's red 1 on the red 5 was its play


# Q5: a draw two jumped in by its victim goes back to the giver.
def test_q5_the_draw_two_goes_back_to_who_gave_it():
    rulings = snabb(card(1, "r_5", None), card(2, "r_draw_2", 1), card(2.5, "r_draw_2", 2))
    assert [(r["seat"], r["count"]) for r in infos(rulings, "draw_due")] == [(2, 2), (1, 2)]
    assert turns(rulings)[-1] == 0


def test_q5_without_the_jump_in_the_victim_takes_the_cards():
    rulings = snabb(card(1, "r_5", None), card(2, "r_draw_2", 1), draw(3, 2, 2))
    assert [(r["seat"], r["count"]) for r in infos(rulings, "draw_due")] == [(2, 2)]
    assert turns(rulings)[-1] == 3


# Q6: identical black cards straight on each other turn the direction.
def test_q6_two_identical_wilds_turn_the_direction():
    rulings = snabb(card(1, "r_5", None), card(2, "wild", 1), card(3, "wild", 2))
    assert penalties(rulings) == [] and turns(rulings)[-1] == 1


def test_q6_two_different_black_cards_do_not():
    rulings = snabb(card(1, "r_5", None), card(2, "wild", 1), card(3, "wild_draw_4", 2))
    assert turns(rulings)[-1] == 0  # seat 3 takes four and misses the turn


# Q7: nobody goes out on a black card.
def test_q7_going_out_on_a_black_card_costs_two_cards():
    rulings = snabb(card(1, "r_5", None), card(2, "wild", 1),
                    round_end(3, {0: ["r_1"], 1: [], 2: ["g_2"], 3: ["b_3"]}))
    (ruling,) = [r for r in rulings if r["kind"] == "ruling"]
    assert (ruling["rule"], ruling["seat"], ruling["penalty"], ruling["ref"]) == (
        "illegal_card", 1, 2, "Q7")
    # ... and wins nothing: the round does not count for it.
    assert [r["points"] for r in infos(rulings, "score")] == [0, 0, 0, 0]
    assert "does not win the round" in infos(rulings, "round_over")[0]["message"]


def test_q7_going_out_on_a_coloured_card_is_fine():
    rulings = snabb(card(1, "r_5", None), card(2, "r_2", 1),
                    round_end(3, {0: ["r_1"], 1: [], 2: ["g_2"], 3: ["b_3"]}))
    assert penalties(rulings) == []


# Q8: a round won counts one; the sixth (started with 7 cards) wins the match.
def test_q8_rounds_won_add_up_and_the_sixth_wins_the_match():
    events = []
    for n in range(6):
        events += [card(10 * n + 1, "r_5", None),
                   round_end(10 * n + 9, {0: ["r_1"], 1: ["g_2"], 2: [], 3: ["b_3"]})]
    rulings = snabb(*events)
    assert [r["total"] for r in infos(rulings, "score") if r["seat"] == 2] == [1, 2, 3, 4, 5, 6]
    (over,) = infos(rulings, "match_over")
    assert over["seat"] == 2 and over["t"] == 59
    # Q1, Q8: the round and match lines say which start hand the winner went out of.
    starts = [r["message"] for r in infos(rulings, "round_over")]
    assert starts[0] == ("Round over: seat 2 went out of a round started with 2 cards; it "
                         "starts the next with 3.")
    assert "started with 7 cards" in starts[-1]
    assert over["message"] == ("Match over: seat 2 went out of a round started with 7 cards and "
                               "wins (6 rounds won).")


def test_q8_score_lines_count_rounds_won_not_points():
    rulings = snabb(card(1, "r_5", None),
                    round_end(9, {0: ["r_1"], 1: ["g_2"], 2: [], 3: ["b_3"]}))
    lines = {r["seat"]: r["message"] for r in infos(rulings, "score")}
    assert lines[2] == "Seat 2 won this round (1 round won)."
    assert lines[0] == "Seat 0 did not win this round (0 rounds won)."


def test_q8_five_rounds_won_are_no_match_yet():
    events = []
    for n in range(5):
        events += [card(10 * n + 1, "r_5", None),
                   round_end(10 * n + 9, {0: ["r_1"], 1: ["g_2"], 2: [], 3: ["b_3"]})]
    assert infos(snabb(*events), "match_over") == []


def test_the_example_game_gives_the_rulings_its_rules_page_predicts():
    done = subprocess.run([sys.executable, "-m", "bruno", "replay", str(EXAMPLE), "--json"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    rulings = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["rule"], r["seat"], r["penalty"], r["ref"]) for r in rulings
            if r["kind"] == "ruling"] == [("out_of_turn", 2, 1, "Q4")]
    assert [(r["seat"], r["card"]) for r in infos(rulings, "instick")] == [
        (3, "r_7"), (1, "r_draw_2")]
    assert [(r["seat"], r["count"]) for r in infos(rulings, "draw_due")] == [(1, 2), (2, 2)]
    assert turns(rulings)[-2:] == [1, 0]  # the two wilds turned the direction


def test_a_jump_in_is_called_a_jump_in_not_brunos_instick():
    rulings = snabb(card(1, "r_5", None), card(2, "r_7", 1), card(2.5, "r_7", 3))
    (jump_in,) = infos(rulings, "instick")  # the rule's name is the log's contract
    assert jump_in["message"] == "Jump-in by seat 3: the red 7."
