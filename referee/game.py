"""The game object: Bruno's referee. `observe(event)` and `advance(t)` return rulings.

Pure: no I/O, no wall clock, no globals. Events must arrive in time order (the session's reorder
buffer sees to that); deadlines (a knock window closing, SEG) fire when the clock passes them.

Bruno is the base rule set; other games subclass `Game` and override the hooks in the section
"Rule hooks" (see `referee.variants`), the way python-chess does variants.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

from referee import messages as say
from referee.cards import Card, Color
from referee.events import (
    CORRECTION_KINDS,
    EVENT_KINDS,
    Call,
    CardPlayed,
    CardRemoved,
    ColorNamed,
    Draw,
    Event,
    Knock,
    Loud,
    RoundEnd,
    Swap,
)
from referee.missed import LATE_CARD_S, MissedObservations
from referee.reorder import TIME_SLACK_S
from referee.rule_texts import BRUNO_RULE_TEXTS
from referee.rules import RuleSet
from referee.rulings import Ruling, info, penalty
from referee.scoring import Scoreboard, hand_points
from referee.words import BRUNO_WORDS, Words

COLOR_BEFORE_CARD_S = 1.0
"""A colour named up to this long before a wild comes to rest is that wild's colour: players
say it while the card is still in the air, before the camera sees it at rest."""

HISTORY_DEPTH = 32
"""How many cards back a `card_removed` can unwind (one is all a table needs; a few is safe)."""


@dataclass(slots=True)
class TableState:
    """Everything a card on the pile changes; a snapshot is kept per card so that a card taken
    back (P4) restores the game exactly."""

    in_round: bool = False
    top: Card | None = None
    top_seat: int | None = None
    active_color: Color | None = None
    direction: int = 1
    turn: int | None = None
    turn_started: float = 0.0
    streak_seat: int | None = None
    """The seat that played the latest card(s) on its turn, while nobody else has played since."""
    streak_cards: tuple[Card, ...] = ()
    owed_draws: list[int] = field(default_factory=list)
    """Cards each seat must take because of draw cards (B3, B9)."""
    drawn_this_turn: int = 0
    """Cards the turn holder took this turn beyond what it owed (B6)."""
    took_cards_this_turn: int = 0
    """Cards the turn holder took this turn beyond what draw cards made it owe, penalty cards
    included (the camera cannot tell them apart): the sign that it could not play, for an
    implied pass."""
    top_sure: bool = True
    """Whether the top card was read surely enough to judge the next card against it."""
    turn_sure: bool = True
    """False after a card read unsure (its effect on the turn is not known): the next card
    from any seat is taken as that seat's turn."""
    top_offence: str | None = None
    """The penalty the top card drew when it was erroneous (it may be taken back unseen, or the
    table may play on from it)."""
    direction_doubt: int = 0
    """For how many more cards the direction may be the other way round: a card read unsure
    may have been a reverse, and so may a reverse ruled out of turn that the table played on."""
    may_owe: tuple[int | None, int] | None = None
    """(a seat that a card read unsure may have made owe cards, or None for any seat after an
    unseen seat inserted a draw card; for how many more cards played in turn): its draws then
    tell nothing about whose turn it is."""
    turn_if_reversed: int | None = None
    """Whose turn it would be now had play gone the other way round since the last move."""
    victim_if_reversed: tuple[int, int, int] | None = None
    """(the seat the last draw card made owe, the seat it would be the other way, how many)."""
    variant_state: object = None
    """What a variant keeps per card beyond this (DrukUNO: the multi-card play going on). It
    must be immutable: snapshots share it."""
    next_seat_took: int = 0
    """Cards the seat after the turn holder took this turn for nothing it owed: more than a
    penalty's worth is that seat drawing on its own turn (the turn holder passed unheard)."""
    top_confidence: float = 1.0
    """How sure the camera was of the top card's reading: a ruling on the next card judged
    against it is no surer."""
    top_alternatives: tuple[Card, ...] = ()
    """What else the camera said the top card might be."""
    top_t: float = 0.0
    """When the top card came to rest."""

    def snapshot(self) -> TableState:
        """An independent copy (written out: this runs for every card, and it is the hot path)."""
        return TableState(self.in_round, self.top, self.top_seat, self.active_color,
                          self.direction, self.turn, self.turn_started, self.streak_seat,
                          self.streak_cards, list(self.owed_draws), self.drawn_this_turn,
                          self.took_cards_this_turn, self.top_sure, self.turn_sure,
                          self.top_offence, self.direction_doubt, self.may_owe,
                          self.turn_if_reversed, self.victim_if_reversed, self.variant_state,
                          self.next_seat_took, self.top_confidence, self.top_alternatives,
                          self.top_t)


ANOTHER_READING_CONFIDENCE = 0.5
"""A penalty that another reading the camera gave (a card's `alternatives`) would make
unfounded is a check, not said aloud: as sure as a coin."""


def _cards(tokens: tuple[str, ...]) -> tuple[Card, ...]:
    return tuple(Card.parse(token) for token in tokens)


@dataclass(slots=True)
class KnockObligation:
    """A card that needs one knock, heard between `opens` and `deadline`. It leaves the list
    when a knock satisfies it or when its deadline fires."""

    card: Card
    seat: int | None
    card_t: float
    opens: float
    deadline: float
    pile_id: int
    ref: str
    instick: bool
    confidence: float = 1.0


@dataclass(slots=True)
class _Clock:
    now: float = 0.0
    paused_at: float | None = None


@dataclass(slots=True)
class _Pile:
    """Snapshots taken before each card, newest last, to unwind a card taken back."""

    next_id: int = 0
    history: list[tuple[int, Card, TableState]] = field(default_factory=list)


