"""The table's shape at the pile from a face-up card's outline, where the draw piles' backs
give no plane (a table as dark as the backs; issue 22)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.camera import DEFAULT_SEAT0_ANGLE_DEG
from calibration.layout import TableLayout
from tests.test_plane_from_backs import ABOVE, LOOK, _card, _pixels, _shape, _table
from vision.plane_from_backs import propose_camera_for_footage, table_plane_from_backs
from vision.plane_from_pile import pile_card_outlines, shape_at_pile

DARK = (22, 22, 22)
"""A table as dark as the backs: their outlines cannot be found, the pile card's can."""

SQUEEZE = np.array([[1.0, 0.0, 0.0], [0.0, 1.3, -0.15 * 480], [0.0, 0.0, 1.0]])
"""A 16:9 sensor's picture squeezed into 4:3 (the table looks 1.3 times deeper than it
is), as some cheap webcams deliver 640x480; on top of the camera's lean."""


def _squeezed(image):
    """`image` (the table from straight above) through the leaning camera and the squeeze;
    and the map from the table to the picture."""
    warp = SQUEEZE @ LOOK.homography(ABOVE)
    h, w = LOOK.size
    return cv2.warpPerspective(image, warp, (w, h), flags=cv2.INTER_LINEAR), warp


def _pile_centre_seen(warp):
    px, py = TableLayout().pile_centre
    h, w = ABOVE
    return tuple(cv2.perspectiveTransform(np.float32([[[px * w, py * h]]]), warp)[0, 0])


def test_the_pile_card_of_a_squeezed_dark_table_gives_the_tables_shape_at_the_pile():
    table, _ = _table(table_bgr=DARK)
    seen, warp = _squeezed(table)
    assert table_plane_from_backs([seen]) is None  # the backs' outlines are lost in the table
    card_h = TableLayout().card_height * ABOVE[0]
    shape = shape_at_pile([seen], _pile_centre_seen(warp), card_h)
    assert shape is not None
    pixels, outlines = shape
    assert len(outlines) == 1
    truth = np.linalg.inv(warp)
    h, w = LOOK.size
    at = (_pile_centre_seen(warp)[0] / w, _pile_centre_seen(warp)[1] / h)
    # The squeeze and the lean taken out at the pile: the same shape as the truth's there,
    # where the picture itself is off by a third.
    assert np.abs(_shape(pixels, at, LOOK.size) - _shape(truth, at, LOOK.size)).max() < 0.05
    assert np.abs(_shape(np.eye(3), at, LOOK.size) - _shape(truth, at, LOOK.size)).max() > 0.2


def test_a_review_without_a_profile_watches_a_squeezed_dark_table_in_its_shape():
    table, _ = _table(table_bgr=DARK)
    seen, warp = _squeezed(table)
    profile, _ = propose_camera_for_footage([seen], 4, DEFAULT_SEAT0_ANGLE_DEG, None)
    assert profile.table_plane is not None
    # The card size is the pile card's in that plane (not the draw piles' backs', which a
    # leaning camera sees smaller).
    h, w = ABOVE
    px, py = TableLayout().pile_centre
    face = _card((px * w, py * h), 30.0, TableLayout().card_height * h)
    in_picture = cv2.perspectiveTransform(face.reshape(-1, 1, 2), warp)
    in_plane = cv2.perspectiveTransform(in_picture, _pixels(profile.table_plane))[:, 0]
    long_side = max(np.linalg.norm(in_plane[1] - in_plane[0]),
                    np.linalg.norm(in_plane[2] - in_plane[1]))
    assert profile.card_height * profile.table_plane.size[0] == pytest.approx(long_side,
                                                                              rel=0.06)
    # ... and the pile region holds the pile.
    cx, cy = cv2.perspectiveTransform(in_picture.mean(axis=0, keepdims=True),
                                      _pixels(profile.table_plane))[0, 0]
    ph, pw = profile.table_plane.size
    x0, y0, x1, y1 = profile.pile.box()
    assert x0 * pw < cx < x1 * pw and y0 * ph < cy < y1 * ph


def test_a_dark_table_seen_from_straight_above_is_watched_as_it_is():
    table, _ = _table(table_bgr=DARK)
    card_h = TableLayout().card_height * ABOVE[0]
    px, py = TableLayout().pile_centre
    assert shape_at_pile([table], (px * ABOVE[1], py * ABOVE[0]), card_h) is None
    profile, _ = propose_camera_for_footage([table], 4, DEFAULT_SEAT0_ANGLE_DEG, None)
    assert profile.table_plane is None


def test_two_cards_askew_on_the_pile_are_no_card_outline():
    table, _ = _table(table_bgr=DARK)
    h, w = ABOVE
    px, py = TableLayout().pile_centre
    card_h = TableLayout().card_height * h
    second = _card((px * w + 0.35 * card_h, py * h + 0.1 * card_h), -10.0, card_h)
    cv2.fillConvexPoly(table, np.round(second).astype(np.int32), (250, 250, 250))
    cv2.fillConvexPoly(table, np.round(_card((px * w + 0.35 * card_h, py * h + 0.1 * card_h),
                                             -10.0, card_h * 0.85)).astype(np.int32),
                       (200, 60, 40))
    seen, warp = _squeezed(table)
    assert pile_card_outlines(seen, _pile_centre_seen(warp), card_h) == []
    assert shape_at_pile([seen], _pile_centre_seen(warp), card_h) is None


def test_the_backs_of_a_squeezed_picture_give_its_plane():
    # A 640x480 picture of a 16:9 sensor squashes the table by half on top of the lean:
    # more than a lean alone, and still a camera's picture, not a misfit.
    table, _ = _table(draw_centres=((0.2, 0.3), (0.8, 0.3)))  # two places, plainly
    seen, warp = _squeezed(table)
    plane = table_plane_from_backs([seen])
    assert plane is not None
    truth = np.linalg.inv(warp)
    for at in ((0.5, 0.5), (0.3, 0.3), (0.7, 0.3)):
        assert np.abs(_shape(_pixels(plane), at, LOOK.size)
                      - _shape(truth, at, LOOK.size)).max() < 0.05
