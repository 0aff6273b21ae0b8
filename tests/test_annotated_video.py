"""The annotated video: overlays drawn where and when they are due, the sound kept."""

from __future__ import annotations

from functools import partial

import av
import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bruno.review.annotated_video import (
    ARROW_S,
    INFO_CAPTION_S,
    KNOCK_FLASH_S,
    PENALTY_CAPTION_S,
    AnnotatedWriter,
    AnnotationError,
    Overlay,
    Scene,
    draw_overlay,
    draw_scene,
    pile_after,
    scene_at,
    write_annotated_video,
)
from bruno.review.overlay_layer import OverlayLayer

from event_helpers import events_of
from video_helpers import FPS, H, W, make_textured_video, make_video

OVERLAY = Overlay(
    events=events_of([{"t": 0.5, "kind": "card", "card": "r_7", "seat": 0},
                      {"t": 0.7, "kind": "knock"}]),
    rulings=[{"t": 1.0, "kind": "ruling", "rule": "illegal_card", "seat": 0, "penalty": 2,
              "card": "r_7", "ref": "B2", "message": "Seat 0 played the red 7: two cards."}],
    pile_box=(0.4, 0.35, 0.6, 0.65),
    seat_angles_deg=(90.0, 180.0, 270.0, 0.0),
)


def test_the_top_card_follows_plays_and_take_backs():
    overlay = Overlay(events=events_of([{"t": 1, "kind": "card", "card": "r_7", "seat": 0},
                                        {"t": 2, "kind": "card", "card": "g_7", "seat": 1},
                                        {"t": 3, "kind": "card_removed", "card": "g_7"}]),
                      rulings=[])
    assert [overlay.top_card(t) for t in (0.5, 1.5, 2.5, 3.5)] == [None, "r_7", "g_7", "r_7"]


def test_a_penalty_caption_is_drawn_while_due_and_gone_after():
    frame = np.full((H, W, 3), (40, 100, 30), np.uint8)
    during = draw_overlay(frame, OVERLAY, 1.5)
    after = draw_overlay(frame, OVERLAY, 9.0)
    bottom = slice(H - 20, H - 5)
    assert during[bottom, :, 2].mean() > after[bottom, :, 2].mean() + 40  # the red band


