"""The table corrects the referee: `correct` (the card or seat was misread) and `undo`
(a penalty is overruled). Both are events, so a journal with them replays the same."""

from __future__ import annotations

import json

import pytest

from referee.eventlog import parse_lines
from referee.events import EventError, parse_event
from referee.session import replay

from scenario_helpers import card, infos, knock, penalties, referee, round_end


def correct(t: float, **fields) -> dict:
    return {"t": t, "kind": "correct", **fields}


def undo(t: float, **fields) -> dict:
    return {"t": t, "kind": "undo", **fields}


def test_a_misread_card_corrected_withdraws_its_penalty():
    rulings = referee(card(1, "r_5", 0), card(2, "b_9", 1), correct(4, card="r_9"))
    assert penalties(rulings) == [("illegal_card", 1)]
    withdrawn = infos(rulings, "withdrawn")
    assert [(w["seat"], w["card"], w["t"]) for w in withdrawn] == [(1, "b_9", 4)]
    assert "takes no penalty" in withdrawn[0]["message"]
    assert infos(rulings, "corrected")[0]["card"] == "r_9"


def test_a_correction_can_reveal_a_penalty_the_misread_card_hid():
    rulings = referee(card(1, "r_5", 0), card(2, "r_6", 1), correct(4, card="g_6"),
                      card(6, "g_2", 2))
    assert penalties(rulings) == [("illegal_card", 1)]
    late = next(r for r in rulings if r["kind"] == "ruling")
    assert late["t"] == 4 and late["card"] == "g_6"  # decided when the table corrected it


def test_the_wrong_seat_corrected_gives_the_turn_back():
    # The camera credited seat 2 with seat 1's card: out of turn, and seat 1 still to play.
    rulings = referee(card(1, "r_5", 0), card(2, "r_6", 2), correct(3, seat=1))
    assert penalties(rulings) == [("out_of_turn", 2)]
    assert [w["seat"] for w in infos(rulings, "withdrawn")] == [2]
    assert infos(rulings, "turn")[-1]["seat"] == 2 and infos(rulings, "turn")[-1]["t"] == 3


def test_a_correction_names_an_earlier_card_by_its_time():
    rulings = referee(card(1, "r_5", 0), card(2, "b_9", 1), card(3, "b_4", 2),
                      correct(5, card="r_9", of_t=2))
    assert [w["card"] for w in infos(rulings, "withdrawn")] == ["b_9"]


def test_undo_withdraws_the_latest_penalty_and_it_stays_withdrawn():
    rulings = referee(card(1, "r_5", 0), card(2, "b_9", 1), card(3, "b_0", 2),
                      undo(5), correct(6, seat=2))
    assert penalties(rulings) == [("illegal_card", 1), ("missed_knock", 2)]
    withdrawn = infos(rulings, "withdrawn")
    # The undo withdrew the missed knock; the later re-derivation did not bring it back.
    assert [(w["seat"], w["card"]) for w in withdrawn] == [(2, "b_0")]


def test_undo_names_a_penalty_by_the_time_it_was_decided():
    rulings = referee(card(1, "r_5", 0), card(2, "b_9", 1), card(3, "b_0", 2),
                      undo(6, ruling_t=2))
    assert [w["card"] for w in infos(rulings, "withdrawn")] == ["b_9"]


def test_undo_with_nothing_to_withdraw_says_so():
    rulings = referee(card(1, "r_5", 0), undo(2))
    assert infos(rulings, "withdrawn") == []
    assert "no penalty" in infos(rulings, "corrected")[0]["message"]


def test_a_knock_still_counts_after_the_card_it_answered_is_corrected():
    rulings = referee(card(1, "r_5", 0), card(2, "r_5", 2), knock(2.2), correct(3, card="r_5"))
    assert penalties(rulings) == []
    assert infos(rulings, "withdrawn") == []


def test_a_log_with_corrections_replays_to_the_same_rulings():
    events = [card(1, "r_5", 0), card(2, "b_9", 1), correct(2.5, card="r_9"),
              card(3, "r_0", 2), undo(5.5), card(6, "r_3", 3)]
    # Written out and read back, as a journal is: the same rulings as the live session gave.
    lines = [json.dumps({"t": 0, "kind": "game", "players": 4, "dealer": 0})]
    lines += [json.dumps(parse_event(e).to_dict()) for e in events]
    log = parse_lines(lines)
    replayed = [r.to_dict() for r in replay(log.setup.new_game(), log.events)]
    assert replayed == referee(*events)
    assert [r["rule"] for r in replayed if r["rule"] in ("withdrawn", "corrected")] == [
        "corrected", "withdrawn", "withdrawn"]


@pytest.mark.parametrize("bad, words", [
    (correct(1), "needs 'card' or 'seat'"),
    (correct(1, card="purple_3"), "card"),
    (correct(1, card="r_3", of_t="soon"), "of_t"),
    (undo(1, ruling_t=-2), "ruling_t"),
])
def test_malformed_corrections_are_named(bad, words):
    with pytest.raises(EventError, match=words):
        parse_event(bad, players=4)


def test_live_feeding_with_a_ticking_clock_rules_corrections_as_replay_does():
    from referee.eventlog import GameSetup
    from referee.session import Session

    events = [card(1, "r_5", 0), card(2, "b_9", 1), card(3, "b_0", 2), undo(5),
              correct(6, card="r_9", of_t=2), card(7, "r_2", 3), correct(8.6, seat=0)]
    session = Session(GameSetup(players=4).new_game())
    live = []
    clock = 0.0
    for event in events:
        while clock < event["t"]:
            clock = round(clock + 0.05, 2)
            live += session.advance(clock)
        live += session.feed(parse_event(event, 4))
    live += session.finish()
    assert [r.to_dict() for r in live] == referee(*events)


