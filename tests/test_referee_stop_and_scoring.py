"""B11 (STOP pauses the clocks) and S1-S3 (scoring)."""

import pytest

from referee.cards import Card
from referee.scoring import hand_points

from scenario_helpers import call, card, infos, knock, penalties, referee, round_end

# B11 ------------------------------------------------------------------------------------------

def test_stop_pauses_the_seg_clock():
    rulings = referee(card(1, "r_5", 0), call(3, "stop", 0), call(30, "go", 0),
                      card(33, "r_6", 1), seg_after_s=8)
    assert penalties(rulings) == []


def test_after_go_the_seg_clock_runs_on_from_where_it_stood():
    rulings = referee(card(1, "r_5", 0), call(3, "stop", 0), call(30, "go", 0),
                      card(40, "r_6", 2), seg_after_s=8)
    assert penalties(rulings) == [("too_slow", 1)]
    assert [r["t"] for r in rulings if r["kind"] == "ruling"] == [36.0]


def test_stop_pauses_knock_deadlines_and_a_knock_after_go_still_counts():
    rulings = referee(card(1, "r_5", 0), card(2, "r_0", 1), call(2.5, "stop", 0),
                      call(20, "go", 0), knock(20.5))
    assert penalties(rulings) == []


def test_a_missing_knock_is_still_ruled_after_the_pause():
    rulings = referee(card(1, "r_5", 0), card(2, "r_0", 1), call(2.5, "stop", 0),
                      call(20, "go", 0), card(25, "r_3", 2))
    assert penalties(rulings) == [("missed_knock", 1)]
    assert rulings[-2]["t"] == pytest.approx(21.0)


def test_a_knock_heard_during_the_pause_counts():
    # B11: "A knock heard during the pause counts", however long the pause.
    rulings = referee(card(1, "r_5", 0), card(2, "r_0", 1), call(2.5, "stop", 0), knock(4),
                      call(10, "go", 0), card(12, "r_3", 2))
    assert penalties(rulings) == []


def test_a_stop_and_a_go_at_one_moment_leave_the_clocks_running():
    # Whatever order they arrive in, STOP comes first: no pause is left standing.
    for calls in ((call(2, "stop", 1), call(2, "go", 1)), (call(2, "go", 1), call(2, "stop", 1))):
        rulings = referee(card(1, "r_5", 0), *calls, card(3, "r_0", 1), card(30, "r_3", 2),
                          seg_after_s=8)
        assert ("missed_knock", 1) in penalties(rulings)
        assert ("too_slow", 2) in penalties(rulings)


# S1 / S2 --------------------------------------------------------------------------------------

def test_the_rules_example_scores_104_rounded_up_to_110():
    hand = [Card.parse(t) for t in ("wild", "r_skip", "g_draw_2", "b_8", "y_4", "r_1", "g_1")]
    assert hand_points(hand) == 110


@pytest.mark.parametrize(
    ("hand", "points"),
    [([], 0), (["r_0"], 0), (["r_1"], 10), (["y_9", "b_1"], 10), (["g_skip"], 20),
     (["wild_draw_4", "r_5"], 60), (["r_9", "g_9", "b_9", "y_9"], 40)],
)
def test_hands_score_face_value_20_per_coloured_special_50_per_black_rounded_up(hand, points):
    assert hand_points([Card.parse(t) for t in hand]) == points


def test_round_end_announces_the_winner_and_a_score_line_per_seat():
    rulings = referee(card(1, "r_5", 0), round_end(9, {0: ["wild", "r_skip", "g_draw_2", "b_8",
                                                          "y_4", "r_1", "g_1"],
                                                      1: [], 2: ["r_2"], 3: ["y_0"]}))
    over = infos(rulings, "round_over")
    assert [r["seat"] for r in over] == [1]
    scores = infos(rulings, "score")
    assert [(r["seat"], r["points"], r["total"]) for r in scores] == [
        (0, 110, 110), (1, 0, 0), (2, 10, 10), (3, 0, 0)]


# S3 -------------------------------------------------------------------------------------------

def test_totals_add_up_across_rounds_and_the_deal_passes_clockwise():
    rulings = referee(
        card(1, "r_5", 0), round_end(9, {0: ["r_9"], 1: [], 2: ["g_skip"], 3: ["wild"]}),
        card(11, "b_5", 1), card(12, "b_6", 2),
        round_end(20, {0: ["r_3"], 1: ["b_1"], 2: [], 3: ["y_4"]}),
    )
    last_scores = infos(rulings, "score")[-4:]
    assert [r["total"] for r in last_scores] == [20, 10, 20, 60]
    assert penalties(rulings) == []  # the second round's first card is the new dealer's


def test_the_match_ends_at_the_target_score_and_the_lowest_total_wins():
    rulings = referee(
        card(1, "r_5", 0), round_end(9, {0: ["wild"] * 8, 1: [], 2: ["r_9"], 3: ["r_1"]}),
        target_score=300,
    )
    over = infos(rulings, "match_over")
    assert [r["seat"] for r in over] == [1]
    assert "seat 1 wins" in over[0]["message"]


def test_the_match_ends_after_the_set_number_of_rounds_and_not_before():
    one = round_end(9, {0: ["r_5"], 1: [], 2: ["r_9"], 3: ["r_1"]})
    assert infos(referee(card(1, "r_5", 0), one, rounds=2), "match_over") == []
    two = referee(card(1, "r_5", 0), one, card(11, "b_5", 1),
                  round_end(20, {0: [], 1: ["g_skip"], 2: ["r_9"], 3: ["r_1"]}), rounds=2)
    assert [r["seat"] for r in infos(two, "match_over")] == [0]
