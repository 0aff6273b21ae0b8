"""When a card landed that its hand kept covering (`vision.pile_landing.landed_at`), on arm
histories shaped like the traced webcam plays (rendered webcam games 303 and 306)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.arms import Arm
from vision.pile_landing import landed_at

FPS = 30
CARD_H = 32.0
CENTRE = (160.0, 100.0)
# The card's patch: a card-sized block of analysis-frame pixels around CENTRE.
_YS, _XS = np.mgrid[84:116, 150:171]
CARD = (_XS.ravel().astype(float), _YS.ravel().astype(float))


def arm(tip: tuple[float, float], seat: int = 2, over_card: bool = False) -> Arm:
    """An arm whose pixels (at ARM_SCALE) cover the whole card when `over_card`, else none."""
    mask = np.zeros((90, 160), bool)
    if over_card:
        mask[40:60, 73:88] = True  # the card's block (84-116, 150-171) at half scale
    return Arm(entry=(tip[0], 0.0), tip=tip, area_px=400.0, entry_angle_deg=270.0, seat=seat,
               blob=(0, 0, mask))


def history(path: list[tuple[float, tuple[float, float] | None]], end_s: float,
            hidden_until: float = -1.0) -> list[tuple[float, list[Arm]]]:
    """Frames from 0 to `end_s`: at each, the tip of the last `path` step begun by then (None:
    no arm in view), its arm covering the card until `hidden_until`."""
    frames = []
    for i in range(round(end_s * FPS) + 1):
        t = i / FPS
        tip = [where for start, where in path if start <= t + 1e-9][-1]
        frames.append((t, [] if tip is None else [arm(tip, over_card=t < hidden_until - 1e-9)]))
    return frames


# The hand comes in, stops on the card at 1.0 s, stays until 2.1 s, then leaves for good.
LINGERED = [(0.0, None), (0.8, (160.0, 40.0)), (0.9, (160.0, 70.0)), (1.0, (161.0, 110.0)),
            (2.1, (165.0, 60.0)), (2.2, (170.0, 20.0)), (2.3, None)]


def test_a_card_its_hand_covered_until_it_left_landed_when_the_hand_stopped():
    # The card shows whole, and so is at rest, only from the frame the hand is off it.
    assert landed_at(history(LINGERED, 3.0), CARD, 2, 2.1, CARD_H) == pytest.approx(1.0)


def test_a_hand_that_pauses_for_two_frames_as_it_leaves_is_still_leaving():
    path = [*LINGERED[:4], (2.1, (165.0, 80.0)), (2.167, (160.0, 50.0)), (2.3, None)]
    assert landed_at(history(path, 3.0), CARD, 2, 2.2, CARD_H) == pytest.approx(1.0)


def test_a_card_seen_at_rest_while_its_hand_stays_keeps_its_rest_time():
    # The hand stopped at 1.0 s, the card landed in view at 1.5 s, the hand stays on.
    path = [(0.0, None), (0.9, (160.0, 70.0)), (1.0, (161.0, 110.0)), (3.0, None)]
    assert landed_at(history(path, 3.0), CARD, 2, 1.5, CARD_H) == 1.5


def test_a_card_nudged_straight_by_a_hand_that_stays_keeps_its_rest_time():
    # The tip moves a little as it nudges the card (1.17 s), then rests there: no hand left as
    # the card came to rest, so it was seen coming to rest.
    path = [(0.0, None), (0.9, (169.0, 99.0)), (0.97, (169.0, 95.0)), (1.17, (167.0, 91.0)),
            (2.0, None)]
    assert landed_at(history(path, 2.5, hidden_until=1.0), CARD, 2, 1.1667, CARD_H) == 1.1667


def test_no_seat_a_short_stop_or_a_card_just_before_it_leave_the_rest_time_alone():
    frames = history(LINGERED, 3.0)
    assert landed_at(frames, CARD, None, 2.1, CARD_H) == 2.1
    assert landed_at(frames, CARD, 3, 2.1, CARD_H) == 2.1  # another seat's card
    brief = [(0.0, None), (1.9, (160.0, 70.0)), (2.0, (161.0, 110.0)), (2.1, (165.0, 60.0)),
             (2.2, None)]
    assert landed_at(history(brief, 3.0), CARD, 2, 2.1, CARD_H) == 2.1
    # A stop after the card laid before it counts; one begun before that card landed says
    # nothing of when this card landed (a jump-in's hand held over the pile, waiting, laid its
    # card at the end of the stop: webcam game 514, 2.3 s, written 0.5 s early): its rest time.
    assert landed_at(frames, CARD, 2, 2.1, CARD_H, not_before=0.5) == pytest.approx(1.0)
    assert landed_at(frames, CARD, 2, 2.1, CARD_H, not_before=1.5) == 2.1


def test_a_hand_gone_well_before_the_card_showed_says_nothing():
    path = [(0.0, None), (0.9, (160.0, 70.0)), (1.0, (161.0, 110.0)), (1.5, None)]
    assert landed_at(history(path, 3.0), CARD, 2, 2.5, CARD_H) == 2.5


def test_a_card_another_arm_lay_over_lands_when_its_own_hand_stopped():
    # The laying hand stops on the card at 1.0 s and stays; another seat's arm lying over the
    # pile hides the card until it moves off at 1.4 s (rendered webcam game 304, 1.0 s).
    frames = []
    for t, arms in history([(0.0, None), (0.9, (160.0, 70.0)), (1.0, (161.0, 110.0))], 2.0):
        other = arm((130.0, 90.0), seat=1, over_card=t < 1.4 - 1e-9)
        frames.append((t, [*arms, other]))
    assert landed_at(frames, CARD, 2, 1.4, CARD_H) == pytest.approx(1.0)
    # With nothing uncovered at 1.4 s the card was seen landing then.
    assert landed_at(history([(0.0, None), (0.9, (160.0, 70.0)), (1.0, (161.0, 110.0))], 2.0),
                     CARD, 2, 1.4, CARD_H) == 1.4


def test_a_hand_that_nudged_its_card_before_leaving_gives_the_nudged_cards_rest_time():
    # It stopped at 1.0 s, nudged the card at 1.3 s, rested there until 1.8 s and left; the
    # card came to rest after the nudge (the truth's time for it too).
    path = [(0.0, None), (0.9, (160.0, 70.0)), (1.0, (161.0, 110.0)), (1.3, (167.0, 100.0)),
            (1.8, (170.0, 40.0)), (1.9, None)]
    assert landed_at(history(path, 2.5, hidden_until=1.4), CARD, 2, 1.4, CARD_H) == 1.4


def test_a_tip_that_jumps_as_another_arm_leaves_the_card_is_no_nudge():
    # The laying hand stops on the card at 1.0 s; another seat's arm lies over the pile until
    # 1.4 s. As it leaves, the tracker draws the staying arm anew and its tip jumps 6 pixels
    # (a fifth of a card) with no move of the hand (rendered webcam games 303 and 366).
    def frames(other_leaves_s: float, jump_s: float) -> list:
        out = []
        for t, _ in history([(0.0, None)], 2.0):
            tip = None if t < 0.9 - 1e-9 else (160.0, 70.0) if t < 1.0 - 1e-9 else \
                (161.0, 110.0) if t < jump_s - 1e-9 else (167.0, 110.0)
            arms = [] if tip is None else [arm(tip)]
            out.append((t, [*arms, arm((130.0, 90.0), seat=1,
                                       over_card=t < other_leaves_s - 1e-9)]))
        return out

    assert landed_at(frames(1.4, 1.4), CARD, 2, 1.4, CARD_H) == pytest.approx(1.0)
    # A stop elsewhere that begins in another frame is the hand moving on the card (a nudge):
    # the card was seen coming to rest.
    assert landed_at(frames(1.4, 1.5), CARD, 2, 1.4, CARD_H) == 1.4


def test_a_card_under_a_lone_hand_that_stayed_on_it_landed_when_the_hand_stopped():
    # Webcam games 465 and 474: the hand stops on its card at 1.0 s and lies still on it past
    # 2.0 s; its patch came to match (REST_MATCH) at 1.63 s, with the hand still over it.
    path = [(0.0, None), (0.9, (160.0, 70.0)), (1.0, (161.0, 110.0)), (2.6, None)]
    frames = history(path, 3.0, hidden_until=2.6)
    rest = 49 / FPS  # a frame's time, as the watcher's rest times are
    assert landed_at(frames, CARD, 2, rest, CARD_H) == pytest.approx(1.0)
    # Another seat's hand near the card meanwhile: the stop may be the arms meeting, not the
    # card landing, and the rest time stands.
    other = [(t, [*arms, arm((150.0, 90.0), seat=3)] if 1.2 <= t <= 1.4 else arms)
             for t, arms in frames]
    assert landed_at(other, CARD, 2, rest, CARD_H) == rest
