"""A card no clean frame showed before the reading's wait ran out (`PileWatcher._read_at_last`):
read from the frames it was confirmed in, under the hand that laid it, unless the frame at the
end of the wait shows it with nothing over the pile, which is then read too (the surer kept)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.frames import frame_from_image
from vision.pile_cards import CardReading, PlayedCard
from vision.pile_watcher import READ_WAIT_S, PileWatcher, _WaitingRead

H, W, CARD_H = 120, 160, 40.0
CARD = (67, 40, 93, 80)  # x0, y0, x1, y1: a yellow card, upright
FINGERS = (70, 44, 90, 64)


def _reader(crop: np.ndarray, t_s: float) -> CardReading:
    """Reads y_9 surely, or y_8 unsurely where fingers (dark) cover the card's middle."""
    h, w = crop.shape[:2]
    middle = crop[h // 3: 2 * h // 3, w // 3: 2 * w // 3].mean(axis=2)
    return CardReading("y_8", 0.6) if (middle < 120).mean() > 0.2 else CardReading("y_9", 0.99)


def _picture(fingers: bool) -> np.ndarray:
    image = np.full((H, W, 3), 100, np.uint8)
    cv2.rectangle(image, CARD[:2], CARD[2:], (30, 220, 240), -1)
    if fingers:
        cv2.rectangle(image, FINGERS[:2], FINGERS[2:], (60, 90, 160), -1)
    return image


def _waiting_since_confirmed_under_fingers(fingers_now: bool) -> tuple[PileWatcher, float]:
    """A card confirmed at 1.0 s with the laying hand's fingers on it (taken into the reference
    with it); READ_WAIT_S later the picture shows it with or without them, no arm in view."""
    pile = PileWatcher((0, 0, W, H), CARD_H, _reader, full_scale=1.0)
    table = np.full((H, W, 3), 100, np.float32)
    hull = np.zeros((H, W), bool)
    hull[CARD[1]:CARD[3] + 1, CARD[0]:CARD[2] + 1] = True
    confirmed = frame_from_image(_picture(fingers=True), 1.0, analysis_width=W)
    played = PlayedCard(None, 0, 1.0, hull, table)
    pile.played = [played]
    pile.waiting = _WaitingRead(played, 1.0, [confirmed])
    pile.reference = _picture(fingers=True).astype(np.float32)
    now = _picture(fingers_now).astype(np.float32)
    pile.previous = now
    pile.clipped = np.zeros((H, W), bool)
    pile.moving = np.zeros((H, W), bool)
    pile.still_frames = np.full((H, W), 100)
    return pile, 1.0 + READ_WAIT_S + 0.1


def test_a_card_the_fingers_left_is_read_as_it_shows_at_the_end_of_the_wait():
    pile, t = _waiting_since_confirmed_under_fingers(fingers_now=False)
    frame = frame_from_image(_picture(fingers=False), t, analysis_width=W)
    events = pile._read_waiting(frame, [])
    assert [(str(e.card), e.confidence) for e in events] == [("y_9", 0.99)]


def test_under_the_fingers_still_it_is_read_from_the_frames_it_was_confirmed_in():
    pile, t = _waiting_since_confirmed_under_fingers(fingers_now=True)
    frame = frame_from_image(_picture(fingers=True), t, analysis_width=W)
    events = pile._read_waiting(frame, [])
    assert [(str(e.card), e.confidence) for e in events] == [("y_8", 0.6)]
