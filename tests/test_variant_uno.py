"""Standard UNO (`--variant uno`, docs/rules/uno.md): each rule id, kept and broken."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.variants import StandardUno, find_variant

from scenario_helpers import call, card, draw, infos, penalties, referee, round_end, turns

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "uno_every_rule.jsonl"


def uno(*events, players: int = 3, **settings):
    return referee(*events, players=players, variant="uno", **settings)


def refs(rulings) -> list[str]:
    return [r["ref"] for r in rulings if r["kind"] == "ruling"]


def test_uno_is_found_by_name():
    assert find_variant("uno") is StandardUno and find_variant("UNO") is StandardUno


# U1: the dealer's turned card acts as if played from the dealer's seat.
def test_u1_a_turned_skip_skips_the_first_player():
    assert turns(uno(card(1, "g_skip", None))) == [2]


def test_u1_a_turned_number_gives_the_turn_to_the_dealers_left():
    assert turns(uno(card(1, "g_4", None))) == [1]


# U2: colour, number or symbol, or a wild.
def test_u2_a_matching_card_is_no_penalty():
    assert penalties(uno(card(1, "r_5", None), card(2, "r_9", 1), card(3, "y_9", 2))) == []


def test_u2_a_card_that_does_not_match_is_an_illegal_card():
    rulings = uno(card(1, "r_5", None), card(2, "b_9", 1))
    assert penalties(rulings) == [("illegal_card", 1)] and refs(rulings) == ["U2"]


# U3: one card per turn, in turn, and no jump-ins.
def test_u3_cards_in_turn_are_no_penalty():
    assert penalties(uno(card(1, "r_5", None), card(2, "r_7", 1), card(3, "r_8", 2),
                         card(4, "r_1", 0))) == []


def test_u3_the_top_cards_twin_out_of_turn_is_no_jump_in_but_out_of_turn():
    rulings = uno(card(1, "r_5", None), card(2, "r_7", 1), card(2.5, "r_7", 0),
                  players=4)
    assert penalties(rulings) == [("out_of_turn", 0)] and refs(rulings) == ["U3"]
    assert infos(rulings, "instick") == []


def test_u3_a_second_card_from_the_seat_that_just_played_is_out_of_turn():
    rulings = uno(card(1, "r_5", None), card(2, "r_7", 1), card(2.6, "g_7", 1))
    assert penalties(rulings) == [("out_of_turn", 1)] and refs(rulings) == ["U3"]


# U4: draw one and play it, or the turn passes; no knocks.
def test_u4_a_drawn_card_may_be_played_at_once():
    assert penalties(uno(card(1, "r_5", None), draw(2, 1), card(3, "r_2", 1))) == []


def test_u4_after_a_draw_the_next_player_may_play():
    rulings = uno(card(1, "r_5", None), draw(2, 1), card(4, "r_6", 2))
    assert penalties(rulings) == [] and turns(rulings)[-1] == 0


def test_u4_several_cards_drawn_do_not_end_the_turn():
    # Bruno's silent draw of three (B6) ends the turn; here the drawer may still play.
    rulings = uno(card(1, "r_5", None), draw(2, 1, count=3), card(3, "r_8", 1))
    assert penalties(rulings) == [] and turns(rulings)[-1] == 2
    assert penalties(referee(card(1, "r_5", None), draw(2, 1, count=3), card(3, "r_8", 1),
                             players=3)) == [("out_of_turn", 1)]


def test_u4_zeros_need_no_knock():
    assert penalties(uno(card(1, "r_5", None), card(2, "r_0", 1), card(3, "g_0", 2))) == []


# U5: "UNO" is this game's call.
def test_u5_saying_uno_is_never_a_wrong_call():
    assert penalties(uno(card(1, "r_5", None), card(2, "r_7", 1), call(2.5, "uno", 1))) == []


def test_u5_in_bruno_the_same_call_is_a_wrong_call():
    rulings = referee(card(1, "r_5", None), card(2, "r_7", 1), call(2.5, "uno", 1),
                      players=3)
    assert penalties(rulings) == [("wrong_call", 1)]


@pytest.mark.parametrize("variant", ["uno", "snabb", "druk"])
def test_u5_saying_bruno_means_nothing_and_pass_after_it_is_no_wrong_call(variant):
    rulings = referee(card(1, "r_5", None), call(2, "bruno", 1), draw(3, 1), call(4, "pass", 1),
                      card(5, "r_8", 2), players=3, variant=variant)
    assert penalties(rulings) == []
    assert penalties(referee(card(1, "r_5", None), call(2, "bruno", 1), draw(3, 1),
                             call(4, "pass", 1), card(5, "r_8", 2),
                             players=3)) == [("wrong_call", 1)]


def _down_to_one_card(uno_at: float | None = None) -> list[dict]:
    """Seats 1, 2 and 0 play in turn from the deal of seven until seat 1 has one card left
    (its sixth card, at 17 s), then seat 2 plays once more (18 s); seat 1 says "UNO" at `uno_at`."""
    events = [card(1, "r_1", None)]
    t = 1.0
    for turn in range(17):
        t += 1
        events.append(card(t, f"r_{2 + turn % 8}", (1 + turn) % 3))
    if uno_at is not None:
        events.append(call(uno_at, "uno", 1))
    return sorted(events, key=lambda e: e["t"])


def test_u5_a_forgotten_uno_caught_before_the_next_players_card_costs_two_cards():
    rulings = uno(*_down_to_one_card())
    assert penalties(rulings) == [("wrong_call", 1)] and refs(rulings) == ["U5"]
    (ruling,) = [r for r in rulings if r["kind"] == "ruling"]
    assert ruling["penalty"] == 2 and ruling["t"] == 18.0


def test_u5_uno_said_with_the_card_that_leaves_one_is_no_penalty():
    assert penalties(uno(*_down_to_one_card(uno_at=17.4))) == []
    assert penalties(uno(*_down_to_one_card(uno_at=16.5))) == []  # said as the card came down


def test_u5_a_hand_not_counted_since_an_unseen_card_is_not_ruled():
    events = _down_to_one_card()
    events[4] = {**events[4], "seat": None}  # seat 1's second card (5 s): the camera missed whose
    assert penalties(uno(*events)) == []


# U6: two cards for an error; SEG only when the table sets it.
def test_u6_an_error_costs_two_cards():
    (ruling,) = [r for r in uno(card(1, "r_5", None), card(2, "b_9", 1)) if r["kind"] == "ruling"]
    assert ruling["penalty"] == 2


def test_u6_seg_cites_the_uno_page_when_the_table_sets_it():
    rulings = uno(card(1, "r_5", None), card(2, "r_7", 1), call(12, "seg", 0), seg_after_s=8)
    assert penalties(rulings) == [("too_slow", 2)] and refs(rulings) == ["U6"]
    # SEG is Bruno's word: here the message says what happened in plain words.
    (ruling,) = [r for r in rulings if r["kind"] == "ruling"]
    assert ruling["message"] == "Seat 2 was too slow; the turn passes on: two penalty cards."


@pytest.mark.parametrize("variant", ["uno", "snabb", "druk"])
def test_u6_a_seg_call_is_no_penalty_when_the_table_did_not_set_seg(variant):
    # Bruno's P3 (a seg call is the table's verdict) came along into games without SEG.
    rulings = referee(card(1, "r_5", None), card(2, "r_7", 1), call(4, "seg", 0),
                      variant=variant)
    assert [r for r in rulings if r["kind"] == "ruling"] == []


def test_a_too_slow_penalty_withdrawn_is_named_without_brunos_seg():
    rulings = uno(card(1, "r_5", None), card(2, "r_7", 1), call(12, "seg", 0),
                  {"t": 13.0, "kind": "undo"}, seg_after_s=8)
    (withdrawn,) = infos(rulings, "withdrawn")
    assert withdrawn["message"].startswith("Withdrawn: the penalty for being too slow;")


# U7: the winner scores the other hands; everyone else 0.
def test_u7_the_winner_scores_the_cards_left_in_the_other_hands():
    rulings = uno(card(1, "r_5", None),
                  round_end(9, {0: ["y_9", "wild"], 1: ["r_skip", "b_3"], 2: []}))
    points = {r["seat"]: r["points"] for r in infos(rulings, "score")}
    assert points == {0: 0, 1: 0, 2: 9 + 50 + 20 + 3}


def test_u7_a_round_with_no_single_winner_scores_nothing():
    rulings = uno(card(1, "r_5", None), round_end(9, {0: ["y_9"], 1: ["b_3"], 2: ["g_1"]}))
    assert {r["points"] for r in infos(rulings, "score")} == {0}


# U8: to 500; the highest total wins.
def test_u8_the_match_goes_to_the_highest_total_at_500():
    events = []
    for n in range(3):
        events += [card(10 * n + 1, "r_5", None),
                   round_end(10 * n + 9, {0: ["wild"] * 4, 1: [], 2: ["r_1"]})]
    (over,) = infos(uno(*events), "match_over")
    # 201 points a round for seat 1: 402 after two, 603 after three.
    assert over["seat"] == 1 and over["t"] == 29


def test_u8_no_match_end_before_the_target():
    assert infos(uno(card(1, "r_5", None), round_end(9, {0: ["r_1"], 1: [], 2: []})),
                 "match_over") == []


def test_the_example_game_gives_the_rulings_its_rules_page_predicts():
    done = subprocess.run([sys.executable, "-m", "bruno", "replay", str(EXAMPLE), "--json"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    rulings = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["rule"], r["seat"], r["ref"]) for r in rulings if r["kind"] == "ruling"] == [
        ("illegal_card", 1, "U2"), ("out_of_turn", 3, "U3"), ("out_of_turn", 2, "U3")]
    assert infos(rulings, "instick") == []
    scores = {r["seat"]: r["points"] for r in infos(rulings, "score")}
    assert scores == {0: 0, 1: 0, 2: 0, 3: 20 + 7 + 50 + 4}
