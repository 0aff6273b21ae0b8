"""Propose the camera section from one picture of the table, and draw the proposal.

The draw piles are found by their card backs: a red oval, the deck's yellow name across it,
ringed by black (`card_backs`; the two most alike in size, `draw_pile_backs`). The discard
pile is the face-up cards nearest the point between them: where white paper meets strong
ink, in the picture white-balanced on its paper (`_face_evidence`). The card size comes from
the backs' ovals. Seats come from the number of players and the direction of seat 0
(docs/DESIGN.md), or from explicit angles.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from calibration.camera import (
    DEFAULT_SEAT0_ANGLE_DEG,
    CameraProfile,
    ColourReferences,
    Region,
    TablePlane,
    default_seat_angles,
)
from calibration.layout import DRAW_REGION_CARDS, PILE_REGION_CARDS
from vision.card_backs import card_backs, draw_pile_backs

WORK_WIDTH_PX = 640
"""The picture is searched at this width (backs are large, fine detail is not needed)."""

PROPOSED_PILE_REGION_CARDS = 2.5
"""A pile region proposed in the picture is this many of the backs' card heights on a side,
not the layout's PILE_REGION_CARDS (2). In the picture (no table plane) a camera that leans
sees the pile, nearer to it than the draw piles, larger than their backs (rendered webcam
tables: the pile's card 1.15-1.33 times the backs' card on 70 of 70; from straight above
1.0), and the region must hold a card askew at the size it shows there: at 2 a card laid
off-centre touched the region's edge and was taken for an arm. In the table plane the pile's
card is the backs' size, and the region is the layout's (`propose_camera_in_plane`): with 2.5
there, an arm resting 1.4 card heights from the pile counted as over it, and the card under
the laying hand's finger waited for a clean frame until its reading's wait ran out (webcam
game 481 at 1.0 s). Six webcam sets without a profile (42 games, 24 of them proposed with a
plane): plays the same (1,260), phantoms 34 -> 30, seats 1,210 -> 1,214, cards right
1,165 -> 1,174 (vision/NOTEBOOK.md, 7 December, twentieth session)."""

MAX_PILE_DISTANCE_CARDS = 2.5
"""The discard pile lies within this many card heights of the point between the draw piles."""

FACE_WHITE_SAT = 70
"""HSV saturation below which a pixel may be a face's white paper."""

FACE_WHITE_VALUE = 0.65
"""...and its value above this fraction of the brightest pixel within a card's height."""

FACE_INK_SAT = 100
"""HSV saturation above which a pixel may be a face's coloured ink..."""

FACE_INK_VALUE = 0.25
"""...and its value above this fraction of that brightest pixel."""

BACK_CLEARANCE_CARDS = 0.75
"""The pile is not looked for within this many card heights of a draw pile's centre."""

MIN_FACE_EVIDENCE = 0.03
"""A card-sized window with less white-beside-ink than this fraction holds no face-up card
(a still card scores 0.15-0.4; tables, backs and arms score below 0.015)."""

WHITE_PATCH_PERCENTILE = 97
"""The face test white-balances the picture (`white_balanced`) on its brightest pixels, those
at this percentile of brightness (their brightest channel) and over ..."""

WHITE_LEAST_COLOURED = 20
"""... taking, of the pixels that bright, the least coloured fifth as white ..."""

MAX_WHITE_GAIN = 2.5
"""... with no channel raised more than this much over the others (a picture with no white
in it is not made one colour)."""

FOOTAGE_FRAMES = 6
FOOTAGE_FRAME_EVERY_S = 1.0
"""From a video, the proposal looks at this many frames this far apart: a still table in at
least some of them, and the pile outweighs a card carried across in one."""

class CameraCalibrationError(Exception):
    """The picture does not show what calibration needs; one line for people."""


