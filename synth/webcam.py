"""The webcam family of synthetic footage: the rendered top-down table as a cheap webcam sees
it. Real tables are filmed like this, not from straight above in even light (issue 22):

- a camera leaning 20-35 degrees from straight down (the far edge of the table shrinks), a
  little rolled, at 640x480 to 1280x720;
- a warm or cold colour cast, a lamp's hotspot, and a glare spot drifting over the pile;
- auto-exposure steps (the whole frame jumps brighter or darker), sensor noise, a soft focus;
- 300-600 kb/s H.264 (blocky);
- people: each seat's own skin tone (pale to very dark) and sleeve (any colour, greys too),
  and motion blur on moving arms (a shutter open 8-33 ms);
- the glare spot passes over the pile once (`glare_cross_t`), brighter, clipping on a light
  table.

The fast hands (close jump-in chains, two identical cards at once, a hand over the pile while
a card lands, a second arm in view) are in the scenario (`random_scenario(fast_hands=True)`).

Every condition is drawn per video from the scenario's seed (`WebcamLook.draw`) and written
beside the footage (`<video>.camera.json`: the look, and the camera profile a calibration of
that table would give, in the table plane), so an evaluation can say what each video was made
of.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, replace
from functools import cached_property
from pathlib import Path

import cv2
import numpy as np

from calibration.camera import CameraProfile, Region, TablePlane
from calibration.layout import DRAW_REGION_CARDS, PILE_REGION_CARDS, TableLayout

SIZES = ((480, 640), (540, 960), (720, 1280))
"""Output sizes a webcam family video is drawn from (height, width)."""

VERSION = 2
"""The family's version: 2 added the people, the motion blur and the glare over the pile.
Evaluations name their cached videos by it, so a video of an older family is not taken for
one of this."""

SKIN_TONES = ((205, 220, 245), (170, 195, 235), (135, 170, 220), (105, 145, 200),
              (80, 115, 170), (60, 90, 140), (45, 65, 105), (32, 44, 70))
"""Skin tones (BGR) from pale to very dark, each seat's drawn from these (jittered)."""

SEATS = 10
"""Skin and sleeve are drawn for this many seats (the most a scenario has)."""

GLARE_CROSS_SPEED = (0.05, 0.12)
"""The glare crosses the pile at this many frame widths a second (a person moving the lamp
or walking past a window)."""


