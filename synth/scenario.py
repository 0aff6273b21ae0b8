"""What happens in a piece of synthetic game footage: the scenario file, and random games.

A scenario is JSON:

    {"variant": "bruno", "players": 4, "dealer": 0, "seed": 7, "duration_s": 12.0,
     "plays": [{"t": 1.0, "seat": 0, "card": "y_1", "linger_s": 0.3, "adjust": false},
               {"t": 3.0, "seat": 1, "card": "b_2", "more": [{"card": "r_2", "after_s": 0.7}]},
               ...],
     "takebacks": [{"t": 5.0, "seat": 1}],
     "passes": [{"t": 7.0, "seat": 2, "dwell_s": 0.3, "short_cards": 0.0}],
     "knocks": [{"t": 4.6}],
     "draws": [{"t": 6.0, "seat": 3}],
     "lighting": [{"t": 8.0, "gain": 0.75}],
     "shadows": [{"t": 3.0, "duration_s": 2.0}]}

A play's `t` is when its card comes to rest on the pile (the ground truth the watcher is scored
against); the arm arrives before it and leaves `linger_s` after it. A play's `more` are cards
the same hand lays right after, each `after_s` after the one before (a multi-card play, fanned
or stacked; `"lay": "fanned"` spreads the cards along one direction, `"lay": "stacked"` puts each
squarely on the card before; an `after_s` under 0.3 s is a card put down with the one before, from
the same hand, in one motion): the arm stays over the pile in between, and each card is a play of
its own in the truth. `variant` is the game played (the truth's game line). A take-back's `t` is
when the top card leaves the pile; a draw's `t` when the hand touches the draw pile; a pass is a
hand that reaches over the pile at `t` (or stops `short_cards` card heights short of it, an arm
resting in view) and leaves `dwell_s` later without dropping anything. A `pair` is two identical
cards put down together (B4, B10), two truth events at one `t`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from referee.cards import ALL_TOKENS
from referee.variants import UnknownVariantError, find_variant

APPROACH_S = 0.5
"""An arm takes this long from the frame edge to the pile (or a draw pile)."""

WITHDRAW_S = 0.45
"""... and this long back out."""

DRAW_DWELL_S = 0.3
"""A hand rests this long on a draw pile while taking a card."""


class ScenarioError(ValueError):
    """A scenario file that cannot be used; the message names the field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MoreCard(_Strict):
    card: str
    after_s: float = Field(0.7, ge=0.05, le=1.5, description="laid this long after the card "
                           "before, by the same hand; under 0.3 s it was in the hand with it "
                           "(a fan put down in one motion), not brought in again")
    lay: Literal["fanned", "stacked"] = Field(
        "fanned", description="fanned: a little further along the play's fan than the card "
        "before; stacked: squarely on it")


class Play(_Strict):
    t: float = Field(..., ge=0)
    seat: int = Field(..., ge=0)
    card: str
    linger_s: float = Field(0.25, ge=0, le=5, description="hand stays over the pile after")
    adjust: bool = Field(False, description="the hand nudges the card while lingering")
    pair: bool = Field(False, description="two identical cards put down together")
    more: list[MoreCard] = Field(default_factory=list,
                                 description="cards the same hand lays right after this one")

    def last_t(self) -> float:
        """When the play's last card comes to rest."""
        return self.t + sum(more.after_s for more in self.more)


class TakeBack(_Strict):
    t: float = Field(..., ge=0)
    seat: int = Field(..., ge=0)


class Pass(_Strict):
    t: float = Field(..., ge=0)
    seat: int = Field(..., ge=0)
    dwell_s: float = Field(DRAW_DWELL_S, gt=0, le=10)
    short_cards: float = Field(0.0, ge=0, le=4, description="stops this far short of the pile")


class KnockAt(_Strict):
    t: float = Field(..., ge=0)


class DrawAt(_Strict):
    t: float = Field(..., ge=0)
    seat: int = Field(..., ge=0)


class LightChange(_Strict):
    t: float = Field(..., ge=0)
    gain: float = Field(..., gt=0.2, le=2.0)


