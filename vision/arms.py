"""Arms reaching into the picture: foreground blobs that touch the frame edge.

A running background of the whole (downscaled) frame is kept; whatever differs from it by
more than a lighting change can explain, and touches the frame's edge, is an arm (people reach
in from where they sit; a card lying on the table never touches the edge). For each arm we keep
where it crosses the edge (`entry`, which gives the seat) and its `tip`, the point farthest
from the entry (the hand, or the card it carries).

Brightness is normalised per channel by the frame's median, so a lamp switched on or off does
not turn the whole table into an arm; a difference must also change the colour or the
brightness by more than a passing shadow does.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from vision.pixels import channel_sum, follow, l1_distance, per_pixel, scale_channels
from vision.seats import angle_deg, seat_of_angle

ARM_SCALE = 0.5
"""Arms are looked for at this fraction of the analysis frame (160x90 for a 320x180 one):
an arm is several card widths long, so it survives halving, and the cost quarters."""

BRIGHTNESS_RATIO_MAX = 1.3
"""A pixel is foreground when its brightness differs from the background by more than this
factor (either way). A passing shadow (about 0.8x) or a lamp change left after normalisation
stays inside it; a hand over a dark table or a dark sleeve over a light one does not."""

CHROMA_DIFF_MIN = 0.05
"""... or when its chromaticity (each channel / the sum) moves by more than this (L1): skin
and sleeves against the table's colour. Sensor noise moves it by ~0.015; a grey-lilac sleeve
over a grey table by ~0.07."""

MIN_SUM_DIFF = 45.0
"""... and, for the brightness test, by more than this in B+G+R (0-765; 15 grey levels): on a
near-black table any flicker is a large ratio."""

BRIDGE_SUM_DIFF = 20.0
BRIDGE_DARK_LEVEL = 20.0
BRIDGE_CHROMA_DIFF = 0.15
"""To join a blob cut off from the view's edge to it (`ArmTracker._rejoined`) a pixel need
differ from the bare table only by these (for MIN_SUM_DIFF, DARK_LEVEL, CHROMA_DIFF_MIN): a
black sleeve over the dark streaks of a dark green table (sums 75-85 against 95-135) is no
arm by the tests above, but its colour is far from the table's (0.3 or more). At the tracker's
size a dark table's noise moves the sum by a few and the chromaticity by about 0.05."""

DARK_LEVEL = 40.0
"""Below this mean grey level chromaticity is mostly noise and is not trusted."""

MIN_ARM_AREA_CARDS = 0.25
"""An arm blob covers at least this many card areas (smaller edge blobs are noise)."""

BACKGROUND_RATE_STILL = 0.15
"""How fast the background follows pixels that are not foreground (per frame): a card that
came to rest is part of the table within ~20 frames."""

BACKGROUND_RATE_FOREGROUND = 0.004
"""... and pixels that are foreground: an arm resting on the table for a few seconds still
stands out."""

FOREGROUND_MAX_FRAMES = 45
"""A pixel foreground for this many frames in a row (1.5 s at 30 fps) joins the background at
the still rate: arms come and go, but a ghost — where the background took in part of an arm
whose colour matched the table — would otherwise stay for minutes. Not while its blob moves
(MOVING_BLOB_CARDS)."""

MOVING_L1 = 30.0
"""A pixel moved from one frame to the next when B+G+R changed by more than this (10 grey
levels a channel; sensor noise at the arm tracker's size is about 2) ..."""

MOVING_BLOB_CARDS = 0.1
"""... and a foreground blob with this many card areas of moved pixels is an arm at work: its
pixels do not age towards the background (FOREGROUND_MAX_FRAMES), however long it has been
over the table. A hand laying cards one after another keeps it over the pile for seconds
(DrukUNO's multi-card plays): its sleeve, still at the table's edge, was taken into the
background after 1.5 s, the arm no longer reached the edge, and it was lost. A ghost does not
move."""

FOLLOW_CARDS = 1.0
"""An arm lost from one frame to the next is followed to a moving blob within this many card
heights of its tip (`ArmTracker._followed`): a hand moves about a card in a frame at most."""

RESET_FOREGROUND_FRACTION = 0.6
"""When more than this fraction of the frame is foreground, the background is retaken."""

EDGE_PX = 2
"""Pixels within this distance of the frame edge count as the edge."""