# Unsure penalties: confirm or dismiss (docs/missed-observations.md) --------------------------

def confirm(t: float, **fields) -> dict:
    return {"t": t, "kind": "confirm", **fields}


def test_a_confirmed_check_is_said_again_as_a_sure_penalty():
    rulings = referee(card(1, "r_5", 0), card(2, "r_6", 2), confirm(4, ruling_t=2))
    unsure, confirmed = [r for r in rulings if r["kind"] == "ruling"]
    assert unsure["confidence"] == 0.5 and confirmed["confidence"] == 1.0
    assert (confirmed["t"], confirmed["rule"], confirmed["seat"]) == (4, "out_of_turn", 2)
    assert confirmed["message"].startswith("Confirmed by the table: Seat 2 played")


def test_a_dismissed_check_is_withdrawn():
    rulings = referee(card(1, "r_5", 0), card(2, "r_6", 2), undo(4, ruling_t=2))
    assert [r["rule"] for r in rulings if r["t"] == 4] == ["withdrawn"]


def test_only_unsure_penalties_can_be_confirmed():
    rulings = referee(card(1, "r_5", 0), card(2, "g_7", 1), confirm(4))
    assert rulings[-1]["message"] == "There is no penalty to confirm."


def test_a_confirmed_penalty_stays_sure_when_the_game_is_ruled_again():
    rulings = referee(card(1, "r_5", 0), card(2, "r_6", 2), confirm(4), card(5, "g_9", 3),
                      correct(6, card="r_9"), confirm(7))
    assert [r["rule"] for r in rulings if r["t"] == 6] == ["corrected", "withdrawn", "color"]
    # The out-of-turn penalty stands, still confirmed: there is nothing left to confirm.
    assert rulings[-1]["message"] == "There is no penalty to confirm."


@pytest.mark.parametrize("variant", ["bruno", "uno", "druk"])
def test_a_correction_in_the_second_round_rules_the_first_with_its_own_dealer(variant):
    # The dealer moves on at the round's end; ruled again, round one is still seat 0's deal
    # (with seat 1's deal, seat 1's red 6 would be out of turn).
    rulings = referee(card(1, "r_5", None), card(2, "r_6", 1), card(3, "r_7", 2),
                      round_end(4, {0: ["r_1"], 1: ["r_2"], 2: [], 3: ["r_3"]}),
                      card(5, "g_5", None), card(6, "g_6", 2), correct(7, card="g_7"),
                      variant=variant)
    assert penalties(rulings) == []
    assert infos(rulings, "corrected")[0]["card"] == "g_7"


def test_events_released_with_a_correction_are_kept_for_the_next_one():
    # The card at 3.2 comes out of the reorder buffer together with the correction at 3:
    # ruled again at 6, the game must still hold it (else seat 3's card at 5 is out of turn).
    rulings = referee(card(1, "r_5", 0), card(2, "r_6", 3), correct(3, seat=1),
                      card(3.2, "r_7", 2), card(5, "r_8", 3), correct(6, card="r_8"))
    assert penalties(rulings) == [("out_of_turn", 3)]  # the first, withdrawn at 3
    assert [w["t"] for w in infos(rulings, "withdrawn")] == [3]


def test_an_undo_and_a_confirm_at_one_moment_rule_the_same_in_either_order():
    # Undo comes before confirm (DESIGN.md), so the penalty is withdrawn and nothing is left
    # to confirm, whichever the table's tools sent first.
    unsure = [card(1, "r_5", 0), card(2, "r_6", 2, seat_confidence=0.5)]
    first = referee(*unsure, undo(5), confirm(5))
    assert first == referee(*unsure, confirm(5), undo(5))
    assert [w["seat"] for w in infos(first, "withdrawn")] == [2]


def test_a_withdrawn_penalty_of_an_unseen_seat_says_whoever_played_it():
    rulings = referee(card(1, "r_5", 0), card(2, "b_6", None), undo(3))
    (withdrawn,) = infos(rulings, "withdrawn")
    assert withdrawn["message"].endswith("whoever played it takes no penalty cards.")


def test_a_card_corrected_to_a_draw_two_says_who_takes_the_cards():
    # The misread red 3 was a red draw two: seat 2 must take two and miss its turn. The
    # correction moved the turn on but nobody was told why.
    rulings = referee(card(1, "r_9", None), card(2, "r_3", 1), correct(3, card="r_draw_2"))
    (due,) = [r for r in rulings if r["rule"] == "draw_due"]
    assert (due["t"], due["seat"], due["count"]) == (3, 2, 2)


def test_a_correction_that_changes_nothing_said_says_nothing_again():
    rulings = referee(card(1, "r_9", None), card(2, "r_draw_2", 1), correct(3, seat=1))
    assert [r["t"] for r in rulings if r["rule"] == "draw_due"] == [2]


def test_a_draw_card_corrected_away_says_the_seat_takes_none_after_all():
    rulings = referee(card(1, "r_9", None), card(2, "r_draw_2", 1), correct(3, card="r_2"))
    (due,) = [r for r in rulings if r["rule"] == "draw_due" and r["t"] == 3]
    assert (due["seat"], due["count"]) == (2, 0)


def test_a_card_corrected_into_a_jump_in_says_so():
    rulings = referee(card(1, "r_9", None), card(2, "r_7", 1), card(3, "r_1", 3),
                      correct(4, card="r_7"), variant="snabb")
    assert [(r["t"], r["seat"]) for r in rulings if r["rule"] == "instick"] == [(4, 3)]
