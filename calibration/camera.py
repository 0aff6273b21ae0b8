"""The camera section of the room profile: where the piles are and where the seats sit.

    [camera]
    pile = { x = 0.39, y = 0.35, w = 0.22, h = 0.39 }     # fractions of the frame
    draw_piles = [ { x = ..., ... }, { x = ..., ... } ]
    seat_angles_deg = [90.0, 180.0, 270.0, 0.0]            # around the pile, clockwise
    card_height = 0.18                                     # a card's long side / frame height
    [camera.colours]
    table_bgr = [...]

Regions are fractions of the frame (x right, y down), so a profile works at any resolution of
the same camera view. Seat angles are degrees in image coordinates (0 = right, 90 = down) from
the centre of the pile, in seat order (clockwise as seen from above). The section lives in the
same versioned TOML file as `[mic]` (`calibration.profile`); this module validates its fields,
names a bad one in a one-line `ProfileError`, and writes it keeping the other sections.
"""

from __future__ import annotations

import math
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from calibration.profile import (
    ProfileError,
    RoomProfile,
    describe_validation_error,
    load_profile,
    write_profile,
)

DEFAULT_SEAT0_ANGLE_DEG = 90.0
"""docs/DESIGN.md: without a profile, seat 0 sits towards the bottom edge of the image."""

DEFAULT_CARD_HEIGHT = 0.18
"""A card's long side as a fraction of the frame height when nothing better is known: a
camera about 60 cm above the table (the footage renderer uses the same)."""


class Region(BaseModel):
    """An axis-aligned rectangle in fractions of the frame: left `x`, top `y`, width, height."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    x: float = Field(..., ge=0, le=1)
    y: float = Field(..., ge=0, le=1)
    w: float = Field(..., gt=0, le=1)
    h: float = Field(..., gt=0, le=1)

    @model_validator(mode="after")
    def _inside_frame(self) -> Region:
        if self.x + self.w > 1.0001 or self.y + self.h > 1.0001:
            raise ValueError("the region reaches outside the frame (x + w and y + h must be <= 1)")
        return self

    def pixels(self, height: int, width: int) -> tuple[int, int, int, int]:
        """(x0, y0, x1, y1) in pixels of a `height` x `width` image, at least 1 px each way."""
        x0, y0 = int(self.x * width), int(self.y * height)
        x1 = max(x0 + 1, min(width, round((self.x + self.w) * width)))
        y1 = max(y0 + 1, min(height, round((self.y + self.h) * height)))
        return x0, y0, x1, y1

    def box(self) -> tuple[float, float, float, float]:
        """(x0, y0, x1, y1) in fractions of the frame."""
        return self.x, self.y, self.x + self.w, self.y + self.h

    def centre(self) -> tuple[float, float]:
        """Centre in fractions of the frame."""
        return self.x + self.w / 2, self.y + self.h / 2

    @classmethod
    def around(cls, cx: float, cy: float, w: float, h: float) -> Region:
        """A region of size (w, h) centred at (cx, cy), clipped to the frame (fractions)."""
        x0, y0 = max(0.0, cx - w / 2), max(0.0, cy - h / 2)
        x1, y1 = min(1.0, cx + w / 2), min(1.0, cy + h / 2)
        return cls(x=round(x0, 4), y=round(y0, 4), w=round(x1 - x0, 4), h=round(y1 - y0, 4))


class ColourReferences(BaseModel):
    """Colours as this camera sees them in this light (BGR, 0-255), for checks and white
    balance: the bare table next to the pile and the red of the card backs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    table_bgr: tuple[int, int, int] | None = None
    back_red_bgr: tuple[int, int, int] | None = None

    @field_validator("table_bgr", "back_red_bgr")
    @classmethod
    def _byte_range(cls, value):
        if value is not None and not all(0 <= v <= 255 for v in value):
            raise ValueError("colour components must be 0..255")
        return value


