"""The draw watcher: one draw per reach into a draw pile, none for arms only passing."""

from __future__ import annotations

import pytest

from vision.arms import Arm
from vision.draw_watcher import DrawWatcher

from event_helpers import log_lines
from table_helpers import of_kind, watch

FPS = 30.0
DRAW_PILES = [(71, 29, 120, 78), (199, 29, 248, 78)]
PILE = (127, 68, 192, 133)
CARD_H = 32.4


def _arm(tip: tuple[float, float], angle: float = 90.0, seat: int | None = 0) -> Arm:
    return Arm((160.0, 179.0), tip, 1000.0, angle, seat)


def _feed(watcher: DrawWatcher, path: list[tuple[float, float] | None], start: int = 0,
          ) -> tuple[list[dict], int]:
    """Frames of one arm from the bottom seat whose tip follows `path` (None: no arm)."""
    events = []
    for i, tip in enumerate(path):
        arms = [] if tip is None else [_arm(tip)]
        events += log_lines(watcher.update((start + i) / FPS, arms))
    return events, start + len(path)


def test_a_seat_that_played_and_came_back_to_draw_draws():
    # The arm plays (its tip at the discard pile for 10 frames), leaves the picture for
    # 0.4 s and comes back to rest on a draw pile: a new movement, so a draw, though it was
    # at the discard pile less than PLAYING_ARM_MEMORY_S before.
    watcher = DrawWatcher(DRAW_PILES, CARD_H, pile_px=PILE)
    played, n = _feed(watcher, [(160.0, 100.0)] * 10 + [None] * 12)
    drew, n = _feed(watcher, [(95.0, 50.0)] * 8 + [None] * 6, n)
    assert played == []
    assert [(d["seat"], d["count"]) for d in drew] == [(0, 1)]
    assert drew[0]["t"] == pytest.approx(23 / FPS, abs=1e-3)


def test_an_arm_crossing_a_draw_pile_straight_from_the_discard_pile_draws_nothing():
    # The same arm, never out of the picture: it is on its way out from playing.
    watcher = DrawWatcher(DRAW_PILES, CARD_H, pile_px=PILE)
    events, _ = _feed(watcher, [(160.0, 100.0)] * 10 + [(95.0, 50.0)] * 8 + [None] * 6)
    assert events == []


def test_an_arm_withdrawing_from_its_draw_over_the_other_draw_pile_draws_once():
    # It draws from the left pile, then its tip lingers over the right one on the way out.
    watcher = DrawWatcher(DRAW_PILES, CARD_H, pile_px=PILE)
    events, _ = _feed(watcher, [(95.0, 50.0)] * 8 + [(160.0, 55.0)] * 2
                      + [(225.0, 55.0)] * 8 + [None] * 6)
    assert len(of_kind(events, "draw")) == 1
    assert events[0]["t"] == pytest.approx(1 / FPS, abs=1e-3)


@pytest.mark.parametrize("seed", [3, 5])
def test_a_seat_that_plays_and_then_draws_draws_once(seed):
    # Rendered: the seat plays, its arm leaves, and it comes back for a card. Before the
    # arms were followed as movements, seed 3 missed the draw (the rest was taken for the
    # arm on its way from playing) and seed 5 counted two.
    seat = seed % 4
    found, _ = watch({"players": 4, "seed": seed, "duration_s": 4.5,
                      "plays": [{"t": 1.0, "seat": seat, "card": "g_1", "linger_s": 0.1}],
                      "draws": [{"t": 2.4, "seat": seat}]})
    assert [c["seat"] for c in of_kind(found, "card")] == [seat]
    assert [(d["seat"], d["count"]) for d in of_kind(found, "draw")] == [(seat, 1)]


@pytest.mark.parametrize(("seed", "seat"), [(4, 3), (9, 1)])
def test_a_draw_from_the_far_draw_pile_is_one_draw(seed, seat):
    # Rendered: a side seat reaches the draw pile on the far side, its arm withdrawing over
    # the near one. Before, the tip left there made a second (phantom) draw.
    found, _ = watch({"players": 4, "seed": seed, "duration_s": 3.0,
                      "draws": [{"t": 1.0, "seat": seat}]})
    assert [(d["seat"], d["count"]) for d in of_kind(found, "draw")] == [(seat, 1)]


def test_an_arm_back_at_the_same_draw_pile_in_one_movement_is_another_draw():
    # Only the other draw pile is ruled out after a draw: a hand taking a second card from the
    # same pile, leaving its region in between, still counts twice (one draw per reach).
    watcher = DrawWatcher(DRAW_PILES, CARD_H, pile_px=PILE)
    events, _ = _feed(watcher, [(95.0, 50.0)] * 8 + [(95.0, 120.0)] * 6
                      + [(95.0, 50.0)] * 8 + [None] * 6)
    assert len(of_kind(events, "draw")) == 2
