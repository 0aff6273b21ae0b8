"""`bruno live`: referee a table now — camera and microphone (or recordings played at real
speed), spoken rulings, the dashboard, and a journal that `--resume` continues after a crash."""

from __future__ import annotations

import signal
import sys
import threading
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from bruno.commands.card_reader import card_reader
from bruno.errors import UserError
from referee.cards import parse_color, token_words

if TYPE_CHECKING:  # the camera, sound and model stacks load only when a table is refereed
    from bruno.live.journal import JournalContents
    from bruno.live.session import LiveSession, ResumeReport
    from calibration.camera import CameraProfile
    from calibration.profile import RoomProfile

DEFAULT_PROFILE = Path("room_profile.toml")
DEFAULT_PORT = 8765


def live(
    camera: Annotated[str | None, typer.Option(
        "--camera", metavar="N|FILE", help="Camera number or device path (default 0), or a "
        "recorded video played at real speed (a simulated camera).", show_default=False)] = None,
    mic: Annotated[str | None, typer.Option(
        "--mic", metavar="NAME|FILE", help="Microphone name or number (default: the profile's, "
        "else the system's), or a recording whose sound is played at real speed.",
        show_default=False)] = None,
    no_mic: Annotated[bool, typer.Option(
        "--no-mic", help="Referee without a microphone: the knock rules are off.")] = False,
    profile: Annotated[Path | None, typer.Option(
        "--profile", help=f"Room profile (default: a resumed journal's, else {DEFAULT_PROFILE} "
        "when it exists).",
        show_default=False)] = None,
    players: Annotated[int | None, typer.Option(
        "--players", min=2, max=10, help="Players, when no profile says (default 4).",
        show_default=False)] = None,
    dealer: Annotated[int, typer.Option("--dealer", min=0, help="The dealer's seat.")] = 0,
    variant: Annotated[str, typer.Option("--variant", help="The game played.")] = "bruno",
    setting: Annotated[list[str] | None, typer.Option(
        "--set", metavar="NAME=VALUE", help="A rule setting, e.g. --set seg_after_s=8.")] = None,
    lang: Annotated[str, typer.Option("--lang", help="Language spoken: en or sv.")] = "en",
    mute: Annotated[bool, typer.Option(
        "--mute", help="Print the rulings without speaking them.")] = False,
    journal: Annotated[Path | None, typer.Option(
        "--journal", help="Journal to write (default: bruno-live-DATE-TIME.jsonl here).",
        show_default=False)] = None,
    resume: Annotated[Path | None, typer.Option(
        "--resume", metavar="JOURNAL", help="Continue the game of a journal (after a crash).",
        show_default=False)] = None,
    host: Annotated[str, typer.Option(
        "--host", help="Address the dashboard listens on; on another than this machine's "
        "every request needs the token.")] = "127.0.0.1",
    token: Annotated[str | None, typer.Option(
        "--token", help="Token the dashboard asks of every request, 8 characters or more "
        "(default beyond this machine: one made for you and printed).",
        show_default=False)] = None,
    port: Annotated[int, typer.Option(
        "--port", min=0, max=65535, help="Dashboard port (0: any free one).")] = DEFAULT_PORT,
    cards_from: Annotated[Path | None, typer.Option(
        "--cards-from", help="Read cards from this ground-truth event log instead of the card "
        "model (synthetic footage).", show_default=False)] = None,
) -> None:
    """Referee a table now: camera and microphone in, rulings spoken and shown, a journal kept."""
    from bruno.dashboard.access import is_loopback, token_for
    from bruno.live.phrases import LANGUAGES

    # Every option is checked before anything is opened or written.
    if lang not in LANGUAGES:
        raise UserError(f"--lang {lang!r}: choose one of {', '.join(LANGUAGES)}")
    made = token is None and not is_loopback(host)
    token = token_for(host, token)
    if no_mic and mic is not None:
        raise UserError("give --mic or --no-mic, not both")
    if resume is not None and (players is not None or dealer or setting or variant != "bruno"
                               or journal is not None):
        raise UserError("--resume continues the journal's own game: leave out --players, "
                        "--dealer, --variant, --set and --journal")
    table = _prepare(camera, mic, no_mic, profile, players, dealer, variant, setting or [],
                     journal, resume, cards_from, (host, port, token))
    if made and table.dashboard is not None:
        table.notes.append(f"the dashboard on {host} reaches beyond this machine, so every "
                           f"request must carry its token, made for you: {token} (the "
                           "dashboard's address below has it; --token chooses one)")
    _run(table, lang, mute)


