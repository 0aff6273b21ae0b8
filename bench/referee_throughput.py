"""Referee throughput: events per second on a long generated game, on one core.

    python -m bench.referee_throughput [--events 200000] [--players 6]

The game is generated, not random noise: mostly legal plays by the right seat, insticks with
their knocks, zeros, draws, a few errors, STOP/GO pauses and round ends, quick second cards of
the same value (DrukUNO's multi-card plays) and Warszawa swaps, so every code path of the
referee is exercised in realistic proportions. Every game the referee knows (DrukUNO with
Helsinki and Warszawa on) is timed on the same events; for each it reports events/s and the
ratio to the target of 50,000 events/s.
"""

from __future__ import annotations

import argparse
import random
import time

from referee.cards import ALL_CARDS, Card
from referee.eventlog import GameSetup
from referee.events import Call, CardPlayed, Draw, Event, Knock, RoundEnd, Swap
from referee.game import Game
from referee.session import replay
from referee.variants import VARIANTS

TARGET_EVENTS_PER_S = 50_000

VARIANT_SETTINGS: dict[str, dict[str, object]] = {"druk": {"helsinki": True, "warszawa": True}}
"""Settings a game is benchmarked with beyond SEG: DrukUNO with all its rule sets on, so
that its zeros move hands and its swaps count."""


def generate_game(n_events: int, players: int, seed: int = 1) -> list[Event]:
    """A long plausible game. A shadow referee tells the generator whose turn it is, so plays
    come mostly from the right seat, as at a real table."""
    rng = random.Random(seed)
    events: list[Event] = []
    t = 0.0
    shadow = Game(players, 0)

    def emit(event: Event) -> None:
        events.append(event)
        shadow.observe(event)

    def matching(top: Card | None) -> Card:
        candidates = [c for c in ALL_CARDS if top is None or c.is_black or c.color == top.color
                      or c.value == top.value]
        return rng.choice(candidates)

    while len(events) < n_events:
        t += rng.uniform(0.3, 2.5)
        turn = shadow.state.turn if shadow.state.turn is not None else rng.randrange(players)
        top = shadow.state.top
        roll = rng.random()
        if top is None or roll < 0.70:
            card = matching(top)
            needs_knock = card.is_zero or shadow.is_instick(card)
            seat = turn if rng.random() > 0.05 else None
            emit(CardPlayed(t=t, card=card, seat=seat))
            if needs_knock or rng.random() < 0.02:
                t += rng.uniform(0.0, 1.2)
                emit(Knock(t=t))
            if not card.is_black and rng.random() < 0.05:
                # The same number or symbol again from the same seat, quickly: a DrukUNO
                # multi-card play (a second card in the other games).
                t += rng.uniform(0.2, 1.5)
                same = [c for c in ALL_CARDS if c.value == card.value]
                emit(CardPlayed(t=t, card=rng.choice(same), seat=seat))
            if card.value == "7" and seat is not None and rng.random() < 0.5:
                t += rng.uniform(0.5, 2.0)  # a Warszawa swap, entered from the dashboard
                emit(Swap(t=t, seat=seat, with_seat=(seat + rng.randrange(1, players)) % players))
        elif roll < 0.80:
            jumper = rng.randrange(players)
            emit(CardPlayed(t=t, card=top, seat=jumper))
            if rng.random() < 0.9:
                t += rng.uniform(0.0, 1.2)
                emit(Knock(t=t))
        elif roll < 0.88:
            emit(Draw(t=t, seat=turn, count=1))
            t += 0.5
            emit(Call(t=t, word="pass", seat=turn))
        elif roll < 0.95:
            emit(CardPlayed(t=t, card=rng.choice(ALL_CARDS), seat=rng.randrange(players)))
        elif roll < 0.99:
            emit(Call(t=t, word="stop", seat=0))
            t += rng.uniform(5, 20)
            emit(Call(t=t, word="go", seat=0))
        else:
            hands = tuple((s, tuple(rng.sample(ALL_CARDS, rng.randint(0, 5))))
                          for s in range(players))
            emit(RoundEnd(t=t, hands=hands))
    events.sort(key=Event.sort_key)
    return events[:n_events]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    events = generate_game(args.events, args.players)
    for variant in VARIANTS:  # every game the referee knows, on the same events
        setup = GameSetup(variant=variant.name, players=args.players, dealer=0,
                          settings={"seg_after_s": 8, **VARIANT_SETTINGS.get(variant.name, {})})
        # CPU time of this process, not wall time: the referee runs on one core, and a machine
        # busy with other work must not make it look slower than it is. Wall time is shown too.
        best_cpu = best_wall = float("inf")
        for _ in range(args.repeats):
            cpu, wall = time.process_time(), time.perf_counter()
            rulings = replay(setup.new_game(), events)
            best_cpu = min(best_cpu, time.process_time() - cpu)
            best_wall = min(best_wall, time.perf_counter() - wall)
        rate = len(events) / best_cpu
        penalties = sum(r.is_penalty for r in rulings)
        print(f"referee throughput, {variant.name}: {len(events):,} events, {len(rulings):,} "
              f"rulings ({penalties:,} penalties), best of {args.repeats}: {best_cpu:.2f} s CPU "
              f"({best_wall:.2f} s wall)")
        print(f"  {rate:,.0f} events/s on one core = {rate / TARGET_EVENTS_PER_S:.2f} x the "
              f"target of {TARGET_EVENTS_PER_S:,} events/s")

if __name__ == "__main__":
    main()