def _face_evidence(small: np.ndarray, card_h: float) -> np.ndarray:
    """1 where white paper and strong ink meet within a pixel or two, else 0 (float32).

    A face-up card is the one thing on a table where white print borders saturated ink all
    over (its white border round the coloured body, the oval, the numbers). Tables are either
    white or coloured but not both at that scale: a light table is white paper everywhere and
    ink nowhere, a dark one neither, a cloth or blotchy one coloured with soft or sparse edges
    to pale colour. Card backs are black and red, without white. Finding card outlines instead
    (`vision.locate`) failed on light and patterned tables (the table's blobs crowded out the
    card, or a patch of light table passed for white print) and on a pile of several cards
    askew (no single card outline). "White" and "ink" are relative to the brightest pixel
    within a card's height (the paper, where there is a card), not to fixed levels or to the
    whole picture: the light's exposure (0.45-1.15), its gradient and a glare spot elsewhere
    (255 where the paper is 160) do not matter then."""
    hsv = cv2.cvtColor(white_balanced(small), cv2.COLOR_BGR2HSV)
    sat, val = hsv[..., 1], hsv[..., 2]
    reach = max(3, int(card_h))
    paper = cv2.dilate(cv2.blur(val, (3, 3)), np.ones((reach, reach), np.uint8))
    paper = paper.astype(np.float32)
    white = ((sat < FACE_WHITE_SAT) & (val > FACE_WHITE_VALUE * paper)).astype(np.uint8)
    ink = ((sat > FACE_INK_SAT) & (val > FACE_INK_VALUE * paper)).astype(np.uint8)
    near = np.ones((3, 3), np.uint8)
    return (cv2.dilate(white, near) & cv2.dilate(ink, near)).astype(np.float32)


def white_balanced(image: np.ndarray) -> np.ndarray:
    """`image` with each channel scaled so that the least coloured of its brightest pixels
    (WHITE_PATCH_PERCENTILE, WHITE_LEAST_COLOURED) are white, by at most MAX_WHITE_GAIN.
    A card's white under a warm lamp or a webcam's cast is orange or pink (saturation
    100-115 on a rendered game), and no paper to the face test until the cast is taken
    off; the least coloured of the brightest pixels of a card table are a card's paper or a
    glare, both white."""
    pixels = image.reshape(-1, 3).astype(np.float32)
    value = pixels.max(axis=1)
    bright = pixels[value >= np.percentile(value, WHITE_PATCH_PERCENTILE)]
    # Of the brightest, the least coloured: a light sleeve or a lamp-lit patch of a coloured
    # table is bright too, but only paper is white.
    spread = bright.max(axis=1) - bright.min(axis=1)
    white = np.median(bright[spread <= np.percentile(spread, WHITE_LEAST_COLOURED)], axis=0)
    gains = np.minimum(255.0 / np.maximum(white, 1.0), MAX_WHITE_GAIN)
    return np.clip(image * (gains / gains.min()), 0, 255).astype(np.uint8)


def _pile_centre(evidence: np.ndarray, near: tuple[float, float], card_h: float,
                 backs: list[tuple[float, float]]) -> tuple[float, float] | None:
    """Centre (in `evidence`'s px) of the face-up cards nearest `near`, or None.

    The card-sized window with the most face evidence, within MAX_PILE_DISTANCE_CARDS of
    `near` and away from the backs, then the centroid of the evidence around it: the middle
    of the pile even when it is several cards askew."""
    h, w = evidence.shape
    side = max(3, int(card_h))
    density = cv2.blur(evidence, (side, side))
    ys, xs = np.mgrid[0:h, 0:w]
    allowed = np.hypot(xs - near[0], ys - near[1]) <= MAX_PILE_DISTANCE_CARDS * card_h
    for bx, by in backs:
        allowed &= np.hypot(xs - bx, ys - by) > BACK_CLEARANCE_CARDS * card_h
    density = np.where(allowed, density, 0)
    y, x = np.unravel_index(int(np.argmax(density)), density.shape)
    if density[y, x] < MIN_FACE_EVIDENCE:
        return None
    cx, cy = float(x), float(y)
    for _ in range(3):  # the evidence's centroid within a card of the peak, twice over
        r = 0.75 * card_h
        x0, x1 = int(max(0, cx - r)), int(min(w, cx + r + 1))
        y0, y1 = int(max(0, cy - r)), int(min(h, cy + r + 1))
        patch = evidence[y0:y1, x0:x1] * allowed[y0:y1, x0:x1]
        total = float(patch.sum())
        if total <= 0:
            break
        py, px = np.mgrid[y0:y1, x0:x1]
        cx, cy = float((px * patch).sum() / total), float((py * patch).sum() / total)
    return cx, cy


def work_copy(image: np.ndarray) -> tuple[np.ndarray, float]:
    """The picture at most WORK_WIDTH_PX wide, and its scale (work px per full px)."""
    h, w = image.shape[:2]
    scale = min(1.0, WORK_WIDTH_PX / w)
    small = cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    return small, scale


