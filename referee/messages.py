"""Plain-English messages for rulings: each names the seat, the card and the penalty.

A seat the camera could not see is never guessed: the message says so instead.
"""

from __future__ import annotations

from referee.cards import Card, Color
from referee.words import BRUNO_WORDS, Words

_NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def count_words(n: int) -> str:
    return _NUMBER_WORDS.get(n, str(n))


def seat_name(seat: int | None) -> str:
    return "Someone (the camera could not see who)" if seat is None else f"Seat {seat}"


def _cards(n: int) -> str:
    return f"{count_words(n)} card" + ("" if n == 1 else "s")


def penalty_suffix(seat: int | None, cards: int) -> str:
    penalty = f"{count_words(cards)} penalty card" + ("" if cards == 1 else "s")
    if seat is None:
        return f": whoever it was takes {penalty}."
    return f": {penalty}."


def missed_knock(seat: int | None, card: Card, instick: bool, words: Words = BRUNO_WORDS
                 ) -> str:
    verb = words.jumped_in if instick else "played"
    return f"{seat_name(seat)} {verb} the {card.name} without knocking"


def illegal_card(seat: int | None, card: Card, top: Card | None, color: Color | None) -> str:
    if top is None:
        target = "the pile"
    elif top.is_black and color is not None:
        target = f"the {top.name} ({color.word})"
    else:
        target = f"the {top.name}"
    return f"{seat_name(seat)} played the {card.name}, which does not match {target}"


def out_of_turn(seat: int, card: Card, turn: int | None) -> str:
    whose = f"; it is seat {turn}'s turn" if turn is not None else ""
    return f"Seat {seat} played the {card.name} out of turn{whose}"


def same_number(seat: int, card: Card) -> str:
    return (f"Seat {seat} played the {card.name} after the same number in another colour "
            "in one turn")


def too_slow(seat: int, words: Words = BRUNO_WORDS) -> str:
    call = f"{words.slow_call}! " if words.slow_call else ""
    return f"{call}Seat {seat} was too slow; the turn passes on"


def said_uno(seat: int | None) -> str:
    return f'{seat_name(seat)} said "UNO" instead of "Bruno"'


def said_pass_on_bruno(seat: int) -> str:
    return f'Seat {seat} said "pass" while on Bruno (that draw is silent)'


def instick(seat: int | None, card: Card, words: Words = BRUNO_WORDS) -> str:
    who = "by an unseen seat" if seat is None else f"by seat {seat}"
    return f"{words.jump_in.capitalize()} {who}: the {card.name}."


def turn(seat: int) -> str:
    return f"Seat {seat} to play."


def taken_back(card: Card, seat: int) -> str:
    return f"The {card.name} was taken back; seat {seat} to play."


def draw_due(seat: int, count: int) -> str:
    return f"Seat {seat} takes {_cards(count)} and misses the turn."


def owed_as_corrected(seat: int, count: int) -> str:
    if count == 0:
        return f"Seat {seat} takes no cards for it after all."
    return f"Seat {seat} takes {_cards(count)}, as corrected."


def color_named(color: Color) -> str:
    return f"The colour is {color.word}."


def round_over(winner: int | None) -> str:
    return "Round over." if winner is None else f"Round over: seat {winner} went out."


def score(seat: int, points: int, total: int) -> str:
    return f"Seat {seat}: {_points(points)} this round, {total} in total."


def _points(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


def match_over(leaders: list[int], total: int) -> str:
    if len(leaders) == 1:
        return f"Match over: seat {leaders[0]} wins with {total} points."
    seats = ", ".join(str(s) for s in leaders)
    return f"Match over: seats {seats} share the win with {total} points."


def withdrawn(seat: int | None, rule_words: str, card: Card | None) -> str:
    of_card = f" ({card.name})" if card is not None else ""
    who = "whoever played it" if seat is None else f"seat {seat}"
    return f"Withdrawn: the {rule_words}{of_card}; {who} takes no penalty cards."


def corrected(card: Card | None, seat: int | None, at_t: float) -> str:
    parts = []
    if card is not None:
        parts.append(f"was the {card.name}")
    if seat is not None:
        parts.append(f"was played by seat {seat}")
    return f"Corrected: the card at {at_t:.1f} s " + " and ".join(parts) + "."


def nothing_to(what: str) -> str:
    return f"There is no {what}."


def implied_pass(drawer: int, seat: int, drew: bool) -> str:
    how = "took a card and passed" if drew else "must have passed"
    return f"Seat {drawer} {how}; seat {seat} to play."


def followed_table(seat: int, card: Card) -> str:
    return f"Play went on from the {card.name}; seat {seat} to play."


def assumed_taken_back(card: Card, seat: int) -> str:
    return f"The {card.name} must have been taken back; seat {seat} to play."


def assumed_never_there(card: Card, seat: int, beneath: Card | None = None) -> str:
    if beneath is not None:  # an instick on the card beneath showed it: no reading was unsure
        return (f"The {card.name} was not played, it seems: seat {seat} inserted on the "
                f"{beneath.name} under it.")
    return f"The {card.name}, read unsure, was not played, it seems; seat {seat} to play."


def assumed_read_again(card: Card, seat: int) -> str:
    return f"The second {card.name} was the same card seen twice, it seems; seat {seat} to play."


def unseen_instick_heard(card: Card, seat: int) -> str:
    return (f"A knock was heard: someone inserted a {card.name} the camera did not see, it "
            f"seems; seat {seat} to play.")


def turn_card_seen_late(card: Card, seat: int, jumper: int, turn: int | None) -> str:
    return (f"Seat {seat}'s {card.name} came first, seen late; seat {jumper}'s was an instick "
            f"on it. Seat {turn} to play.")


def other_way(seat: int) -> str:
    return f"Play goes the other way round; seat {seat} to play."


def confirmed(message: str) -> str:
    return f"Confirmed by the table: {message}"
