"""A fan of cards put down in one motion (DrukUNO's multi-card plays), told apart in one patch.

Two to four cards laid from one hand within a tenth of a second come to rest together, under
the hand, and the pile watcher sees one patch. Which card covers which is in the outlines: the
top card's four edges all show, and each card under it peeks out as a strip along the fan,
its outline visible only where no card above it lies. So the fan is explained from the top
down (`split_fan`):

1. the top card is the card-sized rectangle inside the patch whose four sides all lie on
   edges of the picture (the weakest side's mean edge strength is the rectangle's score);
2. the card under it is the card-sized rectangle, turned a little from it and a step (0.12-0.55
   card heights) aside, whose visible part (what the cards above leave of it) is most nearly
   the changed pixels the cards above leave unexplained (intersection over union), spills
   little beyond the patch, and whose far side (the one no card above covers) lies on an
   edge nearly as strong as the top card's sides;
3. and so on, each card a step further the way the last step went, until what is left is
   less than a strip. Where that walk stops with strips still unexplained (three or four
   cards: the card right under the top one shows one strip of several, and fits them all
   poorly), it is walked again with the strips further along left to the cards further down;
   that walk counts only if it explains the whole patch.

A single card (the patch one card's place, or nothing beside its rectangle that a further
card would explain) comes out as no fan, and so does any patch whose top card's outline the
picture shows too softly to tell a strip from a rectangle a few degrees off (MIN_SHARPNESS).
The watcher's part (`FanCards`) splits the card waiting to be read on its first frame with no
hand over the pile, and drops a card under it that was there before the fan (a card played
a moment earlier, or one its strip already showed) or a top card that came later than the
waiting one. A fan whose far card reaches past the pile region's edge is looked at only once
that part has lain still and no arm is in view (`_fan_past_edge`): anything else at the edge is
taken for an arm reaching in. Colour is evidence only, never needed: a red card fanned over
a red card shows no new colour, and a hand's or a sleeve's colour made phantoms (the notebook,
vision/NOTEBOOK.md).
Where the strips do show UNO colours (the fan is split on a frame without a hand), a candidate
whose strip holds two colours is two cards' strips (MIXED_STRIP_SHARE), and a strip of another
colour than the top card's cannot be the top card misfitted (`_one_card_explains` is then not
asked).
A still patch too big for one card that nothing else confirmed, all of it come to rest
together, is confirmed as a fan all the same once no arm has been in view for a while
(`_unsplit_fan`): its top card is a play, and while it is read it is split again on each clean
frame, there with a soft top outline too where a strip under it shows another colour.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from referee.cards import Card
from referee.events import CardPlayed
from vision.pile_cards import UNSEEN_READ_SURE, card_view, gap_s, vote_readings
from vision.pile_shapes import CHANGE_L1, grown, iou, matches
from vision.pixels import l1_distance

FAN_MIN_CARDS_AREA = 1.12
"""A patch smaller than this many card areas, and one card's shape, is looked at as one card
(a fan of two steps at least 0.2 card heights aside: 1.2 card areas and more)."""

FAN_AREA_RANGE = (0.5, 3.2)
"""A patch too big for one card (CARD_AREA_RANGE) may be a fan of up to four cards ..."""

FAN_ASPECT_RANGE = (1.1, 3.0)
"""... that long (long side over short side)."""

ANGLE_STEP_DEG = 3
"""The top card's rectangle is looked for at this step of angles ..."""

IN_PATCH_MIN = 0.85
"""... inside the patch (at least this fraction of it)."""

SIDE_INSET = 0.8
"""A side's edge strength is its mean over this middle part of it (a card's corners are
rounded)."""

STEP_RANGE_CARDS = (0.12, 0.55)
"""A card under another in a fan lies this many card heights from it ..."""

TURN_MAX_DEG = 18.0
"""... turned from it by at most this much ..."""

STEP_WANDER_DEG = 60.0
"""... and, under the second card, a step further the way the last step went, within this."""

MIN_STRIP_CARDS = 0.1
"""A card under another shows at least this many card areas of changed pixels (a strip 0.12
card heights wide along a card's short side: 0.12 card areas; less is a frayed edge, the
compression's smear, what the patch's convex hull takes in)."""

MIN_STRIP_FIT = 0.4
"""A card under another shows what is left to explain this well at least (intersection over
union of its visible part and those pixels)."""

MAX_SPILL = 0.25
"""At most this fraction of what a card under another shows may lie outside the patch."""

FAR_EDGE_MIN = 0.7
"""The far side of a card under another must lie on an edge at least this strong, of the top
card's weakest side (a strip's end is a card's edge; the end of a blotch is not)."""

LEFT_OVER_CARDS = 0.1
"""The fan is explained when fewer changed pixels than this many card areas are left."""

