"""Frame sources: media timestamps of variable-frame-rate video, a missing camera."""

from __future__ import annotations

import gc
import threading
import weakref
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
import pytest

from vision.frames import (
    Frame,
    FrameSourceError,
    decoded_ahead,
    first_frame,
    frame_from_image,
    plane_pixels,
    read_camera,
    read_video,
    shrink_plane,
)

from video_helpers import make_textured_video


def test_a_variable_frame_rate_video_keeps_each_frames_own_time(tmp_path):
    path = tmp_path / "vfr.mp4"
    pts = [0, 1, 2, 7, 8, 20, 21, 45]  # in 1/30 s: gaps as a phone camera makes them
    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", rate=30)
        stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
        stream.time_base = Fraction(1, 30)
        for p in pts:
            image = np.full((48, 64, 3), (p * 5) % 255, np.uint8)
            frame = av.VideoFrame.from_ndarray(image, format="bgr24")
            frame.pts = p
            container.mux(stream.encode(frame))
        container.mux(stream.encode())
    frames = list(read_video(path))
    assert [round(f.t_s * 30) for f in frames] == pts
    assert frames[0].small.shape == (48, 64, 3)
    assert first_frame(path, skip_s=0.5).t_s == pytest.approx(20 / 30)


def test_a_missing_camera_is_one_clear_error_when_first_read():
    frames = read_camera("/dev/video-that-does-not-exist")  # lazily: nothing opened yet
    with pytest.raises(FrameSourceError, match="cannot be opened"):
        next(frames)


def _counting(n: int, fail_after: int | None = None):
    """Frames 0..n-1 (tiny images); raises FrameSourceError after `fail_after` frames."""
    for i in range(n):
        if fail_after is not None and i == fail_after:
            raise FrameSourceError("broken here")
        image = np.full((4, 4, 3), i, np.uint8)
        yield frame_from_image(image, i / 30, i)


def test_frames_decoded_ahead_come_in_order_and_errors_after_the_frames_before_them():
    assert [f.index for f in decoded_ahead(_counting(50), depth=3)] == list(range(50))
    seen = []
    with pytest.raises(FrameSourceError, match="broken here"):
        for frame in decoded_ahead(_counting(50, fail_after=20), depth=3):
            seen.append(frame.index)
    assert seen == list(range(20))


def test_stopping_early_stops_the_decoding_thread_and_closes_the_source():
    closed = []

    def source():
        try:
            yield from _counting(10_000)
        finally:
            closed.append(True)

    before = threading.active_count()
    frames = decoded_ahead(source(), depth=2)
    assert next(frames).index == 0
    frames.close()
    assert closed == [True]
    assert threading.active_count() == before


def test_the_analysis_copy_is_made_only_when_looked_at(tmp_path):
    made = []

    def small():
        made.append(True)
        return np.zeros((18, 32, 3), np.uint8)

    frame = Frame(0.0, 0, (720, 1280), small, lambda: np.zeros((720, 1280, 3), np.uint8))
    assert made == []
    assert frame.small.shape == (18, 32, 3) and frame.small is frame.small
    assert made == [True]


def test_a_planes_shared_first_halving_shrinks_it_as_shrinking_it_alone_does(tmp_path):
    path = tmp_path / "noise.mp4"
    make_textured_video(path)
    for frame in read_video(path):
        small = frame.small  # first, as the watchers make it: the halvings are kept
        assert small.shape == (180, 320, 3)
        for index, sizes in enumerate([[(360, 640), (180, 320), (135, 240), (720, 1280)],
                                       [(180, 320), (90, 160), (100, 200), (360, 640)],
                                       [(180, 320), (90, 160), (100, 200), (360, 640)]]):
            alone = plane_pixels(frame.decoded.planes[index])
            for size in sizes:
                assert np.array_equal(frame.plane_shrunk(index, size), shrink_plane(alone, size))


def test_a_decoded_frame_is_freed_as_soon_as_it_is_dropped(tmp_path):
    # Left to the cycle collector, frames pile up between collections, and one collected in
    # the knock detector's forked process hangs it (freeing the decoder's scaler waits on
    # threads that process does not have).
    path = tmp_path / "noise.mp4"
    make_textured_video(path, size=(90, 160), frames=3)
    frames = read_video(path)
    gc.disable()
    try:
        first = next(frames)
        assert first.small.shape == (90, 160, 3)
        first.plane_shrunk(0, (45, 80))
        dropped = weakref.ref(first)
        del first
        next(frames)  # the reader lets go of the one before
        assert dropped() is None
    finally:
        gc.enable()
        frames.close()