SPLIT_GAP_DEG = 90.0
"""A blob whose pixels at the view's edge leave a gap of more than this (seen from the pile)
between two runs of them is two arms (or more) that met over the table, from seats at least
this far apart; one arm's width at the edge spans far less. Arms of neighbouring seats at a
table of four or more stay one blob (their mean entry lies near both; their seats are told
apart by `Arm.parts`). Rendered webcam games
301-306 (plays found, phantom plays, seats right): no split 158, 5, 141; split at 35 degrees
157, 8, 145; at 60, 158, 7, 145; at 90, 159, 5, 143."""

SPLIT_MIN_EDGE_PX = 3
"""... each run at least this many edge pixels (at ARM_SCALE): fewer is a speck of noise
touching the edge, not an arm."""

SEAT_SPLIT_GAP_DEG = 20.0
"""For naming the seat only (`Arm.parts`), an arm whose pixels at the view's edge form two
runs more than this apart (seen from the pile) is the arms of two seats, neighbours too: one
arm crosses the edge in one unbroken run, so any real gap between two arm-wide runs is a
second arm merged with it over the table (rendered webcam games 301-306: neighbouring seats'
arms merged left gaps of 41-85 degrees). The arm the watchers follow stays one: split at 35
degrees for everything, tips and all, games 301-306 lost plays (157 against 159, and 8
phantoms against 5)."""

SEAT_SPLIT_MIN_EDGE_PX = 12
"""... each run at least this many edge pixels (at ARM_SCALE): half an arm's crossing of the
edge band (rendered webcam games 301-306: the smaller run of every such split held 26 or
more)."""

SPLIT_BEYOND_PILE_CARDS = 0.7
"""An arm's line runs from where it enters to the pile and this many card heights on (a
hand reaching across the pile), the part past the pile counted as farther."""

_AROUND = np.ones((3, 3), np.uint8)


@dataclass(frozen=True)
class Arm:
    """An arm in one frame, in analysis-frame pixels: where it enters, its tip, its seat."""

    entry: tuple[float, float]
    tip: tuple[float, float]
    area_px: float
    entry_angle_deg: float
    seat: int | None
    blob: tuple[int, int, np.ndarray] | None = field(default=None, compare=False, repr=False)
    """(x, y, mask): the arm's pixels at ARM_SCALE, a bool mask whose top-left corner is at
    (x, y) of the ARM_SCALE frame."""
    parts: tuple[Arm, ...] = field(default=(), compare=False, repr=False)
    """When the arm is the arms of two or more seats merged into one blob (neighbours, whose
    places at the view's edge lie closer than SPLIT_GAP_DEG): one arm per seat
    (SEAT_SPLIT_GAP_DEG), for naming the seat; else empty."""

    def seat_parts(self) -> tuple[Arm, ...]:
        """The arms this one is, one per seat: its `parts`, or itself."""
        return self.parts or (self,)

    def covers(self, xs: np.ndarray, ys: np.ndarray) -> int:
        """How many of the analysis-frame points (xs, ys) the arm's pixels cover."""
        if self.blob is None:
            return 0
        x, y, mask = self.blob
        ax = (xs * ARM_SCALE).astype(int) - x
        ay = (ys * ARM_SCALE).astype(int) - y
        inside = (ax >= 0) & (ay >= 0) & (ax < mask.shape[1]) & (ay < mask.shape[0])
        return int(mask[ay[inside], ax[inside]].sum())


