"""What the referee assumes when play only makes sense if it missed an observation (a draw, a
"pass", a card taken back, a card read wrong): the decisions of docs/missed-observations.md,
as a part of `Game` (mixed into it; it uses the game's state, rules and turn helpers).

The aim is a referee whose belief about whose turn it is stays honest: one missed observation
costs at most one penalty, and the referee is back in step within two cards, while the
violations it can see (a card from the wrong seat with no draw before it, a card that does not
match, a missed knock) stay penalties. Every assumption is a rule-set setting.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from referee import messages as say
from referee.reorder import TIME_SLACK_S
from referee.rulings import Ruling, info

LATE_CARD_S = 1.5
"""A card may be seen coming to rest up to this much after it did (a hand over it); a knock no
card took, heard that much before a card's knock window, makes its missed knock a check."""

if TYPE_CHECKING:
    from referee.cards import Card


class MissedObservations:
    """The re-synchronising half of the referee: a mixin of `referee.game.Game`, whose state,
    rules and turn helpers it uses (it imports nothing of the game, so the two files make no
    import loop)."""

    def _resynchronise(self, seat: int, card: Card, t: float, out: list[Ruling]) -> bool:
        """Whether `card` from `seat`, whose turn it is not, is the turn play that a missed
        observation explains; if so the turn is moved to `seat` (and True returned)."""
        s = self.state
        if self._implied_pass_by(seat, t, out) or self._unseen_instick_heard(seat, t, out):
            return True
        if not (s.turn_sure and s.top_sure):
            # The card before was read unsure: its effect on the turn was a guess, and this
            # card may be its twin (an instick), which plays on from its own seat too. When
            # this seat sits next to that card's seat on the other side, play goes that way
            # round (the unsure card was a reverse, or came after one) - unless this card is
            # what that one was read as, and so perhaps its twin, which tells no direction.
            came_from = s.top_seat
            if came_from is not None and card != s.top \
                    and seat != (came_from + s.direction) % self.players \
                    and seat == (came_from - s.direction) % self.players:
                s.direction = -s.direction
            self._begin_turn(seat, t, out)
            return True
        return self._follow_the_table(seat, t, out)

    def _acts_in_turn(self, seat: int, t: float, out: list[Ruling],
                      drawing: bool = False) -> bool:
        """`seat`, whose turn the referee did not think it was, takes a card (`drawing`) or
        says "pass": whether a missed observation explains it (the turn holder passed
        unheard, play goes the other way round, the table played on from a card out of turn);
        if so the turn is moved (to `seat`, or past it when it takes what that card made it
        owe)."""
        if self._read_again(seat, None, t, out):
            return True
        s = self.state
        if drawing and self.rules.follow_the_table and s.direction_doubt \
                and s.victim_if_reversed is not None and seat == s.victim_if_reversed[1]:
            # The seat the last draw card made owe had play gone the other way round takes
            # cards: the reverse the referee doubted counted (before a missed pass is assumed:
            # that seat may also be the turn holder's next).
            self._turn_the_other_way(t, out)
            return True
        if self._implied_pass_by(seat, t, out, calls_pass=not drawing):
            return True
        if s.turn is None or not s.turn_sure:
            # Whose turn it is was not known (after an unseen instick) or a guess.
            self._begin_turn(seat, t, out)
            return True
        return self._follow_the_table(seat, t, out, drawing)

    def _unseen_instick_heard(self, seat: int, t: float, out: list[Ruling]) -> bool:
        """`seat` plays out of turn after a knock that no card took, heard in the top card's
        knock window: an instick laid at once on the top card (its twin), which the camera
        never saw apart from it, explains the knock and the turn (play went on from the jumper).
        Lay that instick for a seat the camera did not see, and say whether it was. (The
        webcam family's fast jump-ins hide one card of the two in about one play in fifteen;
        unseen, the table's next card was ruled out of turn in two rounds of five.) The price:
        a card really out of turn after a false knock goes unpenalised."""
        s, rules, history = self.state, self.rules, self._pile.history
        if not rules.unseen_instick_by_knock or s.top is None or s.top_offence is not None \
                or not s.top_sure or not self.knock_ref(s.top, instick=True) \
                or len(history) < 2 or history[-2][1] != s.top:
            return False
        beneath = history[-2][2]
        if not beneath.top_sure or beneath.top_offence is not None:
            # The knock may be the top card's own: an instick judged as a play, because the card
            # it landed on was read unsure or was ruled erroneous (a phantom, say).
            return False
        opens = s.top_t - rules.knock_before_s - TIME_SLACK_S
        closes = min(s.top_t + rules.knock_after_s, t - rules.knock_before_s) - TIME_SLACK_S
        if not self._take_free_knock(opens, closes):
            return False
        twin = s.top
        out.append(info(t, "instick", None, say.instick(None, twin, self.words),
                        card=twin.token))
        self._unseen_jumper_plays(twin)
        self._begin_turn(seat, t, out)
        out[-1].message = say.unseen_instick_heard(twin, seat)
        return True

    def _turn_card_seen_late(self, seat: int, card: Card, t: float, out: list[Ruling]) -> bool:
        """`seat`, whose turn it is, lays the twin of the top card, which another seat laid
        less than LATE_CARD_S before and was ruled out of turn for, with a knock heard between
        the two: the turn holder's card came first, seen late (a hand lingered over it), and the
        other was an instick on it. Its penalty has been said; play goes on from that jumper,
        as the table plays, and not from `seat` (judged as an instick by `seat`, the table's
        next card was out of turn too: two penalties said aloud). Not for zeros, each of which
        owes a knock of its own. Say whether it was so."""
        s = self.state
        jumper = s.top_seat
        if not self.rules.follow_the_table or s.top_offence != "out_of_turn" \
                or jumper is None or jumper == seat or seat != s.turn or card != s.top \
                or card.is_zero or t - s.top_t > LATE_CARD_S:
            return False
        # The jumper's knock, heard after its card and before this one, tells the two apart
        # from a card whose seat the camera got wrong, its player's own instick following it
        # (then the knock comes after this card).
        if not self._take_free_knock(s.top_t - self.rules.knock_before_s - TIME_SLACK_S,
                                     t + TIME_SLACK_S):
            return False
        self._lay(seat, card, streak=True)
        said = len(out)
        self.apply_effect(seat, card, t, out)
        self.on_instick(jumper, card)
        self.apply_effect(jumper, card, t, out)
        # One turn line, the last: the turn passed through `seat`'s play on the way.
        out[said:-1] = [r for r in out[said:-1] if r.rule != "turn"]
        out[-1].message = say.turn_card_seen_late(card, seat, jumper, self.state.turn)
        return True

    def _follow_the_table(self, seat: int, t: float, out: list[Ruling],
                          drawing: bool = False) -> bool:
        """The table plays on in an order the referee did not expect (`follow_the_table`):
        the other way round when the direction is in doubt, or on from a card ruled out of
        turn; whether it followed (and moved the turn)."""
        if not self.rules.follow_the_table:
            return False
        if self.state.direction_doubt and seat == self.state.turn_if_reversed:
            self._turn_the_other_way(t, out)
            return True
        return self._follow_erroneous_card(seat, t, out, drawing)

    def _implied_pass_by(self, seat: int, t: float, out: list[Ruling],
                         calls_pass: bool = False) -> bool:
        """The next seat plays or takes a card while the turn holder, having taken cards, has
        not played: the turn holder passed (B6), its "pass" unheard. When the next seat says
        "pass" itself (`calls_pass`), the turn holder's turn is over whether or not its draw
        was seen: a seat says "pass" on its own turn. (A card taken is weaker evidence: it may
        pay a penalty the referee never heard of; but more cards than one penalty costs, taken
        for nothing owed, are that seat's own turn's draws.)"""
        s = self.state
        turn = s.turn
        drew = bool(s.took_cards_this_turn)
        drawing_its_turn = s.next_seat_took > self.rules.penalty_cards
        if not (self.rules.implied_pass and turn is not None
                and (drew or calls_pass or drawing_its_turn)
                and seat == self._next_seat(turn)):
            return False
        self._begin_turn(seat, t, out, came_from=turn)
        out[-1].message = say.implied_pass(turn, seat, drew)
        return True

    def _follow_erroneous_card(self, seat: int, t: float, out: list[Ruling],
                               drawing: bool = False) -> bool:
        """The top card was ruled out of turn, and `seat` plays as if it had been a play (by
        the seat that laid it, or by the turn holder if the camera named the wrong seat): the
        table took it as one, so the referee follows rather than rule every later card out of
        turn. The penalty already said stands. A seat `drawing` may also be the one the
        erroneous draw card, taken as a play, made owe."""
        s = self.state
        top = s.top
        if top is None or s.top_offence not in ("out_of_turn", "same_number_two_colors"):
            return False
        ahead = s.direction
        fits = []  # (player, flip) that explain `seat` playing now, likeliest first
        victims = []  # ... or `seat` drawing what the draw card made it owe, likelier still
        for player in dict.fromkeys((s.top_seat, s.turn)):
            if player is None:
                continue
            # Either way round: when the referee lost the direction too (a reverse missed),
            # the seat after the erroneous card on the other side shows which way play goes.
            for flip in (False, True):
                s.direction = -ahead if flip else ahead
                victim = (player + s.direction) % self.players
                if drawing and not flip and top.draw_count and victim == seat:
                    victims.append((player, flip))
                elif self.seat_after(player, top) == seat:
                    fits.append((player, flip))
        s.direction = ahead
        # A seat taking cards after a draw card is likelier its victim than the next to play
        # (a wrong seat named for a draw two turned play round, and the next card was out of
        # turn too).
        fits = victims + fits
        if not fits:
            return False
        player, flip = fits[0]
        s.direction = -ahead if flip else ahead
        s.top_offence = None
        self.apply_effect(player, top, t, out)
        out[-1].message = say.followed_table(self.state.turn, top)
        if len({f for _, f in fits}) > 1:
            # Another explanation fits with play going the other way (the camera named the
            # wrong seat for a card the turn holder played): the next cards say which, and
            # play is not turned round for good on a guess (a wrong seat seen at a table of
            # three turned it, and every later card was out of turn).
            self.state.direction_doubt = 2
        return True

    def _doubt_direction(self, seat: int, card: Card) -> None:
        """A reverse ruled out of turn from the seat after the turn holder: P4 (it does not
        count) and a missed pass before it (it was a play, and the turn came back) both give
        the turn holder the turn; which way play goes after that tells them apart."""
        s = self.state
        if (self.rules.follow_the_table and self.turns_round(card) and s.turn is not None
                and seat == self._next_seat(s.turn)):
            s.direction_doubt = 2

    def _turn_the_other_way(self, t: float, out: list[Ruling]) -> None:
        """Play goes the other way round from what the referee believed: a reverse it doubted
        did count (or a card read unsure was one). Whoever the last draw card made owe is the
        seat on the other side."""
        s = self.state
        seat = s.turn_if_reversed
        assert seat is not None
        if s.victim_if_reversed is not None:
            wrong, right, count = s.victim_if_reversed
            s.owed_draws[wrong] = max(0, s.owed_draws[wrong] - count)
            s.owed_draws[right] += count
        s.direction = -s.direction
        s.direction_doubt = 0
        self._begin_turn(seat, t, out)
        out[-1].message = say.other_way(seat)

    def _take_back_unseen(self, seat: int, card: Card, t: float, out: list[Ruling]) -> None:
        """A seat plays an illegal card, then another card that matches the card beneath it:
        it took the illegal card back unseen (P4). Unwind it, so that this card is judged as
        the play it is rather than as a second card in the turn. (After a card out of turn,
        P4 stands: a later card that does not match it is an illegal card.)"""
        s = self.state
        if not self.rules.assume_missed_take_back or s.top_offence != "illegal_card" \
                or seat != s.top_seat:
            return
        before = self._erroneous_top_over()
        if before is None or seat != before.turn:
            return
        erroneous = s.top
        if self._unwind_beneath(card, t, laid_by=seat):
            out.append(info(t, "turn", seat, say.assumed_taken_back(erroneous, seat)))

    def _never_there(self, seat: int, card: Card, t: float, out: list[Ruling]) -> None:
        """The top card was ruled erroneous, and a card comes that does not match it: either
        the top card was read unsure (below the table's bar) and the card comes from the seat
        whose turn it was before it, or the top card was read short of certain and the card is
        an instick on the card beneath it (which nobody lays on a card covered, not even the
        seat named for the top card). Then the camera saw a card that was never played (a
        shadow, a card nudged and read again). Unwind it, so the table's play is judged against
        what lies there; its own ruling stands as it was said. Judged against the phantom,
        every later card was wrong: one phantom in seven simulated rounds made two or more
        penalties said aloud."""
        s = self.state
        if not self.rules.assume_missed_take_back or s.top_confidence >= 1.0:
            return
        before = self._erroneous_top_over()
        if before is None or self.matches(card):
            return
        unsure = s.top_confidence < self.rules.announce_min_confidence \
            and seat == before.turn and seat != s.top_seat
        with self._as_if(before):
            inserts = self.is_instick(card)  # (in this game's own terms: not in standard UNO)
        if not (unsure or inserts):
            return
        erroneous, beneath = s.top, None if unsure else before.top
        if self._unwind_beneath(card, t, laid_by=s.top_seat):
            out.append(info(t, "turn", seat, say.assumed_never_there(erroneous, seat, beneath)))

    def _read_again(self, seat: int, card: Card | None, t: float, out: list[Ruling]) -> bool:
        """The top card is an instick its seat laid a moment after laying the same card
        (`_own_twin`), whose turn is still the one it began (no pass, SEG or draw rule moved
        the turn since), and `seat` plays `card` (or, with None, takes a card or says "pass")
        as the turn stood without it, not with it (one reverse and not two): the camera
        saw one card twice, as the hand lifted off it or nudged it. Unwind it, and the knock it
        owed if that is not yet ruled; say whether it was. (Counted, one card read again in
        twelve simulated rounds made two or more penalties said aloud: the missed knock, then
        the table's next card out of turn.) The price: two identical reverses really laid, on
        which the table plays on as if one, are taken for one."""
        s, history = self.state, self._pile.history
        twin_at = -1 if card is None else -2
        if not self.rules.assume_missed_take_back or len(history) < -twin_at \
                or (history[twin_at][0], s.turn_started) != self._own_twin \
                or s.top_offence is not None \
                or seat == s.turn or seat != history[twin_at][2].turn:
            return False
        twin, laid_by = s.top, s.top_seat
        if card is not None:
            if not self._unwind_beneath(card, t, laid_by=laid_by):
                return False
        else:
            self._take_top_off(laid_by)
        out.append(info(t, "turn", seat, say.assumed_read_again(twin, seat)))
        return True

    def _fits_beneath_an_erroneous_top(self, card: Card) -> bool:
        """The top card was ruled erroneous on a reading short of certain (`_against`), and
        `card` fits the card beneath it and not it: the table plays as if it were not there,
        which it may not be (a card the camera saw that was never played)."""
        if self._against[0] >= 1.0 or self.matches(card):
            return False
        before = self._erroneous_top_over()
        if before is None:
            return False
        with self._as_if(before):
            return self.matches(card) or self.is_instick(card)

    def _erroneous_top_over(self) -> Any:
        """The table as it was before the top card (a `TableState`), when the top card was ruled
        erroneous and lies straight on it (the card being judged is the latest on the pile's
        history); else None."""
        s, history = self.state, self._pile.history
        if s.top_offence is None or len(history) < 2:
            return None
        _, erroneous, before = history[-2]
        return before if erroneous == s.top and before.in_round else None

    @contextmanager
    def _as_if(self, state: Any) -> Iterator[None]:
        """Judge as if the table were `state` (a `TableState`), then as it is again."""
        kept = self.state
        self.state = state
        try:
            yield
        finally:
            self.state = kept

    def _unwind_beneath(self, card: Card, t: float, laid_by: int | None) -> bool:
        """When `card` (being judged, the latest on the pile's history) matches the card
        beneath the top one, take the top one off as if it had never lain there (its
        obligations with it, back to `laid_by`'s hand) and say True."""
        history = self._pile.history
        with self._as_if(history[-2][2]):
            if not self.matches(card):
                return False
        current_id, current_card, _ = history.pop()
        before = self._take_top_off(laid_by)
        before.turn_started = max(before.turn_started, t)
        history.append((current_id, current_card, before.snapshot()))
        return True

    def _take_top_off(self, laid_by: int | None) -> Any:
        """Take the latest card on the pile's history off as if it had never lain there: its
        obligations go, the table is as before it (the `TableState` returned), and the card is
        back in `laid_by`'s hand."""
        pile_id, card, before = self._pile.history.pop()
        self.obligations = [o for o in self.obligations if o.pile_id != pile_id]
        self.state = before
        self.on_taken_back(laid_by, card)
        return before

    def _off_turn_confidence(self, seat: int, card: Card) -> float:
        """How sure an `out_of_turn` is: the card's reading against the top card's
        (`_judged_confidence`: a misread top may hide an instick), and, when the seat is the
        next one and the turn holder was not seen taking a card, the chance that a draw was
        missed (the turn holder drew and passed unseen)."""
        s = self.state
        confidence = self._judged_confidence(card)
        if s.turn is not None and seat == self._next_seat(s.turn) \
                and not s.took_cards_this_turn:
            confidence = min(confidence, self.rules.missed_draw_confidence)
        return confidence
