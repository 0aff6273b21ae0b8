"""Observations the referee rules on: small immutable values, parsed from and written to the
JSONL event log of docs/DESIGN.md.

Every event has `t`, seconds on the session clock, stamped when the thing happened (a card
coming to rest, a knock's onset). Parsing is strict about what the referee needs and tolerant of
extra keys a detector may add (they are ignored).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from referee.cards import Card, CardError, Color, parse_color


class EventError(ValueError):
    """An event that is not valid; the message names the field and what is expected."""


CALL_WORDS: tuple[str, ...] = ("bruno", "uno", "pass", "seg", "stop", "go")


@dataclass(frozen=True, slots=True)
class Event:
    """Base of all observations. `kind` is the JSON `kind` field."""

    t: float
    source: str | None = field(default=None, kw_only=True)
    """Where the event came from when not from a detector (`"notes"`: a notes file). Written
    last in the JSON line; the referee never looks at it."""
    kind: ClassVar[str] = ""
    # Order at equal `t`, so that any arrival order of simultaneous events replays the same.
    order: ClassVar[int] = 11

    def fields(self) -> dict[str, Any]:
        """The JSON fields after `t` and `kind`, in schema order."""
        return {}

    def to_dict(self) -> dict[str, Any]:
        line = {"t": self.t, "kind": self.kind, **self.fields()}
        if self.source is not None:
            line["source"] = self.source
        return line

    def sort_key(self) -> tuple:
        """A total order: time first, then a fixed order of kinds and contents. This is the
        one order of events: the referee's reorder buffer and every merged log use it."""
        return (self.t, self.order, str(self.fields()))


_CALL_RANK = {"stop": 0, "go": 2}


def in_time_order(*streams: Iterable[Event]) -> list[Event]:
    """All events of all streams, merged in `Event.sort_key` order."""
    return sorted((event for stream in streams for event in stream), key=Event.sort_key)


@dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    """A card came to rest on top of the discard pile. `seat` is None when unseen."""

    card: Card = field(default=None)  # type: ignore[assignment]
    seat: int | None = None
    confidence: float | None = None
    alternatives: tuple[str, ...] = ()
    seat_confidence: float | None = None
    """How sure the camera is of `seat` (0..1); None: as sure as it gets (notes, a log)."""
    kind: ClassVar[str] = "card"
    order: ClassVar[int] = 2

    def fields(self) -> dict[str, Any]:
        out: dict[str, Any] = {"card": self.card.token, "seat": self.seat}
        if self.confidence is not None:
            out["confidence"] = self.confidence
        if self.alternatives:
            out["alternatives"] = list(self.alternatives)
        if self.seat_confidence is not None:
            out["seat_confidence"] = self.seat_confidence
        return out


@dataclass(frozen=True, slots=True)
class CardRemoved(Event):
    """The top card was taken back (the previous card shows again)."""

    card: Card = field(default=None)  # type: ignore[assignment]
    kind: ClassVar[str] = "card_removed"
    order: ClassVar[int] = 1

    def fields(self) -> dict[str, Any]:
        return {"card": self.card.token}


