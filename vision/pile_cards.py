"""A card the pile watcher confirmed, the readings of cards and how sure an unseen one must
read: kept apart so that the watcher and its mixins (`vision.pile_same_hand`,
`vision.pile_fan`) can all use them without importing each other."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class PlayedCard:
    """A confirmed card: its reading, seat, rest time, place and the pile before it."""

    card: str | None  # None while its reading waits for the hand to leave
    seat: int | None
    t_s: float
    hull: np.ndarray  # bool mask over the region
    before: np.ndarray  # reference before it came
    seat_share: float | None = None  # of the frames' votes, those that named `seat`
    caught_up_t: float = float("inf")
    """When the reference around it was caught up (a hand taken in with it is gone from it)."""
    landed_t: float | None = None
    """When it landed, where a hand hid it until after (`vision.pile_landing`): its event's
    `t`. The watcher's own windows keep `t_s`, when its patch came to rest as seen."""

    hands_before: list[tuple[int | None, float]] = field(default_factory=list)
    """Other seats whose hands stopped on its place after the card before it and before it
    landed, with when (`vision.pile_landing.hands_before`): each laid a card it covered."""

    @property
    def event_t(self) -> float:
        return self.t_s if self.landed_t is None else self.landed_t


def gap_s(later: float, earlier: float) -> float:
    """Seconds from `earlier` to `later`, rounded to a microsecond before any window is held
    against it: frame times are sums of frame durations, and a gap of exactly 0.3 s (nine
    frames at 30 fps) came out as 0.29999999999999982, closer than a window of 0.3 s."""
    return round(later - earlier, 6)


@dataclass(frozen=True)
class CardReading:
    card: str
    confidence: float
    runner_up: str | None = None


UNDER_GUESS_CONFIDENCE = 0.4
"""How sure a card no frame showed, laid by a hand that stopped on the pile just before the
next card covered it, is written: it is taken for the card that covered it (an instick's card
is identical), which it was for 15 of the 21 such cards that were real plays on the webcam games
301-306 and 311-316 (the others: a card played in turn, or the covering card misread). Kept
below the referee's bar (`RuleSet.min_card_confidence`, 0.5) on purpose: the referee counts it
as a play and moves the turn on, but judges no card it is unsure of, and an unsure card owes
no knock, so a wrong guess costs nobody a penalty."""


def guessed_confidence(covering: float | None) -> float:
    """How sure a card taken for the card of its jump-in chain is written: the covering
    card's confidence (None: sure), never over UNDER_GUESS_CONFIDENCE."""
    return round(min(UNDER_GUESS_CONFIDENCE, 1.0 if covering is None else covering), 3)


UNSEEN_READ_SURE = 0.8
"""A change no arm was seen bringing (seat None) is a play only when it reads at least this
sure: a card comes in a hand, and an arm the table's colour, not seen, lays a card that reads
as sure as any (rendered webcam games 301-306: the five such real cards read 0.998-1.0),
while a lamp's exposure step with a glare drifting towards the pile made two unnamed changes
that read 0.55 and 0.57 (game 306, 54.9 and 56.2 s)."""


def vote_readings(readings: list[CardReading]) -> CardReading | None:
    """The card whose readings' confidences add up highest (their mean over all readings is
    its confidence: discounted by the disagreement)."""
    if not readings:
        return None
    weight: dict[str, float] = {}
    for r in readings:
        weight[r.card] = weight.get(r.card, 0.0) + r.confidence
    card = max(weight, key=weight.__getitem__)  # on a tie, the first read
    chosen = [r for r in readings if r.card == card]
    confidence = float(np.mean([r.confidence for r in chosen])) * len(chosen) / len(readings)
    others = [r.card for r in readings if r.card != card]
    runner_up = others[0] if others else chosen[0].runner_up
    return CardReading(card, confidence, runner_up)


REMAINDER_READ_SURE = 0.45
"""A card that reads less sure than this, laid by the seat that laid the last card within
ADJUST_WINDOW_S, is the last card's remainder (`PileWatcher._remainder_of_last`); one by the
top card's seat over its place, half of which shows the pile before it, is that card taken back
(`TakeBacks._taken_back_by`). It was 0.2; on the webcam games 301-306 (second family, 3
December) three such changes read 0.24-0.27, all phantom plays (301 48.8 s, the part of a
nudged card its hand had covered; 302 5.5 s and 33.8 s), and no real card in 301-306 or 311-316
read under 0.45 after its seat's last card; the bar became 0.3. Raised to that 0.45 on 4
December (vision/NOTEBOOK.md): on webcam games 361-386 five phantom plays had read 0.31-0.42 after
their seat's last card, and one real card (a red 7 misread as a red 5, 0.37)."""


REST_MATCH = 0.6
"""A past frame shows a card at rest when this fraction of its patch matches (a lingering
hand may cover a third of it): the pile watcher's rest time, and how much of a card a hand may
still cover when it is seen at rest (`vision.pile_landing`)."""
