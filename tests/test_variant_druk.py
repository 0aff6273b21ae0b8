"""DrukUNO (`--variant druk`, docs/rules/druk.md): each rule id, kept and broken."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cards import COLORS, NUMBERS
from referee.druk import DrukUno
from referee.eventlog import EventLogError, GameSetup, parse_lines
from referee.events import EventError, parse_event
from referee.session import replay
from referee.variants import find_variant

from scenario_helpers import (
    call,
    card,
    color,
    draw,
    infos,
    penalties,
    referee,
    removed,
    round_end,
    turns,
)

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "druk_game.jsonl"
SIX_SEVENS = ("r_7", "y_7", "g_7", "b_7", "r_7", "y_7")


def druk(*events, players: int = 4, **settings):
    return referee(*events, players=players, variant="druk", **settings)


def druk_game(*events, players: int = 4, **settings) -> DrukUno:
    """The game after the events, to read what it keeps (sips, hand counts)."""
    setup = GameSetup(variant="druk", players=players, dealer=0, settings=settings)
    game = setup.new_game()
    replay(game, [parse_event(e, players) for e in events])
    return game


def rulings_of(rulings) -> list[tuple[str, int | None, int, str]]:
    return [(r["rule"], r["seat"], r["penalty"], r["ref"]) for r in rulings
            if r["kind"] == "ruling"]


def sips(rulings) -> list[tuple[int, int, int]]:
    return [(r["seat"], r["sips"], r["total"]) for r in infos(rulings, "sips")]


def pools(rulings) -> list[tuple[int, int]]:
    return [(r["seat"], r["count"]) for r in infos(rulings, "draw_due")]


def one_play(seat: int, tokens, start: float = 2.0, gap: float = 0.5) -> list[dict]:
    return [card(start + gap * i, token, seat) for i, token in enumerate(tokens)]


def test_a_game_named_by_an_alias_is_written_by_its_contract_name():
    # `bruno review --variant DrukUNO` wrote "variant": "DrukUNO" into events.jsonl, where
    # the contract's name is "druk".
    from referee.eventlog import GameSetup

    assert GameSetup().with_overrides(variant="DrukUNO").variant == "druk"
    assert GameSetup(variant="Snabb-UNO").with_overrides().variant == "snabb"


def test_druk_is_found_by_name_and_aliases():
    assert find_variant("druk") is DrukUno
    assert find_variant("DrukUNO") is DrukUno and find_variant("druk-uno") is DrukUno


# D1: the turned card is the dealer's play.
def test_d1_a_turned_reverse_sends_play_the_other_way_from_the_dealer():
    assert turns(druk(card(1, "r_reverse", None))) == [3]


def test_d1_a_turned_draw_two_gives_the_first_player_the_pool_to_take_or_add_to():
    rulings = druk(card(1, "r_draw_2", None), card(2, "g_draw_2", 1))
    assert penalties(rulings) == [] and pools(rulings) == [(1, 2), (2, 4)]


def test_d1_nobody_continues_the_turned_card():
    rulings = druk(card(1, "r_5", None), card(1.5, "y_5", 0))
    assert rulings_of(rulings) == [("out_of_turn", 0, 2, "D11")]


# D2: colour, number or symbol, or black; on an active pool only its kind.
def test_d2_matching_cards_are_no_penalty():
    rulings = druk(card(1, "r_5", None), card(2, "r_9", 1), card(3, "g_9", 2), card(4, "wild", 3))
    assert penalties(rulings) == []


def test_d2_a_card_that_does_not_match_is_an_illegal_card():
    rulings = druk(card(1, "r_5", None), card(2, "b_9", 1))
    assert rulings_of(rulings) == [("illegal_card", 1, 2, "D2")]


def test_d2_a_wild_does_not_undo_an_active_draw_two():
    rulings = druk(card(1, "r_5", None), card(2, "r_draw_2", 1), card(3, "wild", 2))
    assert rulings_of(rulings) == [("illegal_card", 2, 2, "D2")]


# D3: several cards of one number in one play.
def test_d3_the_same_number_in_other_colours_is_one_play():
    rulings = druk(card(1, "b_7", None), *one_play(1, ("b_2", "r_2", "g_2")), card(4, "g_4", 2))
    assert penalties(rulings) == [] and turns(rulings) == [1, 2, 3]


def test_d3_another_number_in_the_same_play_is_out_of_turn():
    rulings = druk(card(1, "r_5", None), card(2, "r_7", 1), card(2.5, "r_8", 1))
    assert rulings_of(rulings) == [("out_of_turn", 1, 2, "D11")]


def test_d3_a_card_after_the_window_is_a_second_card():
    rulings = druk(card(1, "r_5", None), card(2, "r_7", 1), card(4.5, "y_7", 1))
    assert penalties(rulings) == [("out_of_turn", 1)]


def test_d3_the_window_is_a_setting():
    rulings = druk(card(1, "r_5", None), card(2, "r_7", 1), card(4.5, "y_7", 1),
                   multi_card_window_s=3.0)
    assert penalties(rulings) == []


def test_d3_another_seats_card_between_ends_the_play():
    rulings = druk(card(1, "r_5", None), card(2, "r_7", 1), card(2.3, "r_7", 3),
                   card(2.6, "y_7", 1))
    assert penalties(rulings) == [("out_of_turn", 1)]


def test_d3_a_twin_of_the_players_own_card_continues_the_play():
    rulings = druk(card(1, "r_5", None), *one_play(1, ("r_7", "r_7", "y_7")))
    assert penalties(rulings) == [] and infos(rulings, "instick") == []


# D4: several skips, draw twos or reverses of one kind.
def test_d4_two_draw_twos_in_one_play_make_a_pool_of_four():
    rulings = druk(card(1, "r_5", None), *one_play(1, ("r_draw_2", "b_draw_2")))
    assert penalties(rulings) == [] and pools(rulings) == [(2, 2), (2, 4)]


def test_d4_two_kinds_in_one_play_are_out_of_turn():
    rulings = druk(card(1, "r_5", None), *one_play(1, ("r_skip", "r_reverse")))
    assert rulings_of(rulings) == [("out_of_turn", 1, 2, "D11")]


def test_d4_black_cards_go_down_one_at_a_time():
    rulings = druk(card(1, "r_5", None), *one_play(1, ("wild_draw_4", "wild_draw_4")))
    assert penalties(rulings) == [("out_of_turn", 1)]


# D5: each skip skips one player, who drinks a sip.
def test_d5_two_skips_skip_two_players_a_sip_each():
    rulings = druk(card(1, "r_5", None), *one_play(1, ("r_skip", "g_skip")))
    assert sips(rulings) == [(2, 1, 1), (3, 1, 1)] and turns(rulings)[-1] == 0


def test_d5_four_skips_at_four_seats_skip_the_player_itself():
    rulings = druk(card(1, "r_5", None), *one_play(1, ("r_skip", "g_skip", "b_skip", "y_skip")))
    assert [seat for seat, _, _ in sips(rulings)] == [2, 3, 0, 1]
    assert penalties(rulings) == [] and turns(rulings)[-1] == 2


def test_d5_a_skip_out_of_turn_skips_nobody():
    rulings = druk(card(1, "r_5", None), card(2, "r_skip", 3))
    assert penalties(rulings) == [("out_of_turn", 3)] and sips(rulings) == []
    assert turns(rulings) == [1]


# D6: draw twos stack, and the whole pool passes on.
def test_d6_a_stacked_pool_passes_on_and_is_taken_whole():
    rulings = druk(card(1, "r_5", None), card(2, "r_draw_2", 1), card(3, "g_draw_2", 2),
                   draw(4, 3, 4), card(5, "g_1", 0))
    assert penalties(rulings) == [] and pools(rulings) == [(2, 2), (3, 4)]
    assert sips(rulings) == [(3, 4, 4)] and turns(rulings)[-2:] == [0, 1]


def test_d6_a_reach_after_the_whole_pool_is_the_same_pool_still_gathered():
    # The first reach was seen as the pool's 2 cards, the second as 1 more: 3 sips, and a
    # hand counted one card too big, where the page says further reaches are the same pool.
    rulings = druk(card(1, "r_5", None), card(2, "r_draw_2", 1), draw(3, 2, 2),
                   draw(3.6, 2, 1), card(5, "r_4", 3))
    assert sips(rulings) == [(2, 2, 2)] and penalties(rulings) == []


def test_d6_only_a_draw_two_goes_on_an_active_pool():
    rulings = druk(card(1, "r_5", None), card(2, "r_draw_2", 1), card(3, "r_3", 2))
    assert rulings_of(rulings) == [("illegal_card", 2, 2, "D2")]
    # ... and the ruling says so (a red 3 does match a red draw two, by colour).
    (ruling,) = [r for r in rulings if r["kind"] == "ruling"]
    assert ruling["message"].startswith("Seat 2 played the red 3 on the open pool of the red "
                                        "draw two: only a draw two goes on it")


def test_d6_once_taken_the_draw_two_is_spent():
    rulings = druk(card(1, "r_5", None), card(2, "r_draw_2", 1), draw(3, 2, 2),
                   card(4, "b_draw_2", 3))
    assert penalties(rulings) == [] and pools(rulings) == [(2, 2), (0, 2)]


# D7: each reverse turns the direction once.
def test_d7_one_reverse_turns_the_direction():
    rulings = druk(card(1, "r_5", None), card(2, "r_reverse", 1))
    assert turns(rulings)[-1] == 0


def test_d7_two_reverses_in_one_play_keep_it():
    rulings = druk(card(1, "r_5", None), *one_play(1, ("r_reverse", "y_reverse")),
                   card(4, "y_3", 2))
    assert penalties(rulings) == [] and turns(rulings)[-2:] == [2, 3]


# D8: wild and wild draw four.
def test_d8_wild_draw_fours_stack_and_the_taker_plays_the_colour():
    rulings = druk(card(1, "r_5", None), card(2, "wild_draw_4", 1), color(2.2, "g"),
                   card(3, "wild_draw_4", 2), color(3.2, "b"), draw(4, 3, 8), card(5, "b_1", 3))
    assert penalties(rulings) == [] and pools(rulings) == [(2, 4), (3, 8)]
    assert turns(rulings)[-1] == 0


def test_d8_a_wild_does_not_go_on_an_active_wild_draw_four():
    rulings = druk(card(1, "r_5", None), card(2, "wild_draw_4", 1), color(2.2, "g"),
                   card(3, "wild", 2))
    assert rulings_of(rulings) == [("illegal_card", 2, 2, "D2")]


def test_d8_a_wild_draw_four_does_not_go_on_an_active_draw_two():
    rulings = druk(card(1, "r_5", None), card(2, "r_draw_2", 1), card(3, "wild_draw_4", 2))
    assert penalties(rulings) == [("illegal_card", 2)]


def test_d8_the_taker_searches_three_cards_then_the_turn_passes():
    rulings = druk(card(1, "r_5", None), card(2, "wild_draw_4", 1), color(2.2, "g"),
                   draw(3, 2, 4), draw(4, 2), draw(5, 2), draw(6, 2), card(7, "g_1", 3))
    assert penalties(rulings) == [] and turns(rulings)[-2:] == [3, 0]


# D9: one card drawn ends the turn.
def test_d9_a_card_drawn_passes_the_turn():
    rulings = druk(card(1, "r_5", None), draw(2, 1), card(3, "r_2", 2))
    assert penalties(rulings) == [] and turns(rulings) == [1, 2, 3]


def test_d9_playing_the_card_just_drawn_is_out_of_turn():
    rulings = druk(card(1, "r_5", None), draw(2, 1), card(3, "r_2", 1))
    assert rulings_of(rulings) == [("out_of_turn", 1, 2, "D11")]


# D10: jump-ins with an exact number twin.
def test_d10_a_jump_in_leaves_the_turn_where_it_was():
    rulings = druk(card(1, "r_5", None), card(2, "r_7", 1), card(2.5, "r_7", 3), card(3, "r_1", 2))
    assert penalties(rulings) == [] and [r["seat"] for r in infos(rulings, "instick")] == [3]
    assert turns(rulings) == [1, 2, 3]


def test_d10_an_action_card_twin_is_no_jump_in():
    rulings = druk(card(1, "r_5", None), card(2, "r_skip", 1), card(2.5, "r_skip", 0))
    assert rulings_of(rulings) == [("out_of_turn", 0, 2, "D11")]


def test_d10_the_turn_holders_own_twin_is_its_play():
    rulings = druk(card(1, "r_5", None), card(2, "r_5", 1))
    assert infos(rulings, "instick") == [] and turns(rulings) == [1, 2]


def test_d10_nobody_adds_to_a_jump_in():
    rulings = druk(card(1, "r_5", None), card(2, "r_7", 1), card(2.5, "r_7", 3),
                   card(3, "y_7", 3))
    assert penalties(rulings) == [("out_of_turn", 3)]


# D11: one play per turn, in turn; two cards per error; SEG when set.
def test_d11_a_card_out_of_turn_costs_two_cards():
    rulings = druk(card(1, "r_5", None), card(2, "r_8", 3))
    assert rulings_of(rulings) == [("out_of_turn", 3, 2, "D11")]


def test_d11_too_slow_when_the_table_sets_seg():
    rulings = druk(card(1, "r_5", None), card(10, "r_8", 2), seg_after_s=8.0)
    assert rulings_of(rulings)[0] == ("too_slow", 1, 2, "D11")


def test_d11_cards_in_turn_are_no_penalty():
    rulings = druk(card(1, "r_5", None), card(2, "r_8", 1), card(3, "r_1", 2), card(4, "r_3", 3))
    assert penalties(rulings) == []


# D12: "UNO" at one card, before the turn passes.
def test_d12_a_forgotten_uno_costs_two_cards_when_the_next_card_lands():
    rulings = druk(card(1, "r_5", None), *one_play(1, SIX_SEVENS), card(6, "y_3", 2))
    assert rulings_of(rulings) == [("wrong_call", 1, 2, "D12")]
    assert [r["t"] for r in rulings if r["kind"] == "ruling"] == [6]


def test_d12_uno_said_is_no_penalty():
    rulings = druk(card(1, "r_5", None), *one_play(1, SIX_SEVENS), call(4.7, "uno", 1),
                   card(6, "y_3", 2))
    assert penalties(rulings) == []


def test_d12_uno_said_as_the_card_lands_counts():
    rulings = druk(card(1, "r_5", None), *one_play(1, SIX_SEVENS), call(4.2, "uno", 1),
                   card(6, "y_3", 2))
    assert penalties(rulings) == []


def test_d12_going_out_in_one_play_without_uno_before_the_last_card():
    rulings = druk(card(1, "r_5", None), *one_play(1, (*SIX_SEVENS, "g_7")))
    assert rulings_of(rulings) == [("wrong_call", 1, 2, "D12")]


def test_d12_an_unseen_draw_loses_the_count_and_nothing_is_ruled():
    rulings = druk(card(1, "r_5", None), draw(1.5, None, 2), *one_play(1, SIX_SEVENS),
                   card(6, "y_3", 2))
    assert penalties(rulings) == []


def test_d12_a_card_taken_back_goes_back_into_the_count():
    rulings = druk(card(1, "r_5", None), *one_play(1, SIX_SEVENS), removed(5.0, "y_7"),
                   card(6, "r_3", 2))
    assert penalties(rulings) == []


def test_d12_the_counts_follow_the_cards():
    game = druk_game(card(1, "r_5", None), *one_play(1, ("r_7", "y_7")), draw(4, 2, 1))
    assert game.hand_counts == [7, 5, 8, 7]


# D13: Helsinki.
def test_d13_with_helsinki_the_drawer_draws_on_and_plays():
    rulings = druk(card(1, "r_5", None), draw(2, 1), draw(3, 1), card(4, "r_2", 1), helsinki=True)
    assert penalties(rulings) == [] and turns(rulings) == [1, 2]


def test_d13_without_helsinki_the_same_play_is_out_of_turn():
    rulings = druk(card(1, "r_5", None), draw(2, 1), draw(3, 1), card(4, "r_2", 1))
    assert penalties(rulings) == [("out_of_turn", 1)]


def test_d13_a_zero_moves_every_hand_against_the_direction():
    events = (card(1, "r_5", None), *one_play(1, ("r_7", "y_7")), card(4, "y_0", 2))
    assert druk_game(*events, helsinki=True).hand_counts == [5, 6, 7, 7]
    assert druk_game(*events).hand_counts == [7, 5, 6, 7]


def test_d13_a_zero_taken_back_moves_every_hand_back():
    # P4: a card taken back restores the game. The hands stayed moved, so a seat holding 7
    # was counted as holding another's 1 card and ruled for a forgotten "UNO".
    events = (card(1, "r_5", None), *one_play(1, ("r_7", "y_7")), card(4, "y_0", 2),
              removed(4.5, "y_0"))
    assert druk_game(*events, helsinki=True).hand_counts == [7, 5, 7, 7]


def test_d13_a_zero_as_the_last_card_gives_a_hand_back():
    events = (card(1, "r_5", None), *one_play(1, SIX_SEVENS), call(4.7, "uno", 1),
              card(6, "y_0", 2))
    game = druk_game(*events, helsinki=True)
    assert game.hand_counts[1] == 6 and game.hand_counts[0] == 1


# D14: Warszawa.
def test_d14_a_swap_swaps_the_counted_hands():
    events = (card(1, "r_5", None), *one_play(1, ("r_7", "y_7")),
              {"t": 3.5, "kind": "swap", "seat": 1, "with": 3})
    assert druk_game(*events, helsinki=True, warszawa=True).hand_counts == [7, 7, 7, 5]
    # Without Warszawa nobody swaps hands: a swap line is ignored, as in every other game.
    assert druk_game(*events, helsinki=True).hand_counts == [7, 5, 7, 7]


def test_d14_warszawa_without_helsinki_is_a_one_line_error():
    with pytest.raises(EventLogError, match="line 1: setting 'warszawa' needs 'helsinki'"):
        parse_lines(['{"t": 0, "kind": "game", "variant": "druk", "warszawa": true}'])


def test_d14_a_swap_needs_two_different_seats():
    with pytest.raises(EventError, match="two different seats"):
        parse_event({"t": 1, "kind": "swap", "seat": 2, "with": 2}, 4)
    with pytest.raises(EventError, match="'with' is missing"):
        parse_event({"t": 1, "kind": "swap", "seat": 2}, 4)
    with pytest.raises(EventError, match="'with' 7 is not at this table"):
        parse_event({"t": 1, "kind": "swap", "seat": 2, "with": 7}, 4)


def test_d14_a_swap_line_reads_and_writes_back_the_same():
    line = {"t": 3.0, "kind": "swap", "seat": 2, "with": 0}
    assert parse_event(line, 4).to_dict() == line


# D15: sips.
def test_d15_one_sip_a_card_drawn_adding_up():
    game_rulings = druk(card(1, "r_5", None), draw(2, 1), draw(5, 1, 2))
    assert sips(game_rulings) == [(1, 1, 1), (1, 2, 3)]


def test_d15_the_hand_left_costs_by_card():
    rulings = druk(card(1, "r_5", None), round_end(3, {
        0: ["r_1", "r_skip", "r_reverse", "wild"], 1: [], 2: ["g_draw_2"], 3: ["wild_draw_4"]}))
    assert sips(rulings) == [(0, 4, 4), (2, 2, 2), (3, 4, 4)]


def test_d15_the_match_ends_with_the_sips_drunk_not_a_shared_win_on_points():
    rulings = druk(card(1, "r_5", None), draw(2, 1, 1), round_end(3, {
        0: ["r_1"], 1: [], 2: ["g_2"], 3: []}), rounds=1)
    (over,) = [r for r in rulings if r["rule"] == "match_over"]
    assert over["message"] == ("Match over: DrukUNO keeps no points; sips drunk: seat 0 1, "
                               "seat 1 1, seat 2 1, seat 3 0.")


def test_d15_a_last_draw_two_still_costs_the_next_player_its_pool():
    rulings = druk(card(1, "r_5", None), card(2, "r_draw_2", 1),
                   round_end(3, {0: ["r_1"], 1: [], 2: ["g_4"], 3: ["b_3"]}))
    assert (2, 2, 3) in sips(rulings) and (2, 1, 1) in sips(rulings)


def test_d15_an_unseen_draw_is_drunk_by_nobody():
    assert sips(druk(card(1, "r_5", None), draw(2, None, 3))) == []


def test_d15_the_totals_are_the_games_sips_mapping_and_the_line_has_its_keys_in_order():
    events = (card(1, "r_5", None), *one_play(1, ("r_skip", "g_skip")), draw(4, 0, 2))
    rulings = druk(*events)
    assert druk_game(*events).sips == {0: 2, 1: 0, 2: 1, 3: 1}
    assert list(infos(rulings, "sips")[0]) == ["t", "kind", "rule", "seat", "sips", "total",
                                               "message"]


def test_the_example_game_gives_the_rulings_its_rules_page_predicts():
    done = subprocess.run([sys.executable, "-m", "bruno", "replay", str(EXAMPLE), "--json"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    rulings = [json.loads(line) for line in done.stdout.splitlines()]
    assert rulings_of(rulings) == [("wrong_call", 1, 2, "D12")]
    assert pools(rulings) == [(2, 2), (3, 4), (3, 6), (2, 2)]
    assert [(r["seat"], r["card"]) for r in infos(rulings, "instick")] == [(2, "r_3")]
    assert [(seat, n) for seat, n, _ in sips(rulings)] == [
        (3, 1), (0, 1), (3, 6), (1, 2), (3, 1), (2, 2), (0, 4), (2, 3), (3, 5)]
    assert {seat: total for seat, _, total in sips(rulings)} == {0: 5, 1: 2, 2: 5, 3: 13}
    (over,) = infos(rulings, "round_over")
    assert over["seat"] == 1


# Properties: a legal multi-card play by the turn holder is never taken for cards out of turn.
@settings(max_examples=80, deadline=None)
@given(st.sampled_from([*NUMBERS, "skip", "reverse", "draw_2"]),
       st.lists(st.sampled_from(COLORS), min_size=1, max_size=4),
       st.lists(st.floats(0.05, 1.9), min_size=4, max_size=4),
       st.integers(2, 8))
def test_a_legal_multi_card_play_is_never_a_penalty(value, colours, gaps, players):
    top = f"{colours[0].value}_{'1' if value != '1' else '2'}"  # the first card goes on it
    plays, t = [], 2.0
    for colour, gap in zip(colours, gaps, strict=False):
        plays.append(card(t, f"{colour.value}_{value}", 1))
        t = round(t + gap, 3)
    rulings = druk(card(1, top, None), *plays, players=players)
    assert penalties(rulings) == []
    assert infos(rulings, "instick") == []


def test_a_pool_is_taken_whole_however_many_reaches_the_camera_counts():
    stacked = [card(1, "r_5", 0), card(2.2, "r_draw_2", 1), card(3.4, "g_draw_2", 2),
               card(4.1, "b_draw_2", 2)]  # a two-card play: the pool is six for seat 3
    once = druk(*stacked, draw(6.0, 3), card(8.0, "b_4", 0))
    assert sips(once) == [(3, 6, 6)]
    assert rulings_of(once) == []  # seat 3 took the pool and missed the turn: seat 0 plays
    thrice = druk(*stacked, draw(6.0, 3), draw(6.8, 3), draw(7.5, 3), card(8.5, "b_4", 0))
    assert sips(thrice) == [(3, 6, 6)] and rulings_of(thrice) == []
    assert druk_game(*stacked, draw(6.0, 3), draw(6.8, 3)).hand_counts[3] == 7 + 6


def test_reaches_after_a_wild_draw_four_pool_are_the_victims_search_and_count():
    rulings = druk(card(1, "r_5", 0), card(2.2, "wild_draw_4", 1), color(2.4, "g"),
                   draw(4.0, 2), draw(5.0, 2))
    assert sips(rulings) == [(2, 4, 4), (2, 1, 5)]


@pytest.mark.parametrize(("was", "now", "change"), [("r_6", "r_skip", 1), ("r_skip", "r_6", -1)])
def test_a_correction_that_changes_who_drank_says_so_and_the_lines_still_add_up(was, now, change):
    # A red 6 corrected to a red skip: seat 2 was skipped after all and drinks one (D15);
    # the other way round, the sip is taken back.
    rulings = druk(card(1, "r_5", None), card(2, was, 1), {"t": 3, "kind": "correct", "card": now},
                   card(4, "r_7", 3 if now == "r_skip" else 2), draw(5, 2),
                   round_end(9, {0: ["r_1"], 1: ["r_2"], 2: ["r_4"], 3: []}))
    sips = infos(rulings, "sips")
    corrected = [s for s in sips if s["t"] == 3]
    assert [(s["seat"], s["sips"]) for s in corrected] == [(2, change)]
    for seat in range(4):
        lines = [s for s in sips if s["seat"] == seat]
        assert sum(s["sips"] for s in lines) == (lines[-1]["total"] if lines else 0)
