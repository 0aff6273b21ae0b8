"""What the referee says: penalties (`kind: "ruling"`) and information (`kind: "info"`).

The JSON form is a contract (docs/DESIGN.md): field names and order are fixed here, in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PENALTY_RULES: tuple[str, ...] = (
    "illegal_card",
    "out_of_turn",
    "missed_knock",
    "same_number_two_colors",
    "too_slow",
    "wrong_call",
)
INFO_RULES: tuple[str, ...] = (
    "instick",
    "turn",
    "color",
    "draw_due",
    "round_over",
    "score",
    "match_over",
    "corrected",
    "withdrawn",
    "flaske",
    "sips",
    "multi_card_play",
)

RULE_WORDS: dict[str, str] = {
    "illegal_card": "penalty for a card that does not match",
    "out_of_turn": "penalty for playing out of turn",
    "missed_knock": "penalty for a missed knock",
    "same_number_two_colors": "penalty for the same number in two colours",
    "too_slow": "penalty for being too slow",
    "wrong_call": "penalty for a wrong call",
}
"""How a penalty is named when it is withdrawn (a game's own words may name it otherwise:
`referee.words.Words.penalty_words`)."""


@dataclass(slots=True)  # not frozen: a frozen dataclass is slow to build, and this is hot
class Ruling:
    """One thing the referee says. `t` is when it was decided, on the session clock.

    Penalties carry `penalty` (cards to take), `ref` (the docs/RULES.md id) and `confidence`
    (0..1: how sure the referee is, from what the ruling rests on; docs/missed-observations.md).
    Info lines carry only the fields their rule needs: `card`, `color`, `count` (draw_due),
    `points` and `total` (score), `sips` and `total` (DrukUNO's sips); a match_over line names
    the winner in `seat` (None on a tie).
    """

    t: float
    kind: str
    rule: str
    seat: int | None
    message: str
    penalty: int | None = None
    card: str | None = None
    ref: str | None = None
    color: str | None = None
    count: int | None = None
    points: int | None = None
    sips: int | None = None
    total: int | None = None
    confidence: float | None = None

    @property
    def is_penalty(self) -> bool:
        return self.kind == "ruling"

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of docs/DESIGN.md, keys in a fixed order, `t` rounded to milliseconds."""
        out: dict[str, Any] = {"t": round(self.t, 3), "kind": self.kind, "rule": self.rule,
                               "seat": self.seat}
        if self.is_penalty:
            out.update(penalty=self.penalty, card=self.card, ref=self.ref,
                       confidence=round(1.0 if self.confidence is None else self.confidence, 3))
        else:
            for name in ("card", "color", "count", "points", "sips", "total"):
                value = getattr(self, name)
                if value is not None:
                    out[name] = value
        out["message"] = self.message
        return out


def penalty(t: float, rule: str, seat: int | None, cards: int, card: str | None, ref: str,
            message: str, confidence: float = 1.0) -> Ruling:
    return Ruling(t=t, kind="ruling", rule=rule, seat=seat, penalty=cards, card=card, ref=ref,
                  message=message, confidence=confidence)


def is_sure(ruling: Ruling | dict, min_confidence: float) -> bool:
    """Whether a penalty is sure enough to be said aloud as one (below the bar: "check")."""
    confidence = ruling.get("confidence") if isinstance(ruling, dict) else ruling.confidence
    return confidence is None or confidence >= min_confidence


def info(t: float, rule: str, seat: int | None, message: str, **fields: Any) -> Ruling:
    return Ruling(t=t, kind="info", rule=rule, seat=seat, message=message, **fields)


def tally_totals(rulings: list[dict], rule: str) -> dict[int, int]:
    """Seat -> the latest `total` of the info lines of `rule` (a game's running count per
    seat, e.g. DrukUNO's sips), seats in order; {} before the first."""
    totals: dict[int, int] = {}
    for ruling in rulings:
        if ruling.get("kind") == "info" and ruling.get("rule") == rule \
                and ruling.get("seat") is not None:
            totals[ruling["seat"]] = ruling["total"]
    return dict(sorted(totals.items()))