MIN_SHARPNESS = 0.64
"""A fan is split only where the top card's outline shows this sharp (`outline_sharpness`):
told apart by their outlines, the cards' must be seen to a pixel or two, or the part of one
card that a rectangle a few degrees off leaves out passes for a strip of a card under it.
Rendered multi-card plays (overhead, 320x180), the fans of seeds 1-3: 0.66-0.91; the webcam
family's soft picture (motion blur, a low bitrate), games 301-306: single cards split by
mistake 0.46-0.61 (30 cases, 8 of which other tests already dropped), its identical pairs
0.54-0.64. The bar lies between the two (it was 0.62 until single cards split by mistake
showed up on the unseen webcam games 311-316; moved then, so those games are not blind to it)."""

ONE_CARD_SHIFT_CARDS = 0.1
"""A fan must explain its changed pixels better than one card does: the top card's rectangle
moved up to this many card heights ..."""

ONE_CARD_SCALES = (1.0, 1.05, 1.1)
"""... grown by these factors (the card's size in the table plane is a calibration's, and a
camera that leans sees the near side of the pile larger) ..."""

ONE_CARD_TURN_DEG = 9.0
"""... and turned by up to this much (webcam game 463, 61.3 s: a red 2 on a pile of red and
yellow cards, its field the colour of the cards under it, fitted 9 degrees off)."""

MIXED_STRIP_SHARE = 0.25
"""A card under another shows one card's colour: a strip whose changed pixels hold a second
UNO colour this much of their coloured part (and 0.04 card areas) is two cards' strips, and the
rectangle spanning both is the deeper card's, not the next one (a fan of four laid in one
motion was split into two: the top card and the bottom one)."""

MIN_TOP_EDGE = 12.0
"""The top card's weakest side must show at least this edge strength (grey levels per pixel
across it, summed over the channels' gradients): a card's border against anything else."""


