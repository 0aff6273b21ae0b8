"""A simulator of legal Bruno rounds, as the referee would observe them: the event log of a
round played by the rules (docs/RULES.md), deterministic from a seed.

    game = simulate_round(seed=7)            # 3-6 players, one round
    rulings = replay(game.setup.new_game(), game.events)   # a legal round: no penalty

It keeps its own account of the table (hands, turn, direction, colour, what each seat owes)
rather than asking the referee, so that a referee that rules a legal round wrong is caught.
Players play a matching card when they have one, insert identical cards (with a knock), play
pairs and runs of zeros (a knock each), draw and play or say "pass", say "Bruno" on their last
card and take three cards silently when they then cannot play, name a colour for most wilds,
take what draw cards make them owe, and call STOP when the draw pile runs out (and now and
then for no reason), then GO. Used by the robustness report (`python -m referee.robustness`)
and the property tests.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from referee.cards import COLORS, Card, Color, deck
from referee.eventlog import GameSetup
from referee.events import Call, CardPlayed, ColorNamed, Draw, Event, Knock, RoundEnd

MAX_TURNS = 400
"""A round that has not ended by then is ended there (the scores of the hands held)."""


@dataclass(frozen=True, slots=True)
class SimulatedRound:
    """One simulated round: the game line and the observations, in time order."""

    seed: int
    setup: GameSetup
    events: tuple[Event, ...]


@dataclass(slots=True)
class _Table:
    rng: random.Random
    players: int
    dealer: int
    hands: list[list[Card]] = field(default_factory=list)
    pile: list[Card] = field(default_factory=list)
    discard: list[Card] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    t: float = 0.0
    direction: int = 1
    color: Color | None = None
    """The colour to follow; None after a wild whose colour was not named (anything goes)."""
    owed: list[int] = field(default_factory=list)

    @property
    def top(self) -> Card:
        return self.discard[-1]

    def wait(self, low: float, high: float) -> float:
        self.t = round(self.t + self.rng.uniform(low, high), 3)
        return self.t

    def emit(self, event: Event) -> None:
        self.events.append(event)

    # --- the rules, as the table plays them ---------------------------------------------

    def legal(self, card: Card) -> bool:
        top = self.top
        if card.is_black or (self.color is None and top.is_black):
            return True
        return card.color == self.color or card.value == top.value

    def insertable(self, card: Card) -> bool:
        """B7/B8: identical to the top card, or a zero on a zero."""
        return card == self.top or (card.is_zero and self.top.is_zero)

    def after(self, seat: int, card: Card) -> int:
        """B3: the card's effect when `seat` plays it; returns the seat to play next."""
        n = self.players
        if card.value == "reverse":
            if n == 2:
                following = (seat + 2 * self.direction) % n
                return following
            self.direction = -self.direction
        following = (seat + self.direction) % n
        if card.skips_next:
            if card.draw_count:
                self.owed[following] += card.draw_count
            following = (following + self.direction) % n
        return following

    # --- actions --------------------------------------------------------------------------

    def take(self, seat: int) -> Card:
        """One card from the draw pile; when it runs out, STOP, reshuffle, GO (B11)."""
        if not self.pile:
            caller = self.rng.randrange(self.players)
            self.emit(Call(t=self.wait(0.3, 0.8), word="stop", seat=caller))
            self.pile = self.discard[:-1]
            self.discard = self.discard[-1:]
            self.rng.shuffle(self.pile)
            self.emit(Call(t=self.wait(3.0, 6.0), word="go", seat=caller))
            if not self.pile:  # every card is in a hand: nothing to take
                return None  # type: ignore[return-value]
        card = self.pile.pop()
        self.hands[seat].append(card)
        self.emit(Draw(t=self.wait(0.5, 1.2), seat=seat, count=1))
        return card

    def lay(self, seat: int, card: Card, gap: tuple[float, float]) -> None:
        """`seat` puts `card` on the pile, knocking when it must (B7, B8)."""
        needs_knock = card.is_zero or card == self.top
        self.hands[seat].remove(card)
        self.emit(CardPlayed(t=self.wait(*gap), card=card, seat=seat))
        self.discard.append(card)
        if needs_knock:
            self.emit(Knock(t=self.wait(0.1, 0.6)))
        if card.is_black:
            self.color = None
            if self.rng.random() < 0.85:
                held = [c.color for c in self.hands[seat] if c.color is not None]
                named = self.rng.choice(held) if held else self.rng.choice(COLORS)
                self.color = named
                self.emit(ColorNamed(t=self.wait(0.2, 0.5), color=named, seat=seat))
        else:
            self.color = card.color

    def play_turn(self, seat: int, first: Card) -> int:
        """`seat` plays `first`, then perhaps its twin (an instick on itself) or more zeros;
        returns the seat to play next."""
        self.lay(seat, first, (1.0, 2.5))
        following = self.after(seat, first)
        hand = self.hands[seat]
        while hand and self.rng.random() < 0.7:
            more = [c for c in hand if c == self.top or (c.is_zero and self.top.is_zero)]
            if not more:
                break
            card = self.rng.choice(more)
            self.lay(seat, card, (0.4, 0.9))
            following = self.after(seat, card)
        if len(hand) == 1 and self.rng.random() < 0.9:
            self.emit(Call(t=self.wait(0.2, 0.6), word="bruno", seat=seat))
        return following

    def jump_in(self, following: int) -> int:
        """Now and then another seat inserts the top card's twin (B7)."""
        if self.rng.random() > 0.3:
            return following
        for seat in self.rng.sample(range(self.players), self.players):
            twins = [c for c in self.hands[seat] if self.insertable(c)]
            if twins:
                self.lay(seat, self.rng.choice(twins), (0.3, 0.8))
                following = self.after(seat, self.top)
                if len(self.hands[seat]) == 1 and self.rng.random() < 0.9:
                    self.emit(Call(t=self.wait(0.2, 0.6), word="bruno", seat=seat))
                return following
        return following

    def pay_draws(self) -> None:
        """Seats that draw cards made owe take them now, one card at a time."""
        for seat in range(self.players):
            while self.owed[seat]:
                self.owed[seat] -= 1
                if self.take(seat) is None:
                    self.owed[seat] = 0

    def cannot_play(self, seat: int) -> int:
        """B6: one card, then play it or say "pass"; on Bruno, three cards silently."""
        following = (seat + self.direction) % self.players
        if len(self.hands[seat]) == 1:
            for _ in range(3):
                self.take(seat)
            return following
        card = self.take(seat)
        if card is not None and self.legal(card) and self.rng.random() < 0.8:
            return self.play_turn(seat, card)
        self.emit(Call(t=self.wait(0.4, 1.2), word="pass", seat=seat))
        return following

    def maybe_pause(self) -> None:
        if self.rng.random() < 0.02:
            caller = self.rng.randrange(self.players)
            self.emit(Call(t=self.wait(0.5, 1.5), word="stop", seat=caller))
            self.emit(Call(t=self.wait(2.0, 5.0), word="go", seat=caller))


