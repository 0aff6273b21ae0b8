"""Standard UNO (docs/rules/uno.md): the base of the other house games that are not Bruno.
Its own module so that DrukUNO (`referee.druk`) can build on it while `referee.variants` lists
every game."""

from __future__ import annotations

from typing import ClassVar

from referee.cards import Card
from referee.events import Call, CardPlayed, Draw, Event
from referee.game import Game
from referee.rule_texts import UNO_RULE_TEXTS
from referee.rules import RuleSet
from referee.rulings import Ruling
from referee.words import SpokenWords, Words

DEAL = 7
"""U1, D1: cards dealt to each player; the referee counts the hands from here (U5, D12)."""

UNO_BEFORE_CARD_S = 1.0
"""A "UNO" heard up to this long before the card that leaves one card counts for it: players
say it while the card is still in the air."""

UNO_WORDS = Words(
    game="Standard UNO", jump_in="jump-in", jumped_in="jumped in", slow_call=None,
    knock_rules=None,
    spoken={"en": SpokenWords(jump_in="Jump-in.", too_slow="Too slow"),
            "sv": SpokenWords(jump_in="Inflikning.", too_slow="För långsam")},
)
"""Standard UNO's words, also those of the games built on it (their own name aside). The
Swedish "inflikning" is Snabb-UNO's own word (to "flika in", /work/shared/seeds/003)."""


