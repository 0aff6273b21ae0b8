"""The arm tracker: an arm that lingered leaves no ghost behind."""

from __future__ import annotations

import cv2
import numpy as np

from vision.arms import ArmTracker

SIZE = (180, 320)


def _table(rng: np.random.Generator) -> np.ndarray:
    table = np.full((*SIZE, 3), (110, 125, 135), np.float32)
    return table + rng.normal(0, 2.0, table.shape).astype(np.float32)


def _with_arm(image: np.ndarray, start: tuple[int, int], end: tuple[int, int]) -> np.ndarray:
    """A sleeve-coloured bar from `start` (on the frame edge) to `end`, with a soft edge as a
    camera sees it (focus, motion, compression)."""
    arm = np.zeros(SIZE, np.float32)
    cv2.line(arm, start, end, 1.0, 14)
    arm = cv2.GaussianBlur(arm, (0, 0), 2.5)[..., None]
    sleeve = np.array((60, 40, 150), np.float32)
    return image * (1 - arm) + sleeve * arm


def _frames(rng, n, arm=None):
    for _ in range(n):
        image = _table(rng)
        if arm is not None:
            image = _with_arm(image, *arm)
        yield np.clip(image, 0, 255).astype(np.uint8)


def test_an_arm_that_lingered_leaves_no_ghost_to_join_the_next_arm():
    rng = np.random.default_rng(7)
    tracker = ArmTracker((160.0, 100.0), (0.0, 90.0, 180.0, 270.0), card_height_px=30.0)
    for image in _frames(rng, 10):
        assert tracker.update(image) == []
    first = ((200, 0), (185, 80))  # in from the top edge, resting over a second by the pile
    for image in _frames(rng, 40, first):
        arms = tracker.update(image)
    assert len(arms) == 1 and arms[0].tip[1] > 60
    # It goes; a moment later another arm comes in from the right to where it was.
    for image in _frames(rng, 6):
        tracker.update(image)
    second = ((319, 110), (195, 60))
    for image in _frames(rng, 5, second):
        arms = tracker.update(image)
    assert len(arms) == 1
    tip_x, tip_y = arms[0].tip
    assert abs(tip_x - 195) < 15 and abs(tip_y - 60) < 15, arms[0].tip


def test_an_arm_that_rested_until_it_joined_the_background_leaves_no_ghost():
    rng = np.random.default_rng(8)
    tracker = ArmTracker((160.0, 100.0), (0.0, 90.0, 180.0, 270.0), card_height_px=30.0)
    for image in _frames(rng, 10):
        tracker.update(image)
    resting = ((250, 0), (170, 90))
    for image in _frames(rng, 90, resting):  # 3 s: it becomes part of the background
        tracker.update(image)
    gone = [tracker.update(image) for image in _frames(rng, 5)]
    # Where it lay, the bare table shows again at once: no arm, not even for a frame or two
    # (before, the ghost stayed an "arm" for 1.5 s, resting on a draw pile: a phantom draw).
    assert gone[-3:] == [[], [], []]


