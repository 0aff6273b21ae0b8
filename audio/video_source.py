"""The sound track of a video file (MP4, MKV, MOV, WebM…), decoded with PyAV."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import av
import numpy as np

from audio.blocks import AudioSourceError, RawChunk


def _open(path: Path):
    try:
        container = av.open(str(path))
    except (av.error.FFmpegError, OSError) as error:
        raise AudioSourceError(f"{path}: cannot open as a video or sound file ({error})") from error
    if not container.streams.audio:
        container.close()
        raise AudioSourceError(
            f"{path}: the file has no sound track; record with the microphone on, "
            "or give a sound file"
        )
    return container


def video_duration_s(path: Path) -> float | None:
    """Duration of the first sound track in seconds, or None when the container does not say."""
    container = _open(path)
    with container:
        stream = container.streams.audio[0]
        if stream.duration is not None and stream.time_base is not None:
            return float(stream.duration * stream.time_base)
        if container.duration is not None:
            return container.duration / av.time_base
    return None


def read_video_sound(path: Path) -> Iterator[RawChunk]:
    """Chunks of the first sound track, float32 (frames, channels), stamped with media time.

    AAC and other codecs add priming samples; the decoder's timestamps already account
    for them, so time comes from the first frame's `time`, not from a sample count.
    """
    container = _open(path)
    with container:
        stream = container.streams.audio[0]
        # On the file's clock, as the picture (vision.frames.media_time_s): from the start of
        # its earliest track, not from the tracks' own zero (a recording whose clock starts at
        # 3600 s, or whose picture starts after its sound, kept its knocks far from its cards).
        start = container.start_time
        origin_s = start / av.time_base if start is not None else 0.0
        try:
            for frame in container.decode(stream):
                yield RawChunk(
                    samples=_frame_samples(frame), rate_hz=frame.sample_rate,
                    t_s=None if frame.time is None else frame.time - origin_s
                )
        except av.error.FFmpegError as error:
            raise AudioSourceError(
                f"{path}: the sound track cannot be decoded ({error})"
            ) from error


def _frame_samples(frame) -> np.ndarray:
    """(frames, channels) float32 from any PyAV sample format (planar or packed, int or float)."""
    array = frame.to_ndarray()
    channels = len(frame.layout.channels)
    # Planar arrays are (channels, frames); packed ones interleave the channels.
    array = array.T if frame.format.is_planar else array.reshape(-1, channels)
    if np.issubdtype(array.dtype, np.integer):
        scale = float(np.iinfo(array.dtype).max) + 1.0
        return (array.astype(np.float32) / scale).astype(np.float32)
    return array.astype(np.float32)
