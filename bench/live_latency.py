"""How quickly `bruno live` speaks, and what it costs while nothing happens:
`python -m bench.live_latency [--seconds 20] [--size 720x1280]`.

A rendered recording of an empty table (no plays, room noise on its sound track) is fed at real
speed through the simulated camera and microphone — decoding, the table watcher at 30 fps, the
knock detector, the ticker — exactly as `bruno live --camera FILE --mic FILE` runs it. Meanwhile
zeros are reported on the pile every 2.5 s as the camera thread would report them (stamped when
they came to rest, 0.15 s before), and nobody knocks, so every zero's knock window closes
unheard. Two numbers come out of the one run:

- the delay from each knock window closing (the missed knock's deadline on the session clock)
  to its ruling's speech command starting (aim: under 0.3 s). The speech command is captured,
  not run, so the number is the referee's and the announcer's, not espeak-ng's start-up;
- the CPU used (process CPU time over wall time, all threads) from the second second to the
  end (aim: under 50 % of one core). The recording's H.264 decoding is counted: a camera hands
  over raw frames instead.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from pathlib import Path

from bruno.live.announcer import Announcer
from bruno.live.clock import SessionClock
from bruno.live.runtime import LiveRuntime
from bruno.live.session import LiveSession
from bruno.live.sources import paced_sound, paced_video
from evaluation.knock_data import real_knock_excerpts
from referee.cards import Card
from referee.eventlog import GameSetup
from referee.events import CardPlayed
from synth.footage import render_footage
from synth.scenario import Scenario
from vision.card_readers import TruthReader

ZERO_EVERY_S = 2.5
CAMERA_DELAY_S = 0.15
WARM_UP_S = 1.0


def idle_footage(cache: Path, seconds: float, size: tuple[int, int]) -> Path:
    video = cache / f"live_idle_{size[0]}x{size[1]}_{seconds:g}s.mp4"
    if not video.exists():
        scenario = Scenario.model_validate({"players": 4, "seed": 11, "duration_s": seconds})
        render_footage(scenario, video, size, knock_sounds=real_knock_excerpts(48_000))
    return video


def report_zeros(session: LiveSession, stop: threading.Event) -> None:
    """The dealer's card, then a zero by whoever's turn it is every `ZERO_EVERY_S`."""
    clock = session.clock
    cards = iter(["r_5"] + ["r_0", "y_0", "g_0", "b_0"] * 100)
    while not stop.wait(ZERO_EVERY_S if session.snapshot()["top"] else WARM_UP_S):
        turn = session.snapshot()["turn"]
        session.feed(CardPlayed(round(clock.now() - CAMERA_DELAY_S, 3),
                                card=Card.parse(next(cards)), seat=0 if turn is None else turn))


def run(video: Path) -> tuple[list[float], float, float]:
    clock = SessionClock()
    stop = threading.Event()
    session = LiveSession(GameSetup(players=4, dealer=0), clock=clock)
    announcer = Announcer("en", clock, runner=lambda argv: None)
    runtime = LiveRuntime(session, announcer, frames=paced_video(video, clock, stop),
                          blocks=paced_sound(video, clock, stop), read_card=TruthReader([]),
                          stop=stop)
    injector = threading.Thread(target=report_zeros, args=(session, stop), daemon=True)
    runtime.start()
    injector.start()
    time.sleep(WARM_UP_S)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    while not runtime.sources_ended():
        time.sleep(0.05)
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    runtime.stop()
    delays = [spoken.started_t - spoken.ruling["t"] for spoken in announcer.spoken
              if spoken.ruling["rule"] == "missed_knock"]
    return delays, cpu, wall


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=20.0, help="length of the idle recording")
    ap.add_argument("--size", default="720x1280", help="HEIGHTxWIDTH of the recording")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/bruno-bench"))
    args = ap.parse_args(argv)
    size = tuple(int(v) for v in args.size.lower().split("x"))
    args.cache.mkdir(parents=True, exist_ok=True)
    video = idle_footage(args.cache, args.seconds, size)
    delays, cpu, wall = run(video)
    if delays:
        ordered = sorted(delays)
        p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
        print(f"knock window closed -> speech command started: median "
              f"{1000 * statistics.median(delays):.0f} ms, 90th percentile {1000 * p90:.0f} ms, "
              f"worst {1000 * max(delays):.0f} ms ({len(delays)} missed knocks; aim < 300 ms)")
    else:
        print("no missed knock was spoken: the recording is too short")
    print(f"CPU while idle at 30 fps, {size[1]}x{size[0]} recording (decoding included): "
          f"{100 * cpu / wall:.0f}% of one core over {wall:.1f} s (aim < 50%)")


if __name__ == "__main__":
    main()
