"""`bruno calibrate camera`: find the piles and set the seats, from a picture, a video or live."""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import Annotated

import cv2
import typer

from bruno.errors import UserError
from calibration.camera import (
    DEFAULT_SEAT0_ANGLE_DEG,
    checked_seat_angles,
    save_camera_section,
)
from calibration.profile import ProfileError
from vision.camera_calibration import (
    CameraCalibrationError,
    draw_proposal,
    footage_frames,
    propose_camera_in_plane,
    table_plane_from_corners,
)
from vision.frames import (
    IMAGE_SUFFIXES,
    FrameSourceError,
    read_camera,
    video_duration_s,
)
from vision.plane_from_backs import LEANING_NOTE, as_watched, propose_camera_for_footage

VIDEO_FRAME_AT_S = 3.0
"""From a video, the frame this many seconds in is used: past the deal, a card on the pile."""

LIVE_WARMUP_S = 1.0
"""A live camera is given this long to settle its exposure before the picture is taken."""


def camera(
    source: Annotated[Path | None, typer.Option(
        "--from", help="A photo or video of the table instead of the live camera.",
        show_default=False)] = None,
    players: Annotated[int, typer.Option("--players", min=2, max=10,
                                         help="Number of players (seats).")] = 4,
    seat0_angle: Annotated[float, typer.Option(
        "--seat0-angle", help="Direction of seat 0 from the pile, degrees in the image "
        "(0 right, 90 down); the others follow clockwise, evenly.")] = DEFAULT_SEAT0_ANGLE_DEG,
    seat_angles: Annotated[str | None, typer.Option(
        "--seat-angles", help="Each seat's direction instead, e.g. 90,200,270,340.",
        show_default=False)] = None,
    out: Annotated[Path, typer.Option("--out", "--profile",
                                      help="Profile to write; its other sections are kept.")
                   ] = Path("room_profile.toml"),
    picture: Annotated[Path | None, typer.Option(
        "--picture", help="Where to save the picture of what was set (default: next to the "
        "profile, .camera.png).", show_default=False)] = None,
    at: Annotated[float, typer.Option("--at", help="Seconds into a video to take the frame.")
                  ] = VIDEO_FRAME_AT_S,
    device: Annotated[str, typer.Option("--camera", help="Camera index or device path.")] = "0",
    json_out: Annotated[bool, typer.Option("--json", help="Print the \\[camera] section as JSON.")
                        ] = False,
    table_corners: Annotated[str | None, typer.Option(
        "--table-corners", help="For a camera that leans: the picture's pixels of the four "
        "corners of a rectangle lying on the table, far-left first, then clockwise, e.g. "
        "412,300,868,302,930,520,350,516 (a sheet of A4 by default, see --rectangle). The "
        "table is then watched as if seen from straight above.", show_default=False)] = None,
    rectangle: Annotated[str, typer.Option(
        "--rectangle", help="The sides of that rectangle, across the picture then away from "
        "the camera, any unit.")] = "297,210",
) -> None:
    """Propose the discard-pile and draw-pile regions and the seat directions; save them."""
    angles = _parse_angles(seat_angles, players)
    if angles is None and not -720 <= seat0_angle <= 720:  # (NaN too)
        raise UserError(f"--seat0-angle {seat0_angle:g}: give degrees, -720..720 (0 right, "
                        "90 down)")
    picture = picture or out.with_suffix(PICTURE_SUFFIX)
    _check_picture(picture, source)
    if source is not None:
        _check_at(source, at)
    try:
        # From a video, several frames a second apart (an arm may cover a draw pile in one).
        images = footage_frames(str(source), at) if source else [_live(device)]
        image = images[0]
        if table_corners is None:
            # In the table plane when the card backs show that the camera leans.
            proposal, warnings = propose_camera_for_footage(images, players, seat0_angle,
                                                            angles)
            image = as_watched(image, proposal)
        else:
            plane = table_plane_from_corners(_numbers(table_corners, 8, "--table-corners"),
                                             image.shape[:2],
                                             _numbers(rectangle, 2, "--rectangle"))
            proposal, warnings = propose_camera_in_plane(images, plane, players, seat0_angle,
                                                         angles)
            # The regions are the plane's: show them on the picture as the plane sees it.
            image = as_watched(image, proposal)
        # The picture first: a profile is not changed by a run that fails.
        _write_picture(picture, draw_proposal(image, proposal))
        save_camera_section(out, proposal)
    except (FrameSourceError, CameraCalibrationError, ProfileError) as error:
        raise UserError(str(error)) from None
    if json_out:
        print(json.dumps(proposal.model_dump(mode="json", exclude_none=True)))
    else:
        print(f"pile        {_region(proposal.pile)}")
        for i, region in enumerate(proposal.draw_piles):
            print(f"draw pile {i + 1} {_region(region)}")
        print("seats       " + ", ".join(f"{s}: {a:g}°"
                                         for s, a in enumerate(proposal.seat_angles_deg)))
        print(f"card height {proposal.card_height:.3f} of the frame")
        if proposal.table_plane is not None and table_corners is None:
            print(LEANING_NOTE[0].upper() + LEANING_NOTE[1:])
        print(f"wrote [camera] to {out}; check {picture}")
    for warning in warnings:
        print(f"bruno: warning: {warning}", file=sys.stderr)


