"""The bundled demo footage (`examples/demo/`): a full four-player round of Bruno, rendered
by the synthetic footage generator, in which every penalty rule fires at least once.

    python -m synth.demo_footage            # check the scenario, render demo.mp4 + its truth
    python -m synth.demo_footage --check    # only check that the scenario gives every penalty

- `demo.json` — the scenario (what the camera sees and the microphone hears), hand-written;
- `demo.notes.jsonl` — what a camera cannot see, as a person reviewing the footage writes it
  down: the game line (players, dealer, `seg_after_s`), the calls, the colour named for the
  wild, the hands at the end (see `bruno.review.notes`);
- `demo.room.toml` — the room profile of the rendered table (its `[camera]` section: where
  the discard pile, the draw piles and the seats are), as `bruno calibrate camera` writes it
  for a real table;
- `demo.mp4` and `demo.truth.jsonl` — rendered from the scenario by this module.

Rendering is deterministic given the scenario (its seed picks the table and the light) and the
same library versions. The knocks are synthesised (`knock_sound_track`): the real recordings
the renderer prefers when the shared data is present may not be redistributed, and a committed
file must not depend on what lies next to the checkout.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from fractions import Fraction
from pathlib import Path

import numpy as np

from bruno.demo_files import NOTES, ROOM, SCENARIO, VIDEO
from bruno.review.notes import read_notes
from referee.eventlog import parse_lines
from referee.events import in_time_order
from referee.rulings import PENALTY_RULES
from referee.session import replay
from synth.scenario import Scenario, load_scenario

DEMO_CRF = 26
"""H.264 quality of the committed file: 720x1280 at 30 fps (what the vision is tuned for) and
the renderer's sensor noise make 18.8 MB at the default CRF 23; 26 makes 14.1 MB, under
the 15 MB the repository allows."""

MAX_DEMO_BYTES = 15_000_000


class DemoScenarioError(ValueError):
    """The demo's scenario and notes do not give what the demo promises."""


def expected_rulings(truth: list[dict], notes_path: str | Path) -> list[dict]:
    """The rulings a perfect review gives: the ground-truth events and the notes' events,
    merged in time order and replayed under the notes' game line."""
    notes = read_notes(notes_path)
    lines = [json.dumps(notes.setup.to_dict())] + [json.dumps(e) for e in truth
                                                   if e.get("kind") != "game"]
    log = parse_lines(lines, source=str(notes_path))
    ordered = in_time_order(log.events, notes.events)
    return [r.to_dict() for r in replay(log.setup.new_game(), ordered)]


def check_demo(scenario: Scenario, truth: list[dict], notes_path: str | Path = NOTES
               ) -> list[dict]:
    """Raise DemoScenarioError unless the notes' table is the scenario's and every penalty
    rule fires; return the expected rulings."""
    setup = read_notes(notes_path).setup
    if (setup.players, setup.dealer) != (scenario.players, scenario.dealer):
        raise DemoScenarioError(
            f"the notes' game line has {setup.players} players, dealer {setup.dealer}; the "
            f"scenario has {scenario.players} players, dealer {scenario.dealer}")
    rulings = expected_rulings(truth, notes_path)
    fired = {r["rule"] for r in rulings if r["kind"] == "ruling"}
    missing = [rule for rule in PENALTY_RULES if rule not in fired]
    if missing:
        raise DemoScenarioError(f"no {', '.join(missing)} ruling in the demo game")
    return rulings


def scenario_truth(scenario: Scenario) -> list[dict]:
    """The ground truth of a scenario without rendering a frame (the renderer's plan)."""
    from synth.footage import FootageRenderer

    return FootageRenderer(scenario, (180, 320)).truth()


def write_room_profile(scenario: Scenario, path: Path = ROOM) -> Path:
    """The rendered table's room profile: the renderer's layout is the table's geometry."""
    from calibration.camera import save_camera_section
    from calibration.layout import TableLayout

    if path.exists():
        path.unlink()  # written afresh, not merged into an older one
    save_camera_section(path, TableLayout().camera_profile(scenario.players))
    return path


KNOCK_RATE_HZ = 48_000


