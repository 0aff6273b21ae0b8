"""Standard UNO (docs/rules/uno.md): the base of the other house games that are not Bruno.
Its own module so that DrukUNO (`referee.druk`) can build on it while `referee.variants` lists
every game."""

from __future__ import annotations

from typing import ClassVar

from referee.cards import Card
from referee.game import Game
from referee.rule_texts import UNO_RULE_TEXTS
from referee.rules import RuleSet
from referee.rulings import Ruling
from referee.words import SpokenWords, Words

UNO_WORDS = Words(
    game="Standard UNO", jump_in="jump-in", jumped_in="jumped in", slow_call=None,
    knock_rules=None,
    spoken={"en": SpokenWords(jump_in="Jump-in.", too_slow="Too slow"),
            "sv": SpokenWords(jump_in="Inflikning.", too_slow="För långsam")},
)
"""Standard UNO's words, also those of the games built on it (their own name aside). The
Swedish "inflikning" is Snabb-UNO's own word (to "flika in", /work/shared/seeds/003)."""


class StandardUno(Game):
    """Standard UNO (docs/rules/uno.md): no jump-ins and no knocks, "UNO" is the right call,
    the round's winner scores the others' hands and the highest total wins the match."""

    name: ClassVar[str] = "uno"
    aliases: ClassVar[tuple[str, ...]] = ("UNO", "standard")
    default_rules: ClassVar[RuleSet] = RuleSet(target_score=500)
    rule_refs: ClassVar[dict[str, str]] = {"B2": "U2", "P2": "U3", "B4": "U3", "P3": "U6"}
    highest_total_wins: ClassVar[bool] = True
    bruno_call: ClassVar[bool] = False
    words: ClassVar[Words] = UNO_WORDS
    rule_texts: ClassVar[dict[str, str]] = UNO_RULE_TEXTS

    def is_instick(self, card: Card) -> bool:
        """U3: no jump-ins; an identical card out of turn is a card out of turn."""
        return False

    def knock_ref(self, card: Card, instick: bool) -> str | None:
        """U4: nothing needs a knock."""
        return None

    def after_draw(self, seat: int, count: int, debts_paid: int, free_cards: int, t: float,
                   out: list[Ruling]) -> None:
        """U4: a player who drew may play what it drew at once; its turn ends when it plays,
        says "pass" or the next seat acts (the implied pass), never after a count of cards
        (Bruno's silent draw, B6, is not this game's)."""

    def second_card_rule(self, seat: int, card: Card) -> tuple[str, str]:
        """U3: any second card from the seat that just played is out of turn."""
        return "out_of_turn", "B4"

    def wrong_word(self, seat: int | None, word: str) -> str | None:
        """U5: "UNO" is this game's own call; no word is a wrong one."""
        return None

    def round_points(self, hands: dict[int, tuple[Card, ...]], winner: int | None
                     ) -> dict[int, int]:
        """U7: the winner scores every card left in the other hands; everyone else 0."""
        points = {seat: 0 for seat in range(self.players)}
        if winner is not None:
            points[winner] = sum(card.points for cards in hands.values() for card in cards)
        return points
