"""Unsure cards that another seat covered at once are taken for the card that covered them
(`vision.pile_instick`): the chain's order kept, the guess kept under the referee's bar."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

from referee.cards import Card
from referee.events import CardPlayed, CardRemoved
from referee.rules import RuleSet
from vision.pile_cards import UNDER_GUESS_CONFIDENCE
from vision.pile_instick import CONFIRM_LAG_S, COVERED_WITHIN_S, CoveredUnsureCards


@dataclass
class Pile(CoveredUnsureCards):
    read_sure: float = RuleSet().min_card_confidence
    waiting: object | None = None
    held_unsure: list = field(default_factory=list)
    last_sure: CardPlayed | None = None


def card(t: float, token: str, seat: int | None, confidence: float) -> CardPlayed:
    return CardPlayed(t, card=Card.parse(token), seat=seat, confidence=confidence)


def test_a_chain_of_unsure_jump_ins_takes_the_card_that_covered_it_last():
    pile = Pile()
    # Each card of the chain is settled (read) after the next one landed, as in footage.
    assert pile._covered_unsure([card(8.23, "y_8", 0, 0.15)], 8.9) == []
    assert pile._covered_unsure([card(8.60, "r_skip", 2, 0.18)], 9.5) == []
    out = pile._covered_unsure([card(9.20, "r_0", 1, 0.99)], 9.9)
    assert [(e.t, e.card.token, e.seat) for e in out] == [
        (8.23, "r_0", 0), (8.60, "r_0", 2), (9.20, "r_0", 1)]
    assert [e.confidence for e in out] == [UNDER_GUESS_CONFIDENCE, UNDER_GUESS_CONFIDENCE, 0.99]
    assert out[0].alternatives == ("y_8",) and out[1].alternatives == ("r_skip",)
    assert pile.held_unsure == []


def test_an_unsure_jump_in_nobody_covers_takes_the_sure_card_it_was_laid_on():
    pile = Pile()
    under = card(30.5, "b_3", 2, 0.99)
    assert pile._covered_unsure([under], 31.2) == [under]
    assert pile._covered_unsure([card(31.0, "b_5", 0, 0.36)], 31.6) == []
    out = pile._covered_unsure([], 31.0 + COVERED_WITHIN_S + CONFIRM_LAG_S + 0.1)
    assert [(e.card.token, e.confidence, e.alternatives) for e in out] == [
        ("b_3", UNDER_GUESS_CONFIDENCE, ("b_5",))]
    # By the same seat, or after a take-back, the card under says nothing about it.
    for before in ([card(40.5, "g_3", 0, 0.99)], [card(40.5, "g_3", 2, 0.99), CardRemoved(40.8)]):
        pile = Pile()
        pile._covered_unsure(before, 40.9)
        pile._covered_unsure([card(41.0, "g_5", 0, 0.3)], 41.1)
        out = pile._covered_unsure([], float("inf"))
        assert [(e.card.token, e.confidence) for e in out] == [("g_5", 0.3)]


def test_the_same_seat_or_a_later_card_does_not_rename_an_unsure_card():
    for later in (card(5.5, "g_7", 0, 0.99),                       # the same seat
                  card(5.0 + COVERED_WITHIN_S + 0.1, "g_7", 3, 0.99),  # too late
                  card(5.5, "g_7", None, 0.99)):                   # nobody seen laying it
        pile = Pile()
        assert pile._covered_unsure([card(5.0, "y_6", 0, 0.3)], 5.4) == []
        out = pile._covered_unsure([later], later.t + 0.5)
        assert [(e.card.token, e.confidence) for e in out] == [("y_6", 0.3), ("g_7", 0.99)]


def test_an_unsure_card_nobody_covers_comes_out_as_read_once_none_can_come():
    pile = Pile()
    first = card(3.0, "b_5", 1, 0.36)
    assert pile._covered_unsure([first], 3.5) == []
    late = 3.0 + COVERED_WITHIN_S + CONFIRM_LAG_S
    # A card that came to rest within the window still waits to be read: keep holding.
    pile.waiting = SimpleNamespace(played=SimpleNamespace(event_t=3.8))
    assert pile._covered_unsure([], late + 0.1) == []
    pile.waiting = None
    assert pile._covered_unsure([], late + 0.1) == [first]
    assert pile._covered_unsure([], late + 0.2) == []


def test_a_take_back_or_the_footages_end_lets_held_cards_out_first():
    pile = Pile()
    assert pile._covered_unsure([card(3.0, "b_5", 1, 0.36)], 3.1) == []
    removed = CardRemoved(3.6)
    assert [e.kind for e in pile._covered_unsure([removed], 3.7)] == ["card", "card_removed"]
    assert pile._covered_unsure([card(6.0, "g_2", 2, 0.2)], 6.1) == []
    assert [e.card.token for e in pile._covered_unsure([], float("inf"))] == ["g_2"]


def test_sure_cards_pass_at_once_and_unchanged():
    pile = Pile()
    sure = [card(1.0, "r_3", 0, 0.97), card(1.4, "r_3", 1, 0.5), card(9.0, "g_3", 2, 1.0)]
    assert pile._covered_unsure(sure, 9.1) == sure
