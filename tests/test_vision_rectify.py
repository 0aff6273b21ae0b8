"""Rectification geometry and colour normalisation with the card's white border."""

import cv2
import numpy as np

from synth.render import FACE_H, FACE_W, _paste, render_face
from vision.rectify import CROP_H, CROP_W, WHITE_TARGET, normalise_white, order_quad, warp_card


def _scene_with(face, quad, size=(480, 640), grey=40):
    img = np.full((*size, 3), grey, np.uint8)
    _paste(img, face, np.float32(quad))
    return img


def test_order_quad_makes_the_long_sides_vertical_whatever_the_input_order():
    landscape = np.float32([[100, 100], [400, 100], [400, 300], [100, 300]])
    for shift in range(4):
        q = order_quad(np.roll(landscape, shift, axis=0)[::-1])
        side = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
        assert side[0] < side[1] and side[2] < side[3]  # top and bottom are the short sides
        # clockwise on screen: positive shoelace area with y pointing down
        area = 0.5 * np.sum(q[:, 0] * np.roll(q[:, 1], -1) - np.roll(q[:, 0], -1) * q[:, 1])
        assert area > 0


def test_a_card_warped_from_a_rotated_photo_matches_the_upright_face_or_its_half_turn():
    face = render_face("b_6", 4)
    c, a = np.float32([320, 240]), np.deg2rad(63)
    rot = np.float32([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    corners = np.float32([[-60, -90], [60, -90], [60, 90], [-60, 90]]) @ rot.T + c
    img = _scene_with(face, corners)
    crop, valid = warp_card(img, corners[[2, 3, 0, 1]])  # any start corner
    assert crop.shape == (CROP_H, CROP_W, 3) and valid.min() == 255
    ref = cv2.resize(face, (CROP_W, CROP_H), interpolation=cv2.INTER_AREA).astype(float)
    err = min(np.abs(crop - ref)[8:-8, 8:-8].mean(),
              np.abs(crop[::-1, ::-1] - ref)[8:-8, 8:-8].mean())
    assert err < 12


def test_a_quad_reaching_outside_the_image_marks_those_crop_pixels_invalid():
    img = np.full((200, 100, 3), 200, np.uint8)
    _, valid = warp_card(img, np.float32([[-50, 0], [50, 0], [50, 150], [-50, 150]]))
    assert valid[:, :CROP_W // 4].max() == 0 and valid[:, -CROP_W // 4:].min() == 255


def test_warm_light_is_undone_using_the_white_border():
    face = render_face("y_3", 5)
    crop = cv2.resize(face, (CROP_W, CROP_H), interpolation=cv2.INTER_AREA)
    warm = np.clip(crop * np.float32([0.55, 0.8, 1.0]), 0, 255).astype(np.uint8)  # BGR
    fixed = normalise_white(warm)
    border = fixed[CROP_H // 2, 2:4].astype(float)
    assert np.abs(border - WHITE_TARGET).max() < 25
    # The yellow body comes back to the hue it has under neutral light.
    def hue(im):
        hsv = cv2.cvtColor(im, cv2.COLOR_BGR2HSV)
        return np.median(hsv[..., 0][hsv[..., 1] > 100])

    assert abs(hue(fixed) - hue(normalise_white(crop))) <= 3
    assert abs(hue(warm) - hue(crop)) > 3  # the cast really did shift it


def test_a_crop_without_a_usable_border_is_left_alone():
    black = np.zeros((CROP_H, CROP_W, 3), np.uint8)
    assert np.array_equal(normalise_white(black, np.zeros((CROP_H, CROP_W), np.uint8)), black)


def test_face_size_is_two_by_three():
    assert FACE_W * 3 == FACE_H * 2


def test_white_balancing_scales_every_pixel_as_its_gain_says():
    rng = np.random.default_rng(3)
    crop = rng.integers(0, 256, (CROP_H, CROP_W, 3), dtype=np.uint8)
    crop[:6], crop[-6:], crop[:, :5], crop[:, -5:] = (200, 180, 150), (200, 180, 150), \
        (200, 180, 150), (200, 180, 150)  # a warm white border
    valid = np.full((CROP_H, CROP_W), 255, np.uint8)
    valid[:, :3] = 0
    out = normalise_white(crop, valid)
    gain = np.clip(WHITE_TARGET / np.float32([200, 180, 150]), 0.25, 4.0).astype(np.float32)
    expected = np.clip(crop.astype(np.float32) * gain, 0, 255).astype(np.uint8)
    expected[valid == 0] = 0
    assert np.array_equal(out, expected)


def test_an_ordered_quad_is_warped_the_same_whether_said_so_or_not():
    from vision.rectify import rectify

    img = _scene_with(render_face("g_7", 1), [[420, 90], [530, 200], [400, 330], [290, 220]])
    q = order_quad(np.float32([[420, 90], [530, 200], [400, 330], [290, 220]]))
    assert np.array_equal(rectify(img, q, ordered=True), rectify(img, q))
    assert np.array_equal(order_quad(q), q)