def propose_camera(image: np.ndarray, players: int,
                   seat0_angle_deg: float = DEFAULT_SEAT0_ANGLE_DEG,
                   seat_angles_deg: tuple[float, ...] | None = None,
                   more_images: Sequence[np.ndarray] = ()
                   ) -> tuple[CameraProfile, list[str]]:
    """The camera section for this picture (BGR, any size) and warnings for the user.

    `more_images`: other frames of the same table (same size), when there are any. The face
    evidence of all frames is added up, so the pile, which stays, outweighs a card carried
    across the table in one of them; the draw piles are taken from `image`."""
    h, w = image.shape[:2]
    small, scale = work_copy(image)
    backs = draw_pile_backs(card_backs(small))
    if len(backs) < 2:
        raise CameraCalibrationError(
            f"found {len(backs)} draw pile(s), need 2: put both draw piles (card backs up) in "
            "view, with the discard pile between them, and try again")
    card_h = float(np.median([b[1] for b in backs])) / scale  # full px
    draw_centres = [(b[0][0] / scale, b[0][1] / scale) for b in backs]
    draw_centres.sort()  # left one first
    between = ((draw_centres[0][0] + draw_centres[1][0]) / 2,
               (draw_centres[0][1] + draw_centres[1][1]) / 2)
    warnings = []
    evidence = _face_evidence(small, card_h * scale)
    same_size = [other for other in more_images if other.shape[:2] == (h, w)]
    for other in same_size:
        evidence += _face_evidence(cv2.resize(other, small.shape[1::-1],
                                              interpolation=cv2.INTER_AREA), card_h * scale)
    evidence /= 1 + len(same_size)
    pile = _pile_centre(evidence, (between[0] * scale, between[1] * scale), card_h * scale,
                        [(x * scale, y * scale) for x, y in draw_centres])
    if pile is not None:
        pile = (pile[0] / scale, pile[1] / scale)
    else:
        warnings.append("no face-up card found near the draw piles; the discard pile is set "
                        "between them: check the picture, or calibrate with a card on the pile")
        pile = between

    def square(centre, cards):
        side = cards * card_h
        return Region.around(centre[0] / w, centre[1] / h, side / w, side / h)

    angles = seat_angles_deg or default_seat_angles(players, seat0_angle_deg)
    red = [cv2.mean(small, mask=b[2])[:3] for b in backs]
    profile = CameraProfile(
        pile=square(pile, PROPOSED_PILE_REGION_CARDS),
        draw_piles=(square(draw_centres[0], DRAW_REGION_CARDS),
                    square(draw_centres[1], DRAW_REGION_CARDS)),
        seat_angles_deg=tuple(angles),
        card_height=round(card_h / h, 4),
        colours=ColourReferences(
            table_bgr=_table_colour(image, pile, card_h),
            back_red_bgr=tuple(round(float(v)) for v in np.mean(red, axis=0))),
        image_size=(h, w),
    )
    return profile, warnings


def propose_camera_from_frames(images: Sequence[np.ndarray], players: int,
                               seat0_angle_deg: float = DEFAULT_SEAT0_ANGLE_DEG,
                               seat_angles_deg: tuple[float, ...] | None = None
                               ) -> tuple[CameraProfile, list[str]]:
    """`propose_camera` on several frames of the same footage (e.g. one a second).

    One frame of a game often has an arm over a draw pile or a card carried across the table
    (rendered games at 3 s: 2 of 14 lose a draw pile, 3 more take a carried card for the
    pile). The draw piles are taken from the first frame that shows both; the pile from the
    face evidence of all frames together, where the pile, which stays, outweighs a card that
    passes."""
    if not images:
        raise CameraCalibrationError("no picture to calibrate from")
    # Each frame's two largest backs; the frame whose pair most other frames agree with wins
    # (an arm's sleeve, a red patch of a patterned table, or a back being carried off can pass
    # for a draw pile in one frame), and of those the one with the largest backs (a back half
    # under a hand looks smaller).
    pairs = []
    for image in images:
        small, scale = work_copy(image)
        backs = draw_pile_backs(card_backs(small))
        pairs.append((sorted((b[0][0] / scale, b[0][1] / scale) for b in backs),
                      min(b[1] for b in backs) / scale) if len(backs) == 2 else None)

    def agree(a, b) -> bool:
        return b is not None and abs(a[1] / b[1] - 1) < 0.1 and all(
            math.dist(p, q) < 0.1 * a[1] for p, q in zip(a[0], b[0], strict=True))

    votes = [(-1, 0.0) if a is None else (sum(agree(a, b) for b in pairs), a[1])
             for a in pairs]
    best = max(range(len(votes)), key=lambda i: votes[i])
    if votes[best][0] < 0:
        return propose_camera(images[0], players, seat0_angle_deg, seat_angles_deg)  # raises
    return propose_camera(images[best], players, seat0_angle_deg, seat_angles_deg,
                          more_images=[*images[:best], *images[best + 1:]])


