"""When a new card came to rest, pixel by pixel (`vision.pile_watcher`'s `t` of a card).

A card laid while hands are over the pile (its own lingering, another seat's passing or laying
the next card) is seen whole only once they have gone. The watcher used to walk back through
its frames while most of the card's patch looked as it does now, and stopped at the first frame
where a hand covered too much of it: the card's `t` became the moment the hands had left.
Here every pixel of the card that differs from the pile before it keeps its own time, the
earliest frame from which it has looked as it does now without a break; the card came to rest
when a small part of it had (`SETTLED_QUANTILE`), the part no hand covered. A pixel can only
look like the card once the card is there: it differed from the pile before it. Only the
card's sharper half is timed (its print's edges and its outline, `EDGE_QUANTILE`): the flat
middle of a field looks the same while the card still slides its last pixel or two into
place, and made the card's `t` a frame or two early.
"""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np

from vision.pixels import channel_sum

SETTLED_QUANTILE = 0.3
"""The card came to rest when this fraction of its timed pixels had settled. Rendered webcam
games 301-306, the `t` of 169 new cards against the truth's (offline, on the frames the
watcher kept): the old walk back had 161 within the 0.5 s a match allows and 113 to the frame;
this 166 and 109 (0.2: 166 and 83). Timing all the changed pixels: 166 and 75 (a card nudged
into place then rests when it was first put down, a frame early); a bound of 36 instead of 60:
163 and 115, and the two cards under two hands of games 303 and 306 late again."""

EDGE_QUANTILE = 0.5
"""The timed pixels are those of the changed ones whose brightness gradient is at least this
quantile of theirs: the sharper half (0.7: 165 within 0.5 s, 117 to the frame)."""

SETTLED_L1 = 60.0
"""A pixel looks as it does now when its colour (L1 over B, G, R) is within this: the pile's
change threshold (`pile_shapes.CHANGE_L1`); a hand's blur at its edge or the noise of a
webcam's compression stays within it, a hand over the pixel does not."""


def settled_since(history: Iterable[tuple[float, np.ndarray]], now: np.ndarray,
                  changed: np.ndarray, now_t: float) -> float:
    """The time at which SETTLED_QUANTILE of the `changed` pixels (bool mask) had looked as
    in `now` without a break. `history`: (time, crop) pairs, the oldest first, ending with
    the frame `now` (the walk goes back from it); crops are float32 BGR like `now`."""
    if EDGE_QUANTILE > 0 and changed.any():
        brightness = channel_sum(now)
        gradient = np.abs(cv2.Sobel(brightness, cv2.CV_32F, 1, 0)) + \
            np.abs(cv2.Sobel(brightness, cv2.CV_32F, 0, 1))
        changed = changed & (gradient >= np.quantile(gradient[changed], EDGE_QUANTILE))
    values = now[changed]
    if not len(values):
        return now_t
    since = np.full(len(values), now_t, np.float64)
    unbroken = np.ones(len(values), bool)
    for t, past in reversed(list(history)):
        unbroken &= np.abs(past[changed] - values).sum(axis=1) <= SETTLED_L1
        if not unbroken.any():
            break
        since[unbroken] = t
    return float(np.quantile(since, SETTLED_QUANTILE))
