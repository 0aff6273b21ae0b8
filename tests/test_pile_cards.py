"""The reader's crop of a card (`vision.pile_cards.card_view`) is cut at one scale, whatever
the camera's resolution: the reader's locator smooths with fixed kernels, so a card read at
another size can read as another card."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.frames import frame_from_image
from vision.pile_cards import READ_CARD_PX, READ_PAD_CARDS, card_view


def _table_with_card(scale: float) -> np.ndarray:
    """A grey table 640x480 times `scale`, a white card 60x40 times `scale` at its middle,
    with a dark mark in the card's top-left quarter."""
    h, w = round(480 * scale), round(640 * scale)
    image = np.full((h, w, 3), 90, np.uint8)
    cx, cy = w / 2, h / 2
    half_l, half_s = 30 * scale, 20 * scale
    cv2.rectangle(image, (round(cx - half_l), round(cy - half_s)),
                  (round(cx + half_l), round(cy + half_s)), (250, 250, 250), -1)
    cv2.rectangle(image, (round(cx - half_l + 4 * scale), round(cy - half_s + 4 * scale)),
                  (round(cx - 10 * scale), round(cy - 4 * scale)), (20, 20, 20), -1)
    return image


@pytest.mark.parametrize("scale", [0.5, 1.0, 2.5])
def test_a_card_is_cut_at_the_readers_size_whatever_the_resolution(scale):
    frame = frame_from_image(_table_with_card(scale), 0.0)
    h, w = frame.full_size
    card_long = 60 * scale
    view = card_view(frame, (w / 2, h / 2), (card_long, card_long * 2 / 3), 0.0, card_long)
    margin = 1 + 2 * READ_PAD_CARDS
    assert view.shape[:2] == (round(READ_CARD_PX * 2 / 3 * margin), round(READ_CARD_PX * margin))
    # The card's white spans READ_CARD_PX along the middle row, its table margin either side.
    row = view[view.shape[0] * 3 // 4, :, 0]
    white = np.nonzero(row > 170)[0]
    assert abs((white[-1] - white[0] + 1) - READ_CARD_PX) <= 0.05 * READ_CARD_PX
    assert abs(white[0] - READ_PAD_CARDS * READ_CARD_PX) <= 0.05 * READ_CARD_PX


def test_the_crop_is_turned_square_to_the_card():
    frame = frame_from_image(_table_with_card(1.0), 0.0)
    h, w = frame.full_size
    upright = card_view(frame, (w / 2, h / 2), (60, 40), 0.0, 60)
    turned = card_view(frame, (w / 2, h / 2), (60, 40), 180.0, 60)
    # Turned half a turn, the mark moves from the top-left quarter to the bottom-right one.
    ch, cw = upright.shape[:2]
    assert upright[: ch // 2, : cw // 2].mean() < upright[ch // 2:, cw // 2:].mean() - 30
    assert turned[ch // 2:, cw // 2:].mean() < turned[: ch // 2, : cw // 2].mean() - 30
