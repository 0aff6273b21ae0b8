"""DrukUNO (`--variant druk`, docs/rules/druk.md): UNO as a drinking game. Several cards of one
number, or of one kind of skip, draw two or reverse, go down in one play; draw cards stack and
the whole pool passes on; an exact number twin may be jumped in at any moment; with Helsinki
rules a zero moves every hand round the table, with Warszawa a 7 swaps two hands. The referee
counts the sips (tår) each seat drinks as they fall due.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from referee.cards import Card
from referee.events import CardPlayed, Draw, Event, Swap
from referee.game import Game, TableState
from referee.messages import count_words
from referee.rule_texts import DRUK_RULE_TEXTS
from referee.rules import RuleSet
from referee.rulings import Ruling, info
from referee.uno import StandardUno
from referee.words import SpokenWords, Words

WILD_DRAW_FOUR_SEARCH = 3
"""D8: after taking a wild draw four's pool, its victim draws at most this many cards looking
for the named colour before the turn passes (without Helsinki's endless draw)."""

HAND_SIPS: dict[str, int] = {"draw_2": 2, "wild_draw_4": 4}
"""D15: sips for a card left in the hand at the end of a round; every other card is one."""


@dataclass(frozen=True, slots=True)
class MultiCardPlay:
    """The play a seat is making (D3, D4): `cards` cards of `value` so far, the latest at
    `last_t`. Kept in `TableState.variant_state`, so a take-back restores it."""

    seat: int
    value: str
    cards: int
    last_t: float
    names: tuple[str, ...] = ()
    """The play's cards so far, in plain English, in the order laid."""


def _listed(words: tuple[str, ...]) -> str:
    """'the red 5, the blue 5 and the green 5'."""
    named = [f"the {word}" for word in words]
    return named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]


def _sips(n: int) -> str:
    return f"{count_words(n)} sip" + ("" if n == 1 else "s")


