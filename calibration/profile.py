"""The room profile: a versioned TOML file that calibration writes and the app reads.

    version = 1

    [mic]            # written by `bruno calibrate mic`
    noise_floor_db = -62.0
    knock_strength_db = 54.5
    ...

    [camera]         # written by `bruno calibrate camera` (another module owns its fields)

Loading validates every field and names the bad one. Saving one section keeps the others.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

import tomli_w
from pydantic import BaseModel, ConfigDict, Field, ValidationError

#: The profile format this code writes and reads.
PROFILE_VERSION = 1


class ProfileError(Exception):
    """A room profile cannot be read or is invalid. The message is one line for people."""


class KnockClassifierCalibration(BaseModel):
    """What this table's 5 knocks taught the learned knock classifier (`audio.knock_classifier
    .RoomCalibration`): onsets that sound like them (cosine similarity of the classifier's
    embedding to `prototype` at least `min_similarity`) count as knocks from the lower logit
    `near_threshold`; every other onset needs `threshold`, as without calibration."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prototype: list[float] = Field(..., min_length=1, description="unit embedding of the knocks")
    min_similarity: float = Field(..., ge=-1, le=1)
    threshold: float = Field(..., description="logit for any onset")
    near_threshold: float = Field(..., description="logit for an onset like this table's knocks")
    separation: float | None = Field(
        None, description="weakest knock's logit minus the strongest other onset's")
    # Written by the profiles of 4-5 December: a higher line for onsets unlike the five knocks.
    # It refused other players' real knocks, so it is read (those profiles stay valid) and
    # ignored; new profiles leave it out.
    far_similarity: float | None = Field(
        None, ge=-1, le=1, description="ignored (profiles of 4-5 December)")
    far_threshold: float | None = Field(None, description="ignored (profiles of 4-5 December)")


class MicProfile(BaseModel):
    """What `bruno calibrate mic` measured. Levels are dB re a full-scale sine, measured in
    the detector's 16 ms frames at its 16 kHz rate; strengths are dB above the noise floor."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    device: str | None = Field(None, description="microphone name; None: the system default")
    sample_rate_hz: int | None = Field(None, gt=0, description="rate the mic was opened at")
    noise_floor_db: float = Field(..., ge=-160, le=20, description="room noise floor")
    knock_strength_db: float = Field(..., ge=0, le=160, description="median knock peak")
    weakest_knock_strength_db: float = Field(..., ge=0, le=160, description="the margin")
    knock_centroid_hz: float = Field(..., gt=0, le=20_000)
    knock_flatness: float = Field(..., ge=0, le=1)
    knock_decay_db: float = Field(..., description="fall in the first 30 ms")
    knock_attack_ms: float = Field(..., ge=0)
    threshold_db: float = Field(
        ..., ge=0, le=160, description="a knock's least level over the calibrated floor")
    # Optional so that profiles written before they were measured stay valid (version 1).
    knock_high_drop_db: float | None = Field(
        None, description="fall of the band above 2 kHz from the strike to the decision")
    knock_high_drop_over_decay_db: float | None = Field(
        None, description="how much further that band fell than the whole knock")
    knocks_heard: int = Field(..., ge=1)
    classifier: KnockClassifierCalibration | None = Field(
        None, description="the learned classifier's calibration; None: measured without it")
    measured_at: str | None = Field(None, description="ISO 8601 time of the calibration")


class RoomProfile(BaseModel):
    """The whole profile: a `version` and one optional section per sensor."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: Literal[1] = PROFILE_VERSION
    mic: MicProfile | None = None
    # Owned by camera calibration (another issue); kept as-is so saving [mic] never loses it.
    camera: dict[str, Any] | None = None


def describe_validation_error(error: ValidationError, section: str | None = None) -> str:
    """The first problem as people read it: "field 'mic.threshold': ...", one line."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "(top level)"
    return f"field '{section + '.' if section else ''}{where}': {first['msg']}"


def parse_profile(text: str, source: str = "profile") -> RoomProfile:
    """A validated profile from TOML text; ProfileError names the bad field."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ProfileError(f"{source}: not valid TOML ({error})") from error
    version = data.get("version")
    if version is None:
        raise ProfileError(f"{source}: no 'version' field; is this a room profile?")
    if isinstance(version, bool) or version != PROFILE_VERSION:  # (true == 1 in Python)
        raise ProfileError(
            f"{source}: profile version {version!r} is not supported (this bruno reads "
            f"version {PROFILE_VERSION}); calibrate again"
        )
    try:
        return RoomProfile.model_validate(data)
    except ValidationError as error:
        problem = describe_validation_error(error)
        raise ProfileError(f"{source}: {problem}; fix it or calibrate again") from error


def load_profile(path: str | Path) -> RoomProfile:
    """Read and validate a profile file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as error:
        raise ProfileError(f"{path}: no such profile; check the path, or make one with `bruno "
                           "calibrate camera` and `bruno calibrate mic`") from error
    except (OSError, UnicodeDecodeError) as error:
        raise ProfileError(f"{path}: cannot read the profile ({error})") from error
    return parse_profile(text, str(path))


def dump_profile(profile: RoomProfile) -> str:
    """TOML text for a profile (None sections are left out)."""
    return tomli_w.dumps(profile.model_dump(mode="json", exclude_none=True))


def save_mic_section(path: str | Path, mic: MicProfile) -> RoomProfile:
    """Write `mic` into the profile at `path`, keeping its other sections (new file if none)."""
    path = Path(path)
    profile = load_profile(path) if path.exists() else RoomProfile()
    updated = profile.model_copy(update={"mic": mic})
    write_profile(path, updated)
    return updated


def write_profile(path: Path, profile: RoomProfile) -> None:
    """Write the whole profile to `path`; ProfileError (one line) when it cannot be."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump_profile(profile), encoding="utf-8")
    except OSError as error:
        raise ProfileError(f"{path}: cannot write the profile ({error.strerror or error}); "
                           "give a file in a folder you can write to") from None
