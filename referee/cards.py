"""UNO cards: the 54 tokens of docs/RULES.md, parsing with clear errors, the 108-card deck, scores.

A card is a small immutable value. Tokens are `r_0`..`r_9`, `r_skip`, `r_reverse`, `r_draw_2`
(likewise `y_`, `g_`, `b_`), `wild` and `wild_draw_4`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Color(StrEnum):
    RED = "r"
    YELLOW = "y"
    GREEN = "g"
    BLUE = "b"

    @property
    def word(self) -> str:
        return _COLOR_WORDS[self]


_COLOR_WORDS = {Color.RED: "red", Color.YELLOW: "yellow", Color.GREEN: "green", Color.BLUE: "blue"}

COLORS: tuple[Color, ...] = (Color.RED, Color.YELLOW, Color.GREEN, Color.BLUE)
NUMBERS: tuple[str, ...] = tuple(str(n) for n in range(10))
COLORED_ACTIONS: tuple[str, ...] = ("skip", "reverse", "draw_2")
BLACK_VALUES: tuple[str, ...] = ("wild", "wild_draw_4")

_VALUE_WORDS = {"skip": "skip", "reverse": "reverse", "draw_2": "draw two",
                "wild": "wild", "wild_draw_4": "wild draw four"}


class CardError(ValueError):
    """A token that is not one of the 54 UNO cards."""


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One UNO card. `color` is None for the black cards (wild, wild draw four)."""

    color: Color | None
    value: str

    @classmethod
    def parse(cls, token: str) -> Card:
        """Parse a token such as `r_7`, `g_draw_2` or `wild`; raise CardError with a hint."""
        if not isinstance(token, str):
            raise CardError(f"a card must be a token string, not {token!r}")
        card = _BY_TOKEN.get(token)
        if card is None:
            raise CardError(
                f"unknown card {token!r} (cards are r_0..r_9, r_skip, r_reverse, r_draw_2, "
                "likewise y_/g_/b_, and wild, wild_draw_4)"
            )
        return card

    @property
    def token(self) -> str:
        return self.value if self.color is None else f"{self.color.value}_{self.value}"

    @property
    def is_black(self) -> bool:
        return self.color is None

    @property
    def is_number(self) -> bool:
        return self.value in NUMBERS

    @property
    def is_zero(self) -> bool:
        return self.value == "0"

    @property
    def draw_count(self) -> int:
        """Cards the next player must take because of this card (0 for most cards)."""
        return {"draw_2": 2, "wild_draw_4": 4}.get(self.value, 0)

    @property
    def skips_next(self) -> bool:
        """Whether the next player loses the turn (skip and both draw cards)."""
        return self.value in ("skip", "draw_2", "wild_draw_4")

    @property
    def points(self) -> int:
        """Score of this card left in a hand (docs/RULES.md S1)."""
        if self.is_number:
            return int(self.value)
        return 50 if self.is_black else 20

    @property
    def name(self) -> str:
        """Plain English, e.g. 'yellow 1', 'red draw two', 'wild draw four'."""
        words = _VALUE_WORDS.get(self.value, self.value)
        return words if self.color is None else f"{self.color.word} {words}"

    def __str__(self) -> str:
        return self.token


def _all_cards() -> tuple[Card, ...]:
    values = NUMBERS + COLORED_ACTIONS
    colored = tuple(Card(color, value) for color in COLORS for value in values)
    return colored + tuple(Card(None, value) for value in BLACK_VALUES)


ALL_CARDS: tuple[Card, ...] = _all_cards()
"""The 54 distinct cards, in a fixed order (colour by colour, then the two black cards)."""

ALL_TOKENS: tuple[str, ...] = tuple(card.token for card in ALL_CARDS)
_BY_TOKEN: dict[str, Card] = {card.token: card for card in ALL_CARDS}


def token_words(token: str) -> str:
    """A card token in plain English for people ('b_9' -> 'blue 9', see `Card.name`); a token
    that names no card comes back as it is."""
    card = _BY_TOKEN.get(token)
    return card.name if card is not None else token


def deck() -> list[Card]:
    """The 108-card UNO deck: per colour one 0 and two of every other coloured card,
    plus four wild and four wild draw four."""
    cards: list[Card] = []
    for card in ALL_CARDS:
        copies = 4 if card.is_black else (1 if card.is_zero else 2)
        cards.extend([card] * copies)
    return cards


def parse_color(text: str) -> Color:
    """Parse a colour letter (`r`, `y`, `g`, `b`) or word; raise CardError with a hint."""
    if isinstance(text, str):
        for color in COLORS:
            if text in (color.value, color.word):
                return color
    raise CardError(f"unknown colour {text!r} (colours are r, y, g, b)")
