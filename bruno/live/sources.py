"""Where the live session's pictures and sound come from: a camera and a microphone, or a
recorded video fed at real speed through the same interfaces (the simulated camera and
microphone: tests, and anyone trying `bruno live` without a webcam).

Every source yields what the review's detectors take — `vision.frames.Frame`s and
`audio.blocks.AudioBlock`s — stamped on the session clock. A recording's own time is the
session time (it starts when the session does); a resumed session skips what the recording
held before the journal's last moment, and goes on from there.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from audio.blocks import AudioBlock, AudioSourceError
from audio.detector import DETECTOR_RATE_HZ
from bruno.live.clock import SessionClock
from vision.frames import Frame, FrameSourceError, read_camera, read_video


@dataclass(frozen=True)
class SourceSpec:
    """A device (`device`: an index or a name) or a recording (`path`)."""

    device: int | str | None = None
    path: Path | None = None

    @property
    def is_recording(self) -> bool:
        return self.path is not None

    def describe(self) -> str:
        return f"recording {self.path}" if self.path else f"device {self.device!r}"


def camera_spec(value: str | None) -> SourceSpec:
    """`--camera`: a camera number (0, 1...), a device path (/dev/video2) or a video file."""
    if value is None:
        return SourceSpec(device=0)
    if value.strip().isdigit():
        return SourceSpec(device=int(value))
    if value.startswith("/dev/"):
        return SourceSpec(device=value)
    return SourceSpec(path=Path(value))


RECORDING_SUFFIXES = frozenset({".wav", ".flac", ".ogg", ".oga", ".mp3", ".aiff", ".aif", ".au",
                                ".mp4", ".mkv", ".mov", ".webm", ".avi", ".m4a"})


def mic_spec(value: str | None) -> SourceSpec:
    """`--mic`: a sound or video file (one that exists, or a name that looks like a file, so a
    mistyped path says "no such file"), else a microphone name or number; none: the system's
    default microphone."""
    if value is None:
        return SourceSpec()
    path = Path(value)
    if path.is_file() or path.suffix.lower() in RECORDING_SUFFIXES or "/" in value:
        return SourceSpec(path=path)
    return SourceSpec(device=value)


def _wait_until(clock: SessionClock, t: float, stop: threading.Event) -> bool:
    """Sleep until the clock reads `t`; False when stopped first."""
    while True:
        left = t - clock.now()
        if left <= 0:
            return not stop.is_set()
        if stop.wait(min(left, 0.5)):
            return False


def paced_video(path: Path, clock: SessionClock, stop: threading.Event,
                start_at: float = 0.0) -> Iterator[Frame]:
    """A video's frames, each handed over when the session clock reaches its time (as a camera
    would), from `start_at` on. Raises FrameSourceError as `read_video` does."""
    for frame in read_video(path):
        if frame.t_s < start_at:
            continue
        if not _wait_until(clock, frame.t_s, stop):
            return
        yield frame


def paced_sound(path: Path, clock: SessionClock, stop: threading.Event,
                start_at: float = 0.0) -> Iterator[AudioBlock]:
    """A recording's sound as detector blocks, each handed over once the session clock has
    passed its end (as a microphone would), from `start_at` on."""
    from audio.sources import open_recording

    for block in open_recording(path, DETECTOR_RATE_HZ).blocks:
        if block.t_s < start_at:
            continue
        if not _wait_until(clock, block.t_s + block.duration_s, stop):
            return
        yield block


def open_camera(spec: SourceSpec, clock: SessionClock, stop: threading.Event,
                start_at: float = 0.0) -> Iterator[Frame]:
    """Frames from the camera or recording, checked now: a camera that cannot be opened or a
    recording that cannot be read raises FrameSourceError before any thread starts."""
    if spec.path is not None:
        from vision.frames import IMAGE_SUFFIXES, video_duration_s

        if spec.path.suffix.lower() in IMAGE_SUFFIXES:
            raise FrameSourceError(f"{spec.path}: a still photo, not a recording; give a video "
                                   "with --camera FILE, or a camera number")
        frames = paced_video(spec.path, clock, stop, start_at)

        video_duration_s(spec.path)  # opens it: a missing or broken file fails here
        return frames
    import cv2

    # OpenCV warns on stderr about every backend that could not open the device; the one-line
    # error below says what matters.
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    capture = cv2.VideoCapture(spec.device)
    opened = capture.isOpened()
    capture.release()
    if not opened:
        raise FrameSourceError(
            f"camera {spec.device!r} cannot be opened; plug one in (or free it from another "
            "program), give another with --camera N, or a recorded video with --camera FILE")
    return read_camera(spec.device, session_start_s=clock.origin, stop=stop.is_set)


def open_mic(spec: SourceSpec, clock: SessionClock, stop: threading.Event,
             start_at: float = 0.0) -> Iterator[AudioBlock]:
    """Blocks from the microphone or recording, checked now (AudioSourceError)."""
    if spec.path is not None:
        from audio.sources import open_recording

        open_recording(spec.path, DETECTOR_RATE_HZ)  # a file with no sound track fails here
        return paced_sound(spec.path, clock, stop, start_at)
    from audio.sources import open_microphone

    try:
        return open_microphone(DETECTOR_RATE_HZ, device=spec.device,
                               session_start_s=clock.origin, stop=stop)
    except AudioSourceError as error:
        # The microphone reader names the flag of `bruno listen`; here it is --mic.
        message = str(error).replace("--device NAME", "--mic NAME")
        raise AudioSourceError(f"{message}; or referee without knocks: --no-mic") from None
