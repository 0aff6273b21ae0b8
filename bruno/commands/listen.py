"""`bruno listen AUDIO_OR_VIDEO | --mic [--profile P] [--json]`: the knocks the detector hears."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from bruno.errors import INCOMPLETE_EXIT_CODE, UserError
from referee.eventlog import dumps

if TYPE_CHECKING:  # the audio stack (numpy, PyAV, pydantic) loads only when listening
    from audio.blocks import AudioBlock
    from audio.detector import HeardKnock, KnockDetector
    from calibration.profile import MicProfile

#: Files longer than this (s) get a progress bar on an interactive terminal.
PROGRESS_MIN_S = 30.0


def listen(
    source: Annotated[Path | None, typer.Argument(
        help="A sound file (WAV, FLAC, OGG) or a video with a sound track (MP4, MKV, MOV, WebM).",
        show_default=False)] = None,
    mic: Annotated[bool, typer.Option("--mic", help="Listen to the microphone live.")] = False,
    device: Annotated[str | None, typer.Option(
        "--device", help="Microphone name or number (with --mic); default: the profile's, "
        "else the system's.")] = None,
    profile: Annotated[Path | None, typer.Option(
        "--profile", help="Room profile with a calibrated \\[mic] section.")] = None,
    json_out: Annotated[bool, typer.Option(
        "--json", help='One event per line: {"t", "kind": "knock", "strength", "confidence"}.')
    ] = False,
) -> None:
    """List the knocks heard: onset time (s), strength (dB above the noise floor), confidence.

    Without --profile the detector uses its defaults (see audio/README.md).
    """
    from audio.blocks import AudioSourceError
    from audio.calibration import knock_model_for, room_calibration_for
    from audio.detector import KnockDetector

    if mic == (source is not None):
        raise UserError("give either a sound/video file or --mic (not both, not neither)")
    from calibration.profile import ProfileError

    mic_section = _mic_section(profile)
    try:
        room = room_calibration_for(mic_section)
    except ProfileError as error:
        raise UserError(f"{profile}: {error}") from None
    detector = KnockDetector(model=knock_model_for(mic_section), room=room)
    if device is None and mic_section is not None:
        device = mic_section.device  # the microphone the room was calibrated with
    try:
        if mic:
            _listen_live(detector, device, json_out)
        else:
            _listen_file(detector, source, json_out)
    except AudioSourceError as error:
        raise UserError(str(error)) from None


def _mic_section(profile: Path | None) -> MicProfile | None:
    from calibration.profile import ProfileError, load_profile

    if profile is None:
        return None
    try:
        mic_section = load_profile(profile).mic
    except ProfileError as error:
        raise UserError(str(error)) from None
    if mic_section is None:
        raise UserError(f"{profile}: has no [mic] section; run `bruno calibrate mic` first")
    return mic_section


def _print_knock(knock: HeardKnock, json_out: bool) -> None:
    if json_out:
        print(dumps(knock.event().to_dict()), flush=True)
    else:
        print(f"{knock.t_s:9.3f} s  knock  {knock.strength_db:5.1f} dB above floor  "
              f"confidence {knock.confidence:.2f}", flush=True)


def _listen_file(detector: KnockDetector, path: Path, json_out: bool) -> None:
    from audio.blocks import RECORDING_BLOCK_SAMPLES
    from audio.detector import DETECTOR_RATE_HZ
    from audio.sources import cut_short, open_recording

    opened = open_recording(path, DETECTOR_RATE_HZ, RECORDING_BLOCK_SAMPLES)
    heard_to = [0.0]  # where the sound ended: a file cut short ends before its stated length

    def blocks_heard():
        for block in opened.blocks:
            heard_to[0] = max(heard_to[0], block.t_s + block.duration_s)
            yield block

    show_progress = (opened.duration_s or 0) >= PROGRESS_MIN_S and sys.stderr.isatty()
    count = 0
    for knock in _knocks(detector, _with_progress(blocks_heard(), opened.duration_s,
                                                  show_progress)):
        _print_knock(knock, json_out)
        count += 1
    short = cut_short(path, heard_to[0], opened.duration_s)
    if not json_out:
        seconds = heard_to[0] if short else opened.duration_s
        length = f" in {seconds:.1f} s" if seconds is not None else ""
        print(f"{count} knock{'s' * (count != 1)} heard{length} of {opened.description}")
    if short:
        print(f"bruno: warning: {short}; nothing after that was heard", file=sys.stderr)
        raise typer.Exit(code=INCOMPLETE_EXIT_CODE)


def _listen_live(detector: KnockDetector, device: str | None, json_out: bool) -> None:
    from audio.detector import DETECTOR_RATE_HZ
    from audio.sources import open_microphone

    blocks = open_microphone(DETECTOR_RATE_HZ, device=device)
    if not json_out:
        print("Listening to the microphone; press Ctrl-C to stop.", file=sys.stderr)
    try:
        for knock in _knocks(detector, blocks):
            _print_knock(knock, json_out)
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)


def _knocks(detector: KnockDetector, blocks) -> Iterator[HeardKnock]:
    for block in blocks:
        yield from detector.process(block)
    yield from detector.finish()


def _with_progress(
    blocks: Iterator[AudioBlock], duration_s: float | None, show: bool
) -> Iterator[AudioBlock]:
    if not show:
        yield from blocks
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("listening", total=duration_s)
        for block in blocks:
            yield block
            progress.update(task, completed=max(0.0, block.t_s + block.duration_s))