PICTURE_SUFFIX = ".camera.png"
"""The calibration picture's own names: a file so named is an earlier run's and is replaced;
no other existing file ever is."""


def _check_picture(picture: Path, source: Path | None) -> None:
    """One line when `--picture` would write over a file that is not a calibration picture
    (the photo calibrated from, or anything else)."""
    if picture.is_dir():
        raise UserError(f"--picture {picture}: is a folder; give a file name ending in "
                        f"{PICTURE_SUFFIX}")
    if picture.suffix.lower() not in (".png", ".jpg", ".jpeg"):
        raise UserError(f"--picture {picture}: give a .png or .jpg name, e.g. "
                        f"{picture.with_suffix(PICTURE_SUFFIX).name}")
    mine = picture.name.endswith(PICTURE_SUFFIX) and not (
        source is not None and picture.resolve() == source.resolve())
    if picture.exists() and not mine:
        raise UserError(f"--picture {picture}: a file that is not a calibration picture is "
                        f"there; give a new name (e.g. {picture.stem}{PICTURE_SUFFIX})")


def _write_picture(picture: Path, drawn) -> None:
    try:
        written = cv2.imwrite(str(picture), drawn)
    except cv2.error:
        written = False
    if not written:
        raise UserError(f"{picture}: cannot write the picture; check the folder exists and "
                        "can be written to")


def _check_angles(angles: tuple[float, ...], option: str) -> None:
    try:
        checked_seat_angles(angles)
    except ValueError as error:
        raise UserError(f"{option}: {error}; give one direction per seat in degrees "
                        "(0 right, 90 down)") from None


def _region(region) -> str:
    return f"x {region.x:.3f} y {region.y:.3f} w {region.w:.3f} h {region.h:.3f} (of the frame)"


def _numbers(text: str, count: int, option: str):
    """`count` comma-separated numbers (pairs of them as points when `count` is 8)."""
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        values = []
    if len(values) != count:
        raise UserError(f"{option} {text!r}: give {count} numbers separated by commas")
    if not all(math.isfinite(v) for v in values):
        raise UserError(f"{option} {text!r}: give plain numbers (not nan or inf)")
    if count == 8:
        return [(values[i], values[i + 1]) for i in range(0, 8, 2)]
    if min(values) <= 0:
        raise UserError(f"{option} {text!r}: the sides must be more than 0")
    return tuple(values)


def _parse_angles(text: str | None, players: int) -> tuple[float, ...] | None:
    if text is None:
        return None
    try:
        angles = tuple(float(a) for a in text.split(","))
    except ValueError:
        raise UserError(f"--seat-angles {text!r}: give numbers separated by commas, "
                        "e.g. 90,180,270,0") from None
    if len(angles) != players:
        raise UserError(f"--seat-angles gives {len(angles)} directions for {players} players; "
                        "give one per seat, in seat order")
    _check_angles(angles, f"--seat-angles {text}")
    return angles


def _check_at(source: Path, at: float) -> None:
    """`--at` inside the video (a photo has no time): one line when it is not."""
    if str(source).lower().endswith(IMAGE_SUFFIXES) or not source.is_file():
        return
    try:
        duration = video_duration_s(source)
    except FrameSourceError as error:
        raise UserError(str(error)) from None
    if not at >= 0:  # (NaN too)
        raise UserError(f"--at {at:g}: give a moment in seconds from the start of {source}"
                        + (f" (0 to {duration:.1f})" if duration is not None else ""))
    if duration is not None and at >= duration:
        raise UserError(f"--at {at:g}: {source} is only {duration:.1f} s long; give --at a "
                        f"moment inside it (0 to {duration:.1f})")


def _live(device: str):
    source = int(device) if device.isdigit() else device
    started = time.monotonic()
    image = None
    try:
        for frame in read_camera(source):
            image = frame.full()
            if time.monotonic() - started >= LIVE_WARMUP_S:
                break
    except FrameSourceError as error:
        raise FrameSourceError(f"{error}, or calibrate from a photo or video of the table "
                               "with --from RECORDING") from None
    return image
