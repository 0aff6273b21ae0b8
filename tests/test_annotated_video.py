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
    OverlaySizes,
    Scene,
    draw_overlay,
    draw_scene,
    pile_after,
    scene_at,
    write_annotated_video,
)
from bruno.review.overlay_layer import OverlayLayer

from event_helpers import events_of
from video_helpers import (
    FPS,
    H,
    W,
    make_textured_video,
    make_turned_video,
    make_variable_rate_video,
    make_video,
)

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
    bottom = slice(H - 10, H - 3)  # the caption's band, at the bottom of the frame
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
    assert caption_frame[H - 10:H - 3, :, 2].mean() > 120


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
    turn = None
    for ruling in overlay.rulings:  # the latest turn line (the last of a time) up to t
        if ruling["rule"] in ("turn", "round_over") and ruling["t"] <= t and (
                turn is None or ruling["t"] >= turn["t"]):
            turn = ruling
    paused = None
    for event in overlay.events:
        if (event.kind == "round_end" or (event.kind == "call" and event.word in ("stop", "go"))
                ) and event.t <= t and (paused is None or event.t >= paused.t):
            paused = event
    return Scene(pile[-1] if pile else None, arrows, knock, captions,
                 turn.get("seat") if turn and turn["rule"] == "turn" else None,
                 paused is not None and paused.kind == "call" and paused.word == "stop")


TIMES = st.integers(0, 400).map(lambda n: n / 30)  # on the frame clock, so ties happen
EVENTS = st.lists(st.one_of(
    st.builds(lambda t, card, seat: {"t": t, "kind": "card", "card": card, "seat": seat},
              TIMES, st.sampled_from(["r_7", "g_7", "b_0"]),
              st.one_of(st.none(), st.integers(0, 3))),
    st.builds(lambda t, card: {"t": t, "kind": "card_removed", "card": card},
              TIMES, st.sampled_from(["r_7", "g_7"])),
    st.builds(lambda t: {"t": t, "kind": "knock"}, TIMES),
    st.builds(lambda t: {"t": t, "kind": "round_end", "hands": {}}, TIMES),
    st.builds(lambda t, word: {"t": t, "kind": "call", "seat": None, "word": word},
              TIMES, st.sampled_from(["stop", "go", "bruno"]))), max_size=30)
RULINGS = st.lists(st.builds(
    lambda t, kind, rule, n: {"t": t, "kind": kind, "rule": rule, "seat": n % 4,
                              "message": f"ruling {n}"},
    TIMES, st.sampled_from(["ruling", "info"]),
    st.sampled_from(["instick", "turn", "color", "round_over"]), st.integers(0, 99)),
    max_size=12)


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


def test_a_video_whose_frame_rate_drops_is_annotated_frame_by_frame(tmp_path):
    # Its average rate (25 fps here) made the encoder's clock: two frames fell on one tick
    # and the muxer refused the second, so the whole review stopped (exit 2, no report).
    source, out = tmp_path / "dim.mp4", tmp_path / "annotated.mp4"
    frames = make_variable_rate_video(source)
    assert write_annotated_video(source, out, OVERLAY) == frames
    assert frame_times(out) == pytest.approx(frame_times(source))


