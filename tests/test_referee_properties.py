"""Property tests: for arbitrary valid event streams the referee never raises, is deterministic,
and gives the same rulings whether fed whole, one by one with the clock advancing in between,
or slightly out of order; for every game it knows (`referee.variants.VARIANTS`)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.cards import ALL_TOKENS, COLORS
from referee.eventlog import GameSetup
from referee.events import CALL_WORDS, Event, parse_event
from referee.session import Session, replay
from referee.variants import VARIANTS

REORDER_S = 0.5


@st.composite
def games(draw) -> tuple[GameSetup, list[Event]]:
    players = draw(st.integers(2, 10))
    helsinki = draw(st.booleans())  # DrukUNO's rule sets (Warszawa only with Helsinki)
    setup = GameSetup(
        variant=draw(st.sampled_from([variant.name for variant in VARIANTS])),
        players=players,
        dealer=draw(st.integers(0, players - 1)),
        settings={"seg_after_s": draw(st.sampled_from([None, 2.0, 5.0, 8.0])),
                  "helsinki": helsinki, "warszawa": helsinki and draw(st.booleans())},
    )
    seats = st.one_of(st.none(), st.integers(0, players - 1))
    steps = draw(st.lists(st.sampled_from([0.0, 0.05, 0.1, 0.3, 0.7, 1.5, 4.0]),
                          min_size=1, max_size=50))
    events: list[Event] = []
    t = 0.0
    for step in steps:
        t = round(t + step, 3)
        kind = draw(st.sampled_from(
            ["card"] * 6 + ["knock"] * 3 + ["draw", "call", "color", "card_removed", "round_end",
                                            "swap", "same_value"]))
        if kind == "same_value" and events and events[-1].kind == "card":
            # One more card of the same number or symbol from the same seat, as a multi-card
            # play (DrukUNO) or a second card (everywhere else) would be.
            last = events[-1]
            twins = [token for token in ALL_TOKENS if token.endswith("_" + last.card.value)]
            kind, data = "card", {"card": draw(st.sampled_from(twins or [last.card.token])),
                                  "seat": last.seat}
        elif kind in ("card", "same_value"):
            kind = "card"
            data = {"card": draw(st.sampled_from(ALL_TOKENS)), "seat": draw(seats)}
            if draw(st.booleans()):
                data["confidence"] = draw(st.floats(0, 1))
        elif kind == "knock":
            data = {}
        elif kind == "draw":
            data = {"seat": draw(seats), "count": draw(st.integers(1, 4))}
        elif kind == "call":
            data = {"seat": draw(seats), "word": draw(st.sampled_from(CALL_WORDS))}
        elif kind == "color":
            data = {"color": draw(st.sampled_from(COLORS)).value}
        elif kind == "swap":
            seat = draw(st.integers(0, players - 1))
            data = {"seat": seat, "with": (seat + draw(st.integers(1, players - 1))) % players}
        elif kind == "card_removed":
            data = {"card": draw(st.sampled_from(ALL_TOKENS))}
        else:
            data = {"hands": {str(s): draw(st.lists(st.sampled_from(ALL_TOKENS), max_size=3))
                              for s in range(players) if draw(st.booleans())}}
        events.append(parse_event({"t": t, "kind": kind, **data}, players))
    return setup, events


def as_dicts(rulings) -> list[dict]:
    return [r.to_dict() for r in rulings]


def jittered(events: list[Event], seed: int) -> list[Event]:
    """An arrival order in which each event is late by less than the reorder window."""
    rng = random.Random(seed)
    return sorted(events, key=lambda e: e.t + rng.uniform(0, REORDER_S * 0.98))


fast = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@fast
@given(games())
def test_the_referee_never_raises_and_rules_in_time_order(game):
    setup, events = game
    rulings = replay(setup.new_game(), events)
    times = [r.t for r in rulings]
    assert times == sorted(times)
    for ruling in rulings:
        assert ruling.kind in ("ruling", "info")
        if ruling.kind == "ruling":
            # The game's penalty, or two cards for going out on a black card (Snabb-UNO Q7).
            assert ruling.penalty in (setup.rules().penalty_cards, 2)
            assert ruling.ref and ruling.message


@fast
@given(games())
def test_replay_is_deterministic(game):
    setup, events = game
    assert as_dicts(replay(setup.new_game(), events)) == as_dicts(
        replay(setup.new_game(), events))


@fast
@given(games(), st.integers(0, 1000))
def test_feeding_events_one_by_one_with_the_clock_advancing_gives_the_same_rulings(game, seed):
    setup, events = game
    whole = as_dicts(replay(setup.new_game(), events))
    session = Session(setup.new_game(), reorder_window_s=REORDER_S)
    streamed = []
    now = 0.0
    for event in jittered(events, seed):
        streamed += session.feed(event)
        now = max(now, event.t)
        streamed += session.advance(now)
    streamed += session.finish()
    assert as_dicts(streamed) == whole


@fast
@given(games(), st.integers(0, 1000))
def test_events_out_of_order_within_half_a_second_give_the_same_rulings(game, seed):
    setup, events = game
    assert as_dicts(replay(setup.new_game(), jittered(events, seed))) == as_dicts(
        replay(setup.new_game(), events))
