"""The games this referee knows, found by name. Bruno is the base (`referee.game.Game`);
another house game is a small subclass of it that overrides a few rule hooks and defaults, added
to `VARIANTS` here without touching Bruno's code. Each game's rules are a page in docs/rules/.
"""

from __future__ import annotations

from typing import ClassVar

from referee.cards import Card
from referee.game import Game
from referee.rules import RuleSet


class StandardUno(Game):
    """Standard UNO (docs/rules/uno.md): no jump-ins and no knocks, "UNO" is the right call,
    the round's winner scores the others' hands and the highest total wins the match."""

    name: ClassVar[str] = "uno"
    aliases: ClassVar[tuple[str, ...]] = ("UNO", "standard")
    default_rules: ClassVar[RuleSet] = RuleSet(target_score=500)
    rule_refs: ClassVar[dict[str, str]] = {"B2": "U2", "P2": "U3", "B4": "U3", "P3": "U6"}
    highest_total_wins: ClassVar[bool] = True

    def is_instick(self, card: Card) -> bool:
        """U3: no jump-ins; an identical card out of turn is a card out of turn."""
        return False

    def knock_ref(self, card: Card, instick: bool) -> str | None:
        """U4: nothing needs a knock."""
        return None

    def second_card_rule(self, seat: int, card: Card) -> tuple[str, str]:
        """U3: any second card from the seat that just played is out of turn."""
        return "out_of_turn", "B4"

    def wrong_word(self, seat: int | None, word: str) -> str | None:
        """U5: "UNO" is this game's own call; no word is a wrong one."""
        return None

    def round_points(self, hands: dict[int, tuple[Card, ...]]) -> dict[int, int]:
        """U7: the winner scores every card left in the other hands; everyone else 0."""
        points = {seat: 0 for seat in range(self.players)}
        winners = [seat for seat in range(self.players) if seat in hands and not hands[seat]]
        if len(winners) == 1:
            points[winners[0]] = sum(card.points for seat, cards in hands.items()
                                     if seat != winners[0] for card in cards)
        return points


VARIANTS: list[type[Game]] = [Game, StandardUno]


class UnknownVariantError(ValueError):
    """A variant name no game answers to."""


def find_variant(name: str) -> type[Game]:
    """The game class for `name` (case-insensitive, aliases included)."""
    wanted = name.casefold()
    for variant in VARIANTS:
        if wanted in (variant.name.casefold(), *(a.casefold() for a in variant.aliases)):
            return variant
    known = ", ".join(v.name for v in VARIANTS)
    raise UnknownVariantError(f"unknown variant {name!r} (known: {known})")
