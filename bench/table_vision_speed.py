"""How fast the table watcher runs: `python -m bench.table_vision_speed`.

Median milliseconds per 1280x720 frame, on one core (the table watcher limits OpenCV to one
thread), for
- a frame where nothing moves (while the table is quiet the watcher passes over four frames in
  five: those are shown apart, and the average of all),
- a frame while a hand moves over the pile,
- the frame where a card settles (its rest time looked up, its seat voted, its card read:
  by the recogniser when `models/cards.onnx` is installed, else by a ground-truth reader,
  which costs nothing — the line says which),
and what making the 320x180 analysis copy of a camera's image costs (a video source makes it
from the decoder's planes; either is made only for a frame that is watched). Then the
throughput of a whole review (decoding, vision and the knock detector over the sound track)
of a rendered 27 s game, in multiples of real time, and how fast that file decodes alone
(the floor under a review: a file of a high bitrate cannot be reviewed faster). Then both
again for the webcam family (`synth.webcam`, a 1280x720 tilted camera with its casts, glare
and blur): its frames are watched in the table plane, so each watched frame is warped first.
Footage is rendered by `synth.footage` (seeded): no data files.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace
from pathlib import Path

from bench.review_speed import decoding_alone_s
from bruno.review.footage import review_video
from calibration.layout import TableLayout
from evaluation.knock_data import real_knock_excerpts
from synth.footage import FootageRenderer, render_footage
from synth.scenario import Scenario, random_scenario
from synth.webcam import WebcamLook
from vision.card_readers import CardModelMissing, TruthReader, recogniser_reader
from vision.frames import Frame, frame_from_image
from vision.table_watcher import TableWatcher

SCENARIO = {"players": 4, "seed": 3, "duration_s": 4.0,
            "plays": [{"t": 2.0, "seat": 1, "card": "r_7", "linger_s": 0.1}]}


SIZE = (720, 1280)


def webcam_look(scenario: Scenario) -> WebcamLook:
    """The scenario's webcam, at 1280x720 whatever size it drew (the aim is per 720p frame)."""
    return replace(WebcamLook.draw(scenario.seed, scenario.length_s()), size=SIZE)


def _frames(webcam: bool):
    scenario = Scenario.model_validate(SCENARIO)
    renderer = FootageRenderer(scenario)
    frames = list(renderer.frames())
    if webcam:
        look = webcam_look(scenario)
        warp = look.homography(SIZE)
        frames = [(t, look.see(image, t, i, warp)) for i, (t, image) in enumerate(frames)]
    return renderer, frames


def camera_for(scenario: Scenario, webcam: bool):
    layout = TableLayout()
    if webcam:
        return webcam_look(scenario).table_plane_profile(layout, scenario.players, SIZE)
    return layout.camera_profile(scenario.players)


def per_frame(reader_name: str, webcam: bool = False) -> dict[str, list[float]]:
    renderer, frames = _frames(webcam)
    truth = renderer.truth()[1:]
    reader = TruthReader(truth)
    if reader_name == "model":
        reader = recogniser_reader()
    camera = camera_for(Scenario.model_validate(SCENARIO), webcam)
    timings: dict[str, list[float]] = {"still": [], "still, passed over": [], "hand": [],
                                       "settle": [], "resize": []}
    watcher = TableWatcher(camera, reader)
    for index, (t, image) in enumerate(frames):
        t0 = time.perf_counter()
        small = frame_from_image(image, t, index).small  # what a camera frame needs first
        t1 = time.perf_counter()
        frame = Frame(t, index, image.shape[:2], lambda small=small: small,
                      lambda image=image: image)
        events = watcher.update(frame)
        t2 = time.perf_counter()
        timings["resize"].append((t1 - t0) * 1000)
        if any(e.kind == "card" for e in events):
            timings["settle"].append((t2 - t1) * 1000)
        elif t < 1.2 and index > 5 and watcher.passed_over:
            timings["still, passed over"].append((t2 - t1) * 1000)
        elif t < 1.2 and index > 5:
            timings["still"].append((t2 - t1) * 1000)
        elif 1.55 <= t < 2.0:
            timings["hand"].append((t2 - t1) * 1000)
    return timings


def review_speed(cache: Path, webcam: bool = False) -> tuple[float, float, float]:
    scenario = random_scenario(5, players=4, plays=10)
    video = review_video_path(cache, webcam)
    if not video.exists():  # rendered under another name first: a run cut short leaves none
        part = video.with_name(f"part_{video.name}")
        render_footage(scenario, part, knock_sounds=real_knock_excerpts(48_000),
                       look=webcam_look(scenario) if webcam else None)
        part.replace(video)
    truth = [e for e in FootageRenderer(scenario).truth()[1:]]
    camera = camera_for(scenario, webcam)
    started = time.perf_counter()
    result = review_video(video, camera, TruthReader(truth))
    elapsed = time.perf_counter() - started
    return result.duration_s / elapsed, elapsed, result.duration_s


def review_video_path(cache: Path, webcam: bool) -> Path:
    return cache / ("bench_review_webcam.mp4" if webcam else "bench_review.mp4")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, default=Path("/tmp/bruno-bench"))
    args = ap.parse_args(argv)
    reader = "model"
    try:
        recogniser_reader()
    except CardModelMissing:
        reader = "truth"
    args.cache.mkdir(parents=True, exist_ok=True)
    for family, webcam in (("overhead", False), ("webcam, in the table plane", True)):
        timings = per_frame(reader, webcam)
        print(f"{family}: per 1280x720 frame, median ms (n):")
        for name, values in timings.items():
            note = f" (card read by the {reader} reader)" if name == "settle" else ""
            if values:
                print(f"  {name:18s} {statistics.median(values):6.2f} ms ({len(values)}){note}")
        still = timings["still"] + timings["still, passed over"]
        if still:
            print(f"  {'still, on average':18s} {statistics.mean(still):6.2f} ms ({len(still)}):"
                  " while nothing moves, four frames in five are passed over")
        speed, elapsed, seconds = review_speed(args.cache, webcam)
        print(f"  review (decode + vision + knocks, events only) of a {seconds:.0f} s 1280x720 "
              f"game: {speed:.1f}x real time ({elapsed:.1f} s)")
        # The floor under the review: how fast this file decodes at all (its bitrate decides).
        video = review_video_path(args.cache, webcam)
        decoding = decoding_alone_s(video)
        print(f"  decoding that game alone ({video.stat().st_size * 8 / seconds / 1e6:.1f} Mb/s): "
              f"{seconds / decoding:.1f}x real time ({decoding:.1f} s)")


if __name__ == "__main__":
    main()
