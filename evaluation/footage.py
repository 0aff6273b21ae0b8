"""Score the table watcher on synthetic footage with ground truth.

    python -m evaluation.footage SCENARIO.json... [--reader truth|model] [--size 720x1280]
    python -m evaluation.footage --games 101-110     # random games, seeds 101..110
    python -m evaluation.footage --games 301-310 --family webcam   # through a cheap webcam

The webcam family's random games have fast hands (`random_scenario(fast_hands=True)`: close
jump-in chains, pairs of identical cards, a hand over the pile while a card lands, a second arm
in view), written as game<seed>_fast.json; its videos are named by the family's version.


Each scenario is rendered (once; `--cache DIR` keeps the videos) with `synth.footage`, reviewed
with `bruno.review.footage` using the default camera profile of the footage's layout, and matched to
its truth: plays found / missed / phantom, seat and card accuracy, onset error of `t`, draws
and take-backs found. `--reader truth` reads cards from the ground truth, so the numbers
measure the watching alone; `--reader model` uses the card recogniser.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from bruno.review.footage import review_video
from bruno.review.pipeline import camera_setup
from calibration.layout import TableLayout
from evaluation.card_scenes import real_face_sources, real_faces
from evaluation.knock_data import real_knock_excerpts
from evaluation.matching import one_to_one
from synth.footage import DEFAULT_FPS, render_footage
from synth.scenario import load_scenario, random_scenario
from synth.webcam import VERSION as WEBCAM_VERSION
from synth.webcam import WebcamLook
from vision.card_readers import TruthReader, recogniser_reader

PLAY_MATCH_S = 0.5
"""A detected card matches a true play when their `t` differ by at most this."""

DRAW_MATCH_S = 1.0
"""A detected draw matches a true one within this (a reach lasts about a second)."""


@dataclass
class Score:
    plays: int = 0
    found: int = 0
    phantom: int = 0
    seat_right: int = 0
    seat_none: int = 0
    unsure_seats: int = 0  # named with a seat_confidence below 1
    unsure_seats_right: int = 0
    card_right: int = 0
    errors_s: list[float] = field(default_factory=list)
    draws: int = 0
    draws_found: int = 0
    draw_phantom: int = 0
    draw_seat_right: int = 0
    removals: int = 0
    removals_found: int = 0
    seconds: float = 0.0
    review_s: float = 0.0

    def add(self, other: Score) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


def match(truth: list[dict], found: list[dict], tolerance_s: float) -> list[tuple[dict, dict]]:
    """One-to-one pairs within `tolerance_s` (inclusive): as many as can be made, then the
    least summed time error (`evaluation.matching.one_to_one`; closest-first pairing lost a
    play of a jump-in chain whose two cards were both found late)."""
    pairs = one_to_one([f["t"] for f in found], [g["t"] for g in truth], tolerance_s)
    return [(truth[j], found[i]) for i, j in pairs]


def _paired(truth: list[dict], found: list[dict], kind: str, tolerance_s: float
            ) -> tuple[list[dict], list[dict], list[tuple[dict, dict]]]:
    """(true events of `kind`, detected ones, their one-to-one pairs within `tolerance_s`)."""
    true_events = [e for e in truth if e["kind"] == kind]
    seen_events = [e for e in found if e["kind"] == kind]
    return true_events, seen_events, match(true_events, seen_events, tolerance_s)


def draw_mismatches(truth: list[dict], found: list[dict]) -> list[str]:
    """The draws missed and the phantom ones, a line each (for `--verbose`)."""
    true_draws, seen_draws, pairs = _paired(truth, found, "draw", DRAW_MATCH_S)
    matched = {id(e) for pair in pairs for e in pair}
    true_ids = {id(e) for e in true_draws}
    return [f"draw {'missed' if id(e) in true_ids else 'phantom'}: t {e['t']:.2f} s, "
            f"seat {e['seat']}" for e in sorted(true_draws + seen_draws, key=lambda e: e["t"])
            if id(e) not in matched]


def phantom_plays(truth: list[dict], found: list[dict]) -> list[str]:
    """The plays found that did not happen, a line each (for `--verbose`)."""
    _, seen_cards, pairs = _paired(truth, found, "card", PLAY_MATCH_S)
    matched = {id(f) for _, f in pairs}
    return [f"phantom play: t {f['t']:.2f} s, seat {f['seat']}, {f['card']} "
            f"(confidence {f.get('confidence')})" for f in seen_cards if id(f) not in matched]


def missed_plays(truth: list[dict], found: list[dict]) -> list[str]:
    """The true plays not found, and the found ones with the wrong seat, a line each."""
    true_cards, _, pairs = _paired(truth, found, "card", PLAY_MATCH_S)
    matched = {id(g) for g, _ in pairs}
    lines = [f"play missed: t {g['t']:.2f} s, seat {g['seat']}, {g['card']}"
             for g in true_cards if id(g) not in matched]
    return lines + [f"seat wrong: t {g['t']:.2f} s, seat {g['seat']} named {f['seat']}"
                    for g, f in pairs if f["seat"] != g["seat"]]


def card_misreadings(truth: list[dict], found: list[dict]) -> list[str]:
    """The plays found with the wrong card, a line each (for `--verbose`)."""
    _, _, pairs = _paired(truth, found, "card", PLAY_MATCH_S)
    return [f"card misread: t {g['t']:.2f} s, seat {g['seat']}, {g['card']} read as {f['card']}"
            for g, f in pairs if f["card"] != g["card"]]


def score(truth: list[dict], found: list[dict]) -> Score:
    s = Score()
    true_cards, seen_cards, pairs = _paired(truth, found, "card", PLAY_MATCH_S)
    s.plays, s.found, s.phantom = len(true_cards), len(pairs), len(seen_cards) - len(pairs)
    for g, f in pairs:
        s.seat_right += f["seat"] == g["seat"]
        s.seat_none += f["seat"] is None
        if f["seat"] is not None and f.get("seat_confidence") is not None:
            s.unsure_seats += 1
            s.unsure_seats_right += f["seat"] == g["seat"]
        s.card_right += f["card"] == g["card"]
        s.errors_s.append(f["t"] - g["t"])
    true_draws, seen_draws, draw_pairs = _paired(truth, found, "draw", DRAW_MATCH_S)
    s.draws, s.draws_found = len(true_draws), len(draw_pairs)
    s.draw_phantom = len(seen_draws) - len(draw_pairs)
    s.draw_seat_right = sum(f["seat"] == g["seat"] for g, f in draw_pairs)
    true_removed, _, removal_pairs = _paired(truth, found, "card_removed", PLAY_MATCH_S)
    s.removals, s.removals_found = len(true_removed), len(removal_pairs)
    return s


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f}%" if d else "-"


def table(s: Score, games: int) -> str:
    errs = sorted(abs(e) for e in s.errors_s)
    median = statistics.median(errs) * 1000 if errs else float("nan")
    p90 = errs[int(0.9 * (len(errs) - 1))] * 1000 if errs else float("nan")
    sure_named = s.found - s.seat_none - s.unsure_seats
    sure_right = s.seat_right - s.unsure_seats_right
    rows = [
        ("games", f"{games} ({s.seconds:.0f} s of footage, reviewed at "
                  f"{s.seconds / max(s.review_s, 1e-9):.1f}x real time)"),
        ("plays", str(s.plays)),
        ("plays found", f"{s.found} ({_pct(s.found, s.plays)})"),
        ("plays missed", str(s.plays - s.found)),
        ("phantom plays", str(s.phantom)),
        ("seat right (of found)", f"{s.seat_right} ({_pct(s.seat_right, s.found)}); "
                                  f"{s.seat_none} unnamed"),
        ("seats named unsure", f"{s.unsure_seats}, right {s.unsure_seats_right} "
                               f"({_pct(s.unsure_seats_right, s.unsure_seats)}); sure ones "
                               f"right {_pct(sure_right, sure_named)}"),
        ("card right (of found)", f"{s.card_right} ({_pct(s.card_right, s.found)})"),
        ("onset error |t|", f"median {median:.0f} ms, p90 {p90:.0f} ms"),
        ("draws found", f"{s.draws_found} of {s.draws} ({_pct(s.draws_found, s.draws)}); "
                        f"{s.draw_phantom} phantom; seat right {s.draw_seat_right}"),
        ("take-backs found", f"{s.removals_found} of {s.removals}"),
    ]
    width = max(len(r[0]) for r in rows)
    return "\n".join(f"| {name.ljust(width)} | {value} |" for name, value in rows)


def _render(scenario, video: Path, size: tuple[int, int], look, faces: dict | None,
            face_sources: tuple[str, ...]) -> dict | None:
    """Render `scenario`'s footage to `video` (and its truth beside it); the real faces cut
    for it, once (`faces`, None until a render needs them)."""
    if face_sources and faces is None:
        faces = real_faces(set(face_sources))
    render_footage(scenario, video, size, DEFAULT_FPS,
                   knock_sounds=real_knock_excerpts(48_000), look=look, real_faces=faces)
    return faces


def evaluate(paths: list[Path], reader: str, size: tuple[int, int], cache: Path,
             verbose: bool = False, listen: bool = True,
             family: str = "overhead", in_picture: bool = False,
             face_sources: tuple[str, ...] = (), proposed: bool = False
             ) -> tuple[Score, int]:
    """Score the watcher on each scenario's footage. `family`: "overhead" (straight above,
    even light, high bitrate) or "webcam" (`synth.webcam`: a tilted cheap camera, drawn per
    video from the scenario's seed; it is reviewed with the camera profile a calibration of
    its table plane gives, or with `in_picture` with the same geometry as rectangles of the
    tilted picture, as watchers without the plane would see it). `proposed`: with the camera
    proposed from the footage itself, as `bruno review` does without a room profile (in the
    table plane when the card backs show the camera leans). `face_sources`: real photo
    sources whose cards land in place of rendered faces (`evaluation.card_scenes.real_faces`;
    a token none of them shows is rendered)."""
    total = Score()
    faces: dict | None = None  # cut once, and only when a video must be rendered
    faces_tag = "_faces-" + "+".join(sorted(face_sources)) if face_sources else ""
    for path in paths:
        scenario = load_scenario(path)
        version = WEBCAM_VERSION if family == "webcam" else ""
        video = cache / f"{path.stem}_{family}{version}_{size[0]}x{size[1]}{faces_tag}.mp4"
        truth_path = video.with_suffix(".truth.jsonl")
        look = WebcamLook.draw(scenario.seed, scenario.length_s()) \
            if family == "webcam" else None
        if not (video.exists() and truth_path.exists()):
            faces = _render(scenario, video, size, look, faces, face_sources)
        truth = [json.loads(line) for line in truth_path.read_text().splitlines()]
        read = TruthReader(truth[1:]) if reader == "truth" else recogniser_reader()
        layout = TableLayout()
        if proposed:
            camera = camera_setup(video, None, scenario.players).camera
        elif look is None:
            camera = layout.camera_profile(scenario.players, size=size)
        elif in_picture:
            camera = look.camera_profile(layout, scenario.players, size)
        else:
            camera = look.table_plane_profile(layout, scenario.players, size)
        started = time.perf_counter()
        result = review_video(video, camera, read, listen=listen)
        if result.error is not None:
            # A cached render cut short (a render killed half-way, a full disk) would be
            # scored as a game the watcher went blind in: render it again, once.
            print(f"{video.name}: breaks off ({result.error}); rendering it again",
                  file=sys.stderr, flush=True)
            faces = _render(scenario, video, size, look, faces, face_sources)
            truth = [json.loads(line) for line in truth_path.read_text().splitlines()]
            started = time.perf_counter()
            result = review_video(video, camera, read, listen=listen)
            if result.error is not None:
                raise SystemExit(f"evaluation.footage: {video} breaks off again after a fresh "
                                 f"render ({result.error}); check the disk and the encoder")
        found = [event.to_dict() for event in result.events]  # scored against the truth's lines
        s = score(truth[1:], found)
        s.review_s = time.perf_counter() - started
        s.seconds = scenario.length_s()
        if verbose:
            print(f"{path.name}: {s.found}/{s.plays} found, {s.phantom} phantom, seats "
                  f"{s.seat_right}, draws {s.draws_found}/{s.draws} (+{s.draw_phantom})",
                  flush=True)
            for line in (missed_plays(truth[1:], found) + card_misreadings(truth[1:], found)
                         + phantom_plays(truth[1:], found)
                         + draw_mismatches(truth[1:], found)):
                print(f"  {line}", flush=True)
        total.add(s)
    return total, len(paths)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenarios", nargs="*", type=Path)
    parser.add_argument("--games", help="Also random games (synth.scenario.random_scenario) "
                        "with these seeds, e.g. 101-110; written to the cache folder.")
    parser.add_argument("--plays", type=int, default=31, help="Plays per random game.")
    parser.add_argument("--reader", choices=("truth", "model"), default="truth")
    parser.add_argument("--size", default="720x1280", help="HEIGHTxWIDTH of rendered footage")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/bruno-footage"))
    parser.add_argument("--no-sound", action="store_true",
                        help="Do not listen to the sound track (knocks are not scored; saves "
                             "the second process, and the speed shown is the camera's alone).")
    parser.add_argument("--family", choices=("overhead", "webcam"), default="overhead",
                        help="overhead: straight above, even light; webcam: a tilted cheap "
                             "camera with casts, glare, exposure steps and a low bitrate")
    parser.add_argument("--in-picture", action="store_true",
                        help="webcam family: watch the tilted picture itself, with the pile "
                             "and draw piles as rectangles of it, not the table plane")
    parser.add_argument("--proposed", action="store_true",
                        help="watch with the camera proposed from the footage itself, as "
                             "`bruno review` does without a room profile, not the truth's")
    parser.add_argument("--real-faces", default="",
                        help="comma-separated real photo sources (cards-dev, cards-wide) whose "
                             "cut-out cards land in place of rendered faces, e.g. svolsch,"
                             "natnael_k; tokens they lack are rendered")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    h, w = (int(v) for v in args.size.lower().split("x"))
    args.cache.mkdir(parents=True, exist_ok=True)
    paths = list(args.scenarios)
    if args.games:
        first, _, last = args.games.partition("-")
        for seed in range(int(first), int(last or first) + 1):
            fast = args.family == "webcam"
            path = args.cache / f"game{seed}{'_fast' if fast else ''}.json"
            if not path.exists():
                scenario = random_scenario(seed, plays=args.plays, fast_hands=fast)
                path.write_text(scenario.model_dump_json(indent=1), encoding="utf-8")
            paths.append(path)
    if not paths:
        parser.error("give scenario files or --games")
    face_sources = tuple(s for s in args.real_faces.split(",") if s)
    known = real_face_sources()
    unknown = set(face_sources) - known
    if unknown:
        parser.error(f"--real-faces: no outlined UNO cards in {', '.join(sorted(unknown))}; "
                     "the sources with them: "
                     f"{', '.join(sorted(known)) or 'none (../shared/data is missing)'}")
    total, games = evaluate(paths, args.reader, (h, w), args.cache, args.verbose,
                            listen=not args.no_sound, family=args.family,
                            in_picture=args.in_picture,
                            face_sources=face_sources, proposed=args.proposed)
    print(table(total, games))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
