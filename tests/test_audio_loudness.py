"""Loud moments: talk over the table is reported, short sounds (knocks, slaps) are not."""

from itertools import pairwise

import numpy as np

from audio.blocks import AudioBlock
from audio.loudness import LoudWatcher

RATE = 16_000


def _watch(samples: np.ndarray, block: int = 1600) -> list[dict]:
    watcher = LoudWatcher()
    out = []
    for start in range(0, len(samples), block):
        out += watcher.process(AudioBlock(start / RATE, samples[start:start + block], RATE))
    return [e.to_dict() for e in out + watcher.finish()]


def _room(seconds: float, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(0, 0.001, round(seconds * RATE)).astype(np.float32)


def _add(samples: np.ndarray, at_s: float, seconds: float, rms: float, seed: int = 1) -> None:
    start, n = round(at_s * RATE), round(seconds * RATE)
    samples[start:start + n] += np.random.default_rng(seed).normal(0, rms, n).astype(np.float32)


def test_a_quiet_room_with_knocks_has_no_loud_moment():
    sound = _room(8)
    for at in (2.0, 2.4, 5.0, 6.5):
        _add(sound, at, 0.05, 0.3)  # a knock: very loud, but 50 ms
    assert _watch(sound) == []


def test_two_seconds_of_talk_are_reported_in_short_pieces_that_cover_them():
    sound = _room(10)
    _add(sound, 4.0, 2.0, 0.02)  # 26 dB over the room
    loud = _watch(sound)
    assert loud and all(e["kind"] == "loud" and e["duration"] <= 0.3 for e in loud)
    assert abs(loud[0]["t"] - 4.0) < 0.1
    assert abs(loud[-1]["t"] + loud[-1]["duration"] - 6.0) < 0.25
    # The pieces follow one another without gaps or overlaps.
    for before, after in pairwise(loud):
        assert abs(before["t"] + before["duration"] - after["t"]) < 0.03
    assert all(20 < e["level"] < 32 for e in loud)


def test_a_room_only_a_little_louder_is_not_loud():
    sound = _room(10)
    _add(sound, 4.0, 2.0, 0.0025)  # 8 dB over the room: knocks still stand well clear
    assert _watch(sound) == []


def test_how_the_sound_is_cut_into_blocks_does_not_matter():
    sound = _room(10)
    _add(sound, 3.0, 1.5, 0.02)
    assert _watch(sound, block=160) == _watch(sound, block=4096)
