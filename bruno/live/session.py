"""A live refereed table: the referee's `Session` behind a lock, stamped by the session clock,
journaled line by line, and seen by the dashboard through `DashboardBackend`.

Events come from the camera and microphone threads (`feed`, already stamped by their detector)
and from people (`submit`, stamped now); a ticker thread moves the clock (`advance`) so that
knock windows and SEG close on time. Every event, every ruling and every clock moment that
changed something is appended to the journal before anything else happens, so a crash loses
nothing that was journaled and `LiveSession.resume(journal)` gets back to the same state.

A session needs no camera and no microphone: manual events alone referee a game.

    from referee.eventlog import GameSetup
    from bruno.live.session import LiveSession

    with LiveSession(GameSetup(players=4, dealer=0), journal="game.jsonl") as session:
        session.submit({"kind": "card", "card": "r_5", "seat": 0})   # the dealer's card
        session.submit({"kind": "card", "card": "r_7", "seat": 1})
        print(session.snapshot()["turn"])                             # 2
        index, rulings = session.rulings_since(0)                     # turn lines so far
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bruno.live.clock import SessionClock
from bruno.live.journal import (
    CLOCK_KIND,
    JournalContents,
    journal_game_line,
    read_journal,
    repair,
    replay_entries,
)
from calibration.camera import CameraProfile
from calibration.layout import default_camera_profile
from referee.eventlog import GameSetup, Journal
from referee.events import Event, parse_event
from referee.rulings import is_sure, tally_totals
from referee.session import Session
from vision.frames import Frame

LIVE_REORDER_WINDOW_S = 0.2
"""How long events are held back for late ones (the referee's offline default is 0.5 s). The
knock detector decides within 60 ms of a knock's onset, so 0.2 s covers every knock, and a
missed knock is ruled about 0.2 s after its window closes. The camera confirms a card once the
hand has left the pile (0.3 to 1.2 s after it landed), later than any window short enough for
that: a card is ruled when it arrives, and a knock heard just before it arrived counts for it
(the referee keeps unclaimed knocks for the card that comes). The journal's clock lines make
a replay release everything at the same moments, so it gives the same rulings."""

TICK_S = 0.02
"""How often the ticker moves the clock: deadlines fire at most this late."""

SUBMIT_WAIT_S = 1.0
"""How long `submit` waits (beyond the reorder window) for its event to be ruled on."""

RECENT_EVENTS = 64

CHECK_FRAMES = 16
"""Unsure penalties whose camera frame is kept (the newest), for the dashboard's check."""
"""Events kept for drawing the camera view."""

RulingListener = Callable[[dict[str, Any]], None]


@dataclass
class ResumeReport:
    """What replaying a journal found."""

    path: Path
    events: int
    rulings: int
    same: bool
    cut_off: list[dict[str, Any]] = field(default_factory=list)
    """Rulings the replay gave that the crash kept out of the journal (now journaled)."""
    first_difference: int | None = None
    torn: bool = False

    def describe(self) -> str:
        """One line for people."""
        line = f"replayed {self.events} events from {self.path}: "
        if self.same:
            line += f"the same {self.rulings} rulings as journaled"
        elif self.first_difference is None:
            line += (f"the {self.rulings} journaled rulings, and {len(self.cut_off)} the crash "
                     "kept out of the journal (added now)")
        else:
            line += (f"the rulings differ from the journal's from ruling "
                     f"{self.first_difference + 1} on (was it written by another version of "
                     "bruno?); the table continues from the replayed game")
        if self.torn:
            line += "; a torn last line was dropped"
        return line


class LiveSession:
    """A refereed table now; implements `bruno.live.backend.DashboardBackend`.

    `journal`: the file to write (a new game; it must not hold another game). `camera`: the
    camera layout (default: docs/DESIGN.md's default for the table's players); `profile_path`: the
    room profile that `save_camera_calibration` writes. `start()` (or `with`) starts the
    ticker; `close()` stops it and closes the journal.
    """

    def __init__(self, setup: GameSetup, journal: str | Path | None = None, *,
                 clock: SessionClock | None = None, camera: CameraProfile | None = None,
                 profile_path: str | Path | None = None,
                 reorder_window_s: float = LIVE_REORDER_WINDOW_S) -> None:
        setup.validate()
        self.setup = setup
        self.clock = clock or SessionClock()
        self.window_s = reorder_window_s
        self._session = Session(setup.new_game(), reorder_window_s)
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self.rulings: list[dict[str, Any]] = []
        self._listeners: list[RulingListener] = []
        self._recent: deque[Event] = deque(maxlen=RECENT_EVENTS)
        self._horizon = float("-inf")
        self._journal: Journal | None = None
        self.journal_path: Path | None = None
        self.profile_path = Path(profile_path) if profile_path else Path("room_profile.toml")
        if journal is not None:
            self._open_new_journal(Path(journal))
        self.camera = camera or default_camera_profile(setup.players)
        self.layout_version = 0
        self.frame: Frame | None = None
        self._check_frames: dict[float, Frame] = {}
        """The camera's frame when each unsure penalty was decided, by the ruling's `t`."""
        self._jpeg_cache: tuple[tuple, bytes] | None = None
        self.sources: dict[str, str] = {"camera": "off", "mic": "off"}
        self.speech: Any = None
        """The announcer, when one speaks for this session (`snapshot()["muted"]` otherwise)."""
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    # --- life ------------------------------------------------------------------------------

    @classmethod
    def resume(cls, journal: str | Path | JournalContents, *, clock: SessionClock | None = None,
               **options: Any) -> tuple[LiveSession, ResumeReport]:
        """The session a journal left (a torn last line dropped), appending to the same
        journal. Its clock (default: a new one) runs on from the journal's last time; its
        `profile_path` (default) is the journal's. Raises JournalError."""
        contents = journal if isinstance(journal, JournalContents) else read_journal(journal)
        options.setdefault("profile_path", contents.profile)
        torn = contents.torn
        clock = clock or SessionClock(contents.last_t)
        session = cls(contents.setup, clock=clock, **options)
        report = session._replay(contents)  # a journal refused here is left as it was
        report.torn = torn
        repair(contents)
        session.journal_path = contents.path
        session._journal = Journal(contents.path)
        for ruling in report.cut_off:
            session._journal.append(ruling)
        return session, report

    def start(self) -> LiveSession:
        """Start the ticker that moves the clock (deadlines fire on time)."""
        if self._ticker is None:
            self._ticker = threading.Thread(target=self._tick, name="bruno-ticker", daemon=True)
            self._ticker.start()
        return self

    def close(self) -> None:
        """Stop the ticker and close the journal (idempotent)."""
        self._stop.set()
        if self._ticker is not None and self._ticker is not threading.current_thread():
            self._ticker.join(timeout=2)
        with self._lock:
            if self._journal is not None:
                self._journal.close()
                self._journal = None
            self._changed.notify_all()

    def __enter__(self) -> LiveSession:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def add_listener(self, listener: RulingListener) -> None:
        """Call `listener(ruling)` for every new ruling, on the thread that gave it (under the
        session's lock: it must be quick, e.g. put it on a queue)."""
        self._listeners.append(listener)

    # --- the referee ---------------------------------------------------------------------

    def feed(self, event: Event) -> list[dict[str, Any]]:
        """A detector's event, `t` on the session clock: journaled, then given to the referee.
        Returns the rulings it released at once."""
        with self._lock:
            self._write(event.to_dict())
            self._recent.append(event)
            return self._publish(self._session.feed(event))

    def advance(self, now: float | None = None) -> list[dict[str, Any]]:
        """Move the clock to `now` (default: the session clock): held events old enough are
        released and due deadlines fire. Journaled as a clock line when it changed anything."""
        with self._lock:
            now = round(self.clock.now() if now is None else now, 4)
            held = len(self._session.buffer)
            rulings = self._session.advance(now)
            if rulings or len(self._session.buffer) != held:
                self._write({"t": now, "kind": CLOCK_KIND})
            self._horizon = max(self._horizon, now - self.window_s)
            out = self._publish(rulings)
            self._changed.notify_all()
            return out

    def submit(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        """A manual event (no `t`: stamped now). While the ticker runs, waits (a fraction of a
        second) until the event has been ruled on; returns the rulings given meanwhile."""
        if not isinstance(event, dict):
            raise ValueError(f"an event must be a JSON object, not {type(event).__name__}")
        with self._lock:
            if self._stop.is_set():
                # Closing: the journal takes no more lines, and a correction the table
                # believes recorded must not be lost without a word.
                raise ValueError("the session has ended; nothing was recorded (resume it with "
                                 "`bruno live --resume JOURNAL` to go on)")
            t = round(self.clock.now(), 3)
            start = len(self.rulings)
            self.feed(parse_event({**event, "t": t}, self.setup.players))
            if self._ticker is not None:
                give_up = time.monotonic() + self.window_s + SUBMIT_WAIT_S
                while self._horizon <= t and not self._stop.is_set():
                    left = give_up - time.monotonic()
                    if left <= 0:
                        break
                    self._changed.wait(left)
            return self.rulings[start:]

    @property
    def last_event_t(self) -> float | None:
        """The newest event's time (None before the first)."""
        return self._session.last_t

    @property
    def rules(self):
        return self._session.game.rules

    # --- what the dashboard reads ------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            game = self._session.game
            state = game.state
            board = game.scoreboard
            return {
                "players": game.players, "dealer": game.dealer, "variant": self.setup.variant,
                "game": game.words.game,
                "clock": round(self.clock.now(), 2), "turn": state.turn,
                "color": state.active_color.value if state.active_color else None,
                "top": state.top.token if state.top else None, "top_seat": state.top_seat,
                "paused": game.paused, "in_round": state.in_round,
                "scores": ({str(seat): total for seat, total in enumerate(board.totals)}
                           if board.rounds_played and game.keeps_score else {}),
                "tally": _tally(game, self.rulings),
                "muted": not (self.speech is not None and self.speech.speaking),
                "announce_min_confidence": game.rules.announce_min_confidence,
                "swaps": game.takes_swaps(),
                "sources": dict(self.sources),
            }

    def rulings_since(self, index: int, timeout_s: float = 0.0
                      ) -> tuple[int, list[dict[str, Any]]]:
        index = max(0, index)
        with self._lock:
            if len(self.rulings) <= index and timeout_s > 0:
                self._changed.wait_for(lambda: len(self.rulings) > index or self._stop.is_set(),
                                       timeout_s)
            return len(self.rulings), self.rulings[index:]

    def frame_jpeg(self, annotated: bool = True) -> bytes | None:
        from bruno.live.picture import encode_jpeg, live_overlay

        frame = self.frame
        if frame is None:
            return None
        with self._lock:
            key = (frame.index, frame.t_s, annotated, self.layout_version, len(self.rulings))
            if self._jpeg_cache is not None and self._jpeg_cache[0] == key:
                return self._jpeg_cache[1]
            state = self._session.game.state
            overlay = live_overlay(self.camera, list(self._recent), self.rulings[-8:],
                                   state.top.token if state.top else None) if annotated else None
        data = encode_jpeg(frame, overlay)
        self._jpeg_cache = (key, data)
        return data

    def check_jpeg(self, ruling_t: float) -> bytes | None:
        """The camera's frame when the unsure penalty decided at `ruling_t` was, as JPEG (not
        annotated); None when none was kept."""
        from bruno.live.picture import encode_jpeg

        with self._lock:
            frame = next((f for t, f in self._check_frames.items()
                          if abs(t - ruling_t) < 1e-6), None)
        return None if frame is None else encode_jpeg(frame, None)

    def camera_calibration(self) -> dict[str, Any]:
        from bruno.live.calibration_clicks import layout_in_pixels

        height, width = self._still_size()
        return layout_in_pixels(self.camera, height, width)

    def save_camera_calibration(self, clicks: dict[str, Any]) -> Path:
        from bruno.live.calibration_clicks import camera_from_clicks
        from calibration.camera import save_camera_section
        from calibration.profile import ProfileError

        height, width = self._still_size()
        camera = camera_from_clicks(clicks, self.camera, height, width)
        try:
            save_camera_section(self.profile_path, camera)
        except (ProfileError, OSError) as error:
            raise ValueError(f"{self.profile_path}: cannot write the profile ({error})") from None
        with self._lock:
            self.camera = camera
            self.layout_version += 1
        return self.profile_path

    def show_frame(self, frame: Frame) -> None:
        """The camera thread's newest frame (for `frame_jpeg`)."""
        self.frame = frame

    # --- inside ----------------------------------------------------------------------------

    def _still_size(self) -> tuple[int, int]:
        if self.frame is not None:
            return self.frame.full_size
        return self.camera.image_size or (720, 1280)

    def _open_new_journal(self, path: Path) -> None:
        if path.is_dir():
            raise ValueError(f"{path} is a folder; give --journal a new file's name, e.g. "
                             f"{path / 'game.jsonl'}")
        if path.exists() and path.stat().st_size > 0:
            if _starts_like_a_journal(path):
                raise ValueError(f"{path} already holds a journal; continue it with "
                                 f"`bruno live --resume {path}` or give another --journal")
            raise ValueError(f"{path} is another file, not a journal, and is left as it is; "
                             "give --journal a new file's name")
        self.journal_path = path
        self._journal = Journal(path)
        self._write(journal_game_line(self.setup, self.profile_path))

    def _write(self, line: dict[str, Any]) -> None:
        if self._journal is not None:
            self._journal.append(line)

    def _publish(self, rulings: list) -> list[dict[str, Any]]:
        out = [ruling.to_dict() for ruling in rulings]
        bar = self._session.game.rules.announce_min_confidence
        for ruling in out:
            self._write(ruling)
            self.rulings.append(ruling)
            if ruling["kind"] == "ruling" and not is_sure(ruling, bar) and self.frame is not None:
                # The picture a person checks it against: the table as the referee saw it.
                self._check_frames[ruling["t"]] = self.frame
                while len(self._check_frames) > CHECK_FRAMES:
                    del self._check_frames[next(iter(self._check_frames))]
            for listener in self._listeners:
                listener(ruling)
        if out:
            self._changed.notify_all()
        return out

    def _tick(self) -> None:
        while not self._stop.wait(TICK_S):
            self.advance()

    def _replay(self, contents: JournalContents) -> ResumeReport:
        """Feed the journal's events and clock moments to this (fresh) session, unjournaled."""
        replayed = [ruling.to_dict() for ruling in
                    replay_entries(contents, self._session, self._recent.append)]
        clocks = [float(e["t"]) for e in contents.entries if e.get("kind") == CLOCK_KIND]
        if clocks:
            self._horizon = max(self._horizon, max(clocks) - self.window_s)
        journaled = contents.rulings
        self.rulings = replayed
        report = ResumeReport(contents.path, len(contents.events), len(journaled),
                              same=replayed == journaled)
        if not report.same:
            if replayed[:len(journaled)] == journaled:
                report.cut_off = replayed[len(journaled):]
            else:
                report.first_difference = next(
                    (i for i, (a, b) in enumerate(zip(replayed, journaled, strict=False))
                     if a != b), min(len(replayed), len(journaled)))
        return report


def _tally(game, rulings: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The game's running count per seat besides the score (DrukUNO's sips), for the
    dashboard: {"name": "Sips", "seats": {"0": 3, ...}}; None for a game that keeps none."""
    if game.tally is None:
        return None
    rule, name = game.tally
    return {"name": name,
            "seats": {str(seat): n for seat, n in tally_totals(rulings, rule).items()}}


def _starts_like_a_journal(path: Path) -> bool:
    """Is the first line of `path` a game line (a journal's, or an event log's)?"""
    try:
        with path.open(encoding="utf-8") as handle:
            first = json.loads(handle.readline())
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return isinstance(first, dict) and first.get("kind") == "game"
