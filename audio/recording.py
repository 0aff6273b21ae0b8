"""The knocks in a recording's sound track (a video's or a sound file's), read whole: what a
review hears. Knocks heard before the recording breaks off are kept. The loud moments come
with them: a missed knock in one is unsure (`audio.loudness`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from audio.blocks import RECORDING_BLOCK_SAMPLES, AudioSourceError, laid_out
from audio.detector import DETECTOR_RATE_HZ, detect_knocks
from audio.loudness import LoudWatcher
from audio.sources import open_recording
from referee.events import Knock, Loud


@dataclass
class HeardRecording:
    """The knocks heard, a note for people when the sound could not be (wholly) read, and with
    `keep_sound` the track itself: samples from t = 0 and their rate (the report draws its
    loudness without reading it again)."""

    knocks: list[Knock]
    note: str | None = None
    sound: tuple[np.ndarray, int] | None = None
    loud: list[Loud] = field(default_factory=list)


def knocks_in_recording(path: str | Path, keep_sound: bool = False) -> HeardRecording:
    """Listen to the sound track of `path` with the knock detector."""
    knocks: list[Knock] = []
    heard: list = []
    loudness = LoudWatcher()
    loud: list[Loud] = []
    try:
        source = open_recording(Path(path), DETECTOR_RATE_HZ, RECORDING_BLOCK_SAMPLES)
        blocks = _watched(source.blocks, loudness, loud, heard if keep_sound else None)
        for knock in detect_knocks(blocks):
            knocks.append(knock.event())
    except AudioSourceError as failure:
        return HeardRecording(knocks, f"sound: {failure}", loud=loud + loudness.finish())
    loud += loudness.finish()
    track = laid_out(heard, source.duration_s) if keep_sound else None
    return HeardRecording(knocks, None, None if track is None else (track, DETECTOR_RATE_HZ),
                          loud)


def _watched(blocks, loudness: LoudWatcher, loud: list[Loud], kept: list | None):
    """The blocks, passing each through the loudness watcher (and into `kept`) on the way."""
    for block in blocks:
        loud += loudness.process(block)
        if kept is not None:
            kept.append(block)
        yield block
