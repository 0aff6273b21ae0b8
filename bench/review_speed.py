"""How fast `bruno review` reviews the bundled demo footage: `python -m bench.review_speed`.

The whole command, as a person runs it (`bruno review examples/demo/demo.mp4 --profile
demo.room.toml --notes demo.notes.jsonl`): decoding, vision with the card recogniser, the knock
detector in its second process, the referee, the report and the annotated video (drawn while
the footage is watched, at half its size). Then the same with `--full-size-video`, with
`--no-video` (no annotated video), with `--events-only` (decoding, vision and the knock
detector only), and decoding alone, to show where the time goes. One line per measure:

- wall: footage seconds per wall-clock second (the issue aims at >= 10x on 2 cores);
- CPU: user + system seconds of every process the command ran, and footage seconds per CPU
  second.

Timed as ratios within one run, on whatever else the machine is doing: compare lines of one
run, not runs of different days.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bruno.demo_files import NOTES, ROOM, VIDEO


def footage_seconds(video: Path) -> float:
    import av

    with av.open(str(video)) as container:
        stream = container.streams.video[0]
        return float(stream.duration * stream.time_base)


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(args: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and every process it waited for)."""
    cpu_before = children_cpu_s()
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "bruno", *args], check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - started, children_cpu_s() - cpu_before


def decoding_alone_s(video: Path) -> float:
    """Wall seconds to decode every frame and nothing else, as a review decodes (FFmpeg's
    frame threads, beside the thread that watches: `vision.frames.decoded_ahead`): the floor
    under a review."""
    from vision.frames import read_video

    started = time.perf_counter()
    for _ in read_video(video):
        pass
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the whole review")
    args = parser.parse_args(argv)
    seconds = footage_seconds(VIDEO)
    common = [str(VIDEO), "--profile", str(ROOM), "--notes", str(NOTES)]
    runs = [("bruno review", [])] + ([] if args.quick else
                                     [("bruno review --full-size-video", ["--full-size-video"]),
                                      ("bruno review --no-video", ["--no-video"]),
                                      ("bruno review --events-only", ["--events-only"])])
    print(f"review speed of {VIDEO.name} ({seconds:.1f} s of 1280x720 at 30 fps, "
          "card recogniser, knock detector):")
    if not args.quick:
        wall = decoding_alone_s(VIDEO)
        print(f"  decoding alone (as a review decodes; no watching): wall {wall:.1f} s "
              f"= {seconds / wall:.2f}x real time")
    with tempfile.TemporaryDirectory() as out:
        for label, extra in runs:
            wall, cpu = timed(["review", *common, "--out", out, "--json", *extra])
            print(f"  {label}: wall {wall:.1f} s = {seconds / wall:.2f}x real time")
            print(f"  {label}: CPU {cpu:.1f} s = {seconds / cpu:.2f}x real time per CPU "
                  "second")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
