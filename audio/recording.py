"""The knocks in a recording's sound track (a video's or a sound file's), read whole: what a
review hears. Knocks heard before the recording breaks off are kept. The loud moments come
with them: a missed knock in one is unsure (`audio.loudness`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from audio.blocks import RECORDING_BLOCK_SAMPLES, AudioSourceError, laid_out
from audio.detector import DETECTOR_RATE_HZ
from audio.hearing import heard_events
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
    loud: list[Loud] = []
    heard: list = []
    try:
        source = open_recording(Path(path), DETECTOR_RATE_HZ, RECORDING_BLOCK_SAMPLES)
        blocks = _kept(source.blocks, heard) if keep_sound else source.blocks
        for event in heard_events(blocks):
            (knocks if isinstance(event, Knock) else loud).append(event)
    except AudioSourceError as failure:
        return HeardRecording(knocks, f"sound: {failure}", loud=loud)
    track = laid_out(heard, source.duration_s) if keep_sound else None
    return HeardRecording(knocks, None, None if track is None else (track, DETECTOR_RATE_HZ),
                          loud)


def _kept(blocks, into: list):
    for block in blocks:
        into.append(block)
        yield block
