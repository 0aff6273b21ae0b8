"""What a game calls things: its name, a card out of turn that is allowed (Bruno's instick,
UNO's jump-in), the call for a player who is too slow, its knock rules. The referee's messages,
the review report, the annotated video, the dashboard and the spoken rulings all take these from
the game being played (`Game.words`), so a variant declares its own words once, on its class.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.rulings import RULE_WORDS


@dataclass(frozen=True, slots=True)
class SpokenWords:
    """The game's own words said aloud in one language."""

    jump_in: str
    """Said for an allowed card out of turn ("Instick.")."""
    too_slow: str
    """The name of the too-slow penalty as the table says it ("Seg")."""
    says_message: tuple[str, ...] = ()
    """Info rules of the game's own whose message is said as it is written: the referee
    writes its messages in English, so only an English table hears them so (Flaske UNO's card
    announcements; `bruno.live.phrases` says them in Swedish from the line's fields)."""


@dataclass(frozen=True, slots=True)
class Words:
    """A game's words; the defaults are Bruno's (docs/RULES.md)."""

    game: str = "Bruno"
    """The game's name as people write it, in the report, the dashboard and the terminal."""
    jump_in: str = "instick"
    """The English noun for a card played out of turn because it is the top card's twin."""
    jumped_in: str = "inserted"
    """... and its verb ("seat 2 inserted the red 5 without knocking")."""
    slow_call: str | None = "SEG"
    """What the table calls out at a player who is too slow; None when the game has no word."""
    knock_rules: str | None = "the knock rules (B7 instick, B8 zeros, B10 going out)"
    """The game's rules that need a knock heard, as a warning names them when nothing can be
    heard; None for a game without knocks (no sound track is then nothing to warn about)."""
    announced: tuple[str, ...] = ()
    """Info rules that are the game's own announcement of each card (Flaske UNO's `flaske`):
    the report lists them, the annotated video captions them, and the announcer says every one
    however far behind it is (they are the game, not news)."""
    spoken: dict[str, SpokenWords] = field(default_factory=lambda: {
        "en": SpokenWords(jump_in="Instick.", too_slow="Seg"),
        "sv": SpokenWords(jump_in="Instick.", too_slow="Seg"),
    })
    """By language (`bruno.live.phrases.LANGUAGES`)."""

    @property
    def has_knocks(self) -> bool:
        return self.knock_rules is not None

    def penalty_words(self, rule: str) -> str:
        """How a penalty is named when it is withdrawn ("the SEG penalty")."""
        if rule == "too_slow" and self.slow_call:
            return f"{self.slow_call} penalty"
        return RULE_WORDS[rule]

    def penalty_title(self, rule: str) -> str:
        """How a penalty is headed in the report ("too slow (SEG)")."""
        if rule == "too_slow":
            return f"too slow ({self.slow_call})" if self.slow_call else "too slow"
        return PENALTY_TITLES.get(rule, rule.replace("_", " "))


PENALTY_TITLES: dict[str, str] = {
    "illegal_card": "illegal card", "out_of_turn": "out of turn", "missed_knock": "missed knock",
    "same_number_two_colors": "same number in two colours", "too_slow": "too slow",
    "wrong_call": "wrong call",
}
"""How each penalty is headed (a rule the table does not know: its name in words)."""

BRUNO_WORDS = Words()