def _card_like_video(path, size=(360, 640)) -> None:
    """Smooth colours with sharp-edged blocks: a table with cards, not noise (whose chroma
    cannot survive 4:2:0 either way)."""
    h, w = size
    ys, xs = np.mgrid[0:h, 0:w]
    image = np.stack([xs * 200 // w + 20, ys * 200 // h + 30, (xs + ys) * 100 // (w + h) + 60],
                     axis=-1).astype(np.uint8)
    image[100:220, 200:290] = (40, 40, 200)
    image[130:190, 225:265] = (240, 240, 240)
    image[20:60, 560:640] = (20, 160, 60)
    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", rate=30)
        stream.height, stream.width = size
        stream.pix_fmt = "yuv420p"
        stream.options = {"crf": "12"}
        frame = av.VideoFrame.from_ndarray(image, format="bgr24")
        frame.pts = 0
        container.mux(stream.encode(frame))
        container.mux(stream.encode())


@pytest.mark.parametrize("centre, angle, scale", [
    ((245.0, 160.0), 20.0, 1.0), ((630.0, 30.0), -35.0, 1.0),
    # The pile watcher cuts its reader's crops at one card size (vision.pile_cards.card_view).
    ((245.0, 160.0), 20.0, 2.2), ((245.0, 160.0), -10.0, 0.7)])
def test_a_patch_of_a_video_frame_converts_only_its_part_and_matches_the_whole(tmp_path, centre,
                                                                               angle, scale):
    import cv2

    path = tmp_path / "cards.mp4"
    _card_like_video(path)
    turn = cv2.getRotationMatrix2D(centre, angle, scale)
    turn[:, 2] += (70 - centre[0], 90 - centre[1])
    cut_from = next(iter(read_video(path)))
    cut = cut_from.patch(turn, (140, 180))
    assert cut_from._full is None  # the whole frame was never converted
    frame = next(iter(read_video(path)))
    whole = cv2.warpAffine(frame.full(), turn, (140, 180), flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE)
    assert cut.shape == whole.shape == (180, 140, 3)
    # The decoder's own converter on the part: the same pixels as on the whole frame (but
    # where the whole frame's chroma interpolation reached beyond the part, near its edge).
    difference = np.abs(cut.astype(int) - whole)
    assert difference.mean() < 1.0 and np.percentile(difference, 99) <= 2
    assert np.abs(cut.astype(int) - np.roll(whole, 15, axis=1)).mean() > 5


def test_one_frame_is_made_once_whatever_threads_ask_for_it_at_once():
    # Live, the watchers and the dashboard's picture convert one decoder frame from several
    # threads; PyAV's scaler crashed the process when two converted the same frame together.
    demo = Path(__file__).resolve().parents[1] / "examples" / "demo" / "demo.mp4"
    frames = []
    for frame in read_video(demo):
        frames.append(frame)
        if len(frames) == 30:
            break
    made: list = []

    def ask(k: int) -> None:
        for frame in frames:
            full = frame.full() if k % 2 else None
            cut = frame.patch(np.float32([[1, 0, 0], [0, 1, 0]]), (64, 48))
            made.append((frame.index, full is None, frame.small.shape, cut.shape))

    threads = [threading.Thread(target=ask, args=(k,)) for k in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 6 * 30
    assert all(frame.full() is frame.full() for frame in frames)  # made once


@pytest.mark.parametrize("picture_from_s,sound_from_s,first_frame_s,first_sound_s", [
    (2.0, 0.0, 2.0, 0.0),        # a recorder's file whose picture starts after its sound
    (3600.0, 3600.0, 0.0, 0.0),  # a recording whose clock starts at an hour
])
def test_picture_and_sound_are_on_the_files_one_clock(tmp_path, picture_from_s, sound_from_s,
                                                       first_frame_s, first_sound_s):
    # The picture was timed from its own track's start and the sound from the tracks' zero:
    # 2 s apart in the first file (every card 2 s early against its knocks and the notes),
    # an hour apart in the second (every knock "missed").
    from audio.sources import open_recording

    from video_helpers import make_video

    path = tmp_path / "recorded.mp4"
    make_video(path, seconds=4.0, picture_from_s=picture_from_s, sound_from_s=sound_from_s)
    first = next(iter(read_video(path)))
    assert first.t_s == pytest.approx(first_frame_s, abs=0.07)
    block = next(iter(open_recording(path, 16_000).blocks))
    assert block.t_s == pytest.approx(first_sound_s, abs=0.07)


def test_a_phones_turned_video_is_read_as_a_player_shows_it(tmp_path):
    # Stored landscape (its left third bright) with a display matrix saying "turn it a quarter
    # clockwise": it was watched sideways, and seats were named from the wrong edge.
    from video_helpers import H, W, make_turned_video

    path = tmp_path / "portrait.mp4"
    make_turned_video(path)
    frame = next(iter(read_video(path)))
    picture = frame.full()
    assert frame.full_size == (W, H) and picture.shape[:2] == (W, H)
    assert picture[: W // 4].mean() > 150 and picture[-W // 4:].mean() < 80  # bright on top


def test_a_whole_recording_whose_clock_starts_an_hour_in_is_not_called_truncated(tmp_path):
    # Matroska states such a file's end (3604 s), not its length: every frame was read and
    # then "the video ends at 4.00 s of its stated 3604.06 s ... truncated" (review exit 3).
    from video_helpers import make_video

    path = tmp_path / "recorded.mkv"
    make_video(path, seconds=4.0, picture_from_s=3600.0, sound_from_s=3600.0)
    assert len(list(read_video(path))) == 60
