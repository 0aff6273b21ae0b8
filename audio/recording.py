"""The knocks in a recording's sound track (a video's or a sound file's), read whole: what a
review hears. Knocks heard before the recording breaks off are kept."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from audio.blocks import RECORDING_BLOCK_SAMPLES, AudioSourceError, laid_out
from audio.detector import DETECTOR_RATE_HZ, detect_knocks
from audio.sources import open_recording
from referee.events import Knock


@dataclass
class HeardRecording:
    """The knocks heard, a note for people when the sound could not be (wholly) read, and with
    `keep_sound` the track itself: samples from t = 0 and their rate (the report draws its
    loudness without reading it again)."""

    knocks: list[Knock]
    note: str | None = None
    sound: tuple[np.ndarray, int] | None = None


def knocks_in_recording(path: str | Path, keep_sound: bool = False) -> HeardRecording:
    """Listen to the sound track of `path` with the knock detector."""
    knocks: list[Knock] = []
    heard: list = []
    try:
        source = open_recording(Path(path), DETECTOR_RATE_HZ, RECORDING_BLOCK_SAMPLES)
        blocks = source.blocks
        if keep_sound:
            blocks = _kept(blocks, heard)
        for knock in detect_knocks(blocks):
            knocks.append(knock.event())
    except AudioSourceError as failure:
        return HeardRecording(knocks, f"sound: {failure}")
    track = laid_out(heard, source.duration_s) if keep_sound else None
    return HeardRecording(knocks, None, None if track is None else (track, DETECTOR_RATE_HZ))


def _kept(blocks, into: list):
    for block in blocks:
        into.append(block)
        yield block
