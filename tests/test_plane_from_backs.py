"""The table plane of a camera that leans, from the draw piles' card backs alone (issue 22):
no sheet of paper, no clicks."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.camera import DEFAULT_SEAT0_ANGLE_DEG, load_camera_profile
from calibration.layout import PILE_REGION_CARDS, TableLayout
from synth.webcam import WebcamLook
from vision.camera_calibration import PROPOSED_PILE_REGION_CARDS, propose_camera
from vision.plane_from_backs import (
    _jacobian,
    _leaning_plane,
    fit_plane,
    propose_camera_for_footage,
    table_plane_from_backs,
)

ABOVE = (480, 640)
"""The table seen from straight above (h, w)."""


def _card(centre, angle_deg, card_h):
    """The corners of a 2:3 card lying at `centre`, turned by `angle_deg`."""
    a = np.radians(angle_deg)
    u = np.array([np.cos(a), np.sin(a)]) * card_h / 3  # along the short side
    v = np.array([-np.sin(a), np.cos(a)]) * card_h / 2  # along the long side
    c = np.array(centre, np.float64)
    return np.array([c - u - v, c + u - v, c + u + v, c - u + v])


def _table(table_bgr=(185, 195, 205), back_bgr=(20, 20, 20), seed=0, draw_centres=None):
    """A table seen from above: two card backs (black, a red oval) on the layout's draw piles
    (or at `draw_centres`, fractions), a face-up card on its pile; and the backs' corners."""
    rng = np.random.default_rng(seed)
    h, w = ABOVE
    layout = TableLayout()
    image = np.empty((h, w, 3), np.uint8)
    image[:] = table_bgr
    card_h = layout.card_height * h
    backs = []
    for (cx, cy), angle in zip(draw_centres or layout.draw_centres, (8.0, -5.0), strict=True):
        corners = _card((cx * w, cy * h), angle, card_h)
        cv2.fillConvexPoly(image, np.round(corners).astype(np.int32), back_bgr)
        cv2.ellipse(image, (round(cx * w), round(cy * h)),
                    (round(card_h * 0.22), round(card_h * 0.38)), angle + 20, 0, 360,
                    (30, 30, 220), -1)
        backs.append(corners)
    px, py = layout.pile_centre
    face = _card((px * w, py * h), 30.0, card_h)
    cv2.fillConvexPoly(image, np.round(face).astype(np.int32), (250, 250, 250))
    cv2.fillConvexPoly(image, np.round(_card((px * w, py * h), 30.0, card_h * 0.85)
                                        ).astype(np.int32), (40, 160, 40))
    noise = rng.normal(0, 3, image.shape)
    return np.clip(image + noise, 0, 255).astype(np.uint8), backs


LOOK = replace(WebcamLook.draw(5, 2.0), size=(480, 640), tilt_deg=30.0, roll_deg=3.0)


def _seen(image, look=LOOK):
    warp = look.homography(ABOVE)
    h, w = look.size
    return cv2.warpPerspective(image, warp, (w, h), flags=cv2.INTER_LINEAR), warp


def _shape(pixels, at, size):
    """The shape of the map `pixels` (picture pixels to a plane's) at `at` (picture
    fractions): J^T J scaled to determinant 1, the same for any turn and scale of the plane."""
    h, w = size
    j = _jacobian(np.asarray(pixels, np.float64), (at[0] * w, at[1] * h))
    m = j.T @ j
    return m / np.sqrt(np.linalg.det(m))


def _pixels(plane):
    h, w = plane.size
    return np.diag([w, h, 1.0]) @ np.array(plane.homography) @ np.diag([1 / w, 1 / h, 1.0])


def test_backs_seen_through_a_known_tilt_are_made_rectangles_of_one_size_again():
    warp = LOOK.homography(ABOVE)
    h, w = ABOVE
    quads = [_card((x * w, y * h), angle, 60.0)
             for x, y, angle in ((0.3, 0.25, 10), (0.7, 0.3, -20), (0.5, 0.6, 35))]
    seen = [cv2.perspectiveTransform(q.reshape(-1, 1, 2), warp)[:, 0] for q in quads]
    plane, rms = fit_plane(seen, LOOK.size)
    assert rms < 0.005
    sizes = []
    for quad in seen:
        flat = cv2.perspectiveTransform(quad.reshape(-1, 1, 2).astype(np.float64), plane)[:, 0]
        sides = [flat[(i + 1) % 4] - flat[i] for i in range(4)]
        for a, b in zip(sides, sides[1:] + sides[:1], strict=True):  # every corner square
            assert abs(np.dot(a, b)) / (np.linalg.norm(a) * np.linalg.norm(b)) < 0.01
        short, long = sorted((np.linalg.norm(sides[0]), np.linalg.norm(sides[1])))
        assert short / long == pytest.approx(2 / 3, rel=0.01)
        sizes.append(long)
    assert max(sizes) / min(sizes) == pytest.approx(1.0, abs=0.01)