def test_a_phones_turned_video_is_annotated_upright(tmp_path):
    source, out = tmp_path / "portrait.mp4", tmp_path / "annotated.mp4"
    make_turned_video(source)
    assert write_annotated_video(source, out, OVERLAY) == 6
    with av.open(str(out)) as container:
        first = next(container.decode(video=0))
        assert (first.width, first.height) == (H, W)  # portrait, as the phone showed it
        assert first.to_ndarray(format="bgr24")[: W // 4].mean() > 150


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


# --- readable at a glance (issue 24, item 10) ---------------------------------------------

PAUSED = Overlay(
    events=events_of([{"t": 1.0, "kind": "card", "card": "r_7", "seat": 0},
                      {"t": 2.0, "kind": "call", "seat": 1, "word": "stop"},
                      {"t": 5.0, "kind": "call", "seat": 1, "word": "go"}]),
    rulings=[{"t": 1.0, "kind": "info", "rule": "turn", "seat": 2, "message": "Seat 2 to play."},
             {"t": 6.0, "kind": "info", "rule": "turn", "seat": 3, "message": "Seat 3 to play."},
             {"t": 7.0, "kind": "info", "rule": "round_over", "seat": 3,
              "message": "Seat 3 went out."}],
    pile_box=(0.4, 0.35, 0.6, 0.65),
    seat_angles_deg=(90.0, 180.0, 270.0, 0.0),
)


def _drawn(overlay: Overlay, scene: Scene, w: int = 640, h: int = 360) -> np.ndarray:
    """Where `scene` draws anything on a plain frame of w x h (a mask)."""
    plain = np.full((h, w, 3), (150, 160, 140), np.uint8)
    image = plain.copy()
    draw_scene(image, overlay, scene)
    return np.abs(image.astype(int) - plain.astype(int)).sum(axis=2) > 30


def _red(image: np.ndarray) -> np.ndarray:
    b, g, r = (image[..., i].astype(int) for i in range(3))
    return (r > 150) & (g < 80) & (b < 80)


def test_a_stop_pause_shows_a_stop_banner_until_go():
    assert [scene_at(PAUSED, t).paused for t in (1.5, 2.0, 3.5, 4.9, 5.0, 6.0)] == [
        False, True, True, True, False, False]
    frame = np.full((360, 640, 3), (150, 160, 140), np.uint8)
    during, after = draw_overlay(frame, PAUSED, 3.5), draw_overlay(frame, PAUSED, 5.5)
    top_middle = (slice(40, 110), slice(200, 440))
    assert _red(during[top_middle]).mean() > 0.3 and not _red(after[top_middle]).any()
    edges = np.concatenate([during[:3].reshape(-1, 3), during[-3:].reshape(-1, 3)])
    assert _red(edges[None]).mean() > 0.9  # the frame's edge is red all round while paused


def test_whose_turn_it_is_is_marked_from_the_referees_turn_rulings():
    assert [scene_at(PAUSED, t).turn for t in (0.5, 1.0, 5.9, 6.0, 7.0)] == [
        None, 2, 2, 3, None]
    seat2 = _drawn(PAUSED, Scene(None, (), False, (), turn=2))
    seat3 = _drawn(PAUSED, Scene(None, (), False, (), turn=3))
    nobody = _drawn(PAUSED, Scene(None, (), False, ()))
    # A marker on the player's side of the frame: seat 2 at the top, seat 3 on the right.
    top_edge, right_edge = (slice(0, 40), slice(280, 360)), (slice(140, 220), slice(600, 640))
    assert (seat2 & ~nobody)[top_edge].sum() > 50 and not (seat2 & ~nobody)[right_edge].any()
    assert (seat3 & ~nobody)[right_edge].sum() > 50 and not (seat3 & ~nobody)[top_edge].any()
    # ... and "seat N to play" under the top card badge (top left).
    assert (seat2 & ~nobody)[40:90, :150].sum() > 200


def _label_height(w: int, h: int) -> int:
    """The height of seat 1's label drawn on a w x h frame: seat 1 sits on the left, and its
    label is beyond the tail of its arrow (which reaches 0.42 of the frame's height)."""
    overlay = Overlay([], [], (0.4, 0.35, 0.6, 0.65), (90.0, 180.0, 270.0, 0.0))
    label = _drawn(overlay, Scene(None, (1,), False, ()), w, h)
    bare = _drawn(overlay, Scene(None, (), False, ()), w, h)
    beyond_tail = int(w / 2 - 0.42 * h) - 2
    rows = np.nonzero((label & ~bare)[:, :beyond_tail].any(axis=1))[0]
    return int(rows.max() - rows.min() + 1)


def test_seat_labels_are_readable_and_scale_with_the_frame():
    small, full = OverlaySizes(640, 360), OverlaySizes(1280, 720)
    assert small.label_px >= 0.035 * 360 and full.label_px == 2 * small.label_px
    height_small, height_full = _label_height(640, 360), _label_height(1280, 720)
    assert height_small >= 0.05 * 360  # the label's box: the text and its margin
    assert 1.8 <= height_full / height_small <= 2.2
