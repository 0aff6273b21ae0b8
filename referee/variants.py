"""The games this referee knows, found by name. Bruno is the base (`referee.game.Game`);
another house game is a small subclass of it that overrides a few rule hooks and defaults, added
to `VARIANTS` here without touching Bruno's code. Each game's rules are a page in docs/rules/;
the class also declares the game's words (`words`: its name, its jump-in, in English and
Swedish) and the report's summary of each of its rules (`rule_texts`), which everything that
shows or says a ruling takes from it.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from referee.cards import Card
from referee.druk import DrukUno
from referee.game import Game
from referee.rule_texts import FLASKE_RULE_TEXTS, SNABB_RULE_TEXTS
from referee.rules import RuleSet
from referee.rulings import info
from referee.uno import UNO_WORDS, StandardUno
from referee.words import Words


class SnabbUno(StandardUno):
    """Snabb-UNO (docs/rules/snabb.md): anyone may jump in with the top card's exact twin at
    any moment; a jump-in is the jumper's play and turns the direction round. One penalty card
    for a card out of turn; a round won adds a card to the next start; the match goes to whoever
    goes out in a round started with seven cards."""

    name: ClassVar[str] = "snabb"
    aliases: ClassVar[tuple[str, ...]] = ("Snabb-UNO", "snabb-uno")
    default_rules: ClassVar[RuleSet] = RuleSet(penalty_cards=1, target_score=6)
    rule_refs: ClassVar[dict[str, str]] = {"B2": "Q2", "P2": "Q4", "B4": "Q4", "P3": "Q4"}
    words: ClassVar[Words] = dataclasses.replace(UNO_WORDS, game="Snabb-UNO")
    rule_texts: ClassVar[dict[str, str]] = SNABB_RULE_TEXTS
    uno_call_ref: ClassVar[str | None] = None  # "UNO" is said, not ruled (snabb.md)
    scores_explained: ClassVar[str] = ("1 for a round won, with the rounds won in brackets; "
                                       "going out of a round started with 7 cards wins the "
                                       "match (Q8).")

    def is_instick(self, card: Card) -> bool:
        """Q3: the exact twin of the top card, never a black card."""
        return not card.is_black and card == self.state.top

    def on_instick(self, seat: int, card: Card) -> None:
        """Q3: the jump-in turns the direction round, from the jumper's seat. On a draw card
        meant for the jumper, the cards go back: the jumper owes nothing (Q5)."""
        if card.draw_count:
            owed = self.state.owed_draws
            owed[seat] = max(0, owed[seat] - card.draw_count)
        self.state.direction = -self.state.direction

    def apply_first_card(self, card: Card, t: float, out: list) -> None:
        """Q1 (decision): a black card turned up goes back into the deck; the round starts
        with the next card turned, which the camera sees next."""
        if card.is_black:
            self.state.in_round = False
            return
        super().apply_first_card(card, t, out)

    def on_unseen_instick(self, card: Card) -> None:
        """Q3: a jump-in turns the direction round, whoever jumped in; the next card tells
        whose turn it is."""
        self.state.direction = -self.state.direction

    def apply_effect(self, seat: int, card: Card, t: float, out: list) -> None:
        """Q6: two identical black cards straight on each other turn the direction too."""
        if card.is_black and self.card_beneath == card:
            self.state.direction = -self.state.direction
        super().apply_effect(seat, card, t, out)

    def _out_on_black(self, winner: int | None) -> bool:
        top = self.state.top
        return winner is not None and top is not None and top.is_black \
            and self.state.top_seat == winner

    def judge_going_out(self, winner: int | None, t: float, out: list) -> None:
        """Q7: nobody goes out on a black card; who does takes two cards."""
        top = self.state.top
        if self._out_on_black(winner):
            self._penalise(t, "illegal_card", winner, top, "Q7",
                           f"Seat {winner} went out on the {top.name}, a black card", out,
                           cards=2)

    def round_over_message(self, winner: int | None) -> str:
        """Q1, Q8: the winner started this round with two cards and one more for every round
        it won before, and starts the next with one more."""
        if winner is None:
            return super().round_over_message(winner)
        if self._out_on_black(winner):
            return (f"Round over: seat {winner} went out on a black card, which does not win "
                    "the round (Q7).")
        won = self.scoreboard.totals[winner]  # this round included
        return (f"Round over: seat {winner} went out of a round started with "
                f"{won + 1} cards; it starts the next with {won + 2}.")

    def match_over_message(self, leaders: list[int], total: int) -> str:
        """Q8: the match is won by going out of a round started with seven cards."""
        if len(leaders) != 1:
            return super().match_over_message(leaders, total)
        return (f"Match over: seat {leaders[0]} went out of a round started with "
                f"{total + 1} cards and wins ({total} rounds won).")

    def score_message(self, seat: int, points: int, total: int) -> str:
        """Q8: the score is rounds won."""
        won = f"{total} round{'' if total == 1 else 's'} won"
        return f"Seat {seat} {'won this round' if points else 'did not win this round'} " \
               f"({won})."

    def round_points(self, hands: dict[int, tuple[Card, ...]], winner: int | None
                     ) -> dict[int, int]:
        """Q8: a round won counts one (the winner starts the next round with a card more);
        Q7: going out on a black card wins nothing (its player takes two cards instead)."""
        points = {seat: 0 for seat in range(self.players)}
        if winner is not None and not self._out_on_black(winner):
            points[winner] = 1
        return points


_NUMBER_WORDS = ("", "one sip", "two sips", "three sips", "four sips", "five sips")

_FLASKE_GAMES = {
    "0": "category: seat {s} names one, and round the table each names something in it; "
         "who cannot, drinks",
    "6": "waterfall: everyone drinks, seat {s} first, and nobody stops before the one before",
    "7": "pee card for seat {s}: one trip from the table, whenever",
    "8": "seat {s} makes a rule",
    "9": "finger on the bottle: the last to lift it drinks, seat {s} counts",
}


class FlaskeUno(StandardUno):
    """Flaske UNO (docs/rules/flaske.md): standard UNO's turns, no penalties; every card
    played is announced with what it means at the bottle."""

    name: ClassVar[str] = "flaske"
    aliases: ClassVar[tuple[str, ...]] = ("Flaske UNO", "flaske-uno")
    gives_penalties: ClassVar[bool] = False
    words: ClassVar[Words] = dataclasses.replace(UNO_WORDS, game="Flaske UNO",
                                                 announced=("flaske",), spoken={
        **UNO_WORDS.spoken,
        "en": dataclasses.replace(UNO_WORDS.spoken["en"], says_message=("flaske",))})
    """Every card's announcement is said aloud at an English table: it is the game."""
    rule_texts: ClassVar[dict[str, str]] = FLASKE_RULE_TEXTS
    uno_call_ref: ClassVar[str | None] = None  # nothing is ruled

    def announce_card(self, seat: int | None, card: Card, t: float, out: list) -> None:
        """F2-F5: the card's rule, said as it lands."""
        who = "someone" if seat is None else f"seat {seat}"
        left = None if seat is None else (seat + 1) % self.players
        right = None if seat is None else (seat - 1) % self.players

        def say(message: str, drinker: int | None = seat, count: int | None = None) -> None:
            out.append(info(t, "flaske", drinker, f"{card.name.capitalize()}: {message}.",
                            card=card.token, count=count))

        if card.is_number and 1 <= int(card.value) <= 5:
            say(f"{_NUMBER_WORDS[int(card.value)]} for {who}", count=int(card.value))
        elif card.is_number:
            say(_FLASKE_GAMES[card.value].format(s="?" if seat is None else seat))
        elif card.value == "skip":
            say("the next player is skipped")
        elif card.value == "reverse":
            say("play turns the other way")
        elif card.value == "draw_2":
            red_or_blue = card.color.value in ("r", "b")
            target, side = (right, "right") if red_or_blue else (left, "left")
            if seat is None:  # the rule is said; who drinks is the table's to see
                say(f"two sips for the player on the {side} of whoever laid it", None, 2)
            else:
                say(f"two sips for the player on {who}'s {side}, seat {target}", target, 2)
        elif card.value == "wild_draw_4":
            if seat is None:
                say("four sips each for both neighbours of whoever laid it", None, 4)
            else:
                say(f"four sips for seat {right} on the right", right, 4)
                say(f"four sips for seat {left} on the left", left, 4)
        elif card.value == "wild":
            say("everyone drinks together: skål!", None)


VARIANTS: list[type[Game]] = [Game, StandardUno, SnabbUno, FlaskeUno, DrukUno]


class UnknownVariantError(ValueError):
    """A variant name no game answers to."""


def find_variant(name: str) -> type[Game]:
    """The game class for `name` (case-insensitive, aliases included)."""
    wanted = name.casefold()
    for variant in VARIANTS:
        if wanted in (variant.name.casefold(), *(a.casefold() for a in variant.aliases)):
            return variant
    known = ", ".join(v.name for v in VARIANTS)
    raise UnknownVariantError(f"unknown variant {name!r} (known: {known})")