def simulate_round(seed: int, players: int | None = None) -> SimulatedRound:
    """One legal round at 3-6 players (or `players`), dealt and played from `seed`."""
    rng = random.Random(seed)
    n = players if players is not None else rng.randint(3, 6)
    table = _Table(rng=rng, players=n, dealer=rng.randrange(n), owed=[0] * n)
    cards = deck()
    rng.shuffle(cards)
    table.hands = [[cards.pop() for _ in range(7)] for _ in range(n)]
    table.pile = cards
    first = table.pile.pop()
    table.discard.append(first)
    table.emit(CardPlayed(t=table.wait(1.0, 2.0), card=first, seat=table.dealer))
    table.color = first.color
    if first.value == "reverse":  # B1: the dealer plays first, the other way round
        table.direction = -1
        turn = table.dealer
    else:
        turn = table.after(table.dealer, first)
    table.pay_draws()
    for _ in range(MAX_TURNS):
        table.maybe_pause()
        hand = table.hands[turn]
        playable = [c for c in hand if table.legal(c)]
        turn = (table.play_turn(turn, rng.choice(playable)) if playable
                else table.cannot_play(turn))
        if any(not h for h in table.hands):
            break
        turn = table.jump_in(turn)
        table.pay_draws()
        if any(not h for h in table.hands):
            break
    hands = tuple((seat, tuple(hand)) for seat, hand in enumerate(table.hands))
    table.emit(RoundEnd(t=table.wait(2.0, 3.0), hands=hands))
    setup = GameSetup(players=n, dealer=table.dealer)
    return SimulatedRound(seed=seed, setup=setup, events=tuple(table.events))