def test_the_draw_piles_of_a_tilted_picture_give_the_table_plane_the_camera_sees():
    table, _ = _table()
    seen, warp = _seen(table)
    plane = table_plane_from_backs([seen])
    assert plane is not None
    truth = np.linalg.inv(warp)  # the picture's pixels to the table seen from above
    for at in ((0.5, 0.5), (0.3, 0.3), (0.7, 0.3)):  # the pile, the far corners' way
        assert np.abs(_shape(_pixels(plane), at, LOOK.size)
                      - _shape(truth, at, LOOK.size)).max() < 0.04
    # The picture's near edge stays the plane's bottom edge (seat 0 enters from there).
    h, w = LOOK.size
    near = cv2.perspectiveTransform(np.float32([[[0, h], [w, h]]]), _pixels(plane))[0]
    np.testing.assert_allclose(near, [[0, h], [w, h]], atol=0.5)


def test_a_camera_straight_above_gives_no_plane():
    table, _ = _table()
    assert table_plane_from_backs([table]) is None


def test_backs_on_a_table_as_dark_as_they_are_give_no_plane():
    table, _ = _table(table_bgr=(22, 22, 22))
    seen, _ = _seen(table)
    assert table_plane_from_backs([seen]) is None


def test_the_proposal_for_a_leaning_camera_is_made_in_the_plane():
    table, _ = _table()
    seen, _ = _seen(table)
    profile, _ = propose_camera_for_footage([seen], 4, DEFAULT_SEAT0_ANGLE_DEG, None)
    assert profile.table_plane is not None
    # In the plane the draw piles lie level, as they do on the table.
    (left, right) = profile.draw_piles
    assert left.centre()[1] == pytest.approx(right.centre()[1], abs=0.03)
    straight, _ = propose_camera_for_footage([table], 4, DEFAULT_SEAT0_ANGLE_DEG, None)
    assert straight.table_plane is None


def test_in_the_plane_the_pile_region_is_the_layouts_in_the_picture_wider():
    """In the plane the pile's card shows at the backs' size: its region is PILE_REGION_CARDS
    card heights on a side, as a calibrated plane's; in a picture that leans, wider."""
    table, _ = _table()
    seen, _ = _seen(table)
    in_plane, _ = propose_camera_for_footage([seen], 4, DEFAULT_SEAT0_ANGLE_DEG, None)
    (ph, pw) = in_plane.table_plane.size
    side_px = in_plane.pile.h * ph
    assert side_px == pytest.approx(PILE_REGION_CARDS * in_plane.card_height * ph, rel=0.03)
    assert in_plane.pile.w * pw == pytest.approx(side_px, rel=0.03)  # a square
    in_picture, _ = propose_camera(seen, 4)
    assert in_picture.pile.h == pytest.approx(
        PROPOSED_PILE_REGION_CARDS * in_picture.card_height, rel=0.03)


def test_bruno_calibrate_camera_finds_the_plane_of_a_leaning_camera_by_itself(tmp_path):
    table, _ = _table()
    seen, _ = _seen(table)
    picture = tmp_path / "table.png"
    cv2.imwrite(str(picture), seen)
    profile = tmp_path / "room.toml"
    done = subprocess.run(
        [sys.executable, "-m", "bruno", "calibrate", "camera", "--from", str(picture),
         "--players", "4", "--out", str(profile)],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "camera leans" in done.stdout and "warning" not in done.stderr
    assert load_camera_profile(profile).table_plane is not None


def test_a_plane_squashed_more_than_any_webcam_leans_is_refused_as_a_misfit():
    # A webcam's lean squashes the table up to about 1.2, a 640x480 picture of a 16:9 sensor
    # half as much again; a fit squashing it more is a misfit (two backs' corners a pixel
    # off), not a camera.
    size = (480, 640)
    assert _leaning_plane((np.eye(3), 1.5), size) is not None
    assert _leaning_plane((np.eye(3), 1.7), size) is None
    assert _leaning_plane((np.eye(3), 1.02), size) is None  # straight above


def test_a_proposal_in_a_leaning_picture_sizes_the_pile_and_its_card_for_the_pile():
    """Without the table plane (a table as dark as the backs shows no outline), the pile is
    watched in the picture, where a camera leaning 35 degrees shows the pile's card larger
    than the draw piles' backs: the region still holds it moved 0.2 of its height aside, as
    the layout's region does for a camera straight above."""
    look = replace(LOOK, tilt_deg=35.0, roll_deg=0.0)
    table, _ = _table(table_bgr=(30, 28, 26))
    seen, warp = _seen(table, look)
    camera, _ = propose_camera_for_footage([seen], 4, DEFAULT_SEAT0_ANGLE_DEG, None)
    assert camera.table_plane is None
    h, w = ABOVE
    layout = TableLayout()
    px, py = layout.pile_centre
    face = _card((px * w, py * h), 30.0, layout.card_height * h)
    corners = cv2.perspectiveTransform(face.reshape(-1, 1, 2), warp)[:, 0]
    card_px = np.linalg.norm(corners[2] - corners[1])  # its long side as seen
    sh, sw = look.size
    region = camera.pile
    xs, ys = corners[:, 0], corners[:, 1]
    margins = [xs.min() - region.x * sw, (region.x + region.w) * sw - xs.max(),
               ys.min() - region.y * sh, (region.y + region.h) * sh - ys.max()]
    assert min(margins) >= 0.2 * card_px
    # And the card size the watchers judge cards by is the pile's to within 15 %, not the
    # backs' (0.8 of it here).
    assert camera.card_height * sh == pytest.approx(card_px, rel=0.15)