def footage_frames(path: str, at_s: float = 3.0, count: int = FOOTAGE_FRAMES,
                   every_s: float = FOOTAGE_FRAME_EVERY_S) -> list[np.ndarray]:
    """Full-size frames of a video from `at_s` on, `every_s` apart (fewer if it ends), for
    `propose_camera_from_frames`; a picture file gives itself."""
    from vision.frames import IMAGE_SUFFIXES, FrameSourceError, first_frame, read_video

    if str(path).lower().endswith(IMAGE_SUFFIXES):
        return [first_frame(path).full()]
    out: list[np.ndarray] = []
    last, broke = None, False
    try:
        for frame in read_video(path):
            last = frame
            if frame.t_s >= at_s + len(out) * every_s - 1e-6:
                out.append(frame.full())
                if len(out) == count:
                    break
    except FrameSourceError:
        if last is None:
            raise
        broke = True
    if not out and last is not None and broke:
        # The video broke before `at_s`: its last frame is not the moment asked for, and a
        # frame of the deal would place the piles wrongly. (A whole video shorter than
        # `at_s` gives its last frame: a short clip reviewed without a profile.)
        raise FrameSourceError(f"{path}: the video breaks at {last.t_s:.1f} s, before "
                               f"{at_s:g} s (cut short or damaged); give --at a moment before "
                               "that")
    if not out and last is not None:
        out.append(last.full())
    if not out:
        raise FrameSourceError(f"{path}: no frame could be decoded; the file is damaged")
    return out


def _table_colour(image: np.ndarray, pile: tuple[float, float], card_h: float
                  ) -> tuple[int, int, int]:
    """Median colour of a band of table around the pile region (outside it)."""
    h, w = image.shape[:2]
    inner = PILE_REGION_CARDS * card_h / 2
    outer = inner + 0.4 * card_h
    x0, x1 = int(max(0, pile[0] - outer)), int(min(w, pile[0] + outer))
    y0, y1 = int(max(0, pile[1] - outer)), int(min(h, pile[1] + outer))
    box = image[y0:y1, x0:x1].reshape(-1, 3)
    ys, xs = np.mgrid[y0:y1, x0:x1]
    outside = (np.abs(xs - pile[0]) > inner) | (np.abs(ys - pile[1]) > inner)
    pixels = box[outside.reshape(-1)]
    if len(pixels) == 0:
        pixels = image.reshape(-1, 3)
    med = np.median(pixels, axis=0)
    return int(med[0]), int(med[1]), int(med[2])