@dataclass(frozen=True)
class CardRect:
    centre: tuple[float, float]
    angle_deg: float  # of the long side, from the x axis (image y down)
    long_px: float

    def corners(self) -> np.ndarray:
        a = math.radians(self.angle_deg)
        u = np.array([math.cos(a), math.sin(a)]) * self.long_px / 2
        v = np.array([-math.sin(a), math.cos(a)]) * self.long_px / 3
        c = np.array(self.centre)
        return np.array([c - u - v, c + u - v, c + u + v, c - u + v], np.float32)

    def mask(self, shape: tuple[int, int]) -> np.ndarray:
        box = np.zeros(shape, np.uint8)
        cv2.fillConvexPoly(box, np.round(self.corners()).astype(np.int32), 1)
        return box > 0

    def sides(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """(midpoint, outward normal) of each side."""
        a = math.radians(self.angle_deg)
        u = np.array([math.cos(a), math.sin(a)])
        v = np.array([-math.sin(a), math.cos(a)])
        c = np.array(self.centre)
        return [(c + u * self.long_px / 2, u), (c - u * self.long_px / 2, -u),
                (c + v * self.long_px / 3, v), (c - v * self.long_px / 3, -v)]


@dataclass(frozen=True)
class Fan:
    cards: list[CardRect]  # bottom (laid first) to top
    top_edge: float  # the top card's weakest side's edge strength


def gradients(crop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel x and y gradients of a float32 BGR crop (central differences)."""
    gx = cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3) / 8
    gy = cv2.Sobel(crop, cv2.CV_32F, 0, 1, ksize=3) / 8
    return gx, gy


def _across(gx: np.ndarray, gy: np.ndarray, normal_deg: float) -> np.ndarray:
    """Edge strength across the direction `normal_deg`: the L1 over channels of the gradient's
    component along it, the strongest within a pixel (a side drawn to the pixel grid)."""
    a = math.radians(normal_deg)
    along = np.abs(gx * math.cos(a) + gy * math.sin(a)).sum(axis=2).astype(np.float32)
    return cv2.dilate(along, np.ones((3, 3), np.uint8))


def _line_kernel(offset: np.ndarray, direction: np.ndarray, length: float, size: int
                 ) -> np.ndarray:
    """A kernel averaging along a segment of `length` through `offset` from its centre."""
    kernel = np.zeros((size, size), np.float32)
    centre = (size - 1) / 2
    half = direction * length / 2
    p0 = np.round(centre + offset - half).astype(int)
    p1 = np.round(centre + offset + half).astype(int)
    cv2.line(kernel, (int(p0[0]), int(p0[1])), (int(p1[0]), int(p1[1])), 1.0, 1)
    return kernel / max(float(kernel.sum()), 1.0)


def _kernel_size(card_long: float) -> int:
    """The side of the square that holds a card-sized rectangle at any angle (odd)."""
    return int(np.ceil(card_long * 1.3)) | 1


@lru_cache(maxsize=1024)
def _rectangle_at(card_long: float, angle: int) -> tuple[np.ndarray, tuple]:
    """What `top_card` looks for at one angle: the card's rectangle about the centre of a
    `_kernel_size` square (its weights adding up to 1), and each side's pixels as offsets
    (dy, dx) from the rectangle's centre, with which of the two edge images of the angle it
    lies across (0: the angle's, 1: the angle's plus 90 degrees). The same for every patch of
    one card size, so made once."""
    size = _kernel_size(card_long)
    a = math.radians(angle)
    u = np.array([math.cos(a), math.sin(a)])
    v = np.array([-math.sin(a), math.cos(a)])
    rect = CardRect(((size - 1) / 2, (size - 1) / 2), angle, card_long)
    box = rect.mask((size, size)).astype(np.float32)
    centre = size // 2
    sides = []
    for offset, along, across, length in (
            (u * card_long / 2, v, 0, card_long * 2 / 3),
            (-u * card_long / 2, v, 0, card_long * 2 / 3),
            (v * card_long / 3, u, 1, card_long),
            (-v * card_long / 3, u, 1, card_long)):
        ys, xs = np.nonzero(_line_kernel(offset, along, length * SIDE_INSET, size))
        sides.append((across, ys - centre, xs - centre))
    return box / box.sum(), tuple(sides)


def top_card(crop: np.ndarray, patch: np.ndarray, card_long: float,
             grads: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[float, CardRect]:
    """(score, rectangle) of the card-sized rectangle mostly inside `patch` whose weakest side
    lies on the strongest edge: the card nothing covers.

    A side's strength is the mean edge strength across it over its pixels. It is taken only
    at the centres where the rectangle lies IN_PATCH_MIN inside the patch (a few hundred of
    the crop's thousands), not filtered over the whole crop: the same rectangles, about four
    times faster on the webcam games (142 patches of 461-463: 8.2 s -> 2.2 s), where this
    search was the largest cost of a review, and twice on the larger fans of the multi-card
    plays (116 patches of seeds 1-3: 8.4 s -> 4.3 s)."""
    gx, gy = grads if grads is not None else gradients(crop)
    patch_f = patch.astype(np.float32)
    pad = _kernel_size(card_long) // 2  # the crop's edge: what lies past it counts as no edge
    edges: dict[int, np.ndarray] = {}

    def across(normal_deg: int) -> np.ndarray:
        # An angle's "plus 90" edge image is another angle's own: made once.
        if normal_deg not in edges:
            edges[normal_deg] = np.pad(_across(gx, gy, normal_deg), pad)
        return edges[normal_deg]

    best = (-1.0, CardRect((0.0, 0.0), 0.0, card_long))
    for angle in range(0, 180, ANGLE_STEP_DEG):
        box, sides = _rectangle_at(card_long, angle)
        inside = cv2.filter2D(patch_f, -1, box, borderType=cv2.BORDER_CONSTANT)
        ys, xs = np.nonzero(inside >= IN_PATCH_MIN)
        if len(ys) == 0:
            continue
        images = (across(angle), across(angle + 90))
        score = None
        # All four sides (scoring the second weakest instead, as a side over the white border
        # of the card under it shows little edge, put 18 of 39 plays right on seeds 1-3, 20).
        for which, dy, dx in sides:
            side = images[which][ys[:, None] + (dy + pad), xs[:, None] + (dx + pad)].mean(axis=1)
            score = side if score is None else np.minimum(score, side)
        i = int(score.argmax())
        if score[i] > best[0]:
            best = (float(score[i]), CardRect((float(xs[i]), float(ys[i])), float(angle),
                                              card_long))
    return best


def _side_strength(rect: CardRect, visible: np.ndarray, gx: np.ndarray, gy: np.ndarray,
                   upper: np.ndarray) -> float:
    """The edge strength along the side of `rect` farthest out from the cards above it
    (`upper`), over the part of that side they leave visible; 0 when none is."""
    h, w = upper.shape
    best_side, best_out = None, -1.0
    for mid, normal in rect.sides():
        x, y = round(float(mid[0])), round(float(mid[1]))
        out = 0.0 if not (0 <= x < w and 0 <= y < h) else float(not upper[y, x])
        # The side whose midpoint no card above covers, the farthest from them.
        distance = float(np.linalg.norm(mid - _centre_of(upper)))
        if out and distance > best_out:
            best_side, best_out = (mid, normal), distance
    if best_side is None:
        return 0.0
    mid, normal = best_side
    along = np.array([-normal[1], normal[0]])
    length = rect.long_px * (2 / 3 if abs(normal @ _unit(rect.angle_deg)) > 0.7 else 1.0)
    across = _across(gx, gy, math.degrees(math.atan2(normal[1], normal[0])))
    values = []
    for s in np.linspace(-0.5, 0.5, 15) * length * SIDE_INSET:
        x, y = (mid + along * s).round().astype(int)
        if 0 <= x < w and 0 <= y < h and not upper[y, x]:
            values.append(across[y, x])
    return float(np.mean(values)) if len(values) >= 5 else 0.0


def card_colours(crop: np.ndarray) -> np.ndarray:
    """Per pixel of a BGR crop, which UNO colour it shows (0 red, 1 yellow, 2 green, 3 blue)
    or -1 (white, black, grey: a card's border and print, a table)."""
    hsv = cv2.cvtColor(np.clip(crop, 0, 255).astype(np.uint8), cv2.COLOR_BGR2HSV)
    hue = hsv[..., 0].astype(np.int16)
    coloured = (hsv[..., 1] >= 80) & (hsv[..., 2] >= 60)
    classes = np.full(hue.shape, -1, np.int8)
    for index, (low, high) in enumerate(((-20, 10), (15, 38), (38, 90), (90, 135))):
        classes[coloured & (((hue >= low) & (hue < high)) | (hue >= 180 + low))] = index
    return classes


def _colour_counts(pixels: np.ndarray, colours: np.ndarray) -> np.ndarray:
    """How many of `pixels` show each UNO colour (`card_colours`' 0-3)."""
    shown = colours[pixels]
    return np.bincount(shown[shown >= 0], minlength=4)


def _two_colours(visible: np.ndarray, colours: np.ndarray, card_area: float) -> bool:
    """Do the pixels `visible` show two UNO colours (MIXED_STRIP_SHARE)?"""
    counts = np.sort(_colour_counts(visible, colours))[::-1]
    if counts.sum() < 0.05 * card_area:
        return False
    return counts[1] >= MIXED_STRIP_SHARE * counts.sum() and counts[1] >= 0.04 * card_area


def _main_colour(pixels: np.ndarray, colours: np.ndarray) -> int | None:
    """The UNO colour most of `pixels` show, or None when too few show one (20 pixels)."""
    counts = _colour_counts(pixels, colours)
    return int(counts.argmax()) if counts.sum() >= 20 else None


def _another_colour_under(cards: list[CardRect], changed: np.ndarray,
                          colours: np.ndarray) -> bool:
    """Does the strip of a card under the top one (`cards`, top first) show another colour
    than the top card?"""
    shape = changed.shape
    upper = cards[0].mask(shape)
    top = _main_colour(upper & changed, colours)
    if top is None:
        return False
    for rect in cards[1:]:
        place = rect.mask(shape)
        under = _main_colour(place & ~upper & changed, colours)
        if under is not None and under != top:
            return True
        upper |= place
    return False


def _unit(angle_deg: float) -> np.ndarray:
    a = math.radians(angle_deg)
    return np.array([math.cos(a), math.sin(a)])


def _centre_of(mask: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(mask)
    return np.array([xs.mean(), ys.mean()]) if len(xs) else np.zeros(2)


def _next_under(upper_rect: CardRect, upper: np.ndarray, left: np.ndarray, patch: np.ndarray,
                grads: tuple[np.ndarray, np.ndarray], card_area: float, top_edge: float,
                heading: float | None, colours: np.ndarray | None = None,
                leave_beyond: bool = False) -> tuple[CardRect, float] | None:
    """The card under `upper_rect` (and every card above, `upper`) that best explains the
    changed pixels `left` unexplained, or None when no such card is seen. With `leave_beyond`,
    what is left further along the step than the card's centre, outside it, is not held
    against it: cards further down the fan may explain it."""
    gx, gy = grads
    card_long = upper_rect.long_px
    grown_upper = cv2.dilate(upper.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    directions = range(0, 360, 10) if heading is None else \
        [heading + d for d in range(-int(STEP_WANDER_DEG), int(STEP_WANDER_DEG) + 1, 10)]
    steps = np.arange(STEP_RANGE_CARDS[0], STEP_RANGE_CARDS[1] + 1e-6, 0.05) * card_long
    turns = np.arange(-TURN_MAX_DEG, TURN_MAX_DEG + 1e-6, 6.0)
    left_ys, left_xs = np.nonzero(left)
    left_px = len(left_ys)
    candidates = []
    for step in steps:
        for phi in directions:
            along = _unit(phi)
            centre = np.array(upper_rect.centre) + along * step
            # (Only the second walk asks which left pixels lie further along.)
            further = ((left_xs - centre[0]) * along[0] + (left_ys - centre[1]) * along[1] > 0) \
                if leave_beyond else None
            for turn in turns:
                rect = CardRect((float(centre[0]), float(centre[1])),
                                upper_rect.angle_deg + float(turn), card_long)
                place = rect.mask(patch.shape)
                visible = place & ~grown_upper
                explained = int((visible & left).sum())
                if explained < MIN_STRIP_CARDS * card_area:
                    continue
                spill = int((visible & ~patch).sum())
                if spill > MAX_SPILL * visible.sum():
                    continue
                # What it shows and what is left to explain, one and the same: a card too near
                # shows less than the strip, one too far shows table beyond it.
                beyond = 0 if further is None else int((further & ~place[left_ys, left_xs]).sum())
                fit = explained / (int(visible.sum()) + left_px - beyond - explained)
                candidates.append((fit, rect, float(phi), visible))
    candidates.sort(key=lambda c: -c[0])
    tried = 0
    for fit, rect, phi, visible in candidates:
        if fit < MIN_STRIP_FIT or tried == 5:
            break
        if colours is not None and _two_colours(visible & left, colours, card_area):
            continue  # two cards' strips: the next card lies nearer
        tried += 1
        if _side_strength(rect, visible, gx, gy, upper) >= FAR_EDGE_MIN * top_edge:
            return rect, phi
    return None


def outline_sharpness(crop: np.ndarray, rect: CardRect,
                      grads: tuple[np.ndarray, np.ndarray]) -> float:
    """How sharply the picture shows `rect`'s outline: the edge strength across its sides
    over the colour step between 3 pixels inside and 3 outside them (about 1 for a step one
    pixel wide; less the wider blur or compression spreads it)."""
    gx, gy = grads
    h, w = crop.shape[:2]
    strength, step = 0.0, 0.0
    for mid, normal in rect.sides():
        along = np.array([-normal[1], normal[0]])
        length = rect.long_px * (2 / 3 if abs(normal @ _unit(rect.angle_deg)) > 0.7 else 1.0)
        across = _across(gx, gy, math.degrees(math.atan2(normal[1], normal[0])))
        for shift in np.linspace(-0.4, 0.4, 11) * length:
            on = mid + along * shift
            points = [np.round(p).astype(int) for p in (on, on - normal * 3, on + normal * 3)]
            if all(0 <= x < w and 0 <= y < h for x, y in points):
                (x, y), (xi, yi), (xo, yo) = points
                strength += float(across[y, x])
                step += float(np.abs(crop[yi, xi] - crop[yo, xo]).sum())
    return strength / max(step, 1.0)


def split_fan(crop: np.ndarray, patch: np.ndarray, changed: np.ndarray, card_long: float,
              soft_if_coloured: bool = False) -> Fan | None:
    """The cards of a fan in `patch` (bool, the convex hull of a still change; `changed`: its
    pixels that differ from the pile before), bottom first, or None when the patch is one
    card (or its top card's outline is not found). With `soft_if_coloured`, a top card's
    outline softer than MIN_SHARPNESS is split too when a card under it shows another
    colour than it."""
    grads = gradients(crop)
    top_edge, top = top_card(crop, patch, card_long, grads)
    if top_edge < MIN_TOP_EDGE:
        return None
    soft = outline_sharpness(crop, top, grads) < MIN_SHARPNESS
    if soft and not soft_if_coloured:
        return None
    colours = card_colours(crop)
    cards, explained = _down_the_fan(top, patch, changed, grads, top_edge, colours)
    if not explained:
        # Three or four cards: the card right under the top one shows one strip of the several
        # left, so it fits them all poorly and the walk stops (or takes the bottom card, which
        # spans them). A walk that leaves further strips to the cards further down, and so
        # explains the whole patch, is the fan; one that does not changes nothing.
        deeper, all_explained = _down_the_fan(top, patch, changed, grads, top_edge, colours,
                                              leave_beyond=True)
        if all_explained:
            cards = deeper
    if len(cards) < 2:
        return None
    if soft and not _another_colour_under(cards, changed & patch, colours):
        return None  # a strip of its own colour: maybe the top card misfitted
    # A strip of another colour than the top card is no part of it: a misfitted rectangle
    # leaves a strip of its own card's colour, which the one-card check is for. (It refused
    # real fans of cards of two colours: a two-card fan's strip of 0.22 card areas "explained"
    # by the top card turned 9 degrees and grown 10 %. Without colours told apart, a single
    # webcam card's strip passed as a card under it, read as the top card: a phantom.)
    if not _another_colour_under(cards, changed & patch, colours) \
            and _one_card_explains(changed & patch, cards):
        return None
    return Fan(cards[::-1], top_edge)


def _down_the_fan(top: CardRect, patch: np.ndarray, changed: np.ndarray,
                  grads: tuple[np.ndarray, np.ndarray], top_edge: float, colours: np.ndarray,
                  leave_beyond: bool = False) -> tuple[list[CardRect], bool]:
    """The cards under `top`, one by one (`_next_under`), top first, and whether they leave
    less than LEFT_OVER_CARDS of the changed pixels unexplained."""
    card_area = top.long_px ** 2 * 2 / 3
    upper = top.mask(patch.shape)
    left = changed & patch & ~(cv2.dilate(upper.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0)
    cards = [top]
    heading = None
    while len(cards) < 4 and left.sum() >= LEFT_OVER_CARDS * card_area:
        found = _next_under(cards[-1], upper, left, patch, grads, card_area, top_edge, heading,
                            colours, leave_beyond)
        if found is None:
            break
        rect, heading = found
        cards.append(rect)
        upper = upper | rect.mask(patch.shape)
        left = left & ~upper
    return cards, bool(left.sum() < LEFT_OVER_CARDS * card_area)


def _one_card_explains(changed: np.ndarray, cards: list[CardRect]) -> bool:
    """Does one card, the top one's rectangle moved, turned or grown as much as the card's
    size and place are uncertain (ONE_CARD_*), explain the changed pixels as well as the fan
    does (intersection over union)? Then the fan is that card misfitted: a rectangle a little
    small or a pixel or two off leaves a strip along one side, which passes for a card under
    it (webcam game 464, 7.8 s: a red reverse written twice, both read 1.0)."""
    shape = changed.shape
    fan = np.zeros(shape, bool)
    for rect in cards:
        fan |= rect.mask(shape)
    fan_fit = iou(fan, changed)
    top = cards[0]
    reach = ONE_CARD_SHIFT_CARDS * top.long_px
    shifts = np.linspace(-reach, reach, 5)
    for scale in ONE_CARD_SCALES:
        for turn in np.arange(-ONE_CARD_TURN_DEG, ONE_CARD_TURN_DEG + 1e-6, ANGLE_STEP_DEG):
            for dx in shifts:
                for dy in shifts:
                    rect = CardRect((top.centre[0] + dx, top.centre[1] + dy),
                                    top.angle_deg + turn, top.long_px * scale)
                    if iou(rect.mask(shape), changed) >= fan_fit:
                        return True
    return False


TOUCH_GAP_PX = 1
"""A fan's change is one piece: each card under the top one shows beside the card on it. Pieces
with up to twice this many pixels between them count as touching (a red card's strip on a red
card changes little, in bits)."""


def _touching(differs: np.ndarray, hull: np.ndarray) -> np.ndarray:
    """The pixels of `differs` in pieces that touch `hull` (the confirmed card's patch),
    pieces up to TOUCH_GAP_PX apart counting as one."""
    size = 2 * TOUCH_GAP_PX + 1
    joined = cv2.dilate(differs.astype(np.uint8), np.ones((size, size), np.uint8))
    _, labels = cv2.connectedComponents(joined, connectivity=8)
    keep = np.unique(labels[hull & (joined > 0)])
    return differs & np.isin(labels, keep[keep > 0])


def fan_region(differs: np.ndarray, card_area: float, min_part_cards: float = 0.04
               ) -> np.ndarray | None:
    """The convex hull (bool mask) of the differing pixels, specks left out; None if empty."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(differs.astype(np.uint8),
                                                               connectivity=8)
    keep = [i for i in range(1, count)
            if stats[i, cv2.CC_STAT_AREA] >= min_part_cards * card_area]
    if not keep:
        return None
    points = np.column_stack(np.nonzero(np.isin(labels, keep))[::-1]).astype(np.int32)
    hull = np.zeros(differs.shape, np.uint8)
    cv2.fillConvexPoly(hull, cv2.convexHull(points), 1)
    return hull > 0


FAN_STEP_S = 0.02
"""The cards under a fan's top card are stamped this much apart before it, bottom first: they
came in one motion, and when each touched down is hidden under the hand."""

OLD_STRIP_MATCH = 0.6
"""A strip that showed as it does now, this much of it, in a frame between the card before
and FAN_LEAD_S before the fan came to rest, was there before the fan: the card before's part a
hand had covered (a card laid beside the last after a pause), not a card of this fan."""

REST_SHOWN = 0.6
"""A card is where it lay when this fraction of its place shows as it did (a hand may still
cover a third of it)."""

SAME_PLACE = 0.5
"""A card under a fan's top card whose place holds this much of an earlier card's patch is
that card."""

SAME_HAND_WINDOW_S = 1.6
"""... when the same seat laid it this shortly before (the pile watcher's SAME_HAND_S: a
multi-card play's longest gap and a frame or two)."""

JUMP_IN_WINDOW_S = 1.0
"""... or another seat this shortly before (a jump-in's identical card laid on one just
played)."""

FAN_LEAD_S = 0.25
"""A fan put down in one motion lands within this (four cards 0.07 s apart)."""

PAST_EDGE_STILL_FRAMES = 15
"""A fan that reaches past the pile region's edge is confirmed once its part at the edge has
lain still this many frames (0.5 s at 30 fps) ..."""

PAST_EDGE_QUIET_S = 0.5
"""... and no arm has been in view anywhere for this long: a still change at the region's edge
is otherwise an arm, or a hand resting there. (Confirming such patches as any card, not only as
a fan, made three phantom plays on webcam game 303; letting a fan touch the edge wherever no
arm in view covered it cost two seats on 301-306: vision/NOTEBOOK.md.)"""

UNSPLIT_SPREAD = 45
"""A fan not split is confirmed only when all of its patch came to rest within this many frames
(1.5 s at 30 fps) of each other: cards put down in one motion, not a card beside an older
difference that the watcher has not explained yet (webcam games 483-484: 125-590 frames apart;
the multi-card plays' fans laid at once, 10-39)."""

FAN_REACH_CARDS = 0.5
"""The fan is what differs from the pile before it within this many card heights of the patch
it was confirmed by."""


@dataclass
class UnderCard:
    """A card of a fan under its top card: `depth` cards under it (1: right under)."""

    rect: CardRect
    depth: int
    readings: list = field(default_factory=list)  # CardReading, one per clean frame


class FanCards:
    """The pile watcher's part that splits a fan (a mixin of `vision.pile_watcher.PileWatcher`,
    whose state, history and reader it uses)."""

    def _fan_patch(self, crop: np.ndarray, resting: np.ndarray, past_edge: bool = False
                   ) -> np.ndarray | None:
        """A still change too big or too long for one card that a fan's cards explain (its
        convex hull), or None. `past_edge`: with the parts that touch the region's edge."""
        hull = self._card_patch(resting, FAN_AREA_RANGE, FAN_ASPECT_RANGE, past_edge)
        if hull is None or split_fan(crop, hull, resting & hull, self.card_height_px) is None:
            return None
        return hull

    def _fan_past_edge(self, crop: np.ndarray, resting: np.ndarray) -> np.ndarray | None:
        """A fan whose far card reaches past the pile region's edge (its convex hull), once
        what touches the edge has lain still PAST_EDGE_STILL_FRAMES and no arm has been in
        view for PAST_EDGE_QUIET_S; else None. Whatever else touches the edge is taken for
        an arm reaching in, and such a fan was never confirmed."""
        on_edge = resting & self.edge
        if not on_edge.any() or self.still_frames[on_edge].min() < PAST_EDGE_STILL_FRAMES:
            return None
        if self._arm_seen_lately():
            return None
        return self._fan_patch(crop, resting, past_edge=True)

    def _arm_seen_lately(self) -> bool:
        """Has an arm been in view anywhere within PAST_EDGE_QUIET_S of the latest frame?"""
        latest = self.arm_history[-1][0]
        return any(arms for t, arms in self.arm_history if t >= latest - PAST_EDGE_QUIET_S)

    def _unsplit_fan(self, crop: np.ndarray, resting: np.ndarray) -> np.ndarray | None:
        """A still patch a fan's size that `split_fan` cannot split, once all of it came to
        rest together (UNSPLIT_SPREAD), has lain still PAST_EDGE_STILL_FRAMES and no arm has
        been in view for PAST_EDGE_QUIET_S; else None. The watcher reads it as its top card,
        the card the next player must follow, and tries to split it again on each clean frame
        while the reading waits. Before, such a fan was never confirmed: the whole play was
        lost, and the referee kept the card under it as the top card and ruled every card
        after it against that one (a fan of four laid at once, 720p, its top card's outline
        0.6 sharp)."""
        if not resting.any():
            return None
        still = self.still_frames[resting]
        if still.min() < PAST_EDGE_STILL_FRAMES or still.max() - still.min() > UNSPLIT_SPREAD:
            return None
        if self._arm_seen_lately():
            return None
        # Any aspect: three cards fanned wide make a patch about as broad as long.
        hull = self._card_patch(resting, (FAN_MIN_CARDS_AREA, FAN_AREA_RANGE[1]),
                                (1.0, FAN_ASPECT_RANGE[1]), past_edge=True)
        if hull is None:
            return None
        top_edge, _ = top_card(crop, hull, self.card_height_px)
        return hull if top_edge >= MIN_TOP_EDGE else None

    def _look_at_fan(self, waiting, frame) -> None:
        """On a clean frame (no hand over the pile) of the waiting card: on the first, is it
        the top card of a fan, and which cards lie under it; on each, read those."""
        if waiting.clean_frames == 0 or waiting.fan_left_unsplit():
            # A fan not split when confirmed is tried again on each clean frame: whether its
            # top card's outline passes MIN_SHARPNESS changes from frame to frame (0.56-0.69
            # on one fan of three at rest, 320x180, split only 2 s after it came to rest).
            waiting.under = self._cards_under(waiting.played, waiting.unsplit_fan)
        for under in waiting.under:
            reading = self._read_under(under, frame)
            if reading is not None:
                under.readings.append(reading)

    def _cards_under(self, played, unsplit_fan: bool = False) -> list[UnderCard]:
        """The cards under `played` when it is a fan's top card, deepest first. A fan that
        came to rest whole and was confirmed unsplit (`_unsplit_fan`) may be split with its
        top card's outline soft where its strips show other colours than its top card: a
        single card's misfitted rectangle leaves a strip of its own colour, and a patch that
        came to rest whole after every other way to confirm it failed is seldom a single card
        (at 720p, the fans at once measure 0.59-0.63 sharp at the watchers' size)."""
        near = grown(played.hull, round(FAN_REACH_CARDS * self.card_height_px))
        differs = _touching((l1_distance(self.previous, played.before) > CHANGE_L1) & near,
                            played.hull)
        region = fan_region(differs, self.card_area)
        if region is None or (region.sum() < FAN_MIN_CARDS_AREA * self.card_area
                              and self._card_sized_mask(region)):
            return []
        fan = split_fan(self.previous, region, differs, self.card_height_px,
                        soft_if_coloured=unsplit_fan)
        if fan is None or not self._top_came_with(fan.cards[-1], played):
            return []
        under = []
        upper = fan.cards[-1].mask(self.shape)
        for depth, rect in enumerate(fan.cards[-2::-1], start=1):
            strip = rect.mask(self.shape) & ~upper & differs
            if self._was_there(strip, played.t_s) or self._a_card_before(rect, played):
                break  # this one lay there before, and so did any under it
            under.append(UnderCard(rect, depth))
            upper |= rect.mask(self.shape)
        return under[::-1]

    def _was_there(self, strip: np.ndarray, rest_t: float) -> bool:
        """Did `strip` show as it does now in a frame between the card before this one and
        FAN_LEAD_S before this one came to rest?"""
        earlier = [p.t_s for p in self.played if p.t_s < rest_t]
        since = max(earlier) if earlier else -np.inf
        for t, past in self.history:
            if since <= t <= rest_t - FAN_LEAD_S and \
                    matches(past, self.previous, strip, OLD_STRIP_MATCH):
                return True
        return False

    def _top_came_with(self, top: CardRect, played) -> bool:
        """Did the fan's top card lie where it lies now when the waiting card was confirmed
        (REST_SHOWN of it as now)? If not, it came later: the same hand's next card, laid on
        the waiting one (taken for a nudge of it), and the card under it is the waiting card
        itself, not a card of a fan."""
        place = top.mask(self.shape)
        confirmed = [past for t, past in self.history if t >= played.t_s]
        if not confirmed or not place.any():
            return False
        return matches(confirmed[0], self.previous, place, REST_SHOWN)

    def _a_card_before(self, rect: CardRect, played) -> bool:
        """Is `rect` the place of a card the same hand laid shortly before this one (most of
        that card's patch lies in it)? A card laid beside the last after a pause has the last
        one under it, its part the hand had covered first seen with this one."""
        place = grown(rect.mask(self.shape), 2)
        return any(p is not played and 0 < gap_s(played.t_s, p.t_s) <= (
                   SAME_HAND_WINDOW_S if p.seat == played.seat else JUMP_IN_WINDOW_S) and
                   (place & p.hull).sum() >= SAME_PLACE * p.hull.sum() for p in self.played)

    def _read_under(self, under: UnderCard, frame):
        """Read a card under the top one from its own place (what shows of it is its strip;
        a reader that knows the pile's order, the ground truth's, is told how deep it lies)."""
        x0, y0 = self.region_px[:2]
        scale = self.full_scale
        cx, cy = under.rect.centre
        long_px = under.rect.long_px * scale
        view = card_view(frame, ((cx + x0) * scale, (cy + y0) * scale),
                         (long_px, long_px * 2 / 3), under.rect.angle_deg, long_px)
        if not _takes_depth(self.read_card):
            return self.read_card(view, frame.t_s)  # a reader of the crop alone
        return self.read_card(view, frame.t_s, depth=under.depth)

    def _fan_events(self, waiting) -> list:
        """The cards under the waiting top card, bottom first, each its own play."""
        played = waiting.played
        events = []
        for under in waiting.under:
            reading = vote_readings(under.readings)
            # Only its strip was seen: like a change no arm was seen bringing, it must read
            # surely to be a play (webcam games 321-326: the four single cards split by
            # mistake read 0.0-0.58).
            if reading is None or reading.confidence < max(self.read_sure, UNSEEN_READ_SURE):
                continue
            t = played.t_s - under.depth * FAN_STEP_S
            alternatives = (reading.runner_up,) if reading.runner_up else ()
            events.append(CardPlayed(round(t, 4), card=Card.parse(reading.card),
                                     seat=played.seat, confidence=round(reading.confidence, 3),
                                     alternatives=alternatives))
        return events


def _takes_depth(reader) -> bool:
    """Does the card reader take `depth=` (the ground-truth and the recogniser's do)?"""
    try:
        parameters = inspect.signature(reader).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "depth" or p.kind is p.VAR_KEYWORD for p in parameters)