def test_the_seat_arrow_points_from_the_players_side():
    frame = np.full((H, W, 3), (40, 100, 30), np.uint8)
    with_arrow = draw_overlay(frame, OVERLAY, 0.8)
    without = draw_overlay(frame, OVERLAY, 5.0)
    changed = np.abs(with_arrow.astype(int) - without.astype(int)).sum(axis=2) > 60
    rows = np.nonzero(changed[:, W // 2 - 5:W // 2 + 5])[0]
    assert rows.size and rows.mean() > H / 2  # seat 0 sits at the bottom edge


def test_the_annotated_video_keeps_every_frame_and_the_sound(tmp_path):
    source, out = tmp_path / "game.mp4", tmp_path / "annotated.mp4"
    make_video(source)
    written = write_annotated_video(source, out, OVERLAY)
    assert written == 2 * FPS
    with av.open(str(out)) as container:
        assert container.streams.audio and container.streams.video
        frames = [f.to_ndarray(format="bgr24") for f in container.decode(video=0)]
    assert len(frames) == written
    caption_frame = frames[int(1.5 * FPS)]
    assert caption_frame[H - 20:H - 5, :, 2].mean() > 120


def test_footage_without_sound_is_annotated_without_sound(tmp_path):
    source, out = tmp_path / "silent.mp4", tmp_path / "annotated.mp4"
    make_video(source, sound=False)
    assert write_annotated_video(source, out, OVERLAY) == 2 * FPS
    with av.open(str(out)) as container:
        assert not container.streams.audio


def test_a_file_that_is_no_video_is_a_clear_error(tmp_path):
    bogus = tmp_path / "notes.mp4"
    bogus.write_text("not a video")
    with pytest.raises(AnnotationError, match="cannot be read as a video"):
        write_annotated_video(bogus, tmp_path / "out.mp4", OVERLAY)


def test_an_overlay_blended_into_the_yuv_planes_looks_as_if_drawn_on_the_picture():
    # A textured picture, so a blend in the wrong place or of the wrong colour shows.
    rng = np.random.default_rng(3)
    picture = cv2.resize(rng.integers(0, 255, (H // 8, W // 8, 3), dtype=np.uint8), (W, H))
    frame = av.VideoFrame.from_ndarray(picture, format="bgr24").reformat(format="yuv420p")
    plain = frame.to_ndarray(format="bgr24")
    for t in (0.8, 1.5, 5.0):  # arrow and knock; caption; the badge alone
        scene = scene_at(OVERLAY, t)
        layer = OverlayLayer.render(partial(draw_scene, overlay=OVERLAY, scene=scene), H, W)
        blended = layer.over(frame).to_ndarray(format="bgr24").astype(int)
        drawn = draw_overlay(plain, OVERLAY, t)
        # What the old way made of it: drawn in BGR, then turned into the video's 4:2:0.
        encoded = av.VideoFrame.from_ndarray(drawn, format="bgr24").reformat(format="yuv420p")
        expected = encoded.to_ndarray(format="bgr24").astype(int)
        near = cv2.dilate((np.abs(drawn.astype(int) - plain).sum(axis=2) > 0).astype(np.uint8),
                          np.ones((5, 5), np.uint8)) > 0
        assert near.any()
        assert np.array_equal(blended[~near], plain[~near])  # away from the drawing: untouched
        error = np.abs(blended - expected).max(axis=2)[near]
        assert error.max() <= 10  # rounding (measured: at most 5 levels)


def plain_scene(overlay: Overlay, t: float) -> Scene:
    """The scene as the overlay's rules say it, by one pass over its lists in their order."""
    pile: list[str] = []
    for event in overlay.events:
        if event.t > t:
            break
        pile_after(pile, event)
    arrows = tuple(e.seat for e in overlay.events
                   if e.kind == "card" and 0 <= t - e.t <= ARROW_S and e.seat is not None)
    knock = any(e.kind == "knock" and 0 <= t - e.t <= KNOCK_FLASH_S for e in overlay.events)
    due = [r for r in overlay.rulings
           if 0 <= t - r["t"] <= (PENALTY_CAPTION_S if r["kind"] == "ruling" else INFO_CAPTION_S)
           and (r["kind"] == "ruling" or r["rule"] in ("instick", "color", "round_over"))]
    captions = tuple((r["message"], r["kind"] == "ruling") for r in reversed(due[-3:]))
    return Scene(pile[-1] if pile else None, arrows, knock, captions)


TIMES = st.integers(0, 400).map(lambda n: n / 30)  # on the frame clock, so ties happen
EVENTS = st.lists(st.one_of(
    st.builds(lambda t, card, seat: {"t": t, "kind": "card", "card": card, "seat": seat},
              TIMES, st.sampled_from(["r_7", "g_7", "b_0"]),
              st.one_of(st.none(), st.integers(0, 3))),
    st.builds(lambda t, card: {"t": t, "kind": "card_removed", "card": card},
              TIMES, st.sampled_from(["r_7", "g_7"])),
    st.builds(lambda t: {"t": t, "kind": "knock"}, TIMES),
    st.builds(lambda t: {"t": t, "kind": "round_end", "hands": {}}, TIMES)), max_size=30)
RULINGS = st.lists(st.builds(
    lambda t, kind, rule, n: {"t": t, "kind": kind, "rule": rule, "message": f"ruling {n}"},
    TIMES, st.sampled_from(["ruling", "info"]), st.sampled_from(["instick", "turn", "color"]),
    st.integers(0, 99)), max_size=12)


@settings(max_examples=200, deadline=None)
@given(EVENTS, RULINGS, st.booleans(), st.lists(TIMES, min_size=1, max_size=20))
def test_the_scene_found_by_time_is_the_scene_of_a_pass_over_the_lists(events, rulings,
                                                                      in_order, moments):
    # Reviews give their events and rulings in time order; anything else must still work.
    if in_order:
        events = sorted(events, key=lambda e: e["t"])
        rulings = sorted(rulings, key=lambda r: r["t"])
    overlay = Overlay(events_of(events), rulings)
    for t in moments:
        assert scene_at(overlay, t) == plain_scene(overlay, t)
        assert scene_at(overlay, t + 1e-9) == plain_scene(overlay, t + 1e-9)


def frame_times(path) -> list[float]:
    with av.open(str(path)) as container:
        return [float(frame.time) for frame in container.decode(video=0)]


def test_the_small_video_takes_at_most_30_frames_a_second_with_their_own_times(tmp_path):
    source = tmp_path / "phone.mp4"
    make_video(source, seconds=1.0, fps=60)
    small, full = tmp_path / "small.mp4", tmp_path / "full.mp4"
    assert write_annotated_video(source, small, OVERLAY, full_size=False) == 30
    assert write_annotated_video(source, full, OVERLAY) == 60
    every = frame_times(full)
    assert frame_times(small) == pytest.approx(every[::2])  # every other frame, as it was
    with av.open(str(small)) as container:
        assert container.streams.audio  # the sound whole
        assert (container.streams.video[0].width, container.streams.video[0].height) == (
            W // 2, H // 2)


def test_a_wide_video_gives_a_small_video_no_wider_than_960(tmp_path):
    source, small = tmp_path / "wide.mp4", tmp_path / "small.mp4"
    make_video(source, seconds=0.4, sound=False, size=(1152, 2048))
    assert write_annotated_video(source, small, OVERLAY, full_size=False) == int(0.4 * FPS)
    with av.open(str(small)) as container:
        stream = container.streams.video[0]
        assert (stream.width, stream.height) == (960, 540)


def test_the_live_dashboard_shows_the_referees_top_card_not_the_events():
    # A correction made the referee's top card the yellow 7; the events still say red 7.
    from bruno.live.picture import live_overlay
    from calibration.layout import default_camera_profile

    overlay = live_overlay(default_camera_profile(4),
                           events_of([{"t": 1.0, "kind": "card", "card": "r_7", "seat": 0}]),
                           [], "y_7")
    assert scene_at(overlay, 2.0).top_card == "y_7"


def test_the_small_videos_picture_is_the_same_made_from_the_watchers_halving(tmp_path):
    from vision.frames import plane_pixels, read_video

    source = tmp_path / "noise.mp4"
    make_textured_video(source)
    writer = AnnotatedWriter(source, tmp_path / "small.mp4", full_size=False)
    try:
        for frame in read_video(source):
            alone = writer.canvas(frame.decoded)
            assert frame.small.shape == (180, 320, 3)  # the watchers' copy, halving kept
            shared = writer.canvas(frame.decoded, frame.plane_shrunk)
            assert (shared.width, shared.height) == (640, 360)
            for a, b in zip(alone.planes, shared.planes, strict=True):
                assert np.array_equal(plane_pixels(a), plane_pixels(b))
    finally:
        writer.abandon()