class ShadowPass(_Strict):
    t: float = Field(..., ge=0)
    duration_s: float = Field(2.0, gt=0, le=30)


class Scenario(_Strict):
    variant: str = "bruno"
    players: int = Field(4, ge=2, le=10)
    dealer: int = Field(0, ge=0)
    seed: int = 0
    duration_s: float | None = Field(None, gt=0)
    plays: list[Play] = Field(default_factory=list)
    takebacks: list[TakeBack] = Field(default_factory=list)
    passes: list[Pass] = Field(default_factory=list)
    knocks: list[KnockAt] = Field(default_factory=list)
    draws: list[DrawAt] = Field(default_factory=list)
    lighting: list[LightChange] = Field(default_factory=list)
    shadows: list[ShadowPass] = Field(default_factory=list)

    def length_s(self) -> float:
        """Duration of the footage: as given, else one second after the last thing happens."""
        if self.duration_s is not None:
            return self.duration_s
        ends = [p.last_t() + p.linger_s + WITHDRAW_S for p in self.plays]
        ends += [k.t for k in self.knocks] + [d.t + DRAW_DWELL_S + WITHDRAW_S for d in self.draws]
        ends += [b.t + WITHDRAW_S for b in self.takebacks]
        ends += [b.t + b.dwell_s + WITHDRAW_S for b in self.passes]
        return max(ends, default=1.0) + 1.0

    def check(self) -> Scenario:
        for group in (self.plays, self.takebacks, self.draws, self.passes):
            for item in group:
                if item.seat >= self.players:
                    raise ScenarioError(f"seat {item.seat} at t={item.t} is not one of the "
                                        f"{self.players} seats")
        for play in self.plays:
            for token in (play.card, *(more.card for more in play.more)):
                if token not in ALL_TOKENS:
                    raise ScenarioError(f"unknown card {token!r} at t={play.t}")
        try:
            find_variant(self.variant)
        except UnknownVariantError as error:
            raise ScenarioError(str(error)) from None
        if self.dealer >= self.players:
            raise ScenarioError(f"dealer {self.dealer} is not one of the {self.players} seats")
        return self


def load_scenario(path: str | Path) -> Scenario:
    """Read and check a scenario file; ScenarioError names the problem."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Scenario.model_validate(data).check()
    except FileNotFoundError as error:
        raise ScenarioError(f"{path}: no such scenario file") from error
    except json.JSONDecodeError as error:
        raise ScenarioError(f"{path}: not valid JSON ({error.msg})") from error
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ScenarioError(f"{path}: field '{where}': {first['msg']}") from error


FAST_JUMP_GAP_S = (0.3, 0.7)
"""Fast hands (`random_scenario(fast_hands=True)`): an instick lands this long after the card
it matches (the usual games: 0.55-0.95 s)."""

FAST_PAIR_RATE = 0.06
"""... a turn's card is two identical cards put down together this often,"""

FAST_COVER_RATE = 0.1
"""... another seat's hand is over the pile when a card lands this often (it reached in
0.05-0.25 s before and stays 0.3-0.6 s),"""

FAST_BYSTANDER_RATE = 0.15
"""... and another seat's arm rests in view, 1.2-2 card heights short of the pile, while a
card is laid this often (two arms in the picture at once)."""