def knock_sound_track(scenario: Scenario, rate_hz: int = KNOCK_RATE_HZ) -> np.ndarray:
    """The footage's sound: the renderer's room noise, and at every scenario knock the
    two-resonance knuckle knock of `synth.sounds`, at the renderer's knock level.

    Why not the renderer's own knocks: it prefers real recordings from the shared data, which
    may not be redistributed (and are not there on a fresh clone), and its synthesised knocks
    are not all heard by the knock detector (33 of 40 in a test, 1 of the demo's 4)."""
    from synth.footage_sound import KNOCK_PEAK, render_sound_track
    from synth.sounds import knock, place

    quiet = scenario.model_copy(update={"knocks": []})
    track = render_sound_track(quiet, scenario.length_s(), rate_hz)
    sound = knock(rate_hz)
    sound = sound * (KNOCK_PEAK / float(np.max(np.abs(sound))))
    track = place(track, sound, [k.t for k in scenario.knocks], rate_hz)
    return np.clip(track, -1, 1).astype(np.float32)


def render_game(scenario: Scenario, out: str | Path, crf: int = 23) -> Path:
    """Render `scenario` to `out` (MP4, 720x1280 at 30 fps: what the vision is tuned for) with
    `knock_sound_track` as its sound, and its ground truth to `out`.truth.jsonl; return `out`.
    Deterministic given the scenario."""
    from synth.footage import render_footage

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bruno-render-") as work:
        silent = render_footage(scenario, Path(work) / "silent.mp4", sound=False, crf=crf)
        _mux_with_sound(silent.video, out, knock_sound_track(scenario), KNOCK_RATE_HZ)
        shutil.copyfile(silent.truth, out.with_suffix(".truth.jsonl"))
    return out


def _mux_with_sound(video: Path, out: Path, samples: np.ndarray, rate_hz: int) -> None:
    """`video`'s picture (copied, not re-encoded) with `samples` as an AAC mono track."""
    import av

    with av.open(str(video)) as source, \
            av.open(str(out), "w", options={"movflags": "faststart"}) as target:
        picture = source.streams.video[0]
        copied = target.add_stream_from_template(picture)
        sound = target.add_stream("aac", rate=rate_hz)
        sound.layout = "mono"
        for packet in source.demux(picture):
            if packet.dts is None:  # the demuxer's empty end-of-stream packet
                continue
            packet.stream = copied
            target.mux(packet)
        chunk = 1024
        for start in range(0, len(samples), chunk):
            frame = av.AudioFrame.from_ndarray(samples[None, start:start + chunk],
                                               format="fltp", layout="mono")
            frame.sample_rate, frame.pts = rate_hz, start
            frame.time_base = Fraction(1, rate_hz)
            target.mux(sound.encode(frame))
        target.mux(sound.encode())


def render_demo(out: Path = VIDEO, crf: int = DEMO_CRF) -> Path:
    """Check the scenario, then render it to `out` (and `out`.truth.jsonl) and write its room
    profile; return the video's path."""
    scenario = load_scenario(SCENARIO)
    check_demo(scenario, scenario_truth(scenario))
    write_room_profile(scenario, out.with_suffix(".room.toml"))
    return render_game(scenario, out, crf)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="only check that the scenario gives every penalty rule")
    parser.add_argument("--out", type=Path, default=VIDEO, help="the video to write")
    parser.add_argument("--crf", type=int, default=DEMO_CRF, help="H.264 quality")
    args = parser.parse_args(argv)
    scenario = load_scenario(SCENARIO)
    rulings = check_demo(scenario, scenario_truth(scenario))
    for ruling in rulings:
        if ruling["kind"] == "ruling":
            print(f"{ruling['t']:7.2f} s  seat {ruling['seat']}  {ruling['rule']}")
    if args.check:
        return 0
    video = render_demo(args.out, args.crf)
    size = video.stat().st_size
    print(f"wrote {video} ({size / 1e6:.1f} MB) and {video.with_suffix('.truth.jsonl')}")
    if size > MAX_DEMO_BYTES:
        print(f"warning: over {MAX_DEMO_BYTES / 1e6:.0f} MB; raise --crf")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
