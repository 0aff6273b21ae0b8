"""A fan of cards put down in one motion (DrukUNO, issue 25) is split into its cards, bottom
first (`vision.pile_fan`). Drawn fans test the splitting itself; rendered clips of
`python -m evaluation.multi_card_plays`'s cases (its development seeds and others, never its
held-out seeds 4-6) test the watcher end to end."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from evaluation.multi_card_plays import CASES, case_scenario
from vision.card_readers import TruthReader
from vision.pile_fan import (
    CardRect,
    _one_card_explains,
    _takes_depth,
    fan_region,
    split_fan,
    top_card,
)

from table_helpers import of_kind, watch

CARD_LONG = 32.0
COLOURS = [(40, 40, 200), (40, 170, 40), (200, 90, 30), (30, 200, 220)]  # BGR: red, green...


def drawn_fan(steps: list[tuple[float, float]], angle: float = 20.0, blur: int = 0,
              size: int = 72, first: tuple[float, float] = (26.0, 30.0), turn_deg: float = 4.0,
              colours: list[tuple[int, int, int]] = COLOURS
              ) -> tuple[np.ndarray, np.ndarray, list[CardRect]]:
    """A grey table `size` pixels square with cards drawn bottom first (the first centred at
    `first`), each `steps[i]` = (card heights, degrees of direction) from the one before and
    turned `turn_deg` further: (image, changed mask, the cards' rectangles)."""
    table = np.full((size, size, 3), (110, 120, 115), np.float32)
    image = table.copy()
    centre = np.array(first)
    rects = [CardRect(tuple(centre), angle, CARD_LONG)]
    for step, direction in steps:
        centre = centre + step * CARD_LONG * np.array([math.cos(math.radians(direction)),
                                                       math.sin(math.radians(direction))])
        rects.append(CardRect(tuple(centre), angle + turn_deg * len(rects), CARD_LONG))
    for rect, colour in zip(rects, colours, strict=False):
        cv2.fillConvexPoly(image, np.round(rect.corners()).astype(np.int32), (235, 235, 235))
        inner = CardRect(rect.centre, rect.angle_deg, CARD_LONG - 5)
        cv2.fillConvexPoly(image, np.round(inner.corners()).astype(np.int32), colour)
    if blur:
        image = cv2.GaussianBlur(image, (0, 0), blur)
    changed = np.abs(image - table).sum(axis=2) > 60
    return image, changed, rects


@pytest.mark.parametrize("steps", [[(0.3, 10.0)], [(0.25, 100.0)], [(0.4, -60.0)]])
def test_a_fan_of_two_is_two_cards_in_the_order_laid(steps):
    image, changed, rects = drawn_fan(steps)
    region = fan_region(changed, CARD_LONG ** 2 * 2 / 3)
    fan = split_fan(image, region, changed, CARD_LONG)
    assert fan is not None and len(fan.cards) == 2
    for found, true in zip(fan.cards, rects, strict=True):  # bottom (laid first) first
        assert math.dist(found.centre, true.centre) <= 0.12 * CARD_LONG


def test_a_fan_of_three_is_three_cards_not_the_top_and_the_bottom():
    # The two strips left beside the top card are two colours: the rectangle spanning both is
    # the bottom card's, and taken first it left the middle card out (two cards found).
    image, changed, rects = drawn_fan([(0.22, 100.0), (0.22, 100.0)])
    region = fan_region(changed, CARD_LONG ** 2 * 2 / 3)
    fan = split_fan(image, region, changed, CARD_LONG)
    assert fan is not None and len(fan.cards) == 3
    for found, true in zip(fan.cards, rects, strict=True):
        assert math.dist(found.centre, true.centre) <= 0.12 * CARD_LONG


def test_a_fan_of_four_is_four_cards():
    # Three strips beside the top card: the card right under it shows one of them and fits
    # the three poorly, so the walk down the fan stopped at the top card (no fan). A walk that
    # leaves the strips further along to the cards further down explains the whole patch.
    image, changed, rects = drawn_fan([(0.3, -60.0)] * 3, size=96, first=(40.8, 60.5),
                                      turn_deg=3.0, colours=[COLOURS[0], COLOURS[1],
                                                             COLOURS[3], COLOURS[2]])
    region = fan_region(changed, CARD_LONG ** 2 * 2 / 3)
    fan = split_fan(image, region, changed, CARD_LONG)
    assert fan is not None and len(fan.cards) == 4
    for found, true in zip(fan.cards, rects, strict=True):
        assert math.dist(found.centre, true.centre) <= 0.12 * CARD_LONG


@pytest.mark.parametrize("angle", [0.0, 20.0, 75.0, 135.0])
def test_the_top_card_is_the_rectangle_whose_four_sides_all_show(angle):
    # Two cards fanned: the one laid last (its outline whole) is found where and as it lies.
    image, changed, rects = drawn_fan([(0.3, angle + 30.0)], angle=angle)
    region = fan_region(changed, CARD_LONG ** 2 * 2 / 3)
    score, found = top_card(image, region, CARD_LONG)
    top = rects[-1]
    assert score > 0
    assert math.dist(found.centre, top.centre) <= 0.1 * CARD_LONG
    turn = abs((found.angle_deg - top.angle_deg + 90) % 180 - 90)
    assert turn <= 10  # the search's 3-degree steps, and a side scored over its middle only


def test_no_top_card_in_a_patch_smaller_than_a_card():
    image, changed, _ = drawn_fan([])
    small = np.zeros(changed.shape, bool)
    small[20:32, 20:30] = True
    assert top_card(image, small, CARD_LONG)[0] == -1.0


def test_one_card_is_no_fan():
    image, changed, _ = drawn_fan([])
    assert split_fan(image, fan_region(changed, CARD_LONG ** 2 * 2 / 3), changed, CARD_LONG) \
        is None


def test_one_card_a_little_larger_or_off_than_its_rectangle_is_no_fan():
    # Webcam game 464, 7.8 s: the top card's rectangle a little small and two pixels off
    # left a strip along one side, and a card under it at the shortest step explained it:
    # a red reverse written twice. One card moved, turned or grown as much as its fit is
    # uncertain explains such a patch as well; a real fan's second card it does not.
    shape = (72, 72)
    true_card = CardRect((36.0, 36.0), 20.0, CARD_LONG * 1.08)  # the card as it lies
    changed = true_card.mask(shape)
    top = CardRect((36.0, 34.0), 20.0, CARD_LONG)  # fitted a little small, 2 pixels off
    sliver = CardRect((36.0 - 0.12 * CARD_LONG * math.sin(math.radians(20.0)),
                       34.0 + 0.12 * CARD_LONG * math.cos(math.radians(20.0))), 20.0, CARD_LONG)
    assert _one_card_explains(changed, [top, sliver])
    _, fan_changed, rects = drawn_fan([(0.3, 100.0)])
    assert not _one_card_explains(fan_changed, rects[::-1])  # top first


def test_a_fan_too_blurred_to_see_its_outlines_is_not_split():
    # Where a rectangle a few degrees off cannot be told from the card, a strip could be a
    # misfit of one card (the webcam family's single cards): no split.
    image, changed, _ = drawn_fan([(0.3, 10.0)], blur=2)
    assert split_fan(image, fan_region(changed, CARD_LONG ** 2 * 2 / 3), changed, CARD_LONG) \
        is None


@pytest.mark.parametrize("blur", [1.5, 2])
def test_a_soft_fan_is_split_when_asked_only_where_its_strip_shows_another_colour(blur):
    # A fan confirmed whole and unsplit (`FanCards._unsplit_fan`) may be split with its top
    # card's outline soft, but only on colour's word: a red card under a green one is a
    # card; a green strip beside a green card may be the top card misfitted.
    area = CARD_LONG ** 2 * 2 / 3
    image, changed, rects = drawn_fan([(0.3, 10.0)], blur=blur)
    region = fan_region(changed, area)
    assert split_fan(image, region, changed, CARD_LONG) is None
    fan = split_fan(image, region, changed, CARD_LONG, soft_if_coloured=True)
    assert fan is not None and len(fan.cards) == 2
    assert math.dist(fan.cards[0].centre, rects[0].centre) <= 0.12 * CARD_LONG
    same, same_changed, _ = drawn_fan([(0.3, 10.0)], blur=blur, colours=[COLOURS[1]] * 2)
    assert split_fan(same, fan_region(same_changed, area), same_changed, CARD_LONG,
                     soft_if_coloured=True) is None


def test_the_truth_reader_reads_a_card_under_the_top_one_by_its_depth():
    read = TruthReader([{"t": 1.0, "kind": "card", "card": "r_3"},
                        {"t": 2.4, "kind": "card", "card": "r_5"},
                        {"t": 2.47, "kind": "card", "card": "g_5"}])
    crop = np.zeros((8, 8, 3), np.uint8)
    assert [read(crop, 3.0, depth=d).card for d in range(3)] == ["g_5", "r_5", "r_3"]
    assert read(crop, 3.0, depth=3) is None  # nothing that deep: a wrong split reads nothing


def test_a_reader_that_knows_no_depth_reads_the_crop_alone():
    def plain(crop, t_s):
        return None

    assert _takes_depth(TruthReader([])) and not _takes_depth(plain)


@pytest.mark.parametrize(("case", "seed"), [
    ("2 at once (fan)", 2), ("2 at once (fan)", 7), ("3 at once (fan)", 3)])
def test_a_fan_put_down_in_one_motion_is_each_card_in_order_with_its_seat(case, seed):
    # The cards land under the hand within a tenth of a second and come to rest as one
    # patch: only the top card was reported.
    found, truth = watch(case_scenario(CASES[case], seed))
    cards = [(c["card"], c["seat"]) for c in of_kind(found, "card")]
    assert cards == [(c["card"], c["seat"]) for c in of_kind(truth, "card")]
    times = [c["t"] for c in of_kind(found, "card")]
    assert times == sorted(times) and len(set(times)) == len(times)
