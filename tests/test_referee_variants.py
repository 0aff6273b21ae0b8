"""Variants are small subclasses of Bruno's `Game`, found by name; Bruno itself is untouched."""

import pytest

from referee.eventlog import EventLogError, parse_lines
from referee.game import Game
from referee.rules import RuleSet
from referee.session import replay
from referee.variants import VARIANTS, UnknownVariantError, find_variant

from scenario_helpers import card, knock, penalties, referee, turns


class JumpInReverses(Game):
    """A Snabb-UNO-like house rule, written the way a later issue would: a jump-in reverses
    the direction of play, and errors cost one card."""

    name = "jump-reverse"
    aliases = ("Jump Reverse",)
    default_rules = RuleSet(penalty_cards=1)

    def on_instick(self, seat, card):
        self.state.direction = -self.state.direction


@pytest.fixture
def with_variant(monkeypatch):
    monkeypatch.setattr("referee.variants.VARIANTS", [*VARIANTS, JumpInReverses])


def test_bruno_is_found_by_name_and_alias():
    assert find_variant("bruno") is Game
    assert find_variant("BRUNO") is Game
    with pytest.raises(UnknownVariantError, match="known: bruno, uno, snabb, flaske, druk"):
        find_variant("snap")


def test_a_variant_subclass_is_found_by_name_and_changes_only_what_it_overrides(with_variant):
    lines = ['{"t": 0, "kind": "game", "variant": "Jump Reverse", "players": 4, "dealer": 0}',
             '{"t": 1, "kind": "card", "card": "r_5", "seat": 0}',
             '{"t": 2, "kind": "card", "card": "r_6", "seat": 1}',
             '{"t": 3, "kind": "card", "card": "r_6", "seat": 3}',
             '{"t": 3.2, "kind": "knock"}',
             '{"t": 5, "kind": "card", "card": "g_6", "seat": 0}']
    log = parse_lines(lines)
    game = log.setup.new_game()
    assert isinstance(game, JumpInReverses)
    rulings = [r.to_dict() for r in replay(game, log.events)]
    # After seat 3's jump-in play goes counter-clockwise: seat 2 is next, so seat 0 is out of
    # turn, and the variant's penalty is one card.
    assert turns(rulings) == [1, 2, 2]
    assert [(r["rule"], r["seat"], r["penalty"]) for r in rulings if r["kind"] == "ruling"] == [
        ("out_of_turn", 0, 1)]


def test_bruno_keeps_its_own_rules_beside_a_variant(with_variant):
    rulings = referee(card(1, "r_5", 0), card(2, "r_6", 1), card(3, "r_6", 3), knock(3.2),
                      card(5, "g_6", 0))
    assert penalties(rulings) == []


def test_an_unknown_variant_on_the_game_line_is_a_one_line_error():
    with pytest.raises(EventLogError, match="line 1: unknown variant 'snap'"):
        parse_lines(['{"t": 0, "kind": "game", "variant": "snap"}'])