def draw_proposal(image: np.ndarray, camera: CameraProfile) -> np.ndarray:
    """The picture with the pile (green), the draw piles (red) and seat arrows drawn on it."""
    out = image.copy()
    h, w = out.shape[:2]
    thick = max(2, w // 400)
    x0, y0, x1, y1 = camera.pile.pixels(h, w)
    cv2.rectangle(out, (x0, y0), (x1, y1), (0, 220, 0), thick)
    cv2.putText(out, "pile", (x0, max(12, y0 - 6)), cv2.FONT_HERSHEY_SIMPLEX, w / 1600,
                (0, 220, 0), thick)
    for i, region in enumerate(camera.draw_piles):
        a0, b0, a1, b1 = region.pixels(h, w)
        cv2.rectangle(out, (a0, b0), (a1, b1), (0, 0, 230), thick)
        cv2.putText(out, f"draw {i + 1}", (a0, max(12, b0 - 6)), cv2.FONT_HERSHEY_SIMPLEX,
                    w / 1600, (0, 0, 230), thick)
    cx, cy = camera.pile.centre()
    cx, cy = cx * w, cy * h
    length = 0.35 * min(h, w)
    for seat, angle in enumerate(camera.seat_angles_deg):
        dx, dy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        start = (int(cx + dx * length * 0.45), int(cy + dy * length * 0.45))
        end = (int(cx + dx * length), int(cy + dy * length))
        cv2.arrowedLine(out, start, end, (255, 200, 0), thick, tipLength=0.15)
        cv2.putText(out, f"seat {seat}", (end[0] - 30, end[1]), cv2.FONT_HERSHEY_SIMPLEX,
                    w / 1400, (255, 200, 0), thick)
    return out


A4_MM = (297.0, 210.0)
"""A sheet of A4 paper, long side across: the rectangle most tables have to hand."""


def table_plane_from_corners(corners: Sequence[tuple[float, float]], image_size: tuple[int, int],
                             rectangle: tuple[float, float] = A4_MM) -> TablePlane:
    """The table plane of a camera that leans, from the picture's pixels of the four corners
    of a rectangle lying on the table (its far-left corner first, then clockwise) whose sides
    are `rectangle` (width across the picture, depth; any unit). The plane keeps the
    picture's size and sense: the picture's near (bottom) edge is the plane's bottom edge,
    end to end, and the table beyond it is seen from straight above."""
    quad = np.float32(corners)
    if quad.shape != (4, 2):
        raise CameraCalibrationError("give the four corners of the rectangle, 8 numbers")
    if not cv2.isContourConvex(quad.reshape(-1, 1, 2)) or cv2.contourArea(quad) < 100:
        raise CameraCalibrationError(
            "the four corners do not make a rectangle's outline: give them far-left first, "
            "then clockwise (far-right, near-right, near-left)")
    h, w = image_size
    width_px = (np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
    depth_px = width_px * rectangle[1] / rectangle[0]
    cx, cy = quad.mean(axis=0)
    half_w, half_d = width_px / 2, depth_px / 2
    flat = np.float32([[cx - half_w, cy - half_d], [cx + half_w, cy - half_d],
                       [cx + half_w, cy + half_d], [cx - half_w, cy + half_d]])
    pixels = cv2.getPerspectiveTransform(quad, flat).astype(np.float64)
    return plane_keeping_near_edge(pixels, (h, w))


def plane_keeping_near_edge(pixels: np.ndarray, image_size: tuple[int, int]) -> TablePlane:
    """The table plane of `pixels` (a 3x3 map of picture pixels to a plane seen from straight
    above, any turn and scale), turned, scaled and moved (which keeps the table's shape) so
    that the picture's near edge is the plane's bottom edge, end to end: seat 0's arm still
    enters the plane from its bottom, as the watchers expect, and the far seats' arms from
    its top."""
    h, w = image_size
    near = cv2.perspectiveTransform(np.float32([[[0, h], [w, h]]]), pixels)[0]
    left, right = complex(*near[0]), complex(*near[1])
    turn = complex(w, 0) / (right - left)
    shift = complex(0, h) - turn * left
    similarity = np.array([[turn.real, -turn.imag, shift.real],
                           [turn.imag, turn.real, shift.imag], [0, 0, 1]])
    pixels = similarity @ pixels
    to_fractions = np.diag([1 / w, 1 / h, 1.0])
    fractions = to_fractions @ pixels @ np.linalg.inv(to_fractions)
    fractions /= fractions[2, 2]
    return TablePlane(homography=tuple(tuple(round(float(v), 9) for v in row)
                                       for row in fractions), size=(h, w))


def propose_camera_in_plane(images: Sequence[np.ndarray], plane: TablePlane, players: int,
                            seat0_angle_deg: float = DEFAULT_SEAT0_ANGLE_DEG,
                            seat_angles_deg: tuple[float, ...] | None = None
                            ) -> tuple[CameraProfile, list[str]]:
    """`propose_camera_from_frames` on the frames warped into `plane`: the piles, card size
    and seat directions as table geometry, with the plane to watch in."""
    from vision.frames import frame_from_image
    from vision.table_plane import PlaneRectifier

    rectify = PlaneRectifier(plane)
    flat = [rectify(frame_from_image(image, 0.0)).full() for image in images]
    profile, warnings = propose_camera_from_frames(flat, players, seat0_angle_deg,
                                                   seat_angles_deg)
    # In the plane the pile's card shows at the backs' size: the layout's region, as a
    # calibrated plane has it, not the picture's wider one (PROPOSED_PILE_REGION_CARDS).
    shrink = PILE_REGION_CARDS / PROPOSED_PILE_REGION_CARDS
    (cx, cy), pile = profile.pile.centre(), profile.pile
    return profile.model_copy(update={
        "pile": Region.around(cx, cy, pile.w * shrink, pile.h * shrink),
        "table_plane": plane, "image_size": images[0].shape[:2]}), warnings
