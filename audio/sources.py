"""Open any supported input as a stream of `AudioBlock`s: sound file, video's sound track or mic."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import soundfile

from audio.blocks import DEFAULT_BLOCK_SAMPLES, AudioBlock, AudioSourceError, conform
from audio.file_source import SOUND_FILE_SUFFIXES, read_sound_file, sound_file_duration_s
from audio.video_source import read_video_sound, video_duration_s


@dataclass
class OpenedSource:
    """The blocks of a recording and its duration in seconds (None when unknown)."""

    blocks: Iterator[AudioBlock]
    duration_s: float | None
    description: str


def cut_short(path: Path, heard_s: float, stated_s: float | None) -> str | None:
    """How a recording is cut short, in words, when its sound ended well before (over a second
    and 2 %) the length its file states; else None. Damaged or cut-off files end early."""
    if stated_s is None or heard_s >= stated_s - max(1.0, 0.02 * stated_s):
        return None
    return (f"{path}: the sound ends at {heard_s:.1f} s of the {stated_s:.1f} s the file "
            "states (cut short or damaged)")


def _is_sound_file(path: Path) -> bool:
    if path.suffix.lower() not in SOUND_FILE_SUFFIXES:
        return False
    try:
        soundfile.info(str(path))
    except (RuntimeError, soundfile.LibsndfileError):
        return False
    return True


def open_recording(
    path: str | Path, rate_hz: int, block_samples: int = DEFAULT_BLOCK_SAMPLES
) -> OpenedSource:
    """Blocks at `rate_hz` from a sound file or a video's sound track, chosen by content."""
    path = Path(path)
    if not path.exists():
        raise AudioSourceError(f"{path}: no such file; check the path")
    if path.is_dir():
        raise AudioSourceError(f"{path}: is a folder; give a sound or video file")
    if _is_sound_file(path):
        return OpenedSource(
            blocks=conform(read_sound_file(path), rate_hz, block_samples),
            duration_s=sound_file_duration_s(path),
            description=f"sound file {path.name}",
        )
    duration_s = video_duration_s(path)  # also raises the "no sound track" error early
    return OpenedSource(
        blocks=conform(read_video_sound(path), rate_hz, block_samples),
        duration_s=duration_s,
        description=f"sound track of {path.name}",
    )


def open_microphone(
    rate_hz: int,
    device: str | int | None = None,
    block_samples: int = DEFAULT_BLOCK_SAMPLES,
    session_start_s: float | None = None,
    stop=None,
) -> Iterator[AudioBlock]:
    """Blocks at `rate_hz` from a live microphone (see `audio.mic_source.read_microphone`)."""
    from audio.mic_source import check_microphone, read_microphone

    check_microphone(device)  # fail now, with a clear line, rather than at the first block
    chunks = read_microphone(device=device, session_start_s=session_start_s, stop=stop)
    return conform(chunks, rate_hz, block_samples)
