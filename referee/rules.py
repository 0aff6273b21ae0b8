"""The rule set: every setting a table can change, with the defaults of docs/RULES.md.

A rule set is data. Every field can be overridden by name from the event log's `game` line or
from the command line; variants (see `referee.variants`) bring their own defaults.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any


class RuleSetError(ValueError):
    """A setting that does not exist or has a value of the wrong kind."""


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Settings of a game. Times are in seconds on the session clock."""

    knock_before_s: float = 0.3
    """A knock counts for a card if heard up to this long before the card comes to rest."""
    knock_after_s: float = 1.5
    """... or up to this long after it (docs/RULES.md, Knock timing)."""
    seg_after_s: float | None = None
    """The referee calls SEG (too slow) this long after a turn began; None = off (P3)."""
    penalty_cards: int = 2
    """Cards an offender takes for any error (P1)."""
    two_player_reverse_skips: bool = True
    """With two players, reverse acts as skip (B3 decision)."""
    draw_instick_passes_on: bool = False
    """B9: False (Bruno) = a player who inserts on a draw card still takes the cards, and the next
    player must take the same number too; True = the insert passes the draw on instead."""
    zero_instick_any_color: bool = True
    """B8: a zero may be inserted on a zero of any colour."""
    check_knocks: bool = True
    """False when nothing can hear the table (footage without sound, `--no-mic`): the knock
    rules (B7, B8, B10) are then not checked, rather than every knock ruled missing."""
    first_card_needs_knock: bool = False
    """Whether the dealer's turned card needs a knock when it is a zero (it is nobody's play)."""
    bruno_draw_count: int = 3
    """B6: cards a player on Bruno (one card left) takes when they cannot play."""
    min_card_confidence: float = 0.5
    """Below this recognition confidence the referee rules on nothing that depends on which card
    it was (illegal card, same number in two colours): it says less rather than guess."""
    implied_pass: bool = True
    """A turn holder who took cards on its turn has passed when the next seat plays, draws or
    says "pass" (docs/missed-observations.md): "pass" is often not heard."""
    follow_the_table: bool = True
    """After a card out of turn, when the next card comes from the seat that would follow that
    card had it been a play, the table took it as one: the referee follows, rather than rule
    every later card out of turn."""
    unseen_instick_by_knock: bool = True
    """A knock no card took, heard in the top card's knock window, then a card from a seat
    whose turn it is not: an instick laid at once on the top card, which the camera never saw
    apart from it, explains both; the referee follows (docs/missed-observations.md)."""
    assume_missed_take_back: bool = True
    """A seat that plays an illegal card and then a card that matches the card beneath it took
    the illegal card back unseen (P4): the second card is its play, not a second card."""
    missed_draw_confidence: float = 0.5
    """The confidence of an `out_of_turn` that one unseen draw would explain: the next seat
    played before the turn holder was seen taking a card (the draw watcher misses some)."""
    loud_knock_confidence: float = 0.5
    """The confidence of a `missed_knock` whose window overlapped a loud moment (a `loud`
    event): the knock may have been struck and drowned; below `announce_min_confidence` by
    default, so the table checks it rather than hears it."""
    announce_min_confidence: float = 0.7
    """Live: a penalty with a lower confidence is not spoken; the dashboard shows it as "check"
    for the table to confirm or dismiss."""
    multi_card_window_s: float = 2.0
    """DrukUNO: cards of one multi-card play come from one seat at most this long apart, with
    no other seat's card between them (docs/rules/druk.md, D3, D4)."""
    helsinki: bool = False
    """DrukUNO's Helsinki rules: draw until you can play; a zero moves every hand one seat
    against the direction of play (D13)."""
    warszawa: bool = False
    """DrukUNO's Warszawa rules, played only with Helsinki: a 7 makes its player swap hands
    with another player (D14)."""
    rounds: int | None = None
    """S3: the match ends after this many rounds (None = no limit)."""
    target_score: int | None = None
    """S3: the match ends when someone's total reaches this (None = no limit), e.g. 500."""

    def with_overrides(self, overrides: dict[str, Any]) -> RuleSet:
        """A copy with the named settings changed; raise RuleSetError for unknown names or
        values of the wrong kind."""
        changes = {name: _checked(name, value) for name, value in overrides.items()}
        rules = dataclasses.replace(self, **changes)
        rules.validate()
        return rules

    def validate(self) -> None:
        """Raise RuleSetError for settings that cannot go together."""
        if self.warszawa and not self.helsinki:
            raise RuleSetError("setting 'warszawa' needs 'helsinki' too (Warszawa rules are "
                               "played only together with Helsinki rules)")

    @classmethod
    def setting_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))


_KINDS: dict[str, tuple[type, bool]] = {
    # name: (type, None allowed)
    "knock_before_s": (float, False),
    "knock_after_s": (float, False),
    "seg_after_s": (float, True),
    "penalty_cards": (int, False),
    "two_player_reverse_skips": (bool, False),
    "draw_instick_passes_on": (bool, False),
    "zero_instick_any_color": (bool, False),
    "check_knocks": (bool, False),
    "first_card_needs_knock": (bool, False),
    "bruno_draw_count": (int, False),
    "min_card_confidence": (float, False),
    "implied_pass": (bool, False),
    "follow_the_table": (bool, False),
    "unseen_instick_by_knock": (bool, False),
    "assume_missed_take_back": (bool, False),
    "missed_draw_confidence": (float, False),
    "loud_knock_confidence": (float, False),
    "announce_min_confidence": (float, False),
    "multi_card_window_s": (float, False),
    "helsinki": (bool, False),
    "warszawa": (bool, False),
    "rounds": (int, True),
    "target_score": (int, True),
}


_AT_LEAST: dict[str, float] = {"seg_after_s": 1.0}
"""Least values: a SEG clock under a second would rule every turn too slow before anyone could
play (at 0 the next turn's SEG falls due at once, for ever; null turns SEG off)."""


def _checked(name: str, value: Any) -> Any:
    if name not in _KINDS:
        known = ", ".join(RuleSet.setting_names())
        raise RuleSetError(f"unknown setting {name!r} (settings are: {known})")
    kind, nullable = _KINDS[name]
    if value is None:
        if nullable:
            return None
        raise RuleSetError(f"setting {name!r} cannot be null")
    if kind is bool:
        if isinstance(value, bool):
            return value
        raise RuleSetError(f"setting {name!r} must be true or false, got {value!r}")
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise RuleSetError(f"setting {name!r} must be a number, got {value!r}")
    if value < 0:
        raise RuleSetError(f"setting {name!r} must not be negative, got {value!r}")
    if value < _AT_LEAST.get(name, 0):
        raise RuleSetError(f"setting {name!r} must be at least {_AT_LEAST[name]:g}, got "
                           f"{value!r}")
    if kind is int:
        if value != int(value):
            raise RuleSetError(f"setting {name!r} must be a whole number, got {value!r}")
        return int(value)
    return float(value)
