"""Rulings said aloud with espeak-ng, on a worker thread of their own so that speaking never
holds up the camera, the microphone or the referee.

While the speaker talks, and for a short tail after, the knock detector is muted: the product's
own voice through the speakers must not count as a knock. `--mute` (or no espeak-ng) says
nothing; rulings are still printed and shown.

    announcer = Announcer("sv", clock)           # espeak-ng -v sv "Glömd knackning, ..."
    session.add_listener(announcer.announce)
    detector = KnockDetector(mute=announcer.mute)

`runner(argv)` runs one speech command to its end (default: the espeak-ng process); tests give
their own to capture the commands.
"""

from __future__ import annotations

import queue
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from audio.mute import MuteWindows
from bruno.live.clock import SessionClock
from bruno.live.phrases import LANGUAGES, phrase
from referee.rulings import is_sure
from referee.words import BRUNO_WORDS, Words

SPEECH_TAIL_S = 0.3
"""Knocks are still ignored this long after speech ends: the room's echo, the speaker's ring."""

STALE_INFO_S = 2.0
"""An information line this old is skipped when more is waiting to be said: the table has
moved on. Penalties are always said, and so is a game's announcement of a card
(`Words.announced`: at a Flaske UNO table it is the game, and a slow voice skipped some)."""

ESPEAK = "espeak-ng"

Runner = Callable[[list[str]], None]


class SpeakingMute(MuteWindows):
    """Mute windows, plus the window of the speech going on now (its end not yet known)."""

    def __init__(self) -> None:
        super().__init__()
        self._speaking_since: float | None = None

    def start_speaking(self, t_s: float) -> None:
        self._speaking_since = t_s

    def stop_speaking(self, t_s: float, tail_s: float = SPEECH_TAIL_S) -> None:
        since, self._speaking_since = self._speaking_since, None
        if since is not None:
            self.mute(since, max(since, t_s + tail_s))

    def is_muted(self, t_s: float) -> bool:
        since = self._speaking_since
        return (since is not None and t_s >= since) or super().is_muted(t_s)


@dataclass(frozen=True)
class Spoken:
    """One thing said: the command, and when it started and ended on the session clock."""

    ruling: dict[str, Any]
    text: str
    argv: list[str]
    started_t: float
    ended_t: float


def espeak_runner(argv: list[str]) -> None:
    """Run espeak-ng to the end of its speech; raise OSError when it cannot speak."""
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=False)
    if done.returncode != 0:
        last = (done.stderr or b"").decode(errors="replace").strip().splitlines()[-1:]
        raise OSError(f"{ESPEAK} exited with {done.returncode}"
                      + (f" ({last[0]})" if last else ""))


def _to_stderr(line: str) -> None:
    print(f"bruno: {line}", file=sys.stderr, flush=True)


class Announcer:
    """Says rulings in `lang` ("en" or "sv"), one at a time, in the order they came, in the
    words of the game played (`game`)."""

    def __init__(self, lang: str = "en", clock: SessionClock | None = None, *,
                 speak: bool = True, runner: Runner | None = None,
                 note: Callable[[str], None] = _to_stderr,
                 min_confidence: float = 0.0, game: Words = BRUNO_WORDS) -> None:
        if lang not in LANGUAGES:
            raise ValueError(f"language {lang!r} is not one of {', '.join(LANGUAGES)}")
        self.lang = lang
        self.game = game
        self.min_confidence = min_confidence
        """A penalty less sure than this is not said: the dashboard shows it as "check"."""
        self.clock = clock or SessionClock()
        self.mute = SpeakingMute()
        self.note = note
        self.spoken: list[Spoken] = []
        if speak and runner is None:
            if shutil.which(ESPEAK) is None:
                note(f"{ESPEAK} is not installed (Debian/Ubuntu: apt-get install espeak-ng); "
                     "rulings are printed, not spoken")
                speak = False
            runner = espeak_runner
        self.speaking = speak
        self._runner = runner
        self._queue: queue.Queue[tuple[dict[str, Any], str] | None] = queue.Queue()
        self._worker: threading.Thread | None = None
        if speak:
            self._worker = threading.Thread(target=self._work, name="bruno-announcer",
                                            daemon=True)
            self._worker.start()

    def announce(self, ruling: dict[str, Any]) -> None:
        """Queue a ruling to be said (when it is said at all); returns at once."""
        if not self.speaking or not is_sure(ruling, self.min_confidence):
            return
        text = phrase(ruling, self.lang, self.game)
        if text is not None:
            self._queue.put((ruling, text))

    def command(self, text: str) -> list[str]:
        return [ESPEAK, "-v", self.lang, text]

    def close(self, finish_s: float = 5.0) -> None:
        """Say what is queued (up to `finish_s` seconds), then stop the worker."""
        if self._worker is None:
            return
        self._queue.put(None)
        self._worker.join(timeout=finish_s)
        self._worker = None

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            ruling, text = item
            if self._stale(ruling):
                continue
            self._say(ruling, text)

    def _stale(self, ruling: dict[str, Any]) -> bool:
        return (ruling.get("kind") != "ruling" and not self._queue.empty()
                and ruling.get("rule") not in self.game.announced
                and self.clock.now() - float(ruling.get("t", 0.0)) > STALE_INFO_S)

    def _say(self, ruling: dict[str, Any], text: str) -> None:
        if not self.speaking or self._runner is None:
            return
        argv = self.command(text)
        started = self.clock.now()
        self.mute.start_speaking(started)
        try:
            self._runner(argv)
        except OSError as error:
            self.note(f"{ESPEAK} could not speak ({error}); rulings are printed, not spoken")
            self.speaking = False
            return
        finally:
            ended = self.clock.now()
            self.mute.stop_speaking(ended)
        self.spoken.append(Spoken(ruling, text, argv, started, ended))
