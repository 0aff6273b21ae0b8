"""How the referee copes with what sensors miss: simulated legal rounds, each with exactly one
observation removed or blurred, refereed side by side with the untouched round.

    python -m referee.robustness [--games 1000] [--seed 0]

For every kind of missed observation it prints the wrongful penalties per round (a legal
round deserves none; "check" counts those below `announce_min_confidence`, which a live table
is shown to confirm rather than told) and how many cards the referee takes to be back in step
(its turn, direction, top card and colour the same as on the untouched round, for good).
Standard library only, deterministic from the seed (docs/missed-observations.md has the table).
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from itertools import pairwise

from referee.cards import ALL_CARDS, Card
from referee.events import Call, CardPlayed, Draw, Event, Knock, Loud
from referee.game import Game
from referee.rules import RuleSet
from referee.rulings import Ruling
from referee.simulate import SimulatedRound, simulate_round

Perturbed = tuple[list[Event], float]
"""The events with one observation missing or blurred, and the moment it happened."""

Perturbation = Callable[[random.Random, Sequence[Event]], Perturbed | None]


def _remove(rng: random.Random, events: Sequence[Event],
            wanted: Callable[[Event], bool]) -> Perturbed | None:
    candidates = [i for i, e in enumerate(events) if wanted(e)]
    if not candidates:
        return None
    index = rng.choice(candidates)
    return [e for i, e in enumerate(events) if i != index], events[index].t


def _plays(events: Sequence[Event]) -> list[int]:
    """The indices of the cards played, the dealer's turned card (nobody's play) left out."""
    return [i for i, e in enumerate(events) if isinstance(e, CardPlayed)][1:]


def _change_card(rng: random.Random, events: Sequence[Event],
                 change: Callable[[CardPlayed], CardPlayed]) -> Perturbed | None:
    """Change one card, never the dealer's turned card (nobody's play)."""
    cards = _plays(events)
    if not cards:
        return None
    index = rng.choice(cards)
    changed = list(events)
    changed[index] = change(events[index])  # type: ignore[arg-type]
    return changed, events[index].t


def look_alike(rng: random.Random, card: Card) -> Card:
    """A card a blurred reading might take `card` for: same value in another colour, or the
    same colour and a value next to it."""
    if card.is_black:
        return Card(None, "wild_draw_4" if card.value == "wild" else "wild")
    near = [c for c in ALL_CARDS if c != card and not c.is_black
            and (c.value == card.value or (c.color == card.color and c.is_number
                 and card.is_number and abs(int(c.value) - int(card.value)) == 1))]
    return rng.choice(near)


def missed_draw(rng, events):
    return _remove(rng, events, lambda e: isinstance(e, Draw))


def missed_pass(rng, events):
    return _remove(rng, events, lambda e: isinstance(e, Call) and e.word == "pass")


def unseen_seat(rng, events):
    return _change_card(rng, events, lambda e: replace(e, seat=None))


def unsure_reading(rng, events):
    def blur(e: CardPlayed) -> CardPlayed:
        card = look_alike(rng, e.card) if rng.random() < 0.5 else e.card
        return replace(e, card=card, confidence=round(rng.uniform(0.1, 0.45), 3))
    return _change_card(rng, events, blur)


def missed_knock(rng, events):
    return _remove(rng, events, lambda e: isinstance(e, Knock))


def drowned_knock(rng, events):
    """A knock struck while the table was loud: not heard, but the microphone heard the room
    loud around it (a `loud` event), so the missed knock it leads to is unsure."""
    removed = missed_knock(rng, events)
    if removed is None:
        return None
    kept, t = removed
    loud = Loud(round(t - 0.4, 3), duration=1.0, level=15.0)
    return sorted([*kept, loud], key=Event.sort_key), t


def missed_draw_and_pass(rng, events):
    """Both signs of a seat that could not play: its draw and its "pass" (the camera cannot
    hear; the draw watcher misses about one draw in ten)."""
    passes = [i for i, e in enumerate(events) if isinstance(e, Call) and e.word == "pass"
              and i > 0 and isinstance(events[i - 1], Draw) and events[i - 1].seat == e.seat]
    if not passes:
        return None
    index = rng.choice(passes)
    return [e for i, e in enumerate(events) if i not in (index - 1, index)], events[index - 1].t


def wrong_seat(rng, events):
    """The camera sure of a seat that did not play the card: one of the seats seen playing
    (a table of two has no seat 2 to name)."""
    players = 1 + max(e.seat for e in events if isinstance(e, CardPlayed) and e.seat is not None)
    return _change_card(rng, events, lambda e: replace(
        e, seat=rng.choice([s for s in range(max(players, 2)) if s != e.seat])))


def misread(rng, events, confidence: tuple[float, float]):
    """A look-alike read within `confidence`, the right card as the camera's second guess
    (`alternatives`), as the recogniser gives them (at 0.5-0.7 judged on, but not announced
    on its own)."""
    return _change_card(rng, events, lambda e: replace(
        e, card=look_alike(rng, e.card), confidence=round(rng.uniform(*confidence), 3),
        alternatives=(e.card.token,)))


def phantom_card(rng, events, confidence: tuple[float, float]):
    """A card that was never played (a hand's shadow, a sleeve), read within `confidence`,
    from a seat, between two observations."""
    cards = [e for e in events if isinstance(e, CardPlayed)]
    if len(cards) < 3:
        return None
    index = rng.randrange(2, len(events))
    t = round((events[index - 1].t + events[index].t) / 2, 3)
    seats = [e.seat for e in cards if e.seat is not None]
    phantom = CardPlayed(t, card=rng.choice(ALL_CARDS), seat=rng.choice(seats),
                         confidence=round(rng.uniform(*confidence), 3))
    return sorted([*events, phantom], key=Event.sort_key), t


def read_again(rng, events):
    """A card on the pile read again as a new one 0.5-0.9 s after it landed (nudged, or
    uncovered by a passing arm), fairly surely (0.7-0.9), from the seat that laid it."""
    cards = _plays(events)
    if not cards:
        return None
    played = events[rng.choice(cards)]
    t = round(played.t + rng.uniform(0.5, 0.9), 3)
    again = replace(played, t=t, confidence=round(rng.uniform(0.7, 0.9), 3))
    return sorted([*events, again], key=Event.sort_key), t


TWIN_HIDES_S = 0.7
"""An instick laid this soon on its twin may hide it: the camera never saw the first card
without a hand over it (the webcam family's fast jump-ins, vision/TABLE.md)."""


def _twins(events: Sequence[Event]) -> list[tuple[int, int]]:
    """(index, index) of each card and the identical card laid on it within TWIN_HIDES_S."""
    return [(a, b) for a, b in pairwise(_plays(events))
            if events[a].card == events[b].card and events[b].t - events[a].t <= TWIN_HIDES_S]


def _one_of_twins(rng, events, which: int,
                  seen_as: Callable[[CardPlayed], CardPlayed] | None = None) -> Perturbed | None:
    """Twins laid at once (`_twins`), one of them (0: the first, 1: the instick) never
    seen, or seen as `seen_as` makes it."""
    pairs = _twins(events)
    if not pairs:
        return None
    chosen = rng.choice(pairs)[which]
    if seen_as is None:
        return [e for i, e in enumerate(events) if i != chosen], events[chosen].t
    return [seen_as(e) if i == chosen else e for i, e in enumerate(events)], events[chosen].t


def hidden_under_twin(rng, events):
    """A card the instick laid on it at once hid from the camera: only the instick is seen."""
    return _one_of_twins(rng, events, 0)


def hidden_written_unsure(rng, events):
    """A card the instick laid on it at once hid, written by the table watcher from the hand
    that stopped there, as its twin and unsure (0.4, under the referee's bar: vision/TABLE.md,
    "How it decides")."""
    return _one_of_twins(rng, events, 0, lambda e: replace(e, confidence=0.4))


def unseen_jump_in(rng, events):
    """An instick laid at once on its twin, never seen apart from it: only the first card is
    seen (its knock is heard)."""
    return _one_of_twins(rng, events, 1)


def late_card(rng, events):
    """A card stamped 0.5-1.5 s after it came to rest (a hand that stayed over it)."""
    cards = _plays(events)
    if not cards:
        return None
    index = rng.choice(cards)
    late = replace(events[index], t=round(events[index].t + rng.uniform(0.5, 1.5), 3))
    kept = [e for i, e in enumerate(events) if i != index]
    return sorted([*kept, late], key=Event.sort_key), events[index].t


PERTURBATIONS: dict[str, Perturbation] = {
    "a draw": missed_draw,
    "a pass call": missed_pass,
    "a card's seat (null)": unseen_seat,
    "a card read unsure": unsure_reading,
    "a knock": missed_knock,
    "a knock, the room loud": drowned_knock,
    "a draw and its pass": missed_draw_and_pass,
    "wrong: a card's seat, sure": wrong_seat,
    "wrong: a look-alike at 0.7-0.95, the card its second guess":
        partial(misread, confidence=(0.7, 0.95)),
    "wrong: a look-alike at 0.5-0.7": partial(misread, confidence=(0.5, 0.7)),
    "wrong: a phantom card at 0.5-0.7": partial(phantom_card, confidence=(0.5, 0.7)),
    "wrong: a phantom card at 0.7-0.9": partial(phantom_card, confidence=(0.7, 0.9)),
    "wrong: the top card read again, 0.7-0.9": read_again,
    "wrong: a card stamped 0.5-1.5 s late": late_card,
    "a card its instick hid at once": hidden_under_twin,
    "a card its instick hid at once, written unsure": hidden_written_unsure,
    "an instick laid at once on its twin": unseen_jump_in,
}
"""What is removed, blurred or got wrong, by name (the draw and its pass are two observations
of one missed turn)."""

StateAtCard = dict[float, tuple]


def referee_round(setup_game: Game, events: Sequence[Event]) -> tuple[list[Ruling], StateAtCard]:
    """The penalties a round gets (as `replay` gives them: the events are in time order) and
    what the referee believes after each card: turn, direction, top card, colour."""
    game = setup_game
    penalties: list[Ruling] = []
    states: StateAtCard = {}
    for event in events:
        penalties += [r for r in game.observe(event) if r.is_penalty]
        if isinstance(event, CardPlayed):
            s = game.state
            states[event.t] = (s.turn, s.direction, s.top, s.active_color)
    if events:
        end = events[-1].t + game.rules.knock_after_s
        penalties += [r for r in game.advance(end) if r.is_penalty]
    return penalties, states


def cards_to_step(truth: StateAtCard, seen: StateAtCard, since: float) -> int:
    """How many cards after the perturbation at `since` the referee needs until its belief
    matches the untouched round's for good: 0 when it never left step, 1 when the next card
    put it right, 2 when the one after, and so on. (A card changed at `since` is the
    perturbation itself, not one of the cards counted.)"""
    after = sorted(t for t in truth if t > since)
    apart = [index for index, t in enumerate(after) if seen.get(t) != truth[t]]
    if apart:
        return apart[-1] + 2
    return 1 if since in truth and seen.get(since) != truth[since] else 0


@dataclass(slots=True)
class KindResult:
    """Totals over the rounds one kind of perturbation applied to."""

    rounds: int = 0
    penalties: int = 0
    unsure: int = 0
    """Penalties below `announce_min_confidence`: shown to the table as "check"."""
    worst_round: int = 0
    worst_sure_round: int = 0
    steps_total: int = 0
    worst_steps: int = 0
    cascades: int = 0
    """Rounds with two or more penalties said aloud: one error, a string of wrongful ones."""

    def add(self, penalties: list[Ruling], steps: int, bar: float) -> None:
        sure = [p for p in penalties if (p.confidence or 1.0) >= bar]
        self.cascades += len(sure) >= 2
        self.rounds += 1
        self.penalties += len(penalties)
        self.unsure += len(penalties) - len(sure)
        self.worst_round = max(self.worst_round, len(penalties))
        self.worst_sure_round = max(self.worst_sure_round, len(sure))
        self.steps_total += steps
        self.worst_steps = max(self.worst_steps, steps)


def measure(games: int, seed: int = 0, rules: RuleSet | None = None
            ) -> tuple[KindResult, dict[str, KindResult]]:
    """Referee `games` simulated rounds untouched and once per kind of perturbation."""
    rules = rules or RuleSet()
    bar = rules.announce_min_confidence
    untouched = KindResult()
    kinds = {name: KindResult() for name in PERTURBATIONS}
    for number in range(games):
        simulated: SimulatedRound = simulate_round(seed * 1_000_003 + number)
        setup = simulated.setup
        variant = type(setup.new_game())
        fresh = partial(variant, setup.players, setup.dealer, rules)
        truth_penalties, truth = referee_round(fresh(), simulated.events)
        untouched.add(truth_penalties, 0, bar)
        for name, perturb in PERTURBATIONS.items():
            rng = random.Random(f"{seed}/{number}/{name}")
            perturbed = perturb(rng, simulated.events)
            if perturbed is None:
                continue
            events, since = perturbed
            penalties, seen = referee_round(fresh(), events)
            kinds[name].add(penalties, cards_to_step(truth, seen, since), bar)
    return untouched, kinds


def table(untouched: KindResult, kinds: dict[str, KindResult], games: int) -> str:
    """The report as a Markdown table."""
    lines = [
        f"{games} simulated legal rounds (3-6 players), one observation removed or blurred "
        "per round:",
        "",
        "| missed | rounds | wrongful penalties / round | of them \"check\" | most in a round "
        "(said aloud) | rounds with 2+ said aloud | cards to be back in step: mean | most |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]

    def row(name: str, r: KindResult) -> str:
        n = max(1, r.rounds)
        return (f"| {name} | {r.rounds} | {r.penalties / n:.3f} | {r.unsure / n:.3f} | "
                f"{r.worst_round} ({r.worst_sure_round}) | {100 * r.cascades / n:.1f} % | "
                f"{r.steps_total / n:.2f} | {r.worst_steps} |")

    lines.append(row("nothing", untouched))
    lines += [row(name, result) for name, result in kinds.items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m referee.robustness",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="rounds to simulate")
    parser.add_argument("--seed", type=int, default=0, help="which rounds (deterministic)")
    args = parser.parse_args(argv)
    untouched, kinds = measure(args.games, args.seed)
    print(table(untouched, kinds, args.games))


if __name__ == "__main__":
    main()