@dataclass
class _Table:
    """Everything checked and opened before any thread starts."""

    no_mic: bool
    stop: threading.Event = field(default_factory=threading.Event)
    notes: list[str] = field(default_factory=list)
    session: LiveSession | None = None
    report: ResumeReport | None = None
    frames: Any = None
    blocks: Any = None
    read_card: Any = None
    knock_model: Any = None
    knock_room: Any = None
    dashboard: Any = None
    """The dashboard's address, bound before the journal is written (None: not installed)."""


def _hears_knocks(setup) -> bool:
    """Whether the game refereed listens for knocks (its rules need them and are on)."""
    return setup.words.has_knocks and setup.rules().check_knocks


def _prepare(camera: str | None, mic: str | None, no_mic: bool, profile: Path | None,
             players: int | None, dealer: int, variant: str, setting: list[str],
             journal: Path | None, resume: Path | None, cards_from: Path | None,
             listen: tuple[str, int, str | None]) -> _Table:
    from audio.blocks import AudioSourceError
    from audio.calibration import knock_model_for, room_calibration_for
    from bruno.commands.replay import parse_settings
    from bruno.live import sources
    from bruno.live.clock import SessionClock
    from bruno.live.journal import JournalError, read_journal
    from calibration.profile import ProfileError
    from referee.eventlog import GameSetup
    from referee.events import EventError
    from vision.frames import FrameSourceError

    table = _Table(no_mic)
    contents: JournalContents | None = None
    if resume is not None:
        try:
            contents = read_journal(resume)
        except JournalError as error:
            raise UserError(str(error)) from None
    room, profile_path = _room_profile(profile, contents, table.notes)
    if contents is not None:
        setup = contents.setup
        if no_mic and _hears_knocks(setup):
            raise UserError(f"{resume}: the game was refereed with its knock rules on; resume it "
                            "with a microphone (rules cannot change mid-game)")
        table.no_mic = not _hears_knocks(setup) and mic is None
    else:
        settings = parse_settings(setting)
        if no_mic:
            settings["check_knocks"] = False
        try:
            setup = GameSetup(variant=variant, players=players or _profile_players(room) or 4,
                              dealer=dealer, settings=settings)
            setup.validate()
        except EventError as error:
            raise UserError(str(error)) from None
        # A game without knocks (uno, snabb, druk, flaske) listens for nothing: no microphone
        # is opened unless one is named (it refused to start without one).
        table.no_mic = no_mic or (not _hears_knocks(setup) and mic is None)
    camera_profile = _camera_profile(room, profile_path, setup.players, players, table.notes)
    start_at = contents.last_t if contents else 0.0
    clock = SessionClock(start_at)
    try:
        table.frames = sources.open_camera(sources.camera_spec(camera), clock, table.stop,
                                           start_at)
    except FrameSourceError as error:
        raise UserError(str(error)) from None
    if not table.no_mic:
        mic_section = room.mic if room else None
        spec = sources.mic_spec(mic if mic is not None else
                                (mic_section.device if mic_section else None))
        try:
            table.blocks = sources.open_mic(spec, clock, table.stop, start_at)
        except AudioSourceError as error:
            message = str(error)
            if "--no-mic" not in message:
                message += "; or referee without knocks: --no-mic"
            raise UserError(message) from None
        table.knock_model = knock_model_for(mic_section)
        try:
            table.knock_room = room_calibration_for(mic_section)
        except ProfileError as error:
            raise UserError(f"{profile_path}: {error}") from None
        if mic_section is None and not spec.is_recording:
            table.notes.append("No microphone calibration: the knock detector uses its defaults; "
                               "`bruno calibrate mic` measures this room's knocks.")
    table.read_card = card_reader(cards_from)
    table.dashboard = _bind_dashboard(*listen, table.notes)
    try:
        table.session, table.report = _open_session(setup, clock, camera_profile,
                                                    profile_path, journal, contents)
    except BaseException:
        if table.dashboard is not None:
            table.dashboard.close()
        raise
    return table


