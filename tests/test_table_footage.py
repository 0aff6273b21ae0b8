"""Synthetic footage: deterministic, decodable, with a sound track; truncated files; review."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bruno.review.footage import review_video
from calibration.layout import TableLayout
from evaluation.knock_data import real_knock_excerpts
from referee.eventlog import parse_lines
from synth.footage import FootageRenderer, render_footage
from synth.scenario import Scenario, ScenarioError, load_scenario
from vision.frames import FrameSourceError, read_video

TINY = (180, 320)
SCENARIO = {"players": 4, "dealer": 1, "seed": 21, "duration_s": 4.0,
            "plays": [{"t": 1.0, "seat": 1, "card": "b_4", "linger_s": 0.2},
                      {"t": 2.4, "seat": 2, "card": "b_4", "linger_s": 0.1}],
            "knocks": [{"t": 2.7}], "draws": [], "lighting": [{"t": 3.2, "gain": 0.8}]}


@pytest.fixture(scope="module")
def clip(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("footage") / "clip.mp4"
    render_footage(Scenario.model_validate(SCENARIO), out, TINY,
                   knock_sounds=real_knock_excerpts(48_000))
    return out


def test_the_same_seed_renders_the_same_frames_and_truth():
    scenario = Scenario.model_validate(SCENARIO)
    first, second = FootageRenderer(scenario, TINY), FootageRenderer(scenario, TINY)
    assert first.truth() == second.truth()
    for (t1, a), (t2, b) in zip(first.frames(), second.frames(), strict=True):
        assert t1 == t2
        assert np.array_equal(a, b)


def test_rendered_footage_has_frames_with_times_sound_and_a_truth_log(clip):
    frames = list(read_video(clip))
    assert len(frames) == 120
    assert frames[30].t_s == pytest.approx(1.0, abs=1e-3)
    truth = clip.with_suffix(".truth.jsonl").read_text().splitlines()
    log = parse_lines(truth)
    assert log.setup.players == 4 and log.setup.dealer == 1
    assert [e.kind for e in log.events] == ["card", "card", "knock"]
    import av

    with av.open(str(clip)) as container:
        assert container.streams.audio and container.streams.video[0].width == 320


def test_review_finds_the_plays_and_prints_a_log_replay_reads(clip, tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "bruno", "review", str(clip), "--events-only", "--json",
         "--players", "4", "--dealer", "1", "--cards-from",
         str(clip.with_suffix(".truth.jsonl"))],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert json.loads(lines[0])["kind"] == "game"
    log = parse_lines(lines)
    cards = [(e.card.token, e.seat) for e in log.events if e.kind == "card"]
    assert cards == [("b_4", 1), ("b_4", 2)]


def test_a_truncated_video_keeps_the_events_up_to_the_break(clip, tmp_path):
    cut = tmp_path / "cut.mp4"
    data = clip.read_bytes()
    cut.write_bytes(data[: int(len(data) * 0.6)])
    frames = []
    with pytest.raises(FrameSourceError, match=r"truncated|breaks off|damaged"):
        for frame in read_video(cut):
            frames.append(frame)
    assert 0 < len(frames) < 120
    camera = TableLayout().camera_profile(4, size=TINY)
    from vision.card_readers import TruthReader

    truth = [json.loads(x) for x in clip.with_suffix(".truth.jsonl").read_text().splitlines()]
    result = review_video(cut, camera, TruthReader(truth[1:]), listen=False)
    assert result.error is not None
    assert all(e.t <= result.duration_s for e in result.events)


def test_a_missing_or_unreadable_video_is_one_clear_error(tmp_path):
    with pytest.raises(FrameSourceError, match="no such file"):
        next(read_video(tmp_path / "none.mp4"))
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"not a video at all" * 100)
    with pytest.raises(FrameSourceError, match="cannot be read as a video"):
        next(read_video(junk))


def test_a_scenario_with_a_seat_outside_the_table_names_it(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"players": 3, "plays": [{"t": 1, "seat": 5, "card": "r_1"}]}))
    with pytest.raises(ScenarioError, match="seat 5"):
        load_scenario(bad)


def test_real_faces_land_in_place_of_rendered_ones_and_the_game_plays_out_the_same():
    """A face handed in for a token is the one that lands (here a flat magenta card, which no
    rendered face is), and everything else (the truth, every other pixel's plan) stays as it
    was without it: real and rendered faces of one game can be compared play by play."""
    scenario = Scenario.model_validate(SCENARIO)
    magenta = np.full((300, 200, 3), (255, 0, 255), np.uint8)
    rendered = FootageRenderer(scenario, TINY)
    real = FootageRenderer(scenario, TINY, real_faces={"b_4": [magenta]})
    assert real.truth() == rendered.truth()

    def magenta_pixels(renderer: FootageRenderer) -> int:
        last = list(renderer.frames())[-1][1].astype(int)
        # (lit by the table's light: blue and red well over green, whatever the gain)
        return int(np.sum((last[..., 0] - last[..., 1] > 80) & (last[..., 2] - last[..., 1] > 80)))

    assert magenta_pixels(rendered) == 0
    assert magenta_pixels(real) > 100  # both b_4 on the pile are the handed-in face
