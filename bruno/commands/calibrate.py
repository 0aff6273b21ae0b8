"""`bruno calibrate mic [--from RECORDING]`: measure the room and this table's knocks."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from audio.blocks import AudioSourceError
from audio.calibration import (
    KNOCKING_S,
    KNOCKS,
    QUIET_S,
    SAFE_MARGIN_DB,
    CalibrationError,
    MicMeasurement,
    measure_mic,
)
from audio.detector import DETECTOR_RATE_HZ
from audio.mic_source import NO_PORTAUDIO, NoPortAudio
from bruno.errors import UserError
from calibration.profile import ProfileError, save_mic_section

#: Where the profile goes unless --profile says otherwise.
DEFAULT_PROFILE = Path("room_profile.toml")

calibrate_app = typer.Typer(
    help="Measure the room and write its profile (TOML).", no_args_is_help=True
)


@calibrate_app.command("mic")
def mic(
    recording: Annotated[Path | None, typer.Option(
        "--from", help=f"A recording of the protocol ({QUIET_S:g} s quiet, then {KNOCKS} knocks) "
        "instead of the live microphone.", show_default=False)] = None,
    profile: Annotated[Path, typer.Option(
        "--profile", help="Profile to write; its other sections are kept.")] = DEFAULT_PROFILE,
    device: Annotated[str | None, typer.Option(
        "--device", help="Microphone name or number; default: the system's.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the \\[mic] section as JSON.")
    ] = False,
) -> None:
    """Measure the noise floor, then the loudness and spectrum of knocks on this table."""
    try:
        blocks = _recorded(recording) if recording else _live(device, json_out)
        measurement = measure_mic(blocks, device=device if recording is None else None)
        save_mic_section(profile, measurement.profile)
    except NoPortAudio:
        raise UserError(f"{NO_PORTAUDIO}, or measure a recording of the protocol with "
                        "--from RECORDING") from None
    except (AudioSourceError, CalibrationError, ProfileError) as error:
        raise UserError(str(error)) from None
    _report(measurement, profile, json_out)


PROTOCOL_MOST_S = 600.0
"""A calibration recording is read this far at most: quiet, then 5 knocks, fits in a minute."""


def _recorded(path: Path):
    from audio.sources import cut_short, open_recording  # PyAV loads only when calibrating

    opened = open_recording(path, DETECTOR_RATE_HZ)
    blocks = []
    for block in opened.blocks:
        if block.t_s >= PROTOCOL_MOST_S:  # a long recording is not held in memory whole
            print(f"bruno: note: {path}: only its first {PROTOCOL_MOST_S / 60:g} minutes are "
                  "measured (the protocol takes well under one)", file=sys.stderr)
            return blocks
        blocks.append(block)
    heard = blocks[-1].t_s + blocks[-1].duration_s if blocks else 0.0
    short = cut_short(path, heard, opened.duration_s)
    if short:
        # A file cut short is measured only up to where its sound ends: say so, or the
        # protocol's reasons (too short, too few knocks) would blame the table.
        print(f"bruno: warning: {short}; measured up to there", file=sys.stderr)
    return blocks


def _live(device: str | None, quiet_output: bool):
    from audio.sources import open_microphone

    say = (lambda text: None) if quiet_output else (lambda text: print(text, file=sys.stderr))
    started = time.monotonic()
    stream = open_microphone(DETECTOR_RATE_HZ, device=device, session_start_s=started)
    say(f"Stay quiet for {QUIET_S:g} seconds...")
    blocks = []
    prompted = False
    for block in stream:
        blocks.append(block)
        heard_s = block.t_s + block.duration_s - blocks[0].t_s
        if not prompted and heard_s >= QUIET_S:
            say(f"Now knock {KNOCKS} times on the table, about a second apart.")
            prompted = True
        if heard_s >= QUIET_S + KNOCKING_S:
            break
    return blocks


def _how_clear(separation: float) -> str:
    """The classifier's separation in words (a logit of 2 is odds of about 7 to 1)."""
    if separation >= 2.0:
        return "clearly apart"
    if separation >= 0.0:
        return "apart, narrowly"
    return "not apart: a sound in the room sounds more like a knock than a knock does"


def _report(measurement: MicMeasurement, profile: Path, json_out: bool) -> None:
    mic = measurement.profile
    if json_out:
        print(json.dumps(mic.model_dump(mode="json")))
    else:
        print(f"noise floor      {mic.noise_floor_db:7.1f} dB")
        print(f"knock level      {mic.knock_strength_db:7.1f} dB above the floor "
              f"(median of {mic.knocks_heard})")
        print(f"margin           {measurement.margin_db:7.1f} dB (weakest knock over the floor)")
        print(f"knock spectrum   centroid {mic.knock_centroid_hz:.0f} Hz, "
              f"flatness {mic.knock_flatness:.4f}")
        print(f"knock click      falls {mic.knock_high_drop_db:.1f} dB above 2 kHz by the "
              "decision (less in a room that echoes)")
        print(f"threshold        {mic.threshold_db:7.1f} dB above the floor")
        separation = measurement.separation
        if separation is not None:
            print(f"knocks apart     {separation:7.1f} logits: to the knock classifier, the "
                  "weakest knock over the room's most knock-like other sound "
                  f"({_how_clear(separation)})")
        elif mic.classifier is not None:
            print("knocks apart         -    : no other sound was heard to compare them with")
        print(f"wrote [mic] to {profile}")
    if mic.knocks_heard < KNOCKS:
        print(f"bruno: warning: heard only {mic.knocks_heard} of {KNOCKS} knocks; "
              "knock harder or move the microphone closer, then calibrate again", file=sys.stderr)
    if measurement.knock_like < mic.knocks_heard:
        print(f"bruno: warning: only {measurement.knock_like} of the {mic.knocks_heard} loudest "
              "sounds after the quiet part sound like knocks, even to this profile; "
              "check the recording",
              file=sys.stderr)
    heard_as_knocks = measurement.classifier_knocks
    if heard_as_knocks is not None and heard_as_knocks < mic.knocks_heard:
        # A profile made of claps or snaps hears claps and snaps as knocks all evening.
        print(f"bruno: warning: only {heard_as_knocks} of the {mic.knocks_heard} sounds taken "
              "for knocks sound like knocks to the knock classifier; if they were claps, snaps "
              "or taps on something else, calibrate again knocking on the table (this profile "
              "hears sounds like them as knocks)", file=sys.stderr)
    if not measurement.margin_is_safe:
        print(f"bruno: warning: the margin is {measurement.margin_db:.1f} dB, under the "
              f"{SAFE_MARGIN_DB:g} dB that is safe; move the microphone nearer the table or "
              "make the room quieter", file=sys.stderr)