def _room_profile(profile: Path | None, contents: JournalContents | None,
                  notes: list[str]) -> tuple[RoomProfile | None, Path]:
    """The room profile and its path: `--profile`, else a resumed journal's, else the
    default's when it exists."""
    from calibration.profile import ProfileError, load_profile

    if profile is None and contents is not None and contents.profile is not None:
        if not contents.profile.exists():
            notes.append(f"{contents.path} was refereed with the room profile "
                         f"{contents.profile}, which is not there now; give another with "
                         "--profile")
            return None, contents.profile
        profile = contents.profile
    path = profile or DEFAULT_PROFILE
    if profile is None and not path.exists():
        return None, path
    try:
        return load_profile(path), path
    except ProfileError as error:
        raise UserError(str(error)) from None


def _profile_players(room: RoomProfile | None) -> int | None:
    camera = room.camera if room else None
    seats = camera.get("seat_angles_deg") if isinstance(camera, dict) else None
    return len(seats) if isinstance(seats, list | tuple) else None


def _camera_profile(room: RoomProfile | None, path: Path, players: int,
                    asked_players: int | None, notes: list[str]) -> CameraProfile:
    from calibration.camera import parse_camera_section
    from calibration.layout import default_camera_profile
    from calibration.profile import ProfileError

    if room is not None and room.camera is not None:
        try:
            camera = parse_camera_section(room.camera, str(path))
        except ProfileError as error:
            raise UserError(str(error)) from None
        if camera.players == players:
            return camera
        if asked_players is not None:
            raise UserError(f"--players {players} but {path} has {camera.players} seats; "
                            "calibrate the camera for this table")
        notes.append(f"{path} has {camera.players} seats but the game has {players}: the "
                     "default layout is used until the camera is calibrated again.")
        return default_camera_profile(players)
    where = f"{path} has no camera calibration" if room else "No room profile"
    notes.append(
        f"{where}: using the default layout for {players} players (the pile in the middle of "
        "the picture, seat 0 at its bottom edge, the others clockwise). To fit your table, run "
        f"`bruno calibrate camera --from PHOTO --players {players} --out {path}` and "
        f"`bruno calibrate mic --profile {path}`, or click the pile, the draw piles and the "
        "seats on the dashboard's calibration page.")
    return default_camera_profile(players)


def _open_session(setup, clock, camera_profile, profile_path: Path, journal: Path | None,
                  contents: JournalContents | None):
    from bruno.live.journal import JournalError
    from bruno.live.session import LiveSession

    options = {"clock": clock, "camera": camera_profile, "profile_path": profile_path}
    if contents is not None:
        try:
            return LiveSession.resume(contents, **options)
        except (JournalError, OSError) as error:
            raise UserError(str(error)) from None
    path = journal or Path(f"bruno-live-{datetime.now():%Y%m%d-%H%M%S}.jsonl")
    try:
        return LiveSession(setup, path, **options), None
    except ValueError as error:
        raise UserError(str(error)) from None
    except OSError as error:
        raise UserError(f"{path}: cannot write the journal ({error.strerror}); give another "
                        "with --journal") from None