class StandardUno(Game):
    """Standard UNO (docs/rules/uno.md): no jump-ins and no knocks, "UNO" is the right call,
    the round's winner scores the others' hands and the highest total wins the match.

    To rule a forgotten "UNO" (U5) it keeps `hand_counts`: seat -> cards the referee believes
    are in that hand this round, or None where it has lost count (an unseen card or draw) or
    between rounds."""

    name: ClassVar[str] = "uno"
    aliases: ClassVar[tuple[str, ...]] = ("UNO", "standard")
    default_rules: ClassVar[RuleSet] = RuleSet(target_score=500)
    rule_refs: ClassVar[dict[str, str]] = {"B2": "U2", "P2": "U3", "B4": "U3", "P3": "U6"}
    highest_total_wins: ClassVar[bool] = True
    bruno_call: ClassVar[bool] = False
    words: ClassVar[Words] = UNO_WORDS
    rule_texts: ClassVar[dict[str, str]] = UNO_RULE_TEXTS
    uno_call_ref: ClassVar[str | None] = "U5"
    """The rule a forgotten "UNO" breaks (`wrong_call`), or None where the game does not rule
    it (Snabb-UNO: its hands grow by the round; Flaske UNO rules nothing)."""

    def __init__(self, players: int, dealer: int = 0, rules: RuleSet | None = None) -> None:
        super().__init__(players, dealer, rules)
        self.hand_counts: list[int | None] = [None] * players
        self._uno_due: dict[int, float] = {}
        """Seats down to one card that have not said "UNO" yet: when they got there."""
        self._uno_heard: dict[int | None, float] = {}
        """When each seat (None: an unseen one) last said "UNO"."""

    def is_instick(self, card: Card) -> bool:
        """U3: no jump-ins; an identical card out of turn is a card out of turn."""
        return False

    def knock_ref(self, card: Card, instick: bool) -> str | None:
        """U4: nothing needs a knock."""
        return None

    def after_draw(self, seat: int, count: int, debts_paid: int, free_cards: int, t: float,
                   out: list[Ruling]) -> None:
        """U4: a player who drew may play what it drew at once; its turn ends when it plays,
        says "pass" or the next seat acts (the implied pass), never after a count of cards
        (Bruno's silent draw, B6, is not this game's)."""

    def second_card_rule(self, seat: int, card: Card) -> tuple[str, str]:
        """U3: any second card from the seat that just played is out of turn."""
        return "out_of_turn", "B4"

    def wrong_word(self, seat: int | None, word: str) -> str | None:
        """U5: "UNO" is this game's own call; no word is a wrong one."""
        return None

    def round_points(self, hands: dict[int, tuple[Card, ...]], winner: int | None
                     ) -> dict[int, int]:
        """U7: the winner scores every card left in the other hands; everyone else 0."""
        points = {seat: 0 for seat in range(self.players)}
        if winner is not None:
            points[winner] = sum(card.points for cards in hands.values() for card in cards)
        return points

    # --- the hands and the UNO call (U5) ------------------------------------------------------

    def notice(self, event: Event, out: list[Ruling]) -> None:
        """Follow the hands from every card and draw, and hear "UNO" (U5)."""
        if self.uno_call_ref is None:
            return
        if isinstance(event, CardPlayed):
            self._count_card(event, out)
        elif isinstance(event, Draw):
            self._count_draw(event, out)
        elif isinstance(event, Call) and event.word == "uno":
            self._uno_heard[event.seat] = event.t
            if event.seat is None:
                self._uno_due.clear()  # someone said it: nobody is ruled on a guess
            else:
                self._uno_due.pop(event.seat, None)

    def _count_card(self, event: CardPlayed, out: list[Ruling]) -> None:
        t, seat = event.t, event.seat
        if not self.state.in_round:  # the dealer's turned card: a new deal
            self.hand_counts = [DEAL] * self.players
            self._uno_due.clear()
            return
        if seat is None:
            # Whose card it was is a guess: that seat's count (or, for a zero that moved
            # every hand, all of them) is lost until the next deal.
            turn = self.state.turn
            if turn is None or (event.card.is_zero and self.rules.helsinki):
                self.hand_counts = [None] * self.players
            else:
                self.hand_counts[turn] = None
            return
        for due in [due for due in self._uno_due if due != seat]:
            self._forgot_uno(due, t, out)  # the turn went on before they said it
        count = self.hand_counts[seat]
        if count is None:
            return
        count = count - 1 if count > 0 else None  # (below none: a draw went unseen)
        self.hand_counts[seat] = count
        if count == 1 and not self._heard_uno(seat, t):
            self._uno_due[seat] = t
        elif count == 0 and seat in self._uno_due:
            self._forgot_uno(seat, t, out)  # the last card went down without "UNO" before it

    def _count_draw(self, event: Draw, out: list[Ruling]) -> None:
        s, seat = self.state, event.seat
        if not s.in_round:
            return
        if seat is None:
            self.hand_counts = [None] * self.players
            return
        if seat == s.turn:
            for due in [due for due in self._uno_due if due != seat]:
                self._forgot_uno(due, event.t, out)
        self._uno_due.pop(seat, None)  # it holds more than one card again
        count = self.hand_counts[seat]
        if count is not None:
            self.hand_counts[seat] = count + event.count

    def on_taken_back(self, seat: int | None, card: Card) -> None:
        """The card is back in its player's hand."""
        if seat is not None and self.hand_counts[seat] is not None:
            self.hand_counts[seat] += 1
            self._forget_calls_not_due()

    def _heard_uno(self, seat: int, t: float) -> bool:
        return any(t - self._uno_heard.get(who, float("-inf")) <= UNO_BEFORE_CARD_S
                   for who in (seat, None))

    def _forget_calls_not_due(self) -> None:
        """After hands changed: only a seat still holding one card owes its call. (One that
        got a single card from another hand is not ruled: D12 decision.)"""
        self._uno_due = {seat: since for seat, since in self._uno_due.items()
                         if self.hand_counts[seat] == 1}

    def _forgot_uno(self, seat: int, t: float, out: list[Ruling]) -> None:
        del self._uno_due[seat]
        assert self.uno_call_ref is not None
        self._penalise(t, "wrong_call", seat, None, self.uno_call_ref,
                       f'Seat {seat} did not say "UNO" with one card left', out)

    def close_round(self, hands: dict[int, tuple[Card, ...]], winner: int | None, t: float,
                    out: list[Ruling]) -> None:
        """The hands are counted again from the next deal."""
        self.hand_counts = [None] * self.players
        self._uno_due.clear()