class ArmTracker:
    """Feed `update(small, t_s)` every frame; it returns the arms seen in that frame."""

    def __init__(self, pile_centre_px: tuple[float, float], seat_angles_deg: tuple[float, ...],
                 card_height_px: float, view: np.ndarray | None = None) -> None:
        """`view`: which pixels of the analysis frame the camera sees, when not all of them
        (a frame warped into the table plane); arms enter from where the view ends."""
        self.pile_centre = pile_centre_px
        self.view = view
        self._edge: np.ndarray | None = None
        self.seat_angles = seat_angles_deg
        self.card_height_px = card_height_px
        self.background: np.ndarray | None = None
        self.foreground_age = np.zeros((1, 1), np.int32)
        self.base_median: np.ndarray | None = None
        self.min_area = MIN_ARM_AREA_CARDS * card_height_px ** 2 * 2 / 3 * ARM_SCALE ** 2
        self.last_image: np.ndarray | None = None
        self.image_before: np.ndarray | None = None  # the frame before `last_image`
        self.previous_arms: list[Arm] = []
        self.table: np.ndarray | None = None  # the background never taken from foreground
        self.faint: np.ndarray | None = None
        """Pixels (0/1 uint8, ARM_SCALE) that are not the bare table by BRIDGE_SUM_DIFF's
        looser tests, foreground or not: a sleeve too like the table for the arm tests (a
        black one on a dark table), what the background took in (the part of an arm that
        rested long, a card lying still); None when nothing is over the table."""

    def foreground(self, small: np.ndarray) -> np.ndarray:
        """A 0/1 uint8 mask (at ARM_SCALE) of what is not the table; updates the background.

        Per-pixel arithmetic by `vision.pixels` (OpenCV): this runs on every frame."""
        h, w = small.shape[:2]
        img = cv2.resize(small, (max(1, round(w * ARM_SCALE)), max(1, round(h * ARM_SCALE))),
                         interpolation=cv2.INTER_AREA).astype(np.float32)
        img, self.base_median = normalise_brightness(img, self.base_median)
        if self.background is None:
            self.background = img.copy()
            self.foreground_age = np.zeros(img.shape[:2], np.int32)
        before, self.last_image = self.last_image, img
        self.image_before = before
        if self.table is None:
            self.table = img.copy()
        mask = cv2.morphologyEx(_differs(img, self.background).view(np.uint8), cv2.MORPH_OPEN,
                                np.ones((2, 2), np.uint8))
        if cv2.countNonZero(mask) > RESET_FOREGROUND_FRACTION * mask.size:
            # No arm covers most of the table: the camera moved or the light changed in a way
            # normalising did not explain. Start again from this picture.
            self.background = img.copy()
            self.table = img.copy()
            return np.zeros_like(mask)
        # The table follows what a lamp or a shadow can make of it, nothing else: an arm that
        # rested long enough to be taken into the background stays out of it, so that once
        # the arm has gone the bare table it uncovers is known for what it is (below).
        # What the looser tests call not table is held out of it too: a dark sleeve on a
        # dark table passes the tests above, and the table would take it in within frames.
        not_table = _differs(img, self.table, BRIDGE_SUM_DIFF, BRIDGE_DARK_LEVEL,
                             BRIDGE_CHROMA_DIFF)
        bare = ~_differs(img, self.table)
        if not mask.any():
            # Nothing over the table (most frames): the same updates as below, without the
            # masks.
            follow(self.table, img,
                   np.where(bare & ~not_table, BACKGROUND_RATE_STILL, 0).astype(np.float32))
            self.foreground_age[:] = 0
            follow(self.background, img, BACKGROUND_RATE_STILL)
            self.faint = None
            return mask
        self.faint = cv2.morphologyEx(not_table.view(np.uint8), cv2.MORPH_OPEN,
                                         np.ones((2, 2), np.uint8))
        # A ghost: the background took in an arm that rested long, the arm has gone, and the
        # bare table shows again. It is table, at once.
        ghost = (mask > 0) & bare
        if ghost.any():
            mask[ghost] = 0
            self.background[ghost] = img[ghost]
        # The pixels around an arm are held too: its blurred edge differs from the table by
        # less than the tests above, and taken into the background it would stay behind as a
        # thin ghost of the arm once it has gone (joining the next arm into one blob).
        near = cv2.dilate(mask, _AROUND) > 0
        follow(self.table, img,
               np.where(bare & ~not_table & ~near, BACKGROUND_RATE_STILL, 0)
               .astype(np.float32))
        self.foreground_age = np.where(mask > 0, self.foreground_age + 1, 0)
        if before is not None and before.shape == img.shape:
            self._keep_moving_blobs(mask, img, before)
        fresh = (near & (mask == 0)) | \
            ((mask > 0) & (self.foreground_age < FOREGROUND_MAX_FRAMES))
        follow(self.background, img,
                np.where(fresh, BACKGROUND_RATE_FOREGROUND, BACKGROUND_RATE_STILL)
                .astype(np.float32))
        return mask

    def _keep_moving_blobs(self, mask: np.ndarray, img: np.ndarray, before: np.ndarray
                           ) -> None:
        """Start the foreground age again on every blob of `mask` that moved since the frame
        `before` (MOVING_BLOB_CARDS): an arm at work is not a ghost."""
        count, labels = cv2.connectedComponents(mask, connectivity=8)
        if count <= 1:
            return
        moved = (l1_distance(img, before) > MOVING_L1) & (mask > 0)
        moved_per_blob = np.bincount(labels[moved], minlength=count)
        card_area = self.min_area / MIN_ARM_AREA_CARDS
        at_work = np.nonzero(moved_per_blob[1:] >= MOVING_BLOB_CARDS * card_area)[0] + 1
        if len(at_work):
            self.foreground_age[np.isin(labels, at_work)] = 0

    def absorb(self, mask: np.ndarray, origin: tuple[int, int]) -> None:
        """The pixels of `mask` (bool, analysis-frame pixels, its top-left corner at `origin`)
        are table from now on: a card that came to rest. Until the background takes it in by
        itself, a card just laid under a hand would be part of that hand's arm, and its far
        end the arm's tip."""
        if self.background is None or self.last_image is None:
            return
        h, w = self.background.shape[:2]
        ys, xs = np.nonzero(mask)
        ys = np.clip(((ys + origin[1]) * ARM_SCALE).astype(int), 0, h - 1)
        xs = np.clip(((xs + origin[0]) * ARM_SCALE).astype(int), 0, w - 1)
        self.background[ys, xs] = self.last_image[ys, xs]
        if self.table is not None:
            self.table[ys, xs] = self.last_image[ys, xs]
        self.foreground_age[ys, xs] = 0

    def update(self, small: np.ndarray) -> list[Arm]:
        mask = self._rejoined(self.foreground(small))
        arms = self.arms_in(mask)
        arms += self._followed(mask, arms)
        self.previous_arms = arms
        return arms

    def _followed(self, mask: np.ndarray, arms: list[Arm]) -> list[Arm]:
        """Arms of the last frame lost in this one, followed to a moving blob cut off from
        the edge that lies where their tip was: a sleeve too like the table even for the
        faint tests (a black one over a near-black table) shows as an arm only while its
        hand is near the edge; reaching in, the hand and the card it carries move on alone.
        Only while that blob moves: a card laid and left lies still."""
        present = {p.seat for a in arms for p in a.seat_parts()}
        lost = [arm for arm in self.previous_arms
                if arm.seat is not None and arm.seat not in present]
        before, now = self.image_before, self.last_image
        if not lost or before is None or now is None or before.shape != now.shape:
            return []
        moved = l1_distance(now, before) > MOVING_L1
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        edge = self._view_edge(mask.shape)
        card_area = self.min_area / MIN_ARM_AREA_CARDS
        reach = (FOLLOW_CARDS * self.card_height_px * ARM_SCALE) ** 2
        followed: list[Arm] = []
        taken: set[int] = set()
        for label in range(1, count):
            if stats[label, cv2.CC_STAT_AREA] < self.min_area:
                continue
            blob = labels == label
            if edge[blob].any() or (moved & blob).sum() < MOVING_BLOB_CARDS * card_area:
                continue
            ys, xs = np.nonzero(blob)
            for arm in lost:
                if id(arm) in taken:
                    continue
                tx, ty = arm.tip[0] * ARM_SCALE, arm.tip[1] * ARM_SCALE
                if ((xs - tx) ** 2 + (ys - ty) ** 2).min() > reach:
                    continue
                taken.add(id(arm))
                x, y, _, _, _ = stats[label]
                box = (int(ys.max()) - y + 1, int(xs.max()) - x + 1)
                followed.append(self._arm_entering_at(arm.entry, xs, ys, x, y, box))
                break
        return followed

    def _rejoined(self, mask: np.ndarray) -> np.ndarray:
        """`mask` with the faint pixels (`faint`) put back where they join a blob that does
        not reach the view's edge to it. A sleeve too like the table for the arm tests (or
        taken into the background while it rested at the table's edge) leaves its hand and
        card a blob cut off from the edge, no arm at all, and the card it lays goes to
        another arm in view (rendered webcam game 426: a black sleeve over a dark table, six
        cards named for the wrong seat or none)."""
        if self.faint is None:
            return mask
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        edge = self._view_edge(mask.shape)
        cut_off = [label for label in range(1, count)
                   if stats[label, cv2.CC_STAT_AREA] >= self.min_area
                   and not edge[labels == label].any()]
        if not cut_off:
            return mask
        joined = mask | self.faint
        _, bridge = cv2.connectedComponents(joined, connectivity=8)
        for label in cut_off:
            through = int(bridge[labels == label][0])
            if edge[bridge == through].any():
                mask = mask | ((bridge == through) & (self.faint > 0)).view(np.uint8)
        return mask

    def _view_edge(self, shape: tuple[int, int]) -> np.ndarray:
        """The pixels (at `shape`, ARM_SCALE) within EDGE_PX of where the view ends: where an
        arm enters (without a `view`, the frame's edge)."""
        if self._edge is None or self._edge.shape != shape:
            h, w = shape
            view = np.ones(shape, np.uint8) if self.view is None else cv2.resize(
                self.view.astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST)
            view = np.pad(view, 1)  # the frame's own edge ends the view too
            near = cv2.dilate(1 - view, np.ones((2 * EDGE_PX + 3,) * 2, np.uint8))[1:-1, 1:-1]
            self._edge = near.astype(bool)
        return self._edge

    def arms_in(self, mask: np.ndarray) -> list[Arm]:
        h, w = mask.shape
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        arms = []
        for label in range(1, count):
            x, y, bw, bh, area = stats[label]
            if area < self.min_area:
                continue
            inside = x > EDGE_PX and y > EDGE_PX and x + bw < w - EDGE_PX \
                and y + bh < h - EDGE_PX
            if inside and self.view is None:
                continue  # does not reach the edge: not an arm
            blob = labels[y:y + bh, x:x + bw] == label
            ys, xs = np.nonzero(blob)
            xs, ys = xs + x, ys + y
            edge = self._view_edge(mask.shape)[ys, xs]
            if not edge.any():
                continue  # does not reach the edge of the view: not an arm
            for part_xs, part_ys, part_edge in self._one_arm_each(xs, ys, edge):
                if len(part_xs) < self.min_area:
                    continue
                arm = self._arm(part_xs, part_ys, part_edge, x, y, blob.shape)
                seats = self._one_arm_each(part_xs, part_ys, part_edge, SEAT_SPLIT_GAP_DEG,
                                           SEAT_SPLIT_MIN_EDGE_PX)
                if len(seats) >= 2:
                    arm = replace(arm, parts=tuple(self._arm(*one, x, y, blob.shape)
                                                   for one in seats))
                arms.append(arm)
        return arms

    def _arm(self, xs: np.ndarray, ys: np.ndarray, edge: np.ndarray, x: int, y: int,
             box: tuple[int, int]) -> Arm:
        """The arm made of the pixels (xs, ys) (ARM_SCALE frame), `edge` those at the view's
        edge, inside the box of (height, width) `box` at (x, y)."""
        scale = 1.0 / ARM_SCALE
        entry = ((float(xs[edge].mean()) + 0.5) * scale, (float(ys[edge].mean()) + 0.5) * scale)
        return self._arm_entering_at(entry, xs, ys, x, y, box)

    def _arm_entering_at(self, entry: tuple[float, float], xs: np.ndarray, ys: np.ndarray,
                         x: int, y: int, box: tuple[int, int]) -> Arm:
        """The arm of the pixels (xs, ys) inside the box `box` at (x, y) (ARM_SCALE frame)
        that enters at `entry` (analysis-frame pixels): its tip the pixel farthest from it."""
        scale = 1.0 / ARM_SCALE
        ex, ey = entry[0] / scale - 0.5, entry[1] / scale - 0.5
        far = int(np.argmax((xs - ex) ** 2 + (ys - ey) ** 2))
        tip = ((xs[far] + 0.5) * scale, (ys[far] + 0.5) * scale)
        angle = angle_deg(entry, self.pile_centre)
        mask = np.zeros(box, bool)
        mask[ys - y, xs - x] = True
        return Arm(entry, tip, float(len(xs)) * scale * scale, angle,
                   seat_of_angle(angle, self.seat_angles), (int(x), int(y), mask))

    def _one_arm_each(self, xs: np.ndarray, ys: np.ndarray, edge: np.ndarray,
                      gap_deg: float = SPLIT_GAP_DEG, min_edge_px: int = SPLIT_MIN_EDGE_PX
                      ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """A blob's pixels split into one part per arm. Two arms that meet over the pile are
        one blob, which reaches the view's edge in two places far apart around the pile; its
        mean entry lies between two seats and its tip is the far end of the other arm (an arm
        of seats 1 and 2 came out as nobody's, its tip in the picture's corner, so no hand
        seemed to be over the pile). Each pixel goes to the arm whose line, from where it
        enters towards the pile, it lies nearest (a reach is a straight arm). Runs are cut at
        gaps of more than `gap_deg`, each of at least `min_edge_px` edge pixels."""
        cx, cy = (c * ARM_SCALE for c in self.pile_centre)
        angles = np.degrees(np.arctan2(ys[edge] - cy, xs[edge] - cx)) % 360.0
        order = np.argsort(angles)
        sorted_angles = angles[order]
        gaps = np.diff(np.concatenate([sorted_angles, sorted_angles[:1] + 360.0]))
        cuts = np.nonzero(gaps > gap_deg)[0]
        if len(cuts) < 2:
            return [(xs, ys, edge)]
        # Runs of edge pixels between the gaps, in angle order: one per place an arm enters.
        edge_index = np.nonzero(edge)[0][order]
        n = len(order)
        runs = [edge_index[np.arange(a + 1, b + 1 + (n if b <= a else 0)) % n]
                for a, b in zip(cuts, np.roll(cuts, -1), strict=True)]
        runs = [r for r in runs if len(r) >= min_edge_px]
        if len(runs) < 2:
            return [(xs, ys, edge)]
        reach = self.card_height_px * ARM_SCALE * SPLIT_BEYOND_PILE_CARDS
        distances = []
        for run in runs:
            ex, ey = xs[run].mean(), ys[run].mean()
            dx, dy = cx - ex, cy - ey
            length = float(np.hypot(dx, dy)) + 1e-6
            ux, uy = dx / length, dy / length
            along = np.clip((xs - ex) * ux + (ys - ey) * uy, 0.0, length + reach)
            # Past the pile a pixel is farther from this arm by as much again: of two hands
            # side by side on the pile, each keeps its own fingers.
            beyond = np.maximum(along - length, 0.0)
            distances.append(np.hypot(xs - (ex + along * ux), ys - (ey + along * uy)) + beyond)
        owner = np.argmin(np.stack(distances), axis=0)
        parts = []
        for k, run in enumerate(runs):
            mine = owner == k
            part_edge = np.zeros(len(xs), bool)
            part_edge[run] = True
            part_edge &= mine
            if part_edge.any():
                parts.append((xs[mine], ys[mine], part_edge[mine]))
        return parts


def _differs(img: np.ndarray, ref: np.ndarray, min_sum_diff: float = MIN_SUM_DIFF,
             dark_level: float = DARK_LEVEL, chroma_diff_min: float = CHROMA_DIFF_MIN
             ) -> np.ndarray:
    """Pixels of `img` that a lamp or a passing shadow cannot have made from `ref`: their
    brightness or their chromaticity moved too far (bool mask)."""
    sum_img = channel_sum(img)
    sum_img += 1.0
    sum_ref = channel_sum(ref)
    sum_ref += 1.0
    chroma = l1_distance(cv2.divide(img, per_pixel(sum_img)), cv2.divide(ref, per_pixel(sum_ref)))
    lit = cv2.min(sum_img, sum_ref) > 3 * dark_level
    ratio = cv2.divide(sum_img, sum_ref)
    fg = (ratio > BRIGHTNESS_RATIO_MAX) | (ratio < 1 / BRIGHTNESS_RATIO_MAX)
    fg &= cv2.absdiff(sum_img, sum_ref) > min_sum_diff
    fg |= lit & (chroma > chroma_diff_min)
    return fg


def normalise_brightness(img: np.ndarray, base_median: np.ndarray | None
                         ) -> tuple[np.ndarray, np.ndarray]:
    """`img` (float32 BGR) scaled per channel so its level is `base_median` (default: its own,
    returned for the next call): a lamp's change of brightness or colour cast over the whole
    table cancels out, and a dark table's noise is not amplified."""
    level = np.maximum(robust_level(img[::3, ::3]), 1.0)
    base = level if base_median is None else base_median
    return scale_channels(img, base / level), base


def robust_level(sample: np.ndarray) -> np.ndarray:
    """Per-channel brightness of a scene: the mean of the middle half of its pixel values.
    Unlike the median it moves smoothly on a two-toned (chequered) table, where the median
    jumps between the two tones with the noise; unlike the mean an arm barely moves it."""
    values = np.sort(sample.reshape(-1, sample.shape[-1]).astype(np.float32), axis=0)
    n = len(values)
    return values[n // 4: max(n // 4 + 1, 3 * n // 4)].mean(axis=0)