def _run(table: _Table, lang: str, mute: bool) -> None:
    from rich.console import Console

    from bruno.live.announcer import Announcer
    from bruno.live.runtime import LiveRuntime

    console = Console(highlight=False, soft_wrap=True)
    err = Console(stderr=True, highlight=False, soft_wrap=True)

    def note(line: str) -> None:
        err.print(f"[yellow]bruno:[/] {line}")

    session = table.session
    for line in table.notes:
        note(line)
    game = session.setup.words
    if table.no_mic and game.has_knocks:  # (a game without knocks needs no microphone)
        note(f"No microphone (--no-mic): knocks are not heard, so these rules are off: "
             f"{game.knock_rules}. Everything else is refereed.")
    announcer = Announcer(lang, session.clock, speak=not mute, note=note,
                          min_confidence=session.rules.announce_min_confidence, game=game)
    runtime = LiveRuntime(session, announcer, frames=table.frames, blocks=table.blocks,
                          read_card=table.read_card, knock_model=table.knock_model,
                          knock_room=table.knock_room,
                          stop=table.stop, note=note)
    index = 0
    if table.report is not None:
        console.print(f"[bold]Resumed[/]: {table.report.describe()}")
        index = len(session.rulings) - len(table.report.cut_off)
        for ruling in table.report.cut_off:  # never said: the crash came first
            announcer.announce(ruling)
    dashboard = table.dashboard.serve(session) if table.dashboard is not None else None
    console.print(f"[bold]Refereeing[/]: {session.setup.words.game}, {session.setup.players} "
                  f"players; journal {session.journal_path}"
                  + ("" if dashboard is None else f"; dashboard {dashboard.url}"))
    _print_state(console, session)
    console.print("Press Ctrl-C to stop.")
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _interrupt)
    runtime.start()
    ended = False
    try:
        while not ended:
            index, new = session.rulings_since(index, timeout_s=0.1)
            for ruling in new:
                _print_ruling(console, ruling)
            ended = runtime.finished()
        console.print("The recordings have ended.")
    except KeyboardInterrupt:
        console.print("Stopping.")
    finally:
        _ignore_interrupts()
        runtime.stop(finish_speech_s=5.0 if ended else 1.0)
        if dashboard is not None:
            dashboard.stop()
        _, new = session.rulings_since(index)
        for ruling in new:
            _print_ruling(console, ruling)
        console.print(f"Journal closed: {session.journal_path}; resume with: "
                      f"bruno live --resume {session.journal_path}")
        # Interrupts stay ignored: the command is over, and a late second Ctrl-C must not
        # turn a clean stop into an interrupted exit.


def _interrupt(signum, frame) -> None:
    """Ctrl-C or SIGTERM: stop once. A second Ctrl-C (an impatient table, or a signal sent to
    the whole process group) must not cut the shutdown short: the journal is closed and the
    threads stopped first."""
    _ignore_interrupts()
    raise KeyboardInterrupt


def _ignore_interrupts() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _bind_dashboard(host: str, port: int, token: str | None, notes: list[str]):
    """The dashboard's address, bound now (a port in use is refused before anything is
    written); None when this installation has no dashboard."""
    try:
        from bruno.dashboard.server import bind_dashboard
    except ImportError:
        notes.append("the dashboard is not part of this installation; rulings are printed here")
        return None
    return bind_dashboard(host, port, token)


def _print_state(console, session: LiveSession) -> None:
    state = session.snapshot()
    if state["top"] is None:
        console.print("Waiting for the dealer's card.")
        return
    turn = "?" if state["turn"] is None else state["turn"]
    colour = parse_color(state["color"]).word if state["color"] else "-"
    console.print(f"State: top card {token_words(state['top'])}, colour {colour}, "
                  f"seat {turn} to play" + (", paused (STOP)" if state["paused"] else ""))


def _print_ruling(console, ruling: dict[str, Any]) -> None:
    seat = "?" if ruling.get("seat") is None else str(ruling["seat"])
    penalty = ruling.get("kind") == "ruling"
    style = "bold red" if penalty else ("dim" if ruling.get("rule") == "turn" else "")
    line = f"{ruling['t']:8.2f}  seat {seat:>2}  {ruling['rule']:<22} {ruling['message']}"
    console.print(line, style=style or None, markup=False)
    if not console.is_terminal:
        sys.stdout.flush()