class TablePlane(BaseModel):
    """The table as a camera straight above it would see it, for a camera that leans: the
    watchers look at every frame warped into this plane, so the pile, the draw piles, the
    card size and the seat directions are table geometry, not rectangles of a tilted picture.

    `homography` maps a point of the camera's picture, in fractions of its width and height,
    to the plane, in fractions of the plane's; `size` is the plane picture's (h, w) in pixels.
    The plane keeps the picture's sense (its bottom edge is the camera's near edge), so the
    seat convention of docs/DESIGN.md holds in both."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    homography: tuple[tuple[float, float, float], tuple[float, float, float],
                      tuple[float, float, float]]
    size: tuple[int, int] = Field(..., description="(h, w) of the plane picture in pixels")

    @field_validator("size")
    @classmethod
    def _positive(cls, size: tuple[int, int]) -> tuple[int, int]:
        if min(size) < 16:
            raise ValueError("the plane picture must be at least 16 px each way")
        return size

    @field_validator("homography")
    @classmethod
    def _invertible(cls, rows: tuple) -> tuple:
        # A plane the picture cannot be mapped into (zeros, NaN) would watch nothing.
        values = [v for row in rows for v in row]
        if not all(math.isfinite(v) for v in values):
            raise ValueError("the homography must hold plain numbers")
        (a, b, c), (d, e, f), (g, h, i) = rows
        determinant = a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
        if abs(determinant) < 1e-12:
            raise ValueError("the homography maps the picture onto a line or a point "
                             "(it cannot be inverted)")
        return rows


class CameraProfile(BaseModel):
    """Where to look: the discard pile, the two draw piles, the seats, the card size. With
    `table_plane`, all of them are given in that plane (see `TablePlane`), else in the
    camera's picture."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pile: Region
    draw_piles: tuple[Region, Region]
    seat_angles_deg: tuple[float, ...] = Field(..., min_length=2, max_length=10)
    card_height: float = Field(DEFAULT_CARD_HEIGHT, gt=0.02, le=0.8)
    colours: ColourReferences = Field(default_factory=ColourReferences)
    image_size: tuple[int, int] | None = Field(None, description="(h, w) of the calibration frame")
    table_plane: TablePlane | None = None

    @field_validator("image_size")
    @classmethod
    def _a_picture(cls, size: tuple[int, int] | None) -> tuple[int, int] | None:
        if size is not None and min(size) < 16:
            raise ValueError("the calibration frame must be at least 16 px each way")
        return size

    @field_validator("seat_angles_deg")
    @classmethod
    def _distinct_angles(cls, angles: tuple[float, ...]) -> tuple[float, ...]:
        return checked_seat_angles(angles)

    @property
    def players(self) -> int:
        return len(self.seat_angles_deg)


def checked_seat_angles(angles: tuple[float, ...]) -> tuple[float, ...]:
    """The seats' directions, degrees in the image: ValueError unless each is a number in
    -720..720 and no two seats share a direction."""
    if any(not -720 <= a <= 720 for a in angles):  # (NaN fails this too)
        raise ValueError("angles are degrees, -720..720")
    if len({round(a % 360, 3) for a in angles}) != len(angles):
        raise ValueError("two seats have the same direction")
    return tuple(float(a) for a in angles)


def default_seat_angles(players: int, seat0_angle_deg: float = DEFAULT_SEAT0_ANGLE_DEG
                        ) -> tuple[float, ...]:
    """docs/DESIGN.md's default: seats evenly around the pile, seat k at seat0 + 360·k/N degrees."""
    if not 2 <= players <= 10:
        raise ValueError(f"players must be 2 to 10, got {players}")
    return tuple(round((seat0_angle_deg + 360.0 * k / players) % 360, 3) for k in range(players))


def parse_camera_section(section: dict, source: str = "profile") -> CameraProfile:
    """A validated camera section; ProfileError names the bad field."""
    try:
        return CameraProfile.model_validate(section)
    except ValidationError as error:
        problem = describe_validation_error(error, "camera")
        raise ProfileError(f"{source}: {problem}; fix it or run "
                           "`bruno calibrate camera` again") from error


def load_camera_profile(path: str | Path) -> CameraProfile:
    """The camera section of the profile at `path`; ProfileError when absent or invalid."""
    profile = load_profile(path)
    if profile.camera is None:
        raise ProfileError(f"{path}: the profile has no [camera] section; run "
                           "`bruno calibrate camera` first")
    return parse_camera_section(profile.camera, str(path))


def save_camera_section(path: str | Path, camera: CameraProfile) -> RoomProfile:
    """Write `camera` into the profile at `path`, keeping its other sections (new file if none)."""
    path = Path(path)
    profile = load_profile(path) if path.exists() else RoomProfile()
    section = camera.model_dump(mode="json", exclude_none=True)
    updated = profile.model_copy(update={"camera": section})
    write_profile(path, updated)
    return updated
