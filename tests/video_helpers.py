"""Small test videos made with PyAV: a plain table colour, optionally a tone as sound; or noise."""

from __future__ import annotations

from fractions import Fraction

import av
import numpy as np

FPS, W, H = 15, 320, 180


def make_video(path, seconds: float = 2.0, sound: bool = True, fps: int = FPS,
               size: tuple[int, int] = (H, W), picture_from_s: float = 0.0,
               sound_from_s: float = 0.0) -> None:
    """A plain table colour `seconds` long at `fps`, `size` (height, width); its picture's
    and its sound's first timestamps at `picture_from_s` and `sound_from_s`."""
    height, width = size
    with av.open(str(path), "w") as container:
        video = container.add_stream("libx264", rate=fps)
        video.width, video.height, video.pix_fmt = width, height, "yuv420p"
        audio = container.add_stream("aac", rate=16000) if sound else None
        if audio is not None:
            audio.layout = "mono"
        for i in range(int(seconds * fps)):
            image = np.full((height, width, 3), (40, 100, 30), np.uint8)
            frame = av.VideoFrame.from_ndarray(image, format="bgr24")
            frame.pts = i + round(picture_from_s * fps)
            container.mux(video.encode(frame))
        container.mux(video.encode())
        if audio is not None:
            tone = (0.2 * np.sin(np.arange(int(16000 * seconds)) / 5)).astype(np.float32)
            for start in range(0, len(tone), 1024):
                frame = av.AudioFrame.from_ndarray(tone[None, start:start + 1024], format="fltp",
                                                   layout="mono")
                frame.sample_rate, frame.pts = 16000, start + round(sound_from_s * 16000)
                frame.time_base = Fraction(1, 16000)
                container.mux(audio.encode(frame))
            container.mux(audio.encode())


def make_textured_video(path, size: tuple[int, int] = (720, 1280), frames: int = 2) -> None:
    """Noise, so that every way of shrinking it shows."""
    rng = np.random.default_rng(3)
    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", rate=30)
        stream.height, stream.width = size
        stream.pix_fmt = "yuv420p"
        for i in range(frames):
            image = rng.integers(0, 256, (*size, 3), np.uint8)
            frame = av.VideoFrame.from_ndarray(image, format="bgr24")
            frame.pts = i
            container.mux(stream.encode(frame))
        container.mux(stream.encode())



def make_variable_rate_video(path, seconds: float = 3.0) -> int:
    """A phone's video in dim light: 30 fps on a 1/90000 clock, halved to 15 fps for its middle
    second. Returns its number of frames."""
    frames = 0
    with av.open(str(path), "w") as container:
        video = container.add_stream("libx264", rate=30)
        video.width, video.height, video.pix_fmt = W, H, "yuv420p"
        video.time_base = Fraction(1, 90_000)
        for i in range(int(seconds * 30)):
            if 30 <= i < 60 and i % 2:
                continue
            image = np.full((H, W, 3), (40, 100, 30 + i), np.uint8)
            frame = av.VideoFrame.from_ndarray(image, format="bgr24")
            frame.pts, frame.time_base = i * 3000, Fraction(1, 90_000)
            container.mux(video.encode(frame))
            frames += 1
        container.mux(video.encode())
    return frames


def make_turned_video(path, frames: int = 6) -> None:
    """A phone's portrait video as phones store it: a landscape picture (W x H, its left third
    bright) and a display matrix that says to turn it a quarter clockwise."""
    with av.open(str(path), "w") as container:
        video = container.add_stream("libx264", rate=FPS)
        video.width, video.height, video.pix_fmt = W, H, "yuv420p"
        video.set_display_rotation(-90)
        for i in range(frames):
            image = np.full((H, W, 3), 40, np.uint8)
            image[:, : W // 3] = 220
            frame = av.VideoFrame.from_ndarray(image, format="bgr24")
            frame.pts = i
            container.mux(video.encode(frame))
        container.mux(video.encode())