def random_scenario(seed: int, players: int | None = None, plays: int = 30,
                    jump_in_rate: float = 0.2, draw_rate: float = 0.25,
                    takeback_rate: float = 0.03, fast_hands: bool = False) -> Scenario:
    """A plausible game's footage plan: turns around the table, insticks (the same card by
    another seat less than a second after), draws, the odd take-back, lingering hands, cards
    nudged, a lighting change half-way and a couple of passing shadows.

    `fast_hands` (the webcam family): insticks closer (FAST_JUMP_GAP_S, so chains of them
    closer than 0.7 s), two identical cards put down at once, a card laid while another
    seat's hand covers the pile, and a second arm in view while a card is laid; drawn from a
    generator of their own, so the rest of the game is the same as without."""
    rng = np.random.default_rng(seed)
    extra = np.random.default_rng(seed + 50_000)
    jump_gap = FAST_JUMP_GAP_S if fast_hands else (0.55, 0.95)
    players = players or int(rng.integers(3, 7))
    dealer = int(rng.integers(players))
    t = 1.0
    seat = dealer
    top = ALL_TOKENS[int(rng.integers(len(ALL_TOKENS)))]
    out_plays: list[dict] = []
    knocks: list[dict] = []
    draws: list[dict] = []
    takebacks: list[dict] = []
    passes: list[dict] = []
    jump_next = False
    for i in range(plays):
        if i == 0:
            card = top
        elif jump_next:
            # An instick: the same card, by someone else, hard on the heels of the last play.
            seat = (seat + int(rng.integers(1, players))) % players
            card = top
            t = out_plays[-1]["t"] + float(rng.uniform(*jump_gap))
            knocks.append({"t": round(t + float(rng.uniform(0.15, 0.5)), 3)})
        else:
            seat = (seat + 1) % players
            card = ALL_TOKENS[int(rng.integers(len(ALL_TOKENS)))]
        jump_next = i + 1 < plays and bool(rng.random() < jump_in_rate)
        linger = float(rng.choice([0.1, 0.25, 0.4, 0.7, 1.1], p=[0.3, 0.3, 0.2, 0.12, 0.08]))
        if jump_next:
            linger = min(linger, 0.25)  # someone is about to jump in: no time to dawdle
        out_plays.append({"t": round(t, 3), "seat": seat, "card": card,
                          "linger_s": linger, "adjust": bool(rng.random() < 0.15)})
        if fast_hands:
            _fast_hands(extra, out_plays[-1], players, passes, first=i == 0, jump=jump_next)
        top = card
        if jump_next:
            continue
        t += linger + WITHDRAW_S + float(rng.uniform(0.5, 1.4))
        if i > 0 and rng.random() < takeback_rate:
            takebacks.append({"t": round(t, 3), "seat": seat})
            t += WITHDRAW_S + 1.0
            top = out_plays[-2]["card"] if len(out_plays) > 1 else top
        if rng.random() < draw_rate:
            drawer = int(rng.integers(players))
            draws.append({"t": round(t, 3), "seat": drawer})
            t += DRAW_DWELL_S + WITHDRAW_S + APPROACH_S + float(rng.uniform(0.3, 0.8))
        t += APPROACH_S
    duration = t + 1.0
    lighting = [{"t": round(duration * float(rng.uniform(0.4, 0.6)), 3),
                 "gain": float(rng.choice([0.7, 0.8, 1.2]))}]
    shadows = [{"t": round(float(rng.uniform(1, max(2.0, duration - 4))), 3),
                "duration_s": float(rng.uniform(1.5, 3.0))} for _ in range(2)]
    return Scenario.model_validate({
        "players": players, "dealer": dealer, "seed": seed, "duration_s": round(duration, 3),
        "plays": out_plays, "takebacks": takebacks, "knocks": knocks, "draws": draws,
        "passes": passes, "lighting": lighting, "shadows": shadows,
    }).check()


def _fast_hands(rng: np.random.Generator, play: dict, players: int, passes: list[dict],
                first: bool, jump: bool) -> None:
    """Maybe make `play` a pair, or add another seat's hand over the pile or arm in view."""
    other = (play["seat"] + int(rng.integers(1, players))) % players
    roll = float(rng.random())
    if not first and not jump and roll < FAST_PAIR_RATE:
        play["pair"] = True
    elif not first and roll < FAST_PAIR_RATE + FAST_COVER_RATE:
        passes.append({"t": round(play["t"] - float(rng.uniform(0.05, 0.25)), 3), "seat": other,
                       "dwell_s": round(float(rng.uniform(0.3, 0.6)), 3)})
    elif roll < FAST_PAIR_RATE + FAST_COVER_RATE + FAST_BYSTANDER_RATE:
        passes.append({"t": round(play["t"] - float(rng.uniform(0.3, 0.8)), 3), "seat": other,
                       "dwell_s": round(float(rng.uniform(0.8, 2.0)), 3),
                       "short_cards": round(float(rng.uniform(1.2, 2.0)), 2)})
