"""The pile watcher's windows are held against gaps between frame times, which are sums of frame
durations: a gap of a whole number of frames must count as that many frames' time."""

from vision.pile_cards import gap_s
from vision.pile_same_hand import ADJUST_WINDOW_S, SETTLING_S

FRAME_S = 1 / 30


def _frame_times(count: int) -> list[float]:
    times, t = [], 0.0
    for _ in range(count):
        times.append(t)
        t += FRAME_S  # as a decoder's clock adds up frame durations
    return times


def test_a_gap_of_whole_frames_is_not_taken_for_less():
    times = _frame_times(120)
    assert times[81] - times[72] < SETTLING_S  # the raw difference falls short ...
    assert gap_s(times[81], times[72]) >= SETTLING_S  # ... the gap does not
    assert times[90] - times[45] < ADJUST_WINDOW_S
    assert gap_s(times[90], times[45]) >= ADJUST_WINDOW_S


def test_every_gap_of_whole_frames_comes_out_as_that_many_frames():
    times = _frame_times(120)
    for later in range(120):
        for earlier in range(later):
            assert gap_s(times[later], times[earlier]) == round((later - earlier) / 30, 6)
