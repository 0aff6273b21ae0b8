"""Cards laid under the next one before any frame showed them (`vision.pile_landing.hands_before`)
and two cards crossed (`PileWatcher._crossed_pair`), on arm histories and patches shaped like
the traced webcam plays (rendered webcam game 302 at 14.4 s: seat 1's blue 8, covered by seat
0's blue 8 0.33 s later), and end to end on tiny rendered clips of a jump-in."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from referee.events import CardPlayed
from referee.rules import RuleSet
from vision.arms import Arm
from vision.pile_cards import CardReading, PlayedCard
from vision.pile_landing import hand_that_laid, hands_before
from vision.pile_watcher import PileWatcher

from table_helpers import of_kind, watch

FPS = 30
CARD_H = 32.0
CENTRE = (160.0, 100.0)
_YS, _XS = np.mgrid[84:116, 150:171]
CARD = (_XS.ravel().astype(float), _YS.ravel().astype(float))
AWAY = {0: (160.0, 190.0), 1: (40.0, 150.0), 2: (160.0, 10.0), 3: (290.0, 50.0)}
"""Where each seat's tip is when its hand is not on the pile (outside a card's reach)."""


def arm(seat: int, tip: tuple[float, float]) -> Arm:
    return Arm(entry=AWAY[seat], tip=tip, area_px=400.0, entry_angle_deg=0.0, seat=seat)


def history(paths: dict[int, list[tuple[float, tuple[float, float] | None]]], end_s: float
            ) -> list[tuple[float, list[Arm]]]:
    """Frames from 0 to `end_s`: each seat's tip as the last step of its path begun by then
    (None: its arm not in view)."""
    frames = []
    for i in range(round(end_s * FPS) + 1):
        t = i / FPS
        arms = []
        for seat, path in paths.items():
            tip = [where for start, where in path if start <= t + 1e-9][-1]
            if tip is not None:
                arms.append(arm(seat, tip))
        frames.append((t, arms))
    return frames


ON_CARD = (158.0, 104.0)
# Seat 1 lays a card at 1.0 s and takes its hand away at 1.4 s; seat 0 lays the same card on
# it at 1.5 s and leaves at 1.9 s; the pile is seen at rest at 2.0 s, confirmed at 2.2 s.
UNDER = [(0.0, AWAY[1]), (0.9, (120.0, 120.0)), (1.0, ON_CARD), (1.4, (90.0, 140.0)),
         (1.5, AWAY[1])]
TOP = [(0.0, None), (1.3, (160.0, 150.0)), (1.5, (161.0, 101.0)), (1.9, AWAY[0])]


def laid(paths, seat=0, last_seat=2, landed_t=1.5, rest_t=2.0, now=2.2):
    return hands_before(history(paths, now), CARD, seat, last_seat, 0.0, rest_t, landed_t, now,
                        CARD_H)


def test_a_card_covered_by_the_next_before_the_pile_came_to_rest_is_its_hands():
    assert laid({1: UNDER, 0: TOP}) == [(1, 1.0)]


def test_a_tip_that_wanders_a_little_and_is_lost_for_a_frame_still_stopped():
    wobbly = [*UNDER[:3], (1.1, (161.0, 101.0)), (1.2, None), (1.23, (159.0, 106.0)),
              *UNDER[3:]]
    assert laid({1: wobbly, 0: TOP}) == [(1, 1.0)]


def test_a_hand_sliding_its_card_into_place_as_it_lets_go_stopped_on_it():
    # The tip moves 9 px (0.28 card) every 0.1 s while on the card (webcam game 476 at 7.3 s):
    # no stretch of it lies still within a fifth of a card for MIN_STILL_S.
    sliding = [(0.0, AWAY[1]), (1.0, ON_CARD), (1.1, (158.0, 113.0)), (1.2, (158.0, 122.0)),
               (1.3, (158.0, 131.0)), (1.4, AWAY[1])]
    assert laid({1: sliding, 0: TOP}) == [(1, 1.0)]


def test_a_hand_held_over_the_pile_until_the_card_is_confirmed_laid_nothing():
    held = [*UNDER[:3], (1.4, (150.0, 110.0))]  # moved a little, never away
    assert laid({1: held, 0: TOP}) == []


def test_a_stop_lasting_until_the_card_landed_is_its_own_hand_under_another_name():
    late = [(0.0, AWAY[1]), (1.0, ON_CARD), (1.52, AWAY[1])]  # on the card in its landing frame
    assert laid({1: late, 0: TOP}) == []


@pytest.mark.parametrize("left", [1.47, 1.44])
def test_a_hand_gone_a_frame_or_two_before_the_next_card_landed_laid_the_card_under_it(left):
    # Webcam games 463 at 58.6 s and 465 at 50.2 s (one frame), 461 at 53.7 s (two frames):
    # jump-in chains 0.34-0.40 s apart, the first hand leaving as the next one laid its twin.
    quick = [(0.0, AWAY[1]), (1.0, ON_CARD), (left, AWAY[1])]
    assert laid({1: quick, 0: TOP}) == [(1, 1.0)]


def test_one_arm_seen_as_two_seats_at_once_laid_one_card_of_no_known_seat():
    twin = [(0.0, AWAY[3]), (1.0, (157.0, 103.0)), (1.4, AWAY[3])]
    assert laid({1: UNDER, 3: twin, 0: TOP}) == [(None, 1.0)]


def test_the_last_cards_hand_seen_under_two_names_laid_nothing():
    twin = [(0.0, AWAY[3]), (1.0, (157.0, 103.0)), (1.4, AWAY[3])]
    assert laid({1: UNDER, 3: twin, 0: TOP}, last_seat=3) == []


def test_the_last_cards_hand_coming_back_and_a_passing_hand_lay_nothing():
    assert laid({1: UNDER, 0: TOP}, last_seat=1) == []
    passing = [(0.0, AWAY[1]), (1.0, (150.0, 100.0)), (1.067, (120.0, 120.0)),
               (1.133, AWAY[1])]
    assert laid({1: passing, 0: TOP}) == []


def test_a_stop_before_the_card_before_is_not_counted_again():
    frames = history({1: UNDER, 0: TOP}, 2.2)
    assert hands_before(frames, CARD, 0, 2, 1.2, 2.0, 1.5, 2.2, CARD_H) == []


def test_a_hand_on_the_pile_since_before_the_card_before_landed_laid_nothing():
    # Seat 1's hand lies over the pile from 0.5 s, while the card before lands (0.6 s), never
    # goes, seems to stop anew at 1.0 s (its outline drawn anew as another arm left) and
    # leaves at 1.4 s: it brought no card after the card before.
    stayed = [(0.0, AWAY[1]), (0.5, (150.0, 95.0)), (1.0, ON_CARD), (1.4, (90.0, 140.0)),
              (1.5, AWAY[1])]
    frames = history({1: stayed, 0: TOP}, 2.2)
    assert hands_before(frames, CARD, 0, 2, 0.6, 2.0, 1.5, 2.2, CARD_H) == []
    # Gone from the pile for a moment after the card before landed, it may have fetched one.
    back = [*stayed[:2], (0.7, AWAY[1]), (0.9, (120.0, 120.0)), *stayed[2:]]
    frames = history({1: back, 0: TOP}, 2.2)
    assert hands_before(frames, CARD, 0, 2, 0.6, 2.0, 1.5, 2.2, CARD_H) == [(1, 1.0)]


def test_a_hand_there_when_the_arm_record_begins_after_the_card_before_laid_nothing():
    # The watcher keeps the last few seconds of arms: the card before landed (0.6 s) before
    # the record's first frame (0.8 s). Seat 1's hand is over the pile in that first frame and
    # stays, its outline drawn anew at 1.0 s: it may have been there all along, no card.
    stayed = [(0.0, (150.0, 95.0)), (1.0, ON_CARD), (1.4, (90.0, 140.0)), (1.5, AWAY[1])]
    frames = [frame for frame in history({1: stayed, 0: TOP}, 2.2) if frame[0] >= 0.8]
    assert hands_before(frames, CARD, 0, 2, 0.6, 2.0, 1.5, 2.2, CARD_H) == []
    # A hand that came into the record after its first frame is seen coming, as before.
    came = [(0.0, AWAY[1]), (0.9, (120.0, 120.0)), *stayed[1:]]
    frames = [frame for frame in history({1: came, 0: TOP}, 2.2) if frame[0] >= 0.8]
    assert hands_before(frames, CARD, 0, 2, 0.6, 2.0, 1.5, 2.2, CARD_H) == [(1, 1.0)]


def test_a_hand_held_over_the_pile_whose_tip_jumped_as_the_laying_arm_came_laid_nothing():
    # Webcam game 472, 40.3 s: seat 1's hand comes over the pile at 1.0 s and stays until
    # after seat 0's card lands (1.5 s); as seat 0's arm arrives (1.3 s) seat 1's outline is
    # drawn anew and its tip jumps, so its stop seems to end 0.2 s before the card landed.
    held = [(0.0, AWAY[1]), (1.0, ON_CARD), (1.3, (150.0, 110.0)), (1.7, AWAY[1])]
    assert laid({1: held, 0: TOP}) == []
    # A hand that left before the card landed laid one, as before.
    assert laid({1: [*held[:2], (1.3, AWAY[1])], 0: TOP}) == [(1, 1.0)]


def test_a_card_no_arm_brought_was_laid_by_the_one_hand_that_stopped_on_it():
    # Seat 1's hand lays the card at 1.0 s and stays; the arm tracker loses it at 1.4 s, and
    # the card, seen at rest at 2.0 s with no arm, has no seat: seat 1 laid it, at 1.0 s.
    lost = [(0.0, AWAY[1]), (0.9, (120.0, 120.0)), (1.0, ON_CARD), (1.4, None)]
    stops = laid({1: lost}, seat=None, last_seat=2, landed_t=2.0)
    assert stops == [(1, 1.0)]
    assert hand_that_laid(None, stops) == (1, 1.0)
    # A card whose seat is known keeps it, and the stop stays a card laid under it; two hands
    # that stopped there, or one of no known seat, name nobody.
    assert hand_that_laid(0, stops) is None
    assert hand_that_laid(None, [(1, 1.0), (3, 1.2)]) is None
    assert hand_that_laid(None, [(None, 1.0)]) is None


def watcher() -> PileWatcher:
    return PileWatcher((0, 0, 65, 65), CARD_H, read_card=lambda crop, t: None)


def test_the_hidden_card_is_written_as_the_one_over_it_and_below_the_referees_bar():
    played = PlayedCard("b_8", 0, 1.6, np.zeros((65, 65), bool), np.zeros((65, 65, 3)))
    played.hands_before = [(1, 1.0)]
    events = watcher()._cards_of_hands_before(played, CardReading("b_8", 0.99))
    assert events == [CardPlayed(1.0, card=events[0].card, seat=1,
                                 confidence=events[0].confidence)]
    assert events[0].card.token == "b_8"
    assert events[0].confidence < RuleSet().min_card_confidence


def card_mask(centre: tuple[float, float], angle: float, shape=(65, 65)) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    box = cv2.boxPoints((centre, (CARD_H * 2 / 3, CARD_H), angle))
    cv2.fillConvexPoly(mask, np.round(box).astype(np.int32), 1)
    return mask > 0


def test_two_cards_crossed_make_one_patch_a_card_does_not():
    pile = watcher()
    crossed = card_mask((30, 32), 0) | card_mask((32, 32), 50)  # 1.47 cards, 1.09 long
    assert pile._crossed_pair(crossed) is not None
    assert pile._crossed_pair(card_mask((32, 32), 20)) is None  # one card: `_card_patch`'s


def test_a_card_and_a_blob_beside_it_are_not_two_cards_crossed():
    pile = watcher()
    blob = np.zeros((65, 65), bool)
    blob[10:22, 48:60] = True  # a glare, or a hand's mark left in the reference
    patch = card_mask((26, 34), 0) | blob
    assert pile._card_patch(patch, (1.2, 2.0), (1.0, 1.1)) is not None  # as square as a pair
    assert pile._crossed_pair(patch) is None


@pytest.mark.parametrize("seed", [2, 3, 4, 6])
def test_a_jump_in_laid_before_the_pile_showed_the_card_under_it_leaves_both_plays(seed):
    # Seat 3 jumps in with the other red 5 0.35 s after seat 1's, whose hand is still leaving:
    # no frame shows seat 1's card at rest. Before the hands were asked, these clips gave
    # seat 3's card alone.
    found, _ = watch({"players": 4, "seed": seed, "duration_s": 4.5, "plays": [
        {"t": 1.0, "seat": 1, "card": "r_5", "linger_s": 0.2},
        {"t": 1.35, "seat": 3, "card": "r_5", "linger_s": 0.2}]})
    cards = of_kind(found, "card")
    assert [(c["card"], c["seat"]) for c in cards] == [("r_5", 1), ("r_5", 3)]
    assert abs(cards[0]["t"] - 1.0) <= 0.1
    assert cards[0]["confidence"] < RuleSet().min_card_confidence <= cards[1]["confidence"]


def test_a_card_laid_on_its_twin_is_the_largest_piece_of_the_change_when_it_reads_as_the_twin():
    # Webcam game 495, 31.1 s: a yellow 9 laid a little aside on the yellow 9 on top changes
    # only where it does not cover its twin (a card with a bite out of it), and a sliver the
    # hand left apart from it bent the whole change's shape: no card, and 2 s later it was
    # taken into the reference as something that is no card.
    from vision.frames import Frame
    from vision.pile_watcher import LEFTOVER_MAX_CARDS, PIECE_STILL_FRAMES

    shown = ["y_9"]
    pile = PileWatcher((0, 0, 65, 65), CARD_H,
                       read_card=lambda crop, t: CardReading(shown[0], 0.99))
    twin = card_mask((38, 36), 0)
    pile.played.append(PlayedCard("y_9", 1, 30.5, twin, np.zeros((65, 65, 3), np.float32)))
    full = np.zeros((260, 260, 3), np.uint8)
    pile.recent_frames.append(Frame(33.1, 993, (260, 260), lambda: full[::4, ::4], lambda: full))
    bitten = card_mask((30, 32), 0)
    bitten[38:48, 30:41] = False  # where it lies on its twin's same-coloured field
    sliver = np.zeros((65, 65), bool)
    sliver[2:10, 56:62] = True  # what the hand left apart from it: 0.07 of a card
    changed = bitten | sliver
    pile.still_frames = np.where(changed, PIECE_STILL_FRAMES, 0)
    assert pile._card_patch(changed) is None  # the whole change is no card
    piece = pile._largest_piece(changed, changed)
    assert piece is not None and not (piece & sliver).any()
    assert (piece & bitten).sum() == bitten.sum()
    shown[0] = "y_6"  # another card's first piece, while a hand still uncovers the rest
    assert pile._largest_piece(changed, changed) is None
    shown[0] = "y_9"
    pile.still_frames = np.where(changed, PIECE_STILL_FRAMES - 1, 0)  # still settling
    assert pile._largest_piece(changed, changed) is None
    pile.still_frames = np.where(changed, PIECE_STILL_FRAMES, 0)
    blob = np.zeros((65, 65), bool)
    blob[2:20, 2:14] = True  # more than LEFTOVER_MAX_CARDS apart: not a sliver
    assert blob.sum() > LEFTOVER_MAX_CARDS * pile.card_area
    assert pile._largest_piece(changed | blob, changed | blob) is None
