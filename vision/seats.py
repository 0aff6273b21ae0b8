"""Who is it? Seats as directions around the pile, and arms matched to them.

docs/DESIGN.md: seats sit around the discard pile at angles in image coordinates (x right, y down,
so increasing angle is clockwise in a top-down image), seat 0 towards the bottom by default.
An arm belongs to the seat whose direction is nearest the point where it crosses the frame
edge, seen from the pile centre; when no seat is clearly nearest, nobody (None) — docs/DESIGN.md
says a penalty is never pinned on a seat the camera cannot name.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

AMBIGUOUS_MARGIN_DEG = 4.0
"""When the nearest and second-nearest seats are within this many degrees of the arm's
direction of each other, the arm sits between two seats: nobody is named."""

MAX_OFF_SEAT_FRACTION = 0.5
"""An arm may come in at most this fraction of the gap between neighbouring seats away from
its seat (0.5: anything closer to it than to a neighbour), capped by MAX_OFF_SEAT_DEG."""

MAX_OFF_SEAT_DEG = 50.0
"""... and never more than this many degrees (with two players, the 180° gap would otherwise
make every direction somebody's)."""


def angle_deg(point: tuple[float, float], centre: tuple[float, float]) -> float:
    """Direction of `point` seen from `centre`, degrees in image coordinates, 0..360."""
    return math.degrees(math.atan2(point[1] - centre[1], point[0] - centre[0])) % 360.0


def angular_distance_deg(a: float, b: float) -> float:
    d = abs(a - b) % 360.0
    return min(d, 360.0 - d)


def seat_of_angle(angle: float, seat_angles_deg: Sequence[float]) -> int | None:
    """The seat an arm coming in at `angle` belongs to, or None when unclear."""
    distances = sorted((angular_distance_deg(angle, a), seat)
                       for seat, a in enumerate(seat_angles_deg))
    best, seat = distances[0]
    gaps = [angular_distance_deg(seat_angles_deg[seat], a)
            for s, a in enumerate(seat_angles_deg) if s != seat]
    allowed = min(MAX_OFF_SEAT_DEG, MAX_OFF_SEAT_FRACTION * min(gaps))
    if best > allowed:
        return None
    if len(distances) > 1 and distances[1][0] - best < AMBIGUOUS_MARGIN_DEG:
        return None
    return seat


def vote(seats: Iterable[int | None], min_share: float = 0.6) -> int | None:
    """The seat named by at least `min_share` of the named votes (None votes are ignored);
    None when nobody was seen or the votes split."""
    return vote_share(seats, min_share)[0]


def vote_share(seats: Iterable[int | None], min_share: float = 0.6
               ) -> tuple[int | None, float | None]:
    """`vote`'s seat and the share of the named votes that named it (None with no seat)."""
    counts = Counter(s for s in seats if s is not None)
    if not counts:
        return None, None
    seat, n = counts.most_common(1)[0]
    share = n / sum(counts.values())
    return (seat, share) if share >= min_share else (None, None)
