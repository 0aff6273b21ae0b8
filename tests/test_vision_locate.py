"""Finding card quads by geometry: every whole card on a rendered table gets a candidate."""

import cv2
import numpy as np
import pytest

from synth.render import render_scene
from vision.locate import _complete_cut_card, locate


def test_every_card_on_a_rendered_table_has_a_candidate_quad_on_it():
    for seed in (21, 22, 23):
        img, cards = render_scene(seed, size=(720, 1280), n_cards=3, card_h_frac=(0.25, 0.35),
                                  tilt=0.1)
        quads = [c.quad for c in locate(img)]
        for card in cards:
            centre = card.quad.mean(axis=0)
            area = cv2.contourArea(card.quad)
            near = min(quads, key=lambda q, c=centre: np.linalg.norm(q.mean(axis=0) - c))
            assert np.linalg.norm(near.mean(axis=0) - centre) < 0.1 * np.sqrt(area)
            assert 0.7 < cv2.contourArea(near) / area < 1.4, (seed, card.token)


def test_a_card_cut_by_the_bottom_edge_is_grown_back_to_two_by_three_past_that_edge():
    visible = np.float32([[100, 280], [200, 280], [200, 400], [100, 400]])  # 100x120 seen
    grown = _complete_cut_card(visible, w=640, h=401)
    xs, ys = grown[:, 0], grown[:, 1]
    assert np.isclose(xs.max() - xs.min(), 100, atol=1) and np.isclose(ys.max() - ys.min(), 150,
                                                                        atol=1)
    assert np.isclose(ys.min(), 280, atol=1) and ys.max() > 400  # grown downwards, off-image


def test_a_blank_table_gives_few_or_no_candidates():
    img = np.full((360, 640, 3), 90, np.uint8)
    assert len(locate(img)) <= 2


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    inter, _ = cv2.intersectConvexConvex(np.float32(a), np.float32(b))
    return inter / (cv2.contourArea(np.float32(a)) + cv2.contourArea(np.float32(b)) - inter)


def test_white_cards_on_pale_tables_are_outlined():
    # Rendered three-card scenes on light grey and pale blue tables, where the white border is
    # a step of a few tens of grey levels: an edge threshold scaled by these bright images'
    # median brightness found no outline around g_1, r_4 and r_8 (best overlap 0.06-0.14).
    for seed, token in ((9011, "g_1"), (9022, "r_4"), (9074, "r_8")):
        img, cards = render_scene(seed, n_cards=3)
        card = next(c for c in cards if c.token == token)
        best = max(_iou(c.quad, card.quad) for c in locate(img))
        assert best > 0.8, (seed, token, best)


@pytest.mark.parametrize("shape", [(2, 5000, 3), (5000, 3, 3), (1, 1, 3)])
def test_a_photo_too_thin_to_hold_a_card_gives_no_quads_not_an_error(shape):
    assert locate(np.zeros(shape, np.uint8)) == []
