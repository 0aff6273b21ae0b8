"""Frame sources: media timestamps of variable-frame-rate video, a missing camera."""

from __future__ import annotations

from fractions import Fraction

import av
import numpy as np
import pytest

from vision.frames import FrameSourceError, first_frame, read_camera, read_video


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