@dataclass(frozen=True)
class WebcamLook:
    """How one webcam sees the table. Times in seconds, positions in output fractions."""

    tilt_deg: float
    roll_deg: float
    size: tuple[int, int]
    cast: tuple[float, float, float]
    """Gains of the blue, green and red channels (warm: red up, blue down)."""
    hotspot: tuple[float, float, float, float]
    """(x, y, radius as a fraction of the width, extra gain at its centre)."""
    glare_start: tuple[float, float]
    glare_speed: tuple[float, float]
    """Fractions of the frame per second: the glare drifts, bouncing off the frame's edges."""
    glare_radius: float
    glare_strength: float
    exposure_steps: tuple[tuple[float, float], ...]
    """(t, gain): from t on the whole frame is this much brighter (>1) or darker (<1)."""
    noise_sigma: float
    blur_sigma: float
    bitrate_kbps: int
    shutter_s: float = 0.0
    """How long the shutter is open: a moving arm is blurred over this time."""
    glare_cross_t: float | None = None
    """When the glare spot is over the pile (it passes over once, and may bounce back)."""
    skins: tuple[tuple[int, int, int], ...] = ()
    sleeves: tuple[tuple[int, int, int], ...] = ()
    """Each seat's skin and sleeve (BGR), seat 0 first."""

    def skin(self, seat: int) -> tuple[int, int, int]:
        return self.skins[seat % len(self.skins)]

    def sleeve(self, seat: int) -> tuple[int, int, int]:
        return self.sleeves[seat % len(self.sleeves)]

    @classmethod
    def draw(cls, seed: int, duration_s: float) -> WebcamLook:
        rng = np.random.default_rng(seed + 7)
        warm = bool(rng.integers(2))
        shift = float(rng.uniform(0.06, 0.16))
        cast = (1 - shift, 1.0, 1 + shift * 0.8) if warm else (1 + shift * 0.8, 1.0, 1 - shift)
        steps = []
        for _ in range(int(rng.integers(1, 4))):
            steps.append((round(float(rng.uniform(1.0, max(1.5, duration_s - 1))), 2),
                          round(float(rng.choice([-1, 1]) * rng.uniform(0.12, 0.3) + 1), 3)))
        return cls(
            tilt_deg=round(float(rng.uniform(20, 35)), 1),
            roll_deg=round(float(rng.uniform(-5, 5)), 1),
            size=SIZES[int(rng.integers(len(SIZES)))],
            cast=tuple(round(c, 3) for c in cast),  # type: ignore[arg-type]
            hotspot=(round(float(rng.uniform(0.3, 0.7)), 3), round(float(rng.uniform(0.2, 0.6)), 3),
                     round(float(rng.uniform(0.25, 0.45)), 3),
                     round(float(rng.uniform(0.15, 0.35)), 3)),
            glare_start=(round(float(rng.uniform(0.3, 0.7)), 3),
                         round(float(rng.uniform(0.4, 0.7)), 3)),
            glare_speed=(round(float(rng.uniform(-0.04, 0.04)), 4),
                         round(float(rng.uniform(-0.03, 0.03)), 4)),
            glare_radius=round(float(rng.uniform(0.03, 0.07)), 3),
            glare_strength=round(float(rng.uniform(0.4, 0.9)), 3),
            exposure_steps=tuple(sorted(steps)),
            noise_sigma=round(float(rng.uniform(2.0, 6.0)), 2),
            blur_sigma=round(float(rng.uniform(0.3, 1.2)), 2),
            bitrate_kbps=int(rng.integers(300, 601)),
        )._with_people(np.random.default_rng(seed + 8), duration_s)

    def _with_people(self, rng: np.random.Generator, duration_s: float) -> WebcamLook:
        """Version 2's conditions, from a generator of their own (version 1's draws stay)."""
        skins, sleeves = [], []
        for _ in range(SEATS):
            tone = np.float32(SKIN_TONES[int(rng.integers(len(SKIN_TONES)))])
            skins.append(tuple(int(v) for v in np.clip(tone * rng.uniform(0.9, 1.1, 3), 0, 255)))
            grey = rng.random() < 0.25
            sleeve = np.full(3, rng.integers(15, 240)) if grey else rng.integers(10, 246, 3)
            sleeves.append(tuple(int(v) for v in sleeve))
        cross_t = float(rng.uniform(min(3.0, duration_s / 2), max(3.0, duration_s - 3)))
        speed = rng.uniform(*GLARE_CROSS_SPEED)
        heading = rng.uniform(0, 2 * math.pi)
        vx, vy = speed * math.cos(heading), speed * math.sin(heading) * self.size[1] / self.size[0]
        px, py = self.pile_in_picture()
        # Unfolded, the bouncing path passes the pile at cross_t (`glare_at`).
        start = (px - vx * cross_t, py - vy * cross_t)
        return replace(
            self, shutter_s=round(float(rng.uniform(0.008, 0.033)), 4),
            glare_cross_t=round(cross_t, 2), glare_start=(round(start[0], 4), round(start[1], 4)),
            glare_speed=(round(vx, 4), round(vy, 4)),
            glare_strength=round(float(rng.uniform(0.6, 1.3)), 3),
            skins=tuple(skins), sleeves=tuple(sleeves))

    def pile_in_picture(self) -> tuple[float, float]:
        """Where the layout's pile centre lies in this camera's picture (fractions)."""
        sh, sw = 720, 1280  # any size of the layout's aspect: fractions do not depend on it
        cx, cy = TableLayout().pile_centre
        seen = cv2.perspectiveTransform(np.float32([[[cx * sw, cy * sh]]]),
                                        self.homography((sh, sw)))[0, 0]
        return float(seen[0] / self.size[1]), float(seen[1] / self.size[0])

    # -- geometry ---------------------------------------------------------------------------

    def homography(self, source_size: tuple[int, int]) -> np.ndarray:
        """The 3x3 map from the top-down frame's pixels to this camera's pixels: a pinhole
        camera tilted by `tilt_deg` about the horizontal axis (the far, top edge shrinks and
        comes down) and rolled by `roll_deg`, scaled to fill the output width."""
        sh, sw = source_size
        h, w = self.size
        tilt = math.radians(self.tilt_deg)
        # How much narrower the far edge looks than the near one, and how much of the height
        # the table's depth takes: a camera at ~1.2 table depths above the table's near edge.
        far = 1.0 / (1.0 + 0.9 * math.sin(tilt))
        depth = math.cos(tilt) * 0.55 + 0.45
        top_y = h * (1 - depth)
        corners = np.float32([[0, 0], [sw, 0], [sw, sh], [0, sh]])
        inset = w * (1 - far) / 2
        seen = np.float32([[inset, top_y], [w - inset, top_y], [w, h], [0, h]])
        warp = cv2.getPerspectiveTransform(corners, seen)
        roll = cv2.getRotationMatrix2D((w / 2, h / 2), self.roll_deg, 1.0)
        roll = np.vstack([roll, [0, 0, 1]])
        return (roll @ warp).astype(np.float64)

    def camera_profile(self, layout: TableLayout, players: int,
                       source_size: tuple[int, int]) -> CameraProfile:
        """The profile a calibration of this table would give, in this camera's picture:
        the pile and draw regions are the boxes around their table squares as seen, the card
        height is the pile's card as seen, the seat directions are the seats' table directions
        as seen from the pile (DESIGN.md's convention: seat 0 from the bottom edge)."""
        sh, sw = source_size
        h, w = self.size
        warp = self.homography(source_size)
        card_px = layout.card_height * sh

        def seen(points: np.ndarray) -> np.ndarray:
            return cv2.perspectiveTransform(np.float32(points).reshape(-1, 1, 2), warp)[:, 0]

        def region(centre: tuple[float, float], cards: float) -> Region:
            cx, cy = centre[0] * sw, centre[1] * sh
            half = cards * card_px / 2
            box = seen([[cx - half, cy - half], [cx + half, cy - half],
                        [cx + half, cy + half], [cx - half, cy + half]])
            (x0, y0), (x1, y1) = box.min(axis=0), box.max(axis=0)
            x0, x1 = round(max(0.0, float(x0) / w), 4), round(min(1.0, float(x1) / w), 4)
            y0, y1 = round(max(0.0, float(y0) / h), 4), round(min(1.0, float(y1) / h), 4)
            return Region(x=x0, y=y0, w=round(x1 - x0, 4), h=round(y1 - y0, 4))

        pile = region(layout.pile_centre, PILE_REGION_CARDS)
        draws = tuple(region(c, DRAW_REGION_CARDS) for c in layout.draw_centres)
        px, py = layout.pile_centre[0] * sw, layout.pile_centre[1] * sh
        centre = seen([[px, py]])[0]
        angles = []
        for seat in range(players):
            angle = math.radians(90.0 + 360.0 * seat / players)
            far = seen([[px + math.cos(angle) * card_px * 3, py + math.sin(angle) * card_px * 3]])
            dx, dy = far[0] - centre
            angles.append(round(math.degrees(math.atan2(dy, dx)) % 360, 3))
        top, bottom = seen([[px, py - card_px / 2], [px, py + card_px / 2]])
        return CameraProfile(pile=pile, draw_piles=draws, seat_angles_deg=tuple(angles),
                             card_height=round(float(np.linalg.norm(bottom - top)) / h, 4),
                             image_size=self.size)

    def table_plane_profile(self, layout: TableLayout, players: int,
                            source_size: tuple[int, int]) -> CameraProfile:
        """The profile a calibration of the table plane would give: the overhead layout's
        regions, card height and seat directions, in the plane the rendered table was drawn
        in, and the map from this camera's picture to it."""
        sh, sw = source_size
        h, w = self.size
        to_plane = np.diag([1 / sw, 1 / sh, 1.0]) @ np.linalg.inv(self.homography(source_size)) \
            @ np.diag([w, h, 1.0])
        to_plane = to_plane / to_plane[2, 2]
        plane = TablePlane(homography=tuple(tuple(round(float(v), 9) for v in row)
                                            for row in to_plane), size=source_size)
        overhead = layout.camera_profile(players, size=source_size)
        return overhead.model_copy(update={"table_plane": plane, "image_size": self.size})

    # -- the picture ------------------------------------------------------------------------

    def see(self, image: np.ndarray, t: float, index: int, warp: np.ndarray) -> np.ndarray:
        """The top-down frame `image` at time `t` as this webcam delivers it."""
        h, w = self.size
        out = cv2.warpPerspective(image, warp, (w, h), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REFLECT)
        light = self._light(t).astype(np.float32)
        out = out.astype(np.float32) * light[..., None] * np.float32(self.cast)
        if self.blur_sigma > 0:
            out = cv2.GaussianBlur(out, (0, 0), self.blur_sigma)
        noise = np.random.default_rng(index).normal(0, self.noise_sigma, out.shape)
        return np.clip(out + noise, 0, 255).astype(np.uint8)

    @cached_property
    def _still_light(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(x, y, the lamp's gain) per pixel: the same in every frame, so made once."""
        h, w = self.size
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        hx, hy, hr, hs = self.hotspot
        d2 = ((xs - hx * w) ** 2 + (ys - hy * h) ** 2) / (hr * w) ** 2
        return xs, ys, 1.0 + hs * np.exp(-d2) - hs * 0.3

    def _light(self, t: float) -> np.ndarray:
        h, w = self.size
        xs, ys, gain = self._still_light
        gx, gy = self.glare_at(t)
        g2 = ((xs - gx * w) ** 2 + (ys - gy * h) ** 2) / (self.glare_radius * w) ** 2
        gain = gain + self.glare_strength * np.exp(-g2 * 2.0)
        exposure = 1.0
        for at, step in self.exposure_steps:
            if t >= at:
                exposure = step
        return gain * exposure

    def glare_at(self, t: float) -> tuple[float, float]:
        """Where the glare spot is at `t` (fractions of the frame), bouncing off the edges."""
        def bounce(start: float, speed: float) -> float:
            x = (start + speed * t) % 2.0
            return 2.0 - x if x > 1.0 else x
        return bounce(self.glare_start[0], self.glare_speed[0]), \
            bounce(self.glare_start[1], self.glare_speed[1])


def write_camera_sidecar(video: str | Path, look: WebcamLook, camera: CameraProfile,
                         seen: CameraProfile | None = None, hands: dict | None = None) -> Path:
    """`<video>.camera.json`: the look the video was made with, its camera profile (in the
    table plane), (`seen`) the same geometry as rectangles of the tilted picture, and
    (`hands`) how many of each fast-hand condition its scenario has."""
    path = Path(video).with_suffix(".camera.json")
    data = {"family": "webcam", "version": VERSION, "look": asdict(look),
            **({"hands": hands} if hands is not None else {}),
            "camera": camera.model_dump(mode="json", exclude_none=True)}
    if seen is not None:
        data["camera_in_picture"] = seen.model_dump(mode="json", exclude_none=True)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return path


def read_camera_sidecar(video: str | Path, key: str = "camera") -> CameraProfile | None:
    """The camera profile written beside `video` by `write_camera_sidecar` (`key`:
    "camera_in_picture" for the picture's rectangles), or None."""
    path = Path(video).with_suffix(".camera.json")
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return CameraProfile.model_validate(data[key]) if key in data else None
