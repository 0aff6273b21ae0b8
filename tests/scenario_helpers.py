"""Small builders for refereeing scenarios written as event logs."""

from __future__ import annotations

from typing import Any

from referee.eventlog import GameSetup
from referee.events import parse_event
from referee.session import replay


def card(t: float, token: str, seat: int | None, **extra: Any) -> dict[str, Any]:
    return {"t": t, "kind": "card", "card": token, "seat": seat, **extra}


def knock(t: float) -> dict[str, Any]:
    return {"t": t, "kind": "knock"}


def draw(t: float, seat: int | None, count: int = 1) -> dict[str, Any]:
    return {"t": t, "kind": "draw", "seat": seat, "count": count}


def call(t: float, word: str, seat: int | None = None) -> dict[str, Any]:
    return {"t": t, "kind": "call", "seat": seat, "word": word}


def color(t: float, letter: str, seat: int | None = None) -> dict[str, Any]:
    named = {"t": t, "kind": "color", "color": letter}
    return named if seat is None else {**named, "seat": seat}


def removed(t: float, token: str) -> dict[str, Any]:
    return {"t": t, "kind": "card_removed", "card": token}


def round_end(t: float, hands: dict[int, list[str]]) -> dict[str, Any]:
    return {"t": t, "kind": "round_end", "hands": {str(k): v for k, v in hands.items()}}


def referee(*events: dict[str, Any], players: int = 4, dealer: int = 0,
            variant: str = "bruno", **settings: Any) -> list[dict[str, Any]]:
    """Replay the events at a table of `variant` and return the rulings as JSON dicts."""
    setup = GameSetup(variant=variant, players=players, dealer=dealer, settings=settings)
    setup.validate()
    parsed = [parse_event(e, players) for e in events]
    return [r.to_dict() for r in replay(setup.new_game(), parsed)]


def penalties(rulings: list[dict[str, Any]]) -> list[tuple[str, int | None]]:
    return [(r["rule"], r["seat"]) for r in rulings if r["kind"] == "ruling"]


def infos(rulings: list[dict[str, Any]], rule: str) -> list[dict[str, Any]]:
    return [r for r in rulings if r["kind"] == "info" and r["rule"] == rule]


def turns(rulings: list[dict[str, Any]]) -> list[int]:
    """The seats whose turn began, in order."""
    return [r["seat"] for r in infos(rulings, "turn")]


def last_turn(rulings: list[dict[str, Any]]) -> int:
    return turns(rulings)[-1]


# --- simulated rounds (referee.simulate) ----------------------------------------------------

def simulated_round(seed: int, players: int | None = None):
    """A legal round of Bruno as the referee observes it (deterministic from `seed`)."""
    from referee.simulate import simulate_round

    return simulate_round(seed, players)


def replay_round(setup, events, **settings: Any) -> list[dict[str, Any]]:
    """The rulings a simulated round's events give (settings override the rule set)."""
    game = setup.with_overrides(settings=settings).new_game() if settings else setup.new_game()
    return [r.to_dict() for r in replay(game, events)]