class DrukUno(StandardUno):
    """DrukUNO (docs/rules/druk.md). Besides rulings, the game keeps for the report and the
    dashboard:

    - `sips`: seat -> sips drunk so far in the match (every `sips` info line adds to it; the
      line's `total` is the new value);
    - `hand_counts` (standard UNO's, `referee.uno`), moved with the hands by D13 and D14.
    """

    name: ClassVar[str] = "druk"
    aliases: ClassVar[tuple[str, ...]] = ("DrukUNO", "druk-uno", "Druk UNO")
    default_rules: ClassVar[RuleSet] = RuleSet()
    rule_refs: ClassVar[dict[str, str]] = {"B2": "D2", "P2": "D11", "B4": "D11", "P3": "D11",
                                           "P1": "D12"}
    instick_on_own_turn: ClassVar[bool] = False
    keeps_score: ClassVar[bool] = False
    highest_total_wins: ClassVar[bool] = False
    tally: ClassVar[tuple[str, str] | None] = ("sips", "Sips")
    words: ClassVar[Words] = Words(
        game="DrukUNO", jump_in="jump-in", jumped_in="jumped in", slow_call=None,
        knock_rules=None,
        spoken={"en": SpokenWords(jump_in="Jump in.", too_slow="Too slow"),
                "sv": SpokenWords(jump_in="Hoppa in.", too_slow="För långsam")})
    """The seed's Danish "spring ind" is a jump-in; "hoppa in" is what a Swedish table says."""
    rule_texts: ClassVar[dict[str, str]] = DRUK_RULE_TEXTS
    uno_call_ref: ClassVar[str | None] = "D12"

    def __init__(self, players: int, dealer: int = 0, rules: RuleSet | None = None) -> None:
        super().__init__(players, dealer, rules)
        self.rules.validate()
        self.sips: dict[int, int] = {seat: 0 for seat in range(players)}
        self._gathering: int | None = None
        """The seat still gathering a draw two pool it took (its reaches are that pool)."""
        self._zero_moves: list[tuple[Card, int]] = []
        """The zeros that moved the hands this round (D13), each with its step, latest last:
        a zero taken back moves them back (P4: a card taken back restores the game)."""

    # --- what may be played ----------------------------------------------------------------

    def matches(self, card: Card) -> bool:
        """D2: as in UNO; while a pool of draw cards is the turn holder's to take (D6, D8),
        only a card of the pool's kind goes on it (a wild or wild draw four does not undo a
        draw two, nor a wild a wild draw four)."""
        pool = self._active_pool()
        if pool is not None:
            return card.value == pool.value
        return super().matches(card)

    def illegal_card_message(self, seat: int | None, card: Card) -> str:
        """D6, D8: on an open pool the card's fault is not a colour or a number."""
        pool = self._active_pool()
        if pool is not None and super().matches(card):
            kind = "draw two" if pool.value == "draw_2" else "wild draw four"
            who = "Someone" if seat is None else f"Seat {seat}"
            return (f"{who} played the {card.name} on the open pool of the {pool.name}: only "
                    f"a {kind} goes on it, or the pool is taken")
        return super().illegal_card_message(seat, card)

    def is_instick(self, card: Card) -> bool:
        """D10: a jump-in is a number card identical to the top card."""
        return card.is_number and card == self.state.top

    def continues_play(self, seat: int, card: Card, t: float) -> bool:
        """D3, D4: the same number (any colour) or the same kind of skip, draw two or reverse
        as the play `seat` is making, within `multi_card_window_s` of its latest card."""
        return self._continues(self.state, seat, card, t)

    def _continues(self, table: TableState, seat: int, card: Card, t: float) -> bool:
        play = table.variant_state
        return (isinstance(play, MultiCardPlay) and play.seat == seat == table.top_seat
                and table.top is not None and table.top.value == play.value == card.value
                and not card.is_black and t - play.last_t <= self.rules.multi_card_window_s)

    # --- what a card does ------------------------------------------------------------------

    def apply_first_card(self, card: Card, t: float, out: list[Ruling]) -> None:
        """D1: the turned card counts as the dealer's play, a reverse included (play then
        goes the other way from the dealer); nobody continues it."""
        self.apply_effect(self.dealer, card, t, out)
        self.state.variant_state = None

    def apply_effect(self, seat: int, card: Card, t: float, out: list[Ruling]) -> None:
        """D5-D8, D13: each card's effect as it comes; a card that continues a play adds to
        what the play's earlier cards did."""
        s, n = self.state, self.players
        beneath = self.table_beneath
        play = s.variant_state
        cards = play.cards + 1 if beneath is not None and isinstance(play, MultiCardPlay) \
            and self._continues(beneath, seat, card, t) else 1
        acts_as_skip = card.value == "skip" or self.reverse_skips(card)
        if self.turns_round(card):
            s.direction = -s.direction  # D7: once per card
        d = s.direction
        victim_if_reversed = None
        if acts_as_skip:
            # D5: the k-th skip of a play skips the k-th seat on; its player drinks one.
            if self._card_sure:
                self._drink((seat + cards * d) % n, 1, t, out, "for being skipped")
            following, other_way = (seat + (cards + 1) * d) % n, (seat - (cards + 1) * d) % n
        else:
            following, other_way = (seat + d) % n, (seat - d) % n
            if card.draw_count:
                # D6, D8: the next seat gets the pool, and the turn: it may add to it.
                pool = self._pass_pool_on(seat, following, card, t, out)
                victim_if_reversed = (following, other_way, pool) if pool else None
        if card.is_zero and self.rules.helsinki:
            self._move_zeros_hands(card, -d)  # D13: every hand one seat against the direction
        if cards == 1 or following != s.turn:
            self._begin_turn(following, t, out)
        else:
            s.turn_started = t  # the next player's turn really starts when the play ends
        s.turn_if_reversed = other_way
        s.victim_if_reversed = victim_if_reversed
        names = (*(play.names if cards > 1 else ()), card.name)
        s.variant_state = MultiCardPlay(seat, card.value, cards, t, names)
        if cards > 1:
            # One line for the whole play so far: what the report and the video show as one.
            out.append(info(t, "multi_card_play", seat,
                            f"Seat {seat} plays {count_words(cards)} cards in one play: "
                            f"{_listed(names)}.", count=cards))

    def seat_after(self, seat: int, card: Card) -> int:
        """Who plays after `seat` plays `card` alone: a draw card's victim plays (it may add
        to the pool), a skip skips one seat."""
        n, d = self.players, self.state.direction
        skips = card.value == "skip" or self.reverse_skips(card)
        if self.turns_round(card):
            d = -d
        return (seat + (2 if skips else 1) * d) % n

    def play_on_from_instick(self, seat: int, card: Card, t: float, out: list[Ruling]) -> None:
        """D10: after a jump-in play goes on with the player whose turn it was; nobody adds
        to a jump-in. A jumped-in zero still moves the hands (D13)."""
        self.state.variant_state = None
        if card.is_zero and self.rules.helsinki:
            self._move_zeros_hands(card, -self.state.direction)

    def _active_pool(self) -> Card | None:
        """The draw card whose pool the turn holder has still to take (or add to), if any."""
        s = self.state
        top, turn = s.top, s.turn
        if turn is None or top is None or not top.draw_count or s.top_seat == turn \
                or s.owed_draws[turn] <= 0:
            return None
        return top

    def _pass_pool_on(self, seat: int, victim: int, card: Card, t: float,
                      out: list[Ruling]) -> int:
        """D6, D8: `victim` owes the card's draws, plus the pool `seat` had to take when it
        added this card to it. Returns what `victim` now owes."""
        if not self._card_sure:
            return 0  # (as in Bruno: a draw card read unsure makes nobody owe anything)
        s = self.state
        beneath = self.table_beneath
        added_to_pool = beneath is not None and beneath.turn == seat and beneath.top is not None \
            and beneath.top.value == card.value and beneath.top_seat != seat
        passed = s.owed_draws[seat] if added_to_pool else 0
        s.owed_draws[seat] -= passed
        s.owed_draws[victim] += passed + card.draw_count
        pool = s.owed_draws[victim]
        if card.value == "draw_2":
            then, adds = "misses the turn", "a draw two"
        else:
            then, adds = "plays the colour", "a wild draw four"
        out.append(info(t, "draw_due", victim,
                        f"Seat {victim} takes {count_words(pool)} cards and {then}, or adds "
                        f"{adds} to pass them all on.", count=pool))
        return pool

    def after_draw(self, seat: int, count: int, debts_paid: int, free_cards: int, t: float,
                   out: list[Ruling]) -> None:
        """D6: a draw two's pool taken, the turn passes on; D8: a wild draw four's victim
        plays on, searching at most three cards for the colour; D9: without Helsinki, one card
        drawn ends the turn; D13: with Helsinki, drawing never does (one draws until one can
        play)."""
        s = self.state
        if seat != s.turn:
            return
        top = s.top
        pool_card = top if top is not None and top.draw_count and s.top_seat != seat else None
        if pool_card is not None and pool_card.value == "draw_2" and debts_paid \
                and not s.owed_draws[seat]:
            self._begin_turn(self._next_seat(seat), t, out, came_from=seat)
        elif free_cards and not self.rules.helsinki:
            limit = WILD_DRAW_FOUR_SEARCH if pool_card is not None else 1
            if s.drawn_this_turn >= limit:
                self._begin_turn(self._next_seat(seat), t, out, came_from=seat)

    # --- the hands, the UNO call and the sips ------------------------------------------------

    def read_as(self, event: Event) -> Event | None:
        """D6, D8: a pool is taken whole. The camera sees a hand reach for the draw pile, not
        how many cards it took: the pool's victim reaching for it on its turn takes the pool
        (its sips are the pool's cards), and the same seat's further reaches before the next
        card are that same pool still being gathered (a draw two's: after a wild draw four's
        the victim searches for the colour, D8, and those reaches are draws of their own)."""
        if isinstance(event, CardPlayed):
            self._gathering = None
            return event
        if not isinstance(event, Draw) or event.seat is None or not self.state.in_round:
            return event
        if event.seat == self._gathering:
            return None
        owed = self.state.owed_draws[event.seat]
        pool = self._active_pool()
        if pool is not None and event.seat == self.state.turn and owed >= event.count:
            if pool.value == "draw_2":
                self._gathering = event.seat  # (a first reach seen as the whole pool too)
            return replace(event, count=owed)
        return event

    def notice(self, event: Event, out: list[Ruling]) -> None:
        """Follow the hands (D12, standard UNO's count) and the draws' sips (D15) from every
        observation, and the hands swapped (D14; without Warszawa a `swap` is ignored, as in
        every other game)."""
        super().notice(event, out)
        if isinstance(event, Draw) and event.seat is not None and self.state.in_round:
            self._drink(event.seat, event.count, event.t, out,
                        "for the card drawn" if event.count == 1 else "for the cards drawn")
        elif isinstance(event, Swap) and self.state.in_round and self.takes_swaps():
            counts = self.hand_counts
            counts[event.seat], counts[event.with_seat] = counts[event.with_seat], \
                counts[event.seat]
            self._forget_calls_not_due()

    def _move_zeros_hands(self, zero: Card, step: int) -> None:
        self._zero_moves.append((zero, step))
        self._move_hands(step)

    def on_taken_back(self, seat: int | None, card: Card) -> None:
        """A zero taken back (the top card, so the latest that moved the hands) moves every
        hand back first; then its player holds it again."""
        if card.is_zero and self._zero_moves and self._zero_moves[-1][0] == card:
            _, step = self._zero_moves.pop()
            self._move_hands(-step)
        super().on_taken_back(seat, card)

    def _move_hands(self, step: int) -> None:
        """D13: the hand of every seat s goes to seat s + step."""
        n, counts = self.players, self.hand_counts
        self.hand_counts = [counts[(seat - step) % n] for seat in range(n)]
        self._forget_calls_not_due()

    def _drink(self, seat: int, sips: int, t: float, out: list[Ruling], why: str) -> None:
        self.sips[seat] += sips
        total = self.sips[seat]
        out.append(info(t, "sips", seat, f"Seat {seat} drinks {_sips(sips)} {why} "
                                         f"({total} in all).", sips=sips, total=total))

    def takes_swaps(self) -> bool:
        """D14: with Warszawa, a 7 swaps two hands."""
        return self.rules.warszawa

    def tally_changes(self, before: Game, t: float) -> list[Ruling]:
        """A correction can change who drank what (a red 6 that was a skip: the skipped seat
        drinks one): one `sips` line per seat whose total changed, its `sips` the change
        (fewer: negative), so each seat's lines still add up to its total."""
        assert isinstance(before, DrukUno)
        lines = []
        for seat, total in self.sips.items():
            change = total - before.sips[seat]
            if change:
                more = "more" if change > 0 else "fewer"
                lines.append(info(t, "sips", seat, f"Seat {seat} drinks {_sips(abs(change))} "
                                  f"{more}, as corrected ({total} in all).",
                                  sips=change, total=total))
        return lines

    def close_round(self, hands: dict[int, tuple[Card, ...]], winner: int | None, t: float,
                    out: list[Ruling]) -> None:
        """D15: every seat drinks for the cards left in its hand; a pool still to be taken
        (the round's last card was a draw card, D13) is drunk too, one sip a card."""
        pool = self._active_pool()
        for seat in range(self.players):
            cards = hands.get(seat, ())
            hand = sum(HAND_SIPS.get(card.value, 1) for card in cards)
            owed = self.state.owed_draws[seat] if pool is not None and seat == self.state.turn \
                else 0
            if hand:
                self._drink(seat, hand, t, out, f"for the {count_words(len(cards))} card"
                            f"{'' if len(cards) == 1 else 's'} left in hand")
            if owed:
                self._drink(seat, owed, t, out, "for the cards the last card made it take")
        self._zero_moves.clear()
        super().close_round(hands, winner, t, out)

    def match_over_message(self, leaders: list[int], total: int) -> str:
        """D15: no points, so nobody wins on them: the match ends with what each seat drank."""
        drunk = ", ".join(f"seat {seat} {n}" for seat, n in self.sips.items())
        return f"Match over: DrukUNO keeps no points; sips drunk: {drunk}."

    def round_points(self, hands: dict[int, tuple[Card, ...]], winner: int | None
                     ) -> dict[int, int]:
        """D15: DrukUNO keeps no points; a round costs sips instead."""
        return {seat: 0 for seat in range(self.players)}