@dataclass(frozen=True, slots=True)
class Knock(Event):
    """A knock on the table was heard; `strength` in dB above the noise floor."""

    strength: float | None = None
    confidence: float | None = None
    kind: ClassVar[str] = "knock"
    order: ClassVar[int] = 4

    def fields(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.strength is not None:
            out["strength"] = self.strength
        if self.confidence is not None:
            out["confidence"] = self.confidence
        return out


@dataclass(frozen=True, slots=True)
class Loud(Event):
    """The room was loud for `duration` seconds from `t` (talk, laughter, dishes): `level` dB
    over its quiet floor. A knock in it may have gone unheard, so a missed knock whose window
    overlaps it is an unsure ruling (docs/missed-observations.md)."""

    duration: float = 0.0
    level: float | None = None
    kind: ClassVar[str] = "loud"
    order: ClassVar[int] = 4

    def fields(self) -> dict[str, Any]:
        out: dict[str, Any] = {"duration": self.duration}
        if self.level is not None:
            out["level"] = self.level
        return out


@dataclass(frozen=True, slots=True)
class Draw(Event):
    """`count` cards taken from a draw pile by `seat` (None when unseen)."""

    seat: int | None = None
    count: int = 1
    kind: ClassVar[str] = "draw"
    order: ClassVar[int] = 5

    def fields(self) -> dict[str, Any]:
        return {"seat": self.seat, "count": self.count}


@dataclass(frozen=True, slots=True)
class Call(Event):
    """A spoken or manually entered call: bruno, uno, pass, seg, stop, go."""

    word: str = ""
    seat: int | None = None
    kind: ClassVar[str] = "call"
    order: ClassVar[int] = 6

    def fields(self) -> dict[str, Any]:
        return {"seat": self.seat, "word": self.word}

    def sort_key(self) -> tuple:
        """As any event's, but at one moment STOP comes before every other call and GO after
        them: a STOP and a GO together leave the clock running."""
        return (self.t, self.order, _CALL_RANK.get(self.word, 1), str(self.fields()))


@dataclass(frozen=True, slots=True)
class ColorNamed(Event):
    """The colour named for a wild card."""

    color: Color = Color.RED
    seat: int | None = None
    kind: ClassVar[str] = "color"
    order: ClassVar[int] = 3

    def fields(self) -> dict[str, Any]:
        out: dict[str, Any] = {"color": self.color.value}
        if self.seat is not None:
            out["seat"] = self.seat
        return out


@dataclass(frozen=True, slots=True)
class Swap(Event):
    """`seat` and `with_seat` swapped hands (DrukUNO's Warszawa 7; from notes or the
    dashboard, since the camera does not follow hands). JSON: `"seat"` and `"with"`."""

    seat: int = 0
    with_seat: int = 0
    kind: ClassVar[str] = "swap"
    order: ClassVar[int] = 5

    def fields(self) -> dict[str, Any]:
        return {"seat": self.seat, "with": self.with_seat}


@dataclass(frozen=True, slots=True)
class RoundEnd(Event):
    """The round is over; the cards left in each hand, for scoring (seat -> cards)."""

    hands: tuple[tuple[int, tuple[Card, ...]], ...] = ()
    kind: ClassVar[str] = "round_end"
    order: ClassVar[int] = 7

    def fields(self) -> dict[str, Any]:
        return {"hands": {str(seat): [c.token for c in cards] for seat, cards in self.hands}}


@dataclass(frozen=True, slots=True)
class Correction(Event):
    """The table corrects the referee's eyes: the card event at `of_t` (the latest one when
    None) really was `card` and/or was played by `seat`. The session re-derives its rulings."""

    card: Card | None = None
    seat: int | None = None
    of_t: float | None = None
    kind: ClassVar[str] = "correct"
    order: ClassVar[int] = 8

    def fields(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.card is not None:
            out["card"] = self.card.token
        if self.seat is not None:
            out["seat"] = self.seat
        if self.of_t is not None:
            out["of_t"] = self.of_t
        return out


@dataclass(frozen=True, slots=True)
class Undo(Event):
    """The table overrules a penalty: the one decided at `ruling_t` (the latest standing one
    when None) is withdrawn."""

    ruling_t: float | None = None
    kind: ClassVar[str] = "undo"
    order: ClassVar[int] = 9

    def fields(self) -> dict[str, Any]:
        return {} if self.ruling_t is None else {"ruling_t": self.ruling_t}


@dataclass(frozen=True, slots=True)
class Confirm(Event):
    """The table confirms a penalty the referee was unsure of (shown as "check", not said):
    the one decided at `ruling_t` (the latest unsure one when None) now stands as sure."""

    ruling_t: float | None = None
    kind: ClassVar[str] = "confirm"
    order: ClassVar[int] = 10

    def fields(self) -> dict[str, Any]:
        return {} if self.ruling_t is None else {"ruling_t": self.ruling_t}


EVENT_KINDS: dict[str, type[Event]] = {
    cls.kind: cls for cls in (CardPlayed, CardRemoved, Knock, Loud, Draw, Call, ColorNamed,
                              Swap, RoundEnd, Correction, Undo, Confirm)
}

CORRECTION_KINDS: frozenset[str] = frozenset({Correction.kind, Undo.kind, Confirm.kind})
"""Kinds that amend what the referee said rather than report the table; the Session (which
remembers what was said) handles them, not the Game."""


# --- parsing -------------------------------------------------------------------------------

def parse_event(data: Any, players: int | None = None) -> Event:
    """Build an event from one decoded JSON object; raise EventError naming the bad field.

    `players`, when known, bounds the seat numbers (0..players-1).
    """
    if not isinstance(data, dict):
        raise EventError(f"an event must be a JSON object, not {type(data).__name__}")
    kind = data.get("kind")
    if kind == "game":
        raise EventError("the 'game' line must be the first line, and only once")
    if kind not in EVENT_KINDS:
        known = ", ".join(sorted(EVENT_KINDS))
        raise EventError(f"unknown kind {kind!r} (expected one of: {known})")
    t = parse_time(data)
    parse = _PARSERS[kind]
    event = parse(data, t, players)
    source = data.get("source")
    if source is None:
        return event
    if not isinstance(source, str):
        raise EventError(f"'source' must be a string, got {source!r}")
    return replace(event, source=source)


def parse_time(data: dict[str, Any], name: str = "t") -> float:
    """The time field `name` (seconds on the session clock): a finite number >= 0."""
    t = data.get(name)
    if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t):
        raise EventError(f"'{name}' must be a number of seconds, got {t!r}")
    if t < 0:
        raise EventError(f"'{name}' must not be negative, got {t!r}")
    return float(t)


def _seat(data: dict[str, Any], players: int | None, required: bool = False) -> int | None:
    if "seat" not in data:
        if required:
            raise EventError("'seat' is missing (use null when unknown)")
        return None
    seat = data["seat"]
    if seat is None:
        return None
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise EventError(f"'seat' must be a seat number or null, got {seat!r}")
    if seat < 0 or (players is not None and seat >= players):
        limit = f"0..{players - 1}" if players else "0 or more"
        raise EventError(f"'seat' {seat} is not at this table (seats are {limit})")
    return seat


def _card(data: dict[str, Any]) -> Card:
    if "card" not in data:
        raise EventError("'card' is missing")
    try:
        return Card.parse(data["card"])
    except CardError as error:
        raise EventError(str(error)) from None


def _unit_interval(data: dict[str, Any], name: str) -> float | None:
    value = data.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise EventError(f"'{name}' must be a number from 0 to 1, got {value!r}")
    return float(value)


def _parse_card(data: dict[str, Any], t: float, players: int | None) -> CardPlayed:
    alternatives = data.get("alternatives") or ()
    if not isinstance(alternatives, list | tuple) or not all(
        isinstance(a, str | dict) for a in alternatives
    ):
        raise EventError("'alternatives' must be a list")
    tokens = tuple(a if isinstance(a, str) else str(a.get("card", "")) for a in alternatives)
    return CardPlayed(
        t=t,
        card=_card(data),
        seat=_seat(data, players),
        confidence=_unit_interval(data, "confidence"),
        alternatives=tokens,
        seat_confidence=_unit_interval(data, "seat_confidence"),
    )


def _parse_card_removed(data: dict[str, Any], t: float, players: int | None) -> CardRemoved:
    return CardRemoved(t=t, card=_card(data))


def _parse_knock(data: dict[str, Any], t: float, players: int | None) -> Knock:
    strength = data.get("strength")
    if strength is not None and (
        isinstance(strength, bool) or not isinstance(strength, int | float)
        or not math.isfinite(strength)
    ):
        raise EventError(f"'strength' must be a number of dB, got {strength!r}")
    return Knock(
        t=t,
        strength=None if strength is None else float(strength),
        confidence=_unit_interval(data, "confidence"),
    )


def _parse_loud(data: dict[str, Any], t: float, players: int | None) -> Loud:
    duration, level = data.get("duration"), data.get("level")
    if isinstance(duration, bool) or not isinstance(duration, int | float) \
            or not math.isfinite(duration) or duration < 0:
        raise EventError(f"'duration' must be a number of seconds (0 or more), got {duration!r}")
    if level is not None and (isinstance(level, bool) or not isinstance(level, int | float)
                              or not math.isfinite(level)):
        raise EventError(f"'level' must be a number of dB, got {level!r}")
    return Loud(t=t, duration=float(duration), level=None if level is None else float(level))


def _parse_draw(data: dict[str, Any], t: float, players: int | None) -> Draw:
    count = data.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise EventError(f"'count' must be a whole number of cards (1 or more), got {count!r}")
    return Draw(t=t, seat=_seat(data, players), count=count)


def _parse_call(data: dict[str, Any], t: float, players: int | None) -> Call:
    word = data.get("word")
    if word not in CALL_WORDS:
        raise EventError(f"'word' must be one of {', '.join(CALL_WORDS)}, got {word!r}")
    return Call(t=t, word=word, seat=_seat(data, players))


def _parse_color(data: dict[str, Any], t: float, players: int | None) -> ColorNamed:
    try:
        color = parse_color(data.get("color"))
    except CardError as error:
        raise EventError(str(error)) from None
    return ColorNamed(t=t, color=color, seat=_seat(data, players))


def _parse_swap(data: dict[str, Any], t: float, players: int | None) -> Swap:
    seat = _seat(data, players, required=True)
    if "with" not in data:
        raise EventError("'with' is missing (the seat that swapped hands with 'seat')")
    try:
        other = _seat({"seat": data["with"]}, players)
    except EventError as error:
        raise EventError(str(error).replace("'seat'", "'with'", 1)) from None
    if seat is None or other is None:
        raise EventError("a 'swap' needs both seats ('seat' and 'with'), not null")
    if seat == other:
        raise EventError(f"'seat' and 'with' must be two different seats, got {seat} twice")
    return Swap(t=t, seat=seat, with_seat=other)


def _parse_round_end(data: dict[str, Any], t: float, players: int | None) -> RoundEnd:
    hands = data.get("hands")
    if not isinstance(hands, dict):
        raise EventError("'hands' must be an object of seat -> list of cards")
    parsed: list[tuple[int, tuple[Card, ...]]] = []
    for key, cards in hands.items():
        # Keys are JSON's strings: a seat's own digits, "2"; not "²" (str.isdigit takes it)
        # nor "02", which would be a second key for the seat of "2".
        if not (isinstance(key, str) and key.isascii() and key.isdigit()
                and key == str(int(key))):
            raise EventError(f"'hands' key {key!r} must be a seat number such as \"2\"")
        seat = _seat({"seat": int(key)}, players)
        assert seat is not None
        if not isinstance(cards, list):
            raise EventError(f"'hands' of seat {seat} must be a list of cards")
        try:
            parsed.append((seat, tuple(Card.parse(c) for c in cards)))
        except CardError as error:
            raise EventError(f"'hands' of seat {seat}: {error}") from None
    return RoundEnd(t=t, hands=tuple(sorted(parsed)))


def _optional_time(data: dict[str, Any], name: str) -> float | None:
    return None if data.get(name) is None else parse_time(data, name)


def _parse_correct(data: dict[str, Any], t: float, players: int | None) -> Correction:
    card = _card(data) if data.get("card") is not None else None
    seat = _seat(data, players)
    if card is None and seat is None:
        raise EventError("a 'correct' event needs 'card' or 'seat' (or both)")
    return Correction(t=t, card=card, seat=seat, of_t=_optional_time(data, "of_t"))


def _parse_undo(data: dict[str, Any], t: float, players: int | None) -> Undo:
    return Undo(t=t, ruling_t=_optional_time(data, "ruling_t"))


def _parse_confirm(data: dict[str, Any], t: float, players: int | None) -> Confirm:
    return Confirm(t=t, ruling_t=_optional_time(data, "ruling_t"))


_PARSERS = {
    "card": _parse_card,
    "card_removed": _parse_card_removed,
    "knock": _parse_knock,
    "loud": _parse_loud,
    "draw": _parse_draw,
    "call": _parse_call,
    "color": _parse_color,
    "swap": _parse_swap,
    "round_end": _parse_round_end,
    "correct": _parse_correct,
    "undo": _parse_undo,
    "confirm": _parse_confirm,
}
