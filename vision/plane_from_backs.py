"""The table plane of a camera that leans, found from the draw piles' card backs (issue 22).

A card is a 2:3 rectangle lying on the table. Through a camera that leans 20-35 degrees it
shows as a four-sided figure squashed along the way the camera leans, and the two draw piles
show it differently: the one on the left leans one way, the one on the right the other (the
table's lines converge towards the horizon), and a pile nearer the camera looks bigger. So
the map from the picture to the table seen from straight above (a homography: a symmetric
linear part and a perspective row, up to a turn and a scale) is the one that makes every
back's outline a 2:3 rectangle of one size (`fit_plane`, a few Levenberg-Marquardt steps).
The outlines of the backs of several frames are pooled; one that is not a clean
parallelogram (a back half under a hand, merged with a dark patch of the table) is left out.

It needs the backs' black outlines, taken as the whole card (black to the edge, 2:3, as the
rendered deck's backs are; a printed deck's white border round the black is not looked for,
and its black alone is narrower: vision/NOTEBOOK.md). On a table as dark as the backs there are
none, and the picture is watched as it is (as without this). Four corners of a sheet of paper
(`bruno calibrate camera --table-corners`) give the plane there.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from calibration.camera import CameraProfile, TablePlane
from vision.camera_calibration import (
    CameraCalibrationError,
    plane_keeping_near_edge,
    propose_camera_from_frames,
    propose_camera_in_plane,
    work_copy,
)
from vision.card_backs import DARK_LEVEL, card_backs, draw_pile_backs
from vision.plane_from_pile import (
    card_height_in,
    clockwise,
    opposite_sides_agree,
    rectangle_errors,
    shape_at_pile,
    squash,
)

OUTLINE_REACH_CARDS = 0.8
"""A back's black outline is looked for this many card heights round its oval's centre (a
card's half diagonal is 0.6)."""

MIN_QUAD_FIT = 0.9
"""The four corners' outline must cover this fraction of the back's black-and-red blob, and
the blob this fraction of the outline (a back merged with something dark is no card)."""

MIN_BACKS = 2
"""Back outlines needed (pooled over the frames), in two places at least: the two draw piles
of one still frame are enough (their size and the way their sides lean tell the
perspective)."""

MIN_LEAN = 1.04
"""A picture squashed less than this (the ratio of the map's two stretches) is taken as
seen from straight above: the backs' outlines are only good to a few per cent."""

MAX_LEAN = 1.6
"""... and one squashed more than this is a misfit, not a camera: a webcam leaning 35 degrees
squashes the table by about 1.2, one leaning past 40 sees too little of it to referee, and
a 640x480 picture squeezed from a 16:9 sensor adds a third (1.45-1.53 on rendered webcam
games; every plane the backs of two piles gave between 1.3 and 1.6, nine games, was the
renderer's to within 3.5 %). (Two backs' corners off by a pixel can make a plane that fits
them and not the table: the fits of one pile alone squashed 1.4-3.0 where the truth was
1.11-1.49, and are refused for being in one place.)"""

MAX_RESIDUAL = 0.03
"""The fitted plane must make every back a 2:3 rectangle of one size to within this (the
RMS of the corners' cosines, the aspects' and sizes' relative errors): more, and the backs
do not agree on one table (a back misjudged, a third card taken for one)."""


def back_outline(small: np.ndarray, oval: np.ndarray, card_h: float) -> np.ndarray | None:
    """The four corners (float32, 4x2, in order round the outline) of the card back whose red
    oval is `oval` (a mask of `small`), or None when its outline is not a clean parallelogram.

    The back's body is taken two ways, the first clean outline winning: the pixels darker
    than a back's black can be (DARK_LEVEL; a pale or coloured table), and the pixels
    coloured like the body just round the oval, split from the rest at Otsu's level (a lamp
    or a cast makes the black grey). A table as dark as the back gives no outline."""
    ys, xs = np.nonzero(oval)
    cx, cy = float(xs.mean()), float(ys.mean())
    reach = OUTLINE_REACH_CARDS * card_h
    h, w = oval.shape
    x0, x1 = max(0, int(cx - reach)), min(w, int(cx + reach) + 1)
    y0, y1 = max(0, int(cy - reach)), min(h, int(cy + reach) + 1)
    window = cv2.GaussianBlur(small[y0:y1, x0:x1], (3, 3), 0)
    in_oval = oval[y0:y1, x0:x1] > 0
    near_oval = cv2.dilate(oval[y0:y1, x0:x1], np.ones((5, 5), np.uint8)) > 0
    dark = cv2.cvtColor(window, cv2.COLOR_BGR2HSV)[..., 2] < DARK_LEVEL
    colour = window.astype(np.float32)
    body = np.median(colour[near_oval & ~in_oval], axis=0)
    distance = np.linalg.norm(colour - body, axis=2)
    scaled = np.clip(distance * (255 / max(float(distance[~near_oval].max()), 1e-6)), 0, 255)
    level, _ = cv2.threshold(scaled[~near_oval].astype(np.uint8).reshape(-1, 1), 0, 255,
                             cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    for body_mask in (dark, scaled <= level):
        quad = _outline_quad((body_mask | near_oval).astype(np.uint8), in_oval)
        if quad is not None:
            return quad + np.float32([x0, y0])
    return None


def _outline_quad(blob: np.ndarray, in_oval: np.ndarray) -> np.ndarray | None:
    """The parallelogram round the part of `blob` (uint8, a window round one back) that holds
    the oval, or None when that part runs out of the window or is no parallelogram."""
    blob = cv2.morphologyEx(blob, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    count, labels = cv2.connectedComponents(blob)
    at_oval = labels[in_oval]
    if count < 2 or not (at_oval > 0).any():
        return None
    blob = (labels == np.bincount(at_oval[at_oval > 0]).argmax()).astype(np.uint8)
    if blob[0, :].any() or blob[-1, :].any() or blob[:, 0].any() or blob[:, -1].any():
        return None  # it runs out of the window: merged with something like it
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    perimeter = cv2.arcLength(hull, True)
    quad = None
    for share in (0.02, 0.03, 0.04, 0.06, 0.08):
        corners = cv2.approxPolyDP(hull, share * perimeter, True)
        if len(corners) == 4:
            quad = corners.reshape(4, 2).astype(np.float32)
            break
    if quad is None or not cv2.isContourConvex(quad.reshape(-1, 1, 2)):
        return None
    quad = _sides_refined(quad, max(contours, key=cv2.contourArea).reshape(-1, 2))
    if quad is None or not cv2.isContourConvex(quad.reshape(-1, 1, 2)):
        return None
    outline = np.zeros_like(blob)
    cv2.fillConvexPoly(outline, np.round(quad).astype(np.int32), 1)
    both = float((outline & blob).sum())
    if both < MIN_QUAD_FIT * blob.sum() or both < MIN_QUAD_FIT * outline.sum():
        return None
    return quad if opposite_sides_agree(quad) else None


def _sides_refined(quad: np.ndarray, contour: np.ndarray) -> np.ndarray | None:
    """The corners where lines fitted to the outline's four straight sides meet: a card's
    corners are rounded, so the outline's own corner points lie inside the card's."""
    lines = []
    for i in range(4):
        a, b = quad[i].astype(np.float64), quad[(i + 1) % 4].astype(np.float64)
        length = float(np.linalg.norm(b - a))
        along = (b - a) / max(length, 1e-9)
        offset = contour - a
        t = offset @ along
        d = np.abs(offset @ np.array([-along[1], along[0]]))
        # The middle 70 % of the side, near it: not the rounded corners.
        near = (t > 0.15 * length) & (t < 0.85 * length) & (d < max(2.0, 0.08 * length))
        if near.sum() < 4:
            return None
        vx, vy, x0, y0 = cv2.fitLine(contour[near].astype(np.float32), cv2.DIST_L2, 0, 0.01,
                                     0.01).ravel()
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
    corners = []
    for i in range(4):
        (p, u), (q, v) = lines[i - 1], lines[i]
        matrix = np.column_stack([u, -v])
        if abs(np.linalg.det(matrix)) < 1e-6:
            return None
        s, _ = np.linalg.solve(matrix, q - p)
        corners.append(p + s * u)
    return np.float32(corners)


def _ordered(quad: np.ndarray) -> np.ndarray:
    """The corners clockwise on the picture (y down), the one nearest its top-left first."""
    quad = clockwise(quad)
    return np.roll(quad, -int(np.argmin(quad.sum(axis=1))), axis=0)


def _mapped(params: np.ndarray, points: np.ndarray) -> np.ndarray:
    """`points` (normalised picture coordinates) through the plane map of `params`: a
    symmetric linear part (1, b; b, d) and a perspective row (g, h, 1)."""
    b, d, g, h = params
    x, y = points[..., 0], points[..., 1]
    s = g * x + h * y + 1
    return np.stack([(x + b * y) / s, (b * x + d * y) / s], axis=-1)


def _residuals(params: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """For each card: how far its mapped outline is from a rectangle (the cosine of its
    corner) and from 2:3; and how far its size is from the cards' mean."""
    corner, aspect, size = rectangle_errors(_mapped(params, quads))
    return np.concatenate([corner, aspect, size / size.mean() - 1])


def fit_plane(quads: Sequence[np.ndarray], image_size: tuple[int, int]
              ) -> tuple[np.ndarray, float] | None:
    """(3x3 map of picture pixels to the table plane, up to a turn and a scale; RMS of the
    residuals) that makes every card back's outline in `quads` (picture pixels) a 2:3
    rectangle of one size (Levenberg-Marquardt from a camera straight above); None when the
    map it ends at would turn the picture over (the caller judges the RMS)."""
    h, w = image_size
    to_normal = np.array([[1 / w, 0, -0.5], [0, 1 / w, -0.5 * h / w], [0, 0, 1]])
    corners = np.stack([_ordered(np.asarray(q, np.float64)) for q in quads])
    normal = corners @ to_normal[:2, :2].T + to_normal[:2, 2]
    params = np.array([0.0, 1.0, 0.0, 0.0])
    damping = 1e-3
    cost = float((_residuals(params, normal) ** 2).sum())
    for _ in range(50):
        r = _residuals(params, normal)
        jacobian = np.empty((len(r), 4))
        for k in range(4):
            step = np.zeros(4)
            step[k] = 1e-6
            jacobian[:, k] = (_residuals(params + step, normal) - r) / 1e-6
        normal_eq = jacobian.T @ jacobian
        move = np.linalg.solve(normal_eq + damping * np.diag(np.diag(normal_eq) + 1e-9),
                               -jacobian.T @ r)
        trial = params + move
        trial_cost = float((_residuals(trial, normal) ** 2).sum())
        if trial_cost < cost:
            params, cost, damping = trial, trial_cost, damping / 3
            if np.abs(move).max() < 1e-7:
                break
        else:
            damping *= 5
    b, d, g, hh = params
    if d <= 0 or d < b * b:
        return None  # not a map that keeps the picture's sense
    plane = np.array([[1.0, b, 0.0], [b, d, 0.0], [g, hh, 1.0]]) @ to_normal
    return plane, float(np.sqrt(cost / len(_residuals(params, normal))))


def table_plane_from_backs(images: Sequence[np.ndarray]) -> TablePlane | None:
    """The table plane the draw piles' card backs show, pooled over `images` (frames of one
    camera, same size); None when the camera looks straight down (within MIN_LEAN), or when
    the backs seen (MIN_BACKS outlines, in two places at least) do not agree on one plane."""
    if not images:
        return None
    size = images[0].shape[:2]
    return _leaning_plane(_backs_plane(back_outlines(images), size), size)


def _leaning_plane(fitted: tuple[np.ndarray, float] | None, size: tuple[int, int]
                   ) -> TablePlane | None:
    """The plane of `fitted` (`_backs_plane`) for a picture of `size` (h, w) when it leans as
    a camera may (MIN_LEAN to MAX_LEAN), else None."""
    if fitted is None or not MIN_LEAN <= fitted[1] <= MAX_LEAN:
        return None
    return plane_keeping_near_edge(fitted[0], size)


def back_outlines(images: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The clean outlines (`back_outline`, picture pixels) of the draw piles' backs in each
    of `images`."""
    quads = []
    for image in images:
        small, scale = work_copy(image)
        for _, card_h, oval in draw_pile_backs(card_backs(small)):
            # Found at the work copy's size, outlined at the picture's own (corners to a
            # pixel there are what the plane is made of).
            full_oval = cv2.resize(oval, image.shape[1::-1], interpolation=cv2.INTER_NEAREST)
            quad = back_outline(image, full_oval, card_h / scale)
            if quad is not None:
                quads.append(quad)
    return quads


def _backs_plane(quads: Sequence[np.ndarray], size: tuple[int, int]
                 ) -> tuple[np.ndarray, float] | None:
    """The plane (picture pixels to a plane's) that the backs' outlines `quads` in a picture
    of `size` (h, w) agree on, and how much it squashes the picture at its middle (1: seen
    from straight above); None when there are too few outlines, in one place only, or they
    do not agree."""
    if len(quads) < MIN_BACKS:
        return None
    centres = [q.mean(axis=0) for q in quads]
    card = np.linalg.norm(quads[0][2] - quads[0][0])  # about a card's diagonal
    if not any(np.linalg.norm(c - centres[0]) > 2 * card for c in centres):
        return None  # one place only: the perspective cannot be told
    fitted = fit_plane(quads, size)
    if fitted is None or fitted[1] > MAX_RESIDUAL:
        return None
    plane, _ = fitted
    h, w = size
    return plane, squash(_jacobian(plane, (w / 2, h / 2)))


def _jacobian(plane: np.ndarray, at: tuple[float, float]) -> np.ndarray:
    """The 2x2 derivative of the map `plane` at the picture point `at`."""
    x, y = at
    u, v, s = plane @ [x, y, 1.0]
    return np.array([[plane[0, 0] * s - u * plane[2, 0], plane[0, 1] * s - u * plane[2, 1]],
                     [plane[1, 0] * s - v * plane[2, 0], plane[1, 1] * s - v * plane[2, 1]]]
                    ) / s ** 2


def propose_camera_for_footage(images: Sequence[np.ndarray], players: int,
                               seat0_angle_deg: float, seat_angles_deg: tuple[float, ...] | None
                               ) -> tuple[CameraProfile, list[str]]:
    """The camera section proposed from frames of the table, in the table plane when the
    card backs show that the camera leans (`table_plane_from_backs`; the profile then has
    `table_plane`), else in the table's shape at the pile when the cards' outlines show the
    picture squashes it (`vision.plane_from_pile`), else in the picture; and warnings for
    the user."""
    if not images:
        raise CameraCalibrationError("no picture to calibrate from")
    backs = back_outlines(images)
    fitted = _backs_plane(backs, images[0].shape[:2])
    plane = _leaning_plane(fitted, images[0].shape[:2])
    if plane is not None:
        try:
            profile, warnings = propose_camera_in_plane(images, plane, players,
                                                        seat0_angle_deg, seat_angles_deg)
        except CameraCalibrationError:
            pass  # the warped frames lost a draw pile: the picture as it is
        else:
            return profile, warnings
    profile, warnings = propose_camera_from_frames(images, players, seat0_angle_deg,
                                                   seat_angles_deg)
    if fitted is not None and fitted[1] < MIN_LEAN:
        return profile, warnings  # seen from straight above: the backs' size is the pile's
    profile = profile.model_copy(update={
        "card_height": round(profile.card_height * PICTURE_CARD_SCALE, 4)})
    return _in_pile_card_shape(images, backs, profile, players, seat0_angle_deg,
                               seat_angles_deg) or (profile, warnings)


def _in_pile_card_shape(images: Sequence[np.ndarray], backs: Sequence[np.ndarray],
                        picture: CameraProfile, players: int, seat0_angle_deg: float,
                        seat_angles_deg: tuple[float, ...] | None
                        ) -> tuple[CameraProfile, list[str]] | None:
    """The proposal made again in the table's shape at the pile that the cards' outlines
    show (`vision.plane_from_pile`: the face-up cards on the pile, and the backs' outlines
    `backs`, which gave no plane), with the pile card's size, for a camera whose backs gave
    no plane (`picture`: the proposal in the picture); None when the cards show none."""
    h, w = images[0].shape[:2]
    pile_centre = (picture.pile.centre()[0] * w, picture.pile.centre()[1] * h)
    shape = shape_at_pile(images, pile_centre, picture.card_height * h, backs)
    if shape is None:
        return None
    plane = plane_keeping_near_edge(shape[0], (h, w))
    try:
        profile, warnings = propose_camera_in_plane(images, plane, players, seat0_angle_deg,
                                                    seat_angles_deg)
    except CameraCalibrationError:
        return None  # the warped frames lost a draw pile: the picture as it is
    to_plane = np.diag([w, h, 1.0]) @ np.array(plane.homography) @ np.diag([1 / w, 1 / h, 1.0])
    pile_cards = shape[1]
    # The pile card's own size where one was outlined; else the backs', seen smaller.
    card_h = card_height_in(to_plane, pile_cards) if pile_cards else \
        card_height_in(to_plane, backs) * PICTURE_CARD_SCALE
    return profile.model_copy(update={"card_height": round(card_h / h, 4)}), warnings


PICTURE_CARD_SCALE = 1.15
"""Proposed in the picture (no table plane), the card size is the backs' times this, unless
their outlines show the camera looks straight down (`MIN_LEAN`). The backs lie farther from
a camera that leans than the pile does: the pile's card shows 1.0 (straight above) to 1.33
(leaning 35 degrees) times the backs' card (rendered tables: 1.15-1.33 on 70 webcam games,
1.0 on the overhead family), and the watchers judge a card by its size. The middle of that
range is off by at most 15 % either way, where the backs' own size was off by up to a
quarter, always the same way (vision/NOTEBOOK.md, 7 December)."""


LEANING_NOTE = ("the camera leans: the table is watched as if seen from straight above, in "
                "the plane the cards' outlines show")
"""What a proposal in the table plane tells the user (`bruno calibrate camera`, the review's
notes)."""


def as_watched(image: np.ndarray, camera: CameraProfile) -> np.ndarray:
    """`image` as the watchers see it with `camera`: warped into its table plane, if it has
    one (the regions of a plane's profile are drawn on that)."""
    if camera.table_plane is None:
        return image
    from vision.frames import frame_from_image
    from vision.table_plane import PlaneRectifier

    return PlaneRectifier(camera.table_plane)(frame_from_image(image, 0.0)).full()
