"""The webcam family of synthetic footage (`synth.webcam`): a tilted cheap camera drawn per
video from the seed, written beside the video with the camera profile of its view."""

from __future__ import annotations

import json
from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.layout import TableLayout
from synth.footage import FootageRenderer, render_footage
from synth.scenario import Scenario
from synth.webcam import SIZES, WebcamLook, read_camera_sidecar

SOURCE = (360, 640)


def test_the_look_is_drawn_from_the_seed_within_the_issues_ranges():
    looks = [WebcamLook.draw(seed, 60.0) for seed in range(40)]
    assert WebcamLook.draw(3, 60.0) == WebcamLook.draw(3, 60.0)
    assert len(set(looks)) == len(looks)
    for look in looks:
        assert 20 <= look.tilt_deg <= 35 and look.size in SIZES
        assert 300 <= look.bitrate_kbps <= 600
        assert look.exposure_steps and all(0 < t < 60 for t, _ in look.exposure_steps)
        warm = look.cast[2] > look.cast[0]
        assert warm or look.cast[0] > look.cast[2]  # a cast one way or the other, never none
    assert {look.cast[2] > look.cast[0] for look in looks} == {True, False}


def test_the_far_edge_of_the_table_shrinks_and_the_near_edge_fills_the_width():
    look = WebcamLook.draw(5, 30.0)
    w = look.size[1]
    corners = np.float32([[0, 0], [SOURCE[1], 0], [SOURCE[1], SOURCE[0]], [0, SOURCE[0]]])
    seen = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), look.homography(SOURCE))[:, 0]
    far_width = np.linalg.norm(seen[1] - seen[0])
    near_width = np.linalg.norm(seen[2] - seen[3])
    assert far_width < 0.9 * near_width
    assert near_width == pytest.approx(w, rel=0.02)


def test_the_profile_of_the_view_puts_the_pile_and_seats_where_the_camera_sees_them():
    layout = TableLayout()
    for seed in range(10):
        look = WebcamLook.draw(seed, 30.0)
        camera = look.camera_profile(layout, 4, SOURCE)
        cx, cy = camera.pile.centre()
        assert 0.3 < cx < 0.7 and 0.3 < cy < 0.8
        for draw in camera.draw_piles:
            assert draw.centre()[1] < cy  # the draw piles lie beyond the pile, as rendered
        # Seat 0 still enters from the bottom edge, the seats go round clockwise.
        assert abs(camera.seat_angles_deg[0] - 90) < 15
        assert abs(camera.seat_angles_deg[1] - 180) < 20
        assert camera.image_size == look.size


def test_webcam_footage_is_written_at_the_cameras_size_with_its_camera_profile(tmp_path):
    import av

    scenario = Scenario.model_validate({
        "players": 4, "seed": 8, "duration_s": 3.0,
        "plays": [{"t": 1.0, "seat": 0, "card": "r_5"}], "knocks": [], "draws": [],
        "lighting": []})
    look = WebcamLook.draw(scenario.seed, scenario.length_s())
    out = tmp_path / "webcam.mp4"
    rendered = render_footage(scenario, out, SOURCE, sound=False, look=look)
    with av.open(str(out)) as container:
        stream = container.streams.video[0]
        assert (stream.height, stream.width) == look.size
    assert read_camera_sidecar(out) == look.table_plane_profile(TableLayout(), 4, SOURCE)
    assert read_camera_sidecar(out, "camera_in_picture") == look.camera_profile(
        TableLayout(), 4, SOURCE)
    saved = json.loads(out.with_suffix(".camera.json").read_text())
    assert saved["family"] == "webcam" and saved["look"]["tilt_deg"] == look.tilt_deg
    # The truth is the table's, whatever the camera: the same as the overhead family's.
    assert rendered.events == FootageRenderer(scenario, SOURCE).truth()


def test_a_webcam_frame_warped_into_the_table_plane_is_the_table_seen_from_above():
    from vision.frames import frame_from_image
    from vision.table_plane import PlaneRectifier

    scenario = Scenario.model_validate({"players": 4, "seed": 9, "duration_s": 2.0,
                                        "plays": [], "knocks": [], "draws": [], "lighting": []})
    renderer = FootageRenderer(scenario, SOURCE)
    _, above = next(renderer.frames())
    look = replace(WebcamLook.draw(9, 2.0), glare_strength=0.0, hotspot=(0.5, 0.5, 0.3, 0.0),
                   cast=(1.0, 1.0, 1.0), exposure_steps=(), noise_sigma=0.0)
    seen = look.see(above, 0.0, 0, look.homography(SOURCE))
    profile = look.table_plane_profile(TableLayout(), 4, SOURCE)
    plane = PlaneRectifier(profile.table_plane)(frame_from_image(seen, 0.0))
    assert plane.full_size == SOURCE and plane.full().shape[:2] == SOURCE
    x0, y0, x1, y1 = profile.pile.pixels(*SOURCE)
    back = plane.full()[y0:y1, x0:x1].astype(int)
    assert np.abs(back - above[y0:y1, x0:x1]).mean() < 12  # blur and resampling only


def test_a_tilted_dim_webcam_clip_is_reviewed_with_the_right_plays_and_seats(tmp_path):
    from bruno.review.footage import review_video
    from vision.card_readers import TruthReader

    scenario = Scenario.model_validate({
        "players": 4, "dealer": 3, "seed": 12, "duration_s": 9.0,
        "plays": [{"t": 1.0, "seat": 0, "card": "r_5"}, {"t": 3.0, "seat": 1, "card": "r_8"},
                  {"t": 5.0, "seat": 2, "card": "g_8"}, {"t": 7.0, "seat": 3, "card": "g_2"}],
        "knocks": [], "draws": [], "lighting": []})
    look = replace(WebcamLook.draw(12, 9.0), size=(240, 320), tilt_deg=30.0,
                   exposure_steps=((4.0, 0.75),))  # and dim from 4 s on
    out = tmp_path / "webcam.mp4"
    rendered = render_footage(scenario, out, SOURCE, sound=False, look=look)
    camera = read_camera_sidecar(out)
    result = review_video(out, camera, TruthReader(rendered.events[1:]), listen=False)
    plays = [(e.card.token, e.seat) for e in result.events if e.kind == "card"]
    assert plays == [("r_5", 0), ("r_8", 1), ("g_8", 2), ("g_2", 3)]