class Game(MissedObservations):
    """A Bruno game at a table of `players` seats, `dealer` dealing the first round."""

    name: ClassVar[str] = "bruno"
    aliases: ClassVar[tuple[str, ...]] = ("Bruno",)
    default_rules: ClassVar[RuleSet] = RuleSet()
    rule_refs: ClassVar[dict[str, str]] = {}
    """The variant's own rule ids for the Bruno ids the referee cites (docs/rules/): a ruling's
    `ref` is always the id on the page of the game being played."""
    highest_total_wins: ClassVar[bool] = False
    """S3: Bruno's match goes to the lowest total; standard UNO's to the highest."""
    gives_penalties: ClassVar[bool] = True
    """False for a game that rules nothing (Flaske UNO announces every card instead)."""
    keeps_score: ClassVar[bool] = True
    """False for a game that counts no points (DrukUNO: the sips take their place)."""
    tally: ClassVar[tuple[str, str] | None] = None
    """A running count per seat the game keeps besides the score, shown in the report and on
    the dashboard: (the info lines' `rule`, whose `total` is each seat's count; its heading),
    e.g. DrukUNO's ("sips", "Sips")."""
    scores_explained: ClassVar[str] = ("Points this round, with the match total in brackets; "
                                       "the {wins} total wins.")
    """The report's words under the scores table ({wins}: highest or lowest)."""
    instick_on_own_turn: ClassVar[bool] = True
    """B7 decision: the top card's twin is an instick whoever plays it, also on the player's own
    turn. False where a twin laid by the turn holder is simply its play (DrukUNO)."""
    bruno_call: ClassVar[bool] = True
    """B6: "Bruno" is this game's call at one card, after which the draw is silent (a "pass"
    is a wrong call). False where "Bruno" means nothing (the games built on standard UNO,
    which also end a turn by their own draw rule, `after_draw`)."""
    words: ClassVar[Words] = BRUNO_WORDS
    """What the game calls things (its name, its instick), for every message and display."""
    rule_texts: ClassVar[dict[str, str]] = BRUNO_RULE_TEXTS
    """The game's own rule ids -> the report's summary of each (`rule_text`)."""

    @classmethod
    def rule_text(cls, ref: str) -> str:
        """The summary of rule `ref` of this game; an id the game shares with the one it is
        built on is that game's. '' for an id no game here has."""
        for game in cls.__mro__:
            texts = getattr(game, "rule_texts", None)
            if texts is not None and ref in texts:
                return texts[ref]
        return ""

    def __init__(self, players: int, dealer: int = 0, rules: RuleSet | None = None) -> None:
        if not 2 <= players <= 10:
            raise ValueError(f"players must be 2..10, got {players}")
        if not 0 <= dealer < players:
            raise ValueError(f"dealer must be a seat 0..{players - 1}, got {dealer}")
        self.players = players
        self.dealer = dealer
        self.first_dealer = dealer
        """Who dealt the first round (`dealer` moves on at each round's end): a correction
        rules the whole history again from here."""
        self.rules = rules if rules is not None else self.default_rules
        self.state = TableState(owed_draws=[0] * players)
        self.scoreboard = Scoreboard(players, highest_wins=self.highest_total_wins)
        self.owed_penalties: list[int] = [0] * players
        self.on_bruno: set[int] = set()
        """Seats that said "Bruno" (one card left) and have not played or drawn since."""
        self.bruno_drawers: dict[int, int] = {}
        """Seats that took the silent Bruno draw (B6), until they play or their next turn, with
        how many cards of it they have taken."""
        self.obligations: list[KnockObligation] = []
        self.free_knocks: list[float] = []
        self.early_color: ColorNamed | None = None
        self.match_over = False
        self._card_sure = True
        """Whether the card being judged was read surely enough for a ruling to rest on it."""
        self._card_confidence = 1.0
        """How sure the camera is of the card being judged: its reading and its seat, the
        lesser of the two (1 when the camera gave neither)."""
        self._card_alternatives: tuple[Card, ...] = ()
        """What else the camera said the card being judged might be."""
        self._against: tuple[float, tuple[Card, ...]] = (1.0, ())
        """The top card's reading the card being judged lands on: (confidence, alternatives)."""
        self._own_twin: tuple[int, float] | None = None
        """(pile id, t) of the latest instick that its seat laid less than LATE_CARD_S after it
        laid the same card: perhaps that card seen twice (`_read_again`)."""
        self._recent_cards: list[tuple[float, int | None, Card]] = []
        """(t, seat, card) of the cards laid in the last LATE_CARD_S."""
        self.loud_spans: list[tuple[float, float]] = []
        """Recent loud moments (start, end): a knock in them may have gone unheard."""
        self._clock = _Clock()
        self._pile = _Pile()
        self._handlers = {kind: getattr(self, "_on_" + kind) for kind in EVENT_KINDS
                          if kind not in CORRECTION_KINDS}

    # --- public API ----------------------------------------------------------------------

    @property
    def now(self) -> float:
        return self._clock.now

    @property
    def paused(self) -> bool:
        return self._clock.paused_at is not None

    def observe(self, event: Event) -> list[Ruling]:
        """Rule on one observation. Deadlines that passed before it fire first. Corrections
        (`correct`, `undo`) amend what was said, so they go through a `Session`."""
        out: list[Ruling] = []
        self._fire_deadlines(event.t, inclusive=False, out=out)
        if event.t > self._clock.now:
            self._clock.now = event.t
        meant = self.read_as(event)
        if meant is None:
            return out
        self.notice(meant, out)
        self._handlers[meant.kind](meant, out)
        return out

    def advance(self, t: float) -> list[Ruling]:
        """Move the clock to `t`: every deadline at or before `t` fires."""
        out: list[Ruling] = []
        self._fire_deadlines(t, inclusive=True, out=out)
        self._clock.now = max(self._clock.now, t)
        return out

    def advance_before(self, t: float) -> list[Ruling]:
        """Fire the deadlines strictly before `t` (used by the reorder buffer, which may still
        release an event stamped exactly `t`)."""
        out: list[Ruling] = []
        self._fire_deadlines(t, inclusive=False, out=out)
        return out

    # --- rule hooks (variants override these) --------------------------------------------

    def matches(self, card: Card) -> bool:
        """B2: same colour, same value, or black. Anything goes on an empty pile or on a wild
        whose colour was not named yet (the next card sets it)."""
        s = self.state
        if s.top is None or card.is_black:
            return True
        if s.active_color is None:
            return s.top.is_black or card.value == s.top.value
        return card.color == s.active_color or card.value == s.top.value

    def is_instick(self, card: Card) -> bool:
        """B7/B8: exactly identical to the top card, or a zero on a zero of any colour."""
        top = self.state.top
        if top is None:
            return False
        if card == top:
            return True
        return self.rules.zero_instick_any_color and card.is_zero and top.is_zero

    def knock_ref(self, card: Card, instick: bool) -> str | None:
        """The rule that makes this card need a knock (B7 instick, B8 zero), or None."""
        if card.is_zero:
            return "B8"
        return "B7" if instick else None

    def second_card_rule(self, seat: int, card: Card) -> tuple[str, str]:
        """B4/B5: the ruling for a second card from the seat that just played its turn."""
        for played in self.state.streak_cards:
            if played.is_number and not played.is_zero and played.value == card.value \
                    and played.color != card.color:
                return "same_number_two_colors", "B5"
        return "out_of_turn", "B4"

    def reverse_skips(self, card: Card) -> bool:
        """Whether `card` is a reverse that acts as a skip (B3 decision: with two players)."""
        return card.value == "reverse" and self.players == 2 \
            and self.rules.two_player_reverse_skips

    def turns_round(self, card: Card) -> bool:
        """Whether `card` turns the direction of play round (B3: a reverse, unless it skips)."""
        return card.value == "reverse" and not self.reverse_skips(card)

    def apply_effect(self, seat: int, card: Card, t: float, out: list[Ruling]) -> None:
        """B3: the card's effect, played by `seat`; then the next turn begins."""
        n = self.players
        direction = self.state.direction
        skips = card.skips_next or self.reverse_skips(card)
        if self.turns_round(card):
            direction = -direction
            self.state.direction = direction
        following = (seat + direction) % n
        # Where the turn would go were play the other way round (a reverse missed or doubted).
        other_way = (seat - direction) % n
        victim_if_reversed = None
        if skips:
            victim = following
            if card.draw_count:
                self._owe_draw(victim, card.draw_count, t, out)
                victim_if_reversed = (victim, other_way, card.draw_count)
            following = (victim + direction) % n
            other_way = (other_way - direction) % n
        self._begin_turn(following, t, out)
        self.state.turn_if_reversed = other_way
        self.state.victim_if_reversed = victim_if_reversed

    def seat_after(self, seat: int, card: Card) -> int:
        """The seat that plays next after `seat` plays `card` (what `apply_effect` does to the
        turn, without doing it)."""
        n, direction = self.players, self.state.direction
        skips = card.skips_next or self.reverse_skips(card)
        if self.turns_round(card):
            direction = -direction
        following = (seat + direction) % n
        return (following + direction) % n if skips else following

    def apply_first_card(self, card: Card, t: float, out: list[Ruling]) -> None:
        """B1: the dealer's turned card acts as if an invisible player in the dealer's seat
        played it; a reverse makes the dealer play first."""
        if self.turns_round(card):
            self.state.direction = -self.state.direction
            self._begin_turn(self.dealer, t, out)
            return
        self.apply_effect(self.dealer, card, t, out)

    def on_instick(self, seat: int, card: Card) -> None:
        """Called for an instick by a seen seat, before the card's effect applies from the
        jumper. Bruno (B9): the inserting player still takes the cards it owes, unless the
        table chose that an insert on a draw card passes the draw on."""
        if self.rules.draw_instick_passes_on and card.draw_count:
            owed = self.state.owed_draws
            owed[seat] = max(0, owed[seat] - card.draw_count)

    def on_unseen_instick(self, card: Card) -> None:
        """Called for an instick by a seat the camera did not see, after its card is laid:
        what the jump-in itself does to the game, whoever made it (Bruno: nothing more)."""

    def continues_play(self, seat: int, card: Card, t: float) -> bool:
        """Whether `card`, from the seat that has just played (whose turn it may no longer be),
        is one more card of that same play rather than a second card (DrukUNO's multi-card
        plays). Bruno: B4's pairs are insticks, and so are its zeros of other colours (b) while
        `zero_instick_any_color` is on; with it off, such a zero after the zeros the seat has
        just played is one more card of its turn."""
        s = self.state
        return not self.rules.zero_instick_any_color and card.is_zero \
            and seat == s.streak_seat and bool(s.streak_cards) \
            and all(c.is_zero and c.color != card.color for c in s.streak_cards)

    def play_on_from_instick(self, seat: int, card: Card, t: float, out: list[Ruling]) -> None:
        """After an instick by a seen seat has been laid: where play goes on. Bruno (B7): the
        card's effect applies from the jumper, and the seat after it plays next."""
        self.apply_effect(seat, card, t, out)

    def after_draw(self, seat: int, count: int, debts_paid: int, free_cards: int, t: float,
                   out: list[Ruling]) -> None:
        """After `seat` took `count` cards: `debts_paid` of them for draw cards, `free_cards`
        beyond its draw cards and penalties. Bruno (B6): a turn holder who took the silent
        Bruno draw has ended its turn."""
        s = self.state
        if seat == s.turn and free_cards and s.drawn_this_turn >= self.rules.bruno_draw_count:
            self._begin_turn(self._next_seat(seat), t, out, came_from=seat)

    def read_as(self, event: Event) -> Event | None:
        """What an observation means at this game's table, before anything rules on it: the
        event itself, one that says more (DrukUNO: a pool's victim reaching for the draw pile
        takes the whole pool, however many reaches the camera counts), or None when it says
        nothing new (the rest of those reaches)."""
        return event

    def notice(self, event: Event, out: list[Ruling]) -> None:
        """Called with every observation before the game rules on it, for a game that follows
        more of the table than Bruno does (DrukUNO counts the cards in each hand)."""

    def on_taken_back(self, seat: int | None, card: Card) -> None:
        """A card `seat` laid was taken back (seen, or assumed by P4), after the table was
        unwound."""

    def takes_swaps(self) -> bool:
        """Whether a `swap` event (two seats swapped hands) means anything here (DrukUNO's
        Warszawa 7); the dashboard offers one only then."""
        return False

    def round_over_message(self, winner: int | None) -> str:
        """The `round_over` line's words, the round's score already counted. Bruno: who went
        out."""
        return say.round_over(winner)

    def match_over_message(self, leaders: list[int], total: int) -> str:
        """The `match_over` line's words: who won, with what total."""
        return say.match_over(leaders, total)

    def illegal_card_message(self, seat: int | None, card: Card) -> str:
        """An `illegal_card` ruling's words: what the card does not match."""
        return say.illegal_card(seat, card, self.state.top, self.state.active_color)

    def score_message(self, seat: int, points: int, total: int) -> str:
        """A `score` line's words: the seat's points this round and in all."""
        return say.score(seat, points, total)

    def tally_changes(self, before: Game, t: float) -> list[Ruling]:
        """After a correction ruled the history again (this game) in place of `before`: the
        lines that bring the game's running count per seat (`tally`) to its new totals.
        Bruno keeps none."""
        return []

    def close_round(self, hands: dict[int, tuple[Card, ...]], winner: int | None, t: float,
                    out: list[Ruling]) -> None:
        """At the end of a round, after `judge_going_out` and before the round's score: what
        else the game says about the hands left. Bruno: nothing."""

    def score_hand(self, cards: tuple[Card, ...]) -> int:
        """S1/S2."""
        return hand_points(cards)

    def round_points(self, hands: dict[int, tuple[Card, ...]], winner: int | None
                     ) -> dict[int, int]:
        """What each seat scores for a round, from the cards left in each hand (S1), `winner`
        the one seat that went out (None when not one): Bruno counts every hand against its
        holder."""
        return {seat: self.score_hand(hands.get(seat, ())) for seat in range(self.players)}

    def announce_card(self, seat: int | None, card: Card, t: float, out: list[Ruling]) -> None:
        """After each card read surely (`seat`: who played it, as far as the referee knows):
        what the game says about it. Bruno says nothing more."""

    def judge_going_out(self, winner: int | None, t: float, out: list[Ruling]) -> None:
        """At the end of a round, before it is scored: rule on how `winner` went out. Bruno's
        B10 (going out on an instick needs its knock) is a knock obligation like any other."""

    @property
    def table_beneath(self) -> TableState | None:
        """The table as it was before the latest card came to rest (what a take-back restores)."""
        history = self._pile.history
        return history[-1][2] if history else None

    @property
    def card_beneath(self) -> Card | None:
        """The top card before the latest card came to rest (what a take-back uncovers)."""
        beneath = self.table_beneath
        return beneath.top if beneath else None

    def wrong_word(self, seat: int | None, word: str) -> str | None:
        """P1: the message when `word` is the wrong thing to say in this game, else None.
        Bruno: "UNO" is the wrong game's call."""
        return say.said_uno(seat) if word == "uno" else None

    # --- events --------------------------------------------------------------------------

    def _on_card(self, event: CardPlayed, out: list[Ruling]) -> None:
        card, t = event.card, event.t
        sure = event.confidence is None or event.confidence >= self.rules.min_card_confidence
        self._card_sure = sure
        self._card_confidence = min(
            1.0 if event.confidence is None else event.confidence,
            1.0 if event.seat_confidence is None else event.seat_confidence)
        self._card_alternatives = _cards(event.alternatives)
        self._against = (self.state.top_confidence, self.state.top_alternatives)
        early_color, self.early_color = self.early_color, None
        self._push(card)
        self._recent_cards = [c for c in self._recent_cards if t - c[0] <= LATE_CARD_S]
        self._recent_cards.append((t, event.seat, card))
        direction = self.state.direction
        if not self.state.in_round:
            self._start_round(card, t, out)
        else:
            self._judge_card(event, sure, out)
        # A card read unsure cannot be judged against, and its effect on the turn is a guess.
        self.state.top_sure = sure
        if self.state.top is card:  # (it lies on top: not taken back at once, say)
            self.state.top_confidence = 1.0 if event.confidence is None else event.confidence
            self.state.top_t = t
            self.state.top_alternatives = self._card_alternatives
        if not sure:
            self.state.turn_sure = False
            self.state.direction_doubt = 2  # the next card names the turn, the one after shows
            if event.seat is not None:
                self.state.may_owe = ((event.seat + direction) % self.players, 3)
        if card.is_black and early_color and t - early_color.t <= COLOR_BEFORE_CARD_S:
            self._on_color(early_color, out, t=t)
        if self.state.in_round and sure:
            self.announce_card(event.seat if event.seat is not None else self.state.top_seat,
                               card, t, out)

    def _judge_card(self, event: CardPlayed, sure: bool, out: list[Ruling]) -> None:
        card, seat, t = event.card, event.seat, event.t
        if seat is not None:
            self.on_bruno.discard(seat)
            self.bruno_drawers.pop(seat, None)
        if sure and seat is not None:
            self._take_back_unseen(seat, card, t, out)
            self._never_there(seat, card, t, out)
            self._read_again(seat, card, t, out)
        doubt = self.state.direction_doubt
        # A card from the seat both directions expect says nothing about which one it is.
        tells_apart = self.state.turn_if_reversed not in (None, self.state.turn)
        # One more card of the play its seat just made: judged before anything else, so that
        # a multi-card play is never taken for an instick or a card out of turn.
        continues = sure and seat is not None and self.continues_play(seat, card, t)
        instick = not continues and self.is_instick(card) \
            and (self.state.top_sure or card.is_zero) \
            and (self.instick_on_own_turn or seat is None or seat != self.state.turn)
        if continues:
            self._turn_play(seat, card, t, out)
        elif instick:
            # (A card read unsure cannot be known to be its twin: then it is judged as a play.)
            self._instick(seat, card, t, out)
        elif seat is None:
            self._unseen_play(card, t, sure, out)
        elif self.state.turn is None or seat == self.state.turn \
                or self._resynchronise(seat, card, t, out):
            if not (sure and self.state.top_sure and not self.matches(card)):
                self._turn_play(seat, card, t, out)
            else:
                self._illegal_play(seat, card, t, out)
        elif not sure:
            # Misread, it may be the top card's twin (an instick): no penalty rests on it, and
            # whose turn it is now is a guess.
            self._lay(seat, card, streak=False)
        elif seat == self.state.streak_seat:
            rule, ref = self.second_card_rule(seat, card)
            self._erroneous_card(seat, card, t, rule, ref, out)
        else:
            self._erroneous_card(seat, card, t, "out_of_turn", "P2", out)
        # An instick shows nothing about the direction (both ways, its effect is the same):
        # the doubt lasts to the next card played in turn that tells the directions apart.
        if not instick and tells_apart and self.state.direction_doubt == doubt:
            self.state.direction_doubt = max(0, doubt - 1)
        may_owe = self.state.may_owe
        if may_owe is not None and not instick:
            self.state.may_owe = (may_owe[0], may_owe[1] - 1) if may_owe[1] > 1 else None

    def _on_card_removed(self, event: CardRemoved, out: list[Ruling]) -> None:
        history = self._pile.history
        if not history or history[-1][1] != event.card or self.state.top != event.card:
            return  # not the top card: a misreading, nothing to unwind
        before = self._take_top_off(laid_by=self.state.top_seat)
        # The turn goes back to whoever had it, on a fresh clock: its old clock ran out while
        # the card lay on the pile, and a SEG dated before the take-back would be news from
        # the past.
        before.turn_started = max(before.turn_started, event.t)
        if before.in_round and before.turn is not None:
            out.append(info(event.t, "turn", before.turn,
                            say.taken_back(event.card, before.turn)))

    def _on_knock(self, event: Knock, out: list[Ruling]) -> None:
        t = event.t
        # B11: while the table is stopped the windows stand still, so a knock heard then
        # counts (their deadlines move on only at GO).
        paused = self._clock.paused_at is not None
        for obligation in self.obligations:  # oldest card first: it gets the knock
            if obligation.opens - TIME_SLACK_S <= t and (
                    paused or t <= obligation.deadline + TIME_SLACK_S):
                self.obligations.remove(obligation)
                return
        # No card needs it yet: a card coming to rest just after it may (knock_before_s), or,
        # as a doubt, a card the camera saw come to rest late (LATE_CARD_S).
        horizon = t - max(self.rules.knock_before_s, LATE_CARD_S) - TIME_SLACK_S
        self.free_knocks = [k for k in self.free_knocks if k >= horizon]
        self.free_knocks.append(t)

    def _on_loud(self, event: Loud, out: list[Ruling]) -> None:
        # Only the spans a knock window still open could overlap are worth keeping.
        horizon = event.t - self.rules.knock_before_s - self.rules.knock_after_s
        self.loud_spans = [s for s in self.loud_spans if s[1] >= horizon]
        self.loud_spans.append((event.t, event.t + event.duration))

    def _on_draw(self, event: Draw, out: list[Ruling]) -> None:
        seat, s = event.seat, self.state
        if seat is None or not s.in_round:
            return
        if seat == s.turn:
            # The turn holder takes a card as the turn stands with the instick its seat just
            # laid on its own card: the table took that instick as laid, not as one card seen
            # twice (`_read_again`; a "pass" unheard after it had turned play round again).
            self._own_twin = None
        if s.may_owe is not None and s.may_owe[0] is None and s.top_seat is None \
                and s.top is not None and s.top.draw_count \
                and event.count > s.owed_draws[seat] + self.owed_penalties[seat]:
            # The first seat to take more than it owes after an unseen seat's instick on a
            # draw card is that card's victim: its draws no longer hide anyone's turn.
            s.may_owe = None
            self._owe_draw(seat, s.top.draw_count, event.t, out)
        last_victim = s.victim_if_reversed[0] if s.victim_if_reversed else None
        debt_unknown = s.may_owe is not None and s.may_owe[0] in (None, seat)
        if seat != s.turn and seat != last_victim and not debt_unknown \
                and event.count > s.owed_draws[seat] + self.owed_penalties[seat]:
            # A card taken for nothing owed is a turn's B6 draw: perhaps the referee missed
            # how the turn came to this seat. (Not so for the seat the last draw card hit, or
            # one a card read unsure may have hit: it may owe more than the referee knows.)
            if s.turn is not None and seat == self._next_seat(s.turn):
                s.next_seat_took += event.count
            self._acts_in_turn(seat, event.t, out, drawing=True)
            s = self.state
        remaining = event.count
        owed = s.owed_draws
        taken = min(remaining, owed[seat])
        owed[seat] -= taken
        remaining -= taken
        beyond_debts = remaining
        taken = min(remaining, self.owed_penalties[seat])
        self.owed_penalties[seat] -= taken
        remaining -= taken
        drawn_on_bruno = self.bruno_drawers.get(seat)
        if seat in self.on_bruno:
            self.on_bruno.discard(seat)
            if remaining:  # the silent Bruno draw, not cards a draw card or a penalty cost
                self.bruno_drawers[seat] = remaining
        elif drawn_on_bruno is not None and remaining:
            if drawn_on_bruno >= self.rules.bruno_draw_count:
                # Its silent draw was whole: a card beyond it is a later turn's, even when the
                # referee did not see that turn begin (an unseen seat's card left it unsure).
                del self.bruno_drawers[seat]
            else:
                self.bruno_drawers[seat] = drawn_on_bruno + remaining
        if seat == s.turn:
            if not debt_unknown:  # (cards it may owe are no silent Bruno draw)
                s.drawn_this_turn += remaining
            s.took_cards_this_turn += beyond_debts
        self.after_draw(seat, event.count, event.count - beyond_debts, remaining, event.t, out)

    def _on_call(self, event: Call, out: list[Ruling]) -> None:
        word, seat, t = event.word, event.seat, event.t
        if word == "stop":
            if self._clock.paused_at is None:
                self._clock.paused_at = t
        elif word == "go":
            self._resume(t)
        elif word == "bruno":
            if seat is not None and self.bruno_call:
                self.on_bruno.add(seat)
        elif self.wrong_word(seat, word) is not None:
            self._penalise(t, "wrong_call", seat, None, "P1", self.wrong_word(seat, word), out)
        elif word == "pass":
            self._pass(seat, t, out)
        elif word == "seg":
            turn = self.state.turn
            # A game without SEG (its words name no slow call: uno, snabb, druk) rules
            # slowness only when the table set `seg_after_s` (uno.md U6).
            has_seg = self.words.slow_call is not None or self.rules.seg_after_s is not None
            if has_seg and self.state.in_round and turn is not None and seat != turn:
                self._too_slow(turn, t, out)

    def _on_color(self, event: ColorNamed, out: list[Ruling], t: float | None = None) -> None:
        """A colour named: the top wild's, or one about to land (`t`: it landed, at `t`).
        Another seat's colour once the top wild's player has named one is for that seat's
        own wild, about to land (B2: the colour is the one the wild's player names)."""
        s = self.state
        for_next = t is None and s.active_color is not None and event.seat is not None \
            and s.top_seat is not None and event.seat != s.top_seat
        if not s.in_round or s.top is None or not s.top.is_black or for_next:
            self.early_color = event  # perhaps for a wild about to land
            return
        s.active_color = event.color
        out.append(info(event.t if t is None else t, "color", event.seat,
                        say.color_named(event.color), color=event.color.value))

    def _on_swap(self, event: Swap, out: list[Ruling]) -> None:
        """Two seats swapped hands (DrukUNO's Warszawa 7): nothing in the cards on the pile
        changes, so only a game that follows the hands (`notice`) takes it in."""

    def _on_round_end(self, event: RoundEnd, out: list[Ruling]) -> None:
        t = event.t
        hands = dict(event.hands)
        out_seats = [seat for seat, cards in hands.items() if not cards]
        winner = out_seats[0] if len(out_seats) == 1 else None
        points = self.round_points(hands, winner)
        self.scoreboard.add_round(points)
        self.judge_going_out(winner, t, out)
        self.close_round(hands, winner, t, out)
        out.append(info(t, "round_over", winner, self.round_over_message(winner)))
        for seat in range(self.players):
            total = self.scoreboard.totals[seat]
            out.append(info(t, "score", seat, self.score_message(seat, points[seat], total),
                            points=points[seat], total=total))
        if not self.match_over and self.scoreboard.is_over(self.rules.rounds,
                                                           self.rules.target_score):
            self.match_over = True
            leaders = self.scoreboard.leaders()
            leader = leaders[0] if len(leaders) == 1 else None
            out.append(info(t, "match_over", leader,
                            self.match_over_message(leaders, self.scoreboard.totals[leaders[0]])))
        # The next round: the deal passes clockwise; open knock windows still close as usual.
        self.dealer = (self.dealer + 1) % self.players
        self.state = TableState(owed_draws=[0] * self.players)
        self._pile.history.clear()
        self.on_bruno.clear()
        self.bruno_drawers.clear()
        self.owed_penalties = [0] * self.players

    # --- plays ---------------------------------------------------------------------------

    def _start_round(self, card: Card, t: float, out: list[Ruling]) -> None:
        self.state = TableState(in_round=True, top=card, top_seat=self.dealer,
                                active_color=card.color, owed_draws=[0] * self.players)
        if self.rules.first_card_needs_knock and card.is_zero:
            self._require_knock(self.dealer, card, t, "B8", instick=False)
        self.apply_first_card(card, t, out)

    def _turn_play(self, seat: int, card: Card, t: float, out: list[Ruling]) -> None:
        self._lay(seat, card, streak=True)
        ref = self.knock_ref(card, instick=False)
        if ref:
            self._require_knock(seat, card, t, ref, instick=False)
        self.apply_effect(seat, card, t, out)

    def _instick(self, seat: int | None, card: Card, t: float, out: list[Ruling]) -> None:
        if seat is not None and self._turn_card_seen_late(seat, card, t, out):
            return
        ref = self.knock_ref(card, instick=True)
        if ref:  # (in Bruno always: B7, or B8 for a zero; a variant may need no knock)
            self._require_knock(seat, card, t, ref, instick=True)
        out.append(info(t, "instick", seat, say.instick(seat, card, self.words), card=card.token))
        if seat is None:
            # Play continues after the jumper, whom the camera did not see: the next card
            # tells whose turn it is.
            self._lay(None, card, streak=False)
            self._unseen_jumper_plays(card)
            self.state.turn = None
            return
        if (seat, card) in ((laid_by, laid) for _, laid_by, laid in self._recent_cards[:-1]):
            self._own_twin = (self._pile.next_id - 1, t)
        self.on_instick(seat, card)
        self._lay(seat, card, streak=True)
        self.play_on_from_instick(seat, card, t, out)

    def _unseen_jumper_plays(self, card: Card) -> None:
        """What an instick of `card` by a seat the camera did not see does to the game: whom
        a draw card made owe is not known, a reverse turns play round (B3), and the game's own
        hook (`on_unseen_instick`)."""
        if card.draw_count:
            self.state.may_owe = (None, 2)
        if self.turns_round(card):
            self.state.direction = -self.state.direction
        self.on_unseen_instick(card)

    def _take_free_knock(self, since: float, until: float = float("inf"),
                         latest: bool = False) -> bool:
        """Take a knock no card took, heard from `since` to `until` (the first such, or with
        `latest` the last) for a card; whether there was one."""
        heard = [k for k in self.free_knocks if since <= k <= until]
        if not heard:
            return False
        self.free_knocks.remove(heard[-1] if latest else heard[0])
        return True

    def _judged_confidence(self, card: Card) -> float:
        """How sure a ruling on `card` judged against the pile is: no surer than the card's
        reading and seat, nor than the top card's reading it lands on; and a check
        (`ANOTHER_READING_CONFIDENCE`) when what else the camera said either card might be
        makes the card legal (a yellow 7 read for a red 7 on a red 5; a penalty on a misread
        top card was announced at 1.0 and the next one too)."""
        against_confidence, against_alternatives = self._against
        confidence = min(self._card_confidence, against_confidence)
        if self._fits_beneath_an_erroneous_top(card):
            confidence = min(confidence, ANOTHER_READING_CONFIDENCE)
        if any(self.matches(other) or self.is_instick(other)
               for other in self._card_alternatives):
            confidence = min(confidence, ANOTHER_READING_CONFIDENCE)
        for other in against_alternatives:
            with self._as_if(replace(self.state, top=other, active_color=other.color)):
                if self.matches(card) or self.is_instick(card):
                    confidence = min(confidence, ANOTHER_READING_CONFIDENCE)
        return confidence

    def _unseen_play(self, card: Card, t: float, sure: bool, out: list[Ruling]) -> None:
        """A card from a seat the camera could not see: judged on what is known. It is taken
        as the turn holder's play; an error is announced without pinning it on anyone."""
        turn = self.state.turn
        if sure and self.state.top_sure and not self.matches(card):
            self._penalise(t, "illegal_card", None, card, "B2",
                           self.illegal_card_message(None, card),
                           out, self._judged_confidence(card))
        elif turn is not None:
            ref = self.knock_ref(card, instick=False)
            if ref:
                self._require_knock(turn, card, t, ref, instick=False)
        self._lay(None, card, streak=False)
        if turn is not None:
            self.apply_effect(turn, card, t, out)

    def _illegal_play(self, seat: int, card: Card, t: float, out: list[Ruling]) -> None:
        """P4: a wrong card on one's own turn stays, counts as the play, and takes effect."""
        self._penalise(t, "illegal_card", seat, card, "B2",
                       self.illegal_card_message(seat, card), out,
                       self._judged_confidence(card))
        self._lay(seat, card, streak=True)
        self.apply_effect(seat, card, t, out)
        self.state.top_offence = "illegal_card"

    def _erroneous_card(self, seat: int, card: Card, t: float, rule: str, ref: str,
                        out: list[Ruling]) -> None:
        """P4: a card out of turn stays on top (later cards must match it), its effect does
        not apply, and the turn stays where it was."""
        if rule == "same_number_two_colors":
            message, confidence = say.same_number(seat, card), self._judged_confidence(card)
        else:
            message = say.out_of_turn(seat, card, self.state.turn)
            confidence = self._off_turn_confidence(seat, card)
        self._penalise(t, rule, seat, card, ref, message, out, confidence)
        if rule == "out_of_turn":
            self._doubt_direction(seat, card)
        self._lay(seat, card, streak=False)
        self.state.top_offence = rule

    def _pass(self, seat: int | None, t: float, out: list[Ruling]) -> None:
        turn = self.state.turn
        if not self.state.in_round:
            return
        speaker = seat if seat is not None else turn
        if speaker is not None and (speaker in self.on_bruno or speaker in self.bruno_drawers):
            # B6: on Bruno the draw is silent; saying "pass" costs a penalty.
            self._penalise(t, "wrong_call", speaker, None, "P1",
                           say.said_pass_on_bruno(speaker), out)
            self.bruno_drawers.pop(speaker, None)
        if seat is not None and seat != turn:
            self._acts_in_turn(seat, t, out)  # perhaps the turn came to it unseen
            turn = self.state.turn
        if turn is not None and seat in (None, turn):
            self._begin_turn(self._next_seat(turn), t, out, came_from=turn)

    # --- state helpers -------------------------------------------------------------------

    def _push(self, card: Card) -> None:
        pile = self._pile
        pile.history.append((pile.next_id, card, self.state.snapshot()))
        pile.next_id += 1
        if len(pile.history) > HISTORY_DEPTH:
            del pile.history[0]

    def _lay(self, seat: int | None, card: Card, streak: bool) -> None:
        s = self.state
        if streak and seat is not None and seat == s.streak_seat:
            streak_cards = (*s.streak_cards, card)
        elif streak:
            streak_cards = (card,)
        else:
            streak_cards = ()
        s.top, s.top_seat, s.active_color = card, seat, card.color
        s.streak_seat, s.streak_cards = (seat if streak else None), streak_cards
        s.top_offence = None
        s.turn_if_reversed = s.victim_if_reversed = None  # a play's effect sets them anew

    def _next_seat(self, seat: int) -> int:
        return (seat + self.state.direction) % self.players

    def _begin_turn(self, seat: int, t: float, out: list[Ruling],
                    came_from: int | None = None) -> None:
        """`seat` is to play; `came_from` is the seat whose turn passed on to it without a
        card (a pass, SEG, the Bruno draw), if so."""
        s = self.state
        s.turn_if_reversed = None if came_from is None else (came_from - s.direction) % self.players
        s.victim_if_reversed = None
        self.bruno_drawers.pop(seat, None)
        if seat == s.streak_seat:
            # A seat whose turn comes round again (two players, a skip) starts a fresh turn.
            s.streak_seat, s.streak_cards = None, ()
        s.turn, s.turn_started, s.drawn_this_turn = seat, t, 0
        s.took_cards_this_turn, s.turn_sure, s.next_seat_took = 0, True, 0
        out.append(info(t, "turn", seat, say.turn(seat)))

    def _owe_draw(self, seat: int, count: int, t: float, out: list[Ruling]) -> None:
        if not self._card_sure:
            # A draw card read unsure may be no draw card: a debt it never made would swallow
            # the seat's own draws later. If it was one, the victim's draws show it (the next
            # seat plays after them: an implied pass).
            return
        self.state.owed_draws[seat] += count
        out.append(info(t, "draw_due", seat, say.draw_due(seat, count), count=count))

    def _penalise(self, t: float, rule: str, seat: int | None, card: Card | None, ref: str,
                  message: str, out: list[Ruling], confidence: float = 1.0,
                  cards: int | None = None) -> None:
        if not self.gives_penalties:
            return
        cards = self.rules.penalty_cards if cards is None else cards
        if seat is not None:
            self.owed_penalties[seat] += cards
        out.append(penalty(t, rule, seat, cards, card.token if card else None,
                           self.rule_refs.get(ref, ref),
                           message + say.penalty_suffix(seat, cards), confidence))

    def _require_knock(self, seat: int | None, card: Card, t: float, ref: str,
                       instick: bool) -> None:
        # Whether a card needs a knock depends on which card it is (a zero, the top card's
        # twin): an unsure reading owes none, so a misread card never costs a missed knock.
        if not self.rules.check_knocks or not self._card_sure:
            return
        opens = t - self.rules.knock_before_s
        # An instick is one because of the top card it lands on: no surer than its reading.
        obligation = KnockObligation(
            card=card, seat=seat, card_t=t, opens=opens, deadline=t + self.rules.knock_after_s,
            pile_id=self._pile.next_id - 1, ref=ref, instick=instick,
            confidence=self._judged_confidence(card) if instick and not card.is_zero
            else self._card_confidence,
        )
        if self._take_free_knock(opens - TIME_SLACK_S):
            return  # heard just before the card: it counts for it
        self.obligations.append(obligation)

    def _too_slow(self, seat: int, t: float, out: list[Ruling]) -> None:
        self._penalise(t, "too_slow", seat, None, "P3", say.too_slow(seat, self.words), out)
        self._begin_turn(self._next_seat(seat), t, out, came_from=seat)

    def _resume(self, t: float) -> None:
        paused_at = self._clock.paused_at
        if paused_at is None:
            return
        self._clock.paused_at = None
        # B11: the clocks stood still between STOP and GO, so every deadline moves on.
        shift = max(0.0, t - paused_at)
        for obligation in self.obligations:
            obligation.deadline += shift
        self.state.turn_started += shift

    # --- deadlines -----------------------------------------------------------------------

    def _seg_deadline(self) -> float | None:
        s = self.state
        if self.rules.seg_after_s is None or not s.in_round or s.turn is None:
            return None
        return s.turn_started + self.rules.seg_after_s

    def _fire_deadlines(self, t: float, inclusive: bool, out: list[Ruling]) -> None:
        """Fire every deadline before `t` (or at it, when inclusive), earliest first."""
        if self._clock.paused_at is not None:
            return
        seg = self._seg_deadline()
        if not self.obligations and (seg is None or seg > t):
            return  # the common case: nothing is due
        while True:
            # (A knock stamped a float's rounding past its window's end is in time.)
            due = [o for o in self.obligations
                   if o.deadline < t - TIME_SLACK_S or (inclusive and o.deadline <= t)]
            knock = min(due, key=lambda o: (o.deadline, o.card_t)) if due else None
            seg = self._seg_deadline()
            seg_due = seg is not None and (seg < t or (inclusive and seg == t))
            if knock is not None and (not seg_due or knock.deadline <= seg):
                self._missed_knock(knock, out)
            elif seg_due:
                self._too_slow(self.state.turn, seg, out)
            else:
                break

    def _missed_knock(self, obligation: KnockObligation, out: list[Ruling]) -> None:
        self.obligations.remove(obligation)
        confidence = obligation.confidence
        if any(start <= obligation.deadline and end >= obligation.opens
               for start, end in self.loud_spans):
            confidence = min(confidence, self.rules.loud_knock_confidence)
        # A knock no card took, heard shortly before the window: the card may have come to
        # rest that much before the camera saw it (a hand over it), and this its knock. (Any
        # knock from the window's opening on was taken when the card needed it.)
        if self._take_free_knock(obligation.card_t - LATE_CARD_S - TIME_SLACK_S,
                                 obligation.opens - TIME_SLACK_S, latest=True):
            confidence = min(confidence, self.rules.loud_knock_confidence)
        self._penalise(obligation.deadline, "missed_knock", obligation.seat,
                       obligation.card, obligation.ref,
                       say.missed_knock(obligation.seat, obligation.card, obligation.instick,
                                       self.words),
                       out, confidence)