def test_an_arm_at_work_over_the_pile_for_seconds_stays_an_arm():
    # A hand laying cards one after another (DrukUNO): the arm lies over the table for 3 s,
    # its hand moving. Its sleeve at the edge used to join the background after 1.5 s, so the
    # arm no longer reached the edge and was lost while its hand was still on the pile.
    rng = np.random.default_rng(13)
    tracker = ArmTracker((160.0, 100.0), (0.0, 90.0, 180.0, 270.0), card_height_px=30.0)
    for image in _frames(rng, 10):
        tracker.update(image)
    seen = []
    for i in range(90):
        hand = (180 + (12 if (i // 6) % 2 else -12), 90 + (i % 12))
        image = np.clip(_with_arm(_table(rng), (250, 0), hand), 0, 255).astype(np.uint8)
        seen.append(tracker.update(image))
    assert all(len(arms) == 1 and arms[0].tip[1] > 70 for arms in seen), \
        [i for i, arms in enumerate(seen) if len(arms) != 1]


def _with_arms(image: np.ndarray, *arms: tuple[tuple[int, int], tuple[int, int]]) -> np.ndarray:
    for start, end in arms:
        image = _with_arm(image, start, end)
    return image


def test_two_arms_that_meet_over_the_pile_are_two_arms_with_their_own_seats_and_tips():
    rng = np.random.default_rng(9)
    seats = (90.0, 210.0, 330.0)  # bottom, upper left, upper right
    tracker = ArmTracker((160.0, 90.0), seats, card_height_px=30.0)
    for _ in range(10):
        tracker.update(np.clip(_table(rng), 0, 255).astype(np.uint8))
    left, right = ((0, 10), (158, 92)), ((319, 5), (166, 88))  # hands side by side on the pile
    for _ in range(3):
        image = np.clip(_with_arms(_table(rng), left, right), 0, 255).astype(np.uint8)
        arms = tracker.update(image)
    # One blob: without the split its mean entry lies between the seats (nobody) and its tip
    # is the far end of the other arm, in the picture's corner.
    assert sorted(a.seat for a in arms) == [1, 2], arms
    for arm in arms:
        hand = left[1] if arm.seat == 1 else right[1]
        assert np.hypot(arm.tip[0] - hand[0], arm.tip[1] - hand[1]) < 20, (arm.seat, arm.tip)


def test_one_arm_along_the_edge_is_not_split():
    rng = np.random.default_rng(10)
    tracker = ArmTracker((160.0, 90.0), (90.0, 210.0, 330.0), card_height_px=30.0)
    for _ in range(10):
        tracker.update(np.clip(_table(rng), 0, 255).astype(np.uint8))
    for _ in range(3):
        arms = tracker.update(np.clip(_with_arm(_table(rng), (150, 179), (160, 95)), 0, 255)
                              .astype(np.uint8))
    assert [a.seat for a in arms] == [0]


def test_neighbouring_arms_merged_into_one_blob_keep_each_seat_in_its_parts():
    # Six seats: seat 0 reaches in from the bottom, seat 1 (60 degrees round) from the
    # bottom-left corner, and their hands meet on the pile. Their places at the edge lie
    # less than SPLIT_GAP_DEG apart, so the watchers follow one arm; its mean entry lies
    # between the two seats. Its parts name both.
    rng = np.random.default_rng(11)
    seats = (90.0, 150.0, 210.0, 270.0, 330.0, 30.0)
    tracker = ArmTracker((160.0, 90.0), seats, card_height_px=30.0)
    for _ in range(10):
        tracker.update(np.clip(_table(rng), 0, 255).astype(np.uint8))
    bottom, corner = ((160, 179), (160, 92)), ((6, 179), (156, 90))
    for _ in range(3):
        image = np.clip(_with_arms(_table(rng), bottom, corner), 0, 255).astype(np.uint8)
        arms = tracker.update(image)
    assert len(arms) == 1, arms
    assert sorted(p.seat for p in arms[0].parts) == [0, 1], arms[0].parts
    for part in arms[0].parts:
        start = bottom[0] if part.seat == 0 else corner[0]
        assert np.hypot(part.entry[0] - start[0], part.entry[1] - start[1]) < 20, part.entry


def test_one_arm_has_no_parts():
    rng = np.random.default_rng(12)
    tracker = ArmTracker((160.0, 90.0), (90.0, 150.0, 210.0, 270.0, 330.0, 30.0),
                         card_height_px=30.0)
    for _ in range(10):
        tracker.update(np.clip(_table(rng), 0, 255).astype(np.uint8))
    for _ in range(3):
        arms = tracker.update(np.clip(_with_arm(_table(rng), (6, 179), (156, 90)), 0, 255)
                              .astype(np.uint8))
    assert [a.seat for a in arms] == [1] and arms[0].parts == ()
    assert arms[0].seat_parts() == (arms[0],)


def test_a_dark_sleeve_on_a_dark_table_still_joins_the_hand_to_the_edge():
    """A black sleeve over a dark green table is too dark for the colour test and too close
    in brightness for the brightness test: only the light hand at its end stands out, cut off
    from the frame's edge. The arm is still found, entering where the sleeve does."""
    rng = np.random.default_rng(9)
    table_colour = np.array((20, 40, 35), np.float32)  # dark green (BGR)

    def frame(with_arm: bool) -> np.ndarray:
        image = np.full((*SIZE, 3), table_colour, np.float32)
        if with_arm:
            sleeve = np.zeros(SIZE, np.float32)
            cv2.line(sleeve, (319, 40), (210, 80), 1.0, 14)
            sleeve = cv2.GaussianBlur(sleeve, (0, 0), 2.0)[..., None]
            image = image * (1 - sleeve) + np.array((26, 25, 23), np.float32) * sleeve
            cv2.ellipse(image, (200, 84), (14, 10), 20, 0, 360, (170, 185, 230), -1)
        image += rng.normal(0, 1.5, image.shape).astype(np.float32)
        return np.clip(image, 0, 255).astype(np.uint8)

    tracker = ArmTracker((160.0, 100.0), (90.0, 210.0, 330.0), card_height_px=30.0)
    for _ in range(10):
        assert tracker.update(frame(False)) == []
    for _ in range(5):
        arms = tracker.update(frame(True))
    assert len(arms) == 1, arms
    (entry_x, _), (tip_x, tip_y) = arms[0].entry, arms[0].tip
    assert entry_x > 300 and abs(tip_x - 195) < 20 and abs(tip_y - 86) < 15, arms[0]
    assert arms[0].seat == 2


def test_a_hand_whose_sleeve_cannot_be_seen_is_followed_while_it_moves():
    """A sleeve exactly the table's colour: only the light hand shows. Reaching in from the
    right edge it is an arm; cut off from the edge it is still that seat's arm while it moves,
    and no arm once it lies still (a card laid and left lies still too)."""
    rng = np.random.default_rng(10)
    table_colour = np.array((15, 15, 18), np.float32)  # near black

    def frame(hand_x: int | None) -> np.ndarray:
        image = np.full((*SIZE, 3), table_colour, np.float32)
        if hand_x is not None:
            cv2.ellipse(image, (hand_x, 86), (14, 10), 0, 0, 360, (150, 170, 210), -1)
        image += rng.normal(0, 1.5, image.shape).astype(np.float32)
        return np.clip(image, 0, 255).astype(np.uint8)

    tracker = ArmTracker((160.0, 90.0), (90.0, 210.0, 330.0, 0.0), card_height_px=30.0)
    for _ in range(10):
        assert tracker.update(frame(None)) == []
    seen = []
    for hand_x in range(318, 190, -8):  # in from the right edge, 8 px a frame
        arms = tracker.update(frame(hand_x))
        seen.append((hand_x, [(a.seat, round(a.tip[0])) for a in arms]))
    assert all(len(arms) == 1 and arms[0][0] == 3 for _, arms in seen), seen
    assert abs(seen[-1][1][0][1] - (seen[-1][0] - 14)) <= 4, seen[-1]  # the tip: the hand's far end
    for _ in range(3):
        arms = tracker.update(frame(seen[-1][0]))
    assert arms == []
