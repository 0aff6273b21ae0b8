"""What the microphone tells the referee: the knocks (`audio.detector`) and the loud moments a
knock could drown in (`audio.loudness`), heard from one stream of blocks, as events. A review
and a live table listen the same way."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from audio.blocks import AudioBlock, AudioSourceError
from audio.detector import KnockDetector
from audio.loudness import LoudWatcher
from referee.events import Event


def heard_events(blocks: Iterable[AudioBlock], detector: KnockDetector | None = None,
                 loudness: LoudWatcher | None = None) -> Iterator[Event]:
    """`Knock` and `Loud` events as they are decided, block by block (not in time order: a
    loud moment is told once it is a quarter second long, a knock some 30 ms after it)."""
    detector = detector or KnockDetector()
    loudness = loudness or LoudWatcher()
    try:
        for block in blocks:
            yield from loudness.process(block)
            for knock in detector.process(block):
                yield knock.event()
    except AudioSourceError:
        yield from loudness.finish()  # the room was loud up to the break: that still holds
        raise
    yield from loudness.finish()
    for knock in detector.finish():
        yield knock.event()
