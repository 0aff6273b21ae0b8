"""Sound files (WAV, FLAC, OGG and whatever else libsndfile reads), read in chunks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import soundfile

from audio.blocks import AudioSourceError, RawChunk

#: Frames read per chunk: 0.25 s at 48 kHz. Small enough for a progress bar, large enough
#: that reading costs little.
CHUNK_FRAMES = 12_000

#: Extensions tried with libsndfile before falling back to the video reader.
SOUND_FILE_SUFFIXES = frozenset({".wav", ".flac", ".ogg", ".oga", ".aiff", ".aif", ".au", ".mp3"})


def sound_file_duration_s(path: Path) -> float:
    """Duration of a sound file in seconds (raises AudioSourceError when unreadable)."""
    try:
        info = soundfile.info(str(path))
    except (RuntimeError, soundfile.LibsndfileError) as error:
        raise AudioSourceError(f"{path}: not a readable sound file ({error})") from error
    return info.frames / info.samplerate


def read_sound_file(path: Path, chunk_frames: int = CHUNK_FRAMES) -> Iterator[RawChunk]:
    """Chunks of a sound file, all channels, float32; the first chunk starts at t = 0."""
    try:
        sound = soundfile.SoundFile(str(path))
    except (RuntimeError, soundfile.LibsndfileError) as error:
        raise AudioSourceError(f"{path}: not a readable sound file ({error})") from error
    with sound:
        first = True
        while True:
            # `read`, not `blocks`: a short read there hands back its reused buffer, whose old
            # samples then repeated as sound (a cut-short MP3 "knocked" every 0.27 s).
            try:
                samples = sound.read(chunk_frames, dtype="float32", always_2d=True)
            except (RuntimeError, soundfile.LibsndfileError):
                return  # the file breaks here (a cut-short FLAC): the caller sees it end early
            if not len(samples):
                return
            yield RawChunk(samples=samples, rate_hz=sound.samplerate, t_s=0.0 if first else None)
            first = False
