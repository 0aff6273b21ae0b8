"""The live path with a simulated camera and microphone: a rendered game video with knocks on
its sound track, fed at real speed through the same sources a webcam and a microphone use.

The clip (10 s, 320x180) is rendered once per test session. In it seat 0 deals the red 5,
seat 1 plays the red 7, seat 3 inserts the other red 7 and knocks, seat 0 plays the red 0
without knocking (a missed knock), and seat 1 inserts the green 0 and knocks.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from bruno.live.announcer import Announcer
from bruno.live.clock import SessionClock
from bruno.live.runtime import LiveRuntime
from bruno.live.session import LiveSession
from bruno.live.sources import paced_sound, paced_video
from evaluation.knock_data import real_knock_excerpts
from referee.eventlog import GameSetup
from referee.events import parse_event
from referee.session import replay
from synth.footage import render_footage
from synth.scenario import Scenario
from vision.card_readers import TruthReader

SCENARIO = {"players": 4, "dealer": 0, "seed": 3, "duration_s": 10.0,
            "plays": [{"t": 1.0, "seat": 0, "card": "r_5", "linger_s": 0.1},
                      {"t": 2.6, "seat": 1, "card": "r_7", "linger_s": 0.1},
                      {"t": 3.4, "seat": 3, "card": "r_7", "linger_s": 0.1},
                      {"t": 5.2, "seat": 0, "card": "r_0", "linger_s": 0.1},
                      {"t": 7.0, "seat": 1, "card": "g_0", "linger_s": 0.1}],
            "knocks": [{"t": 3.6}, {"t": 7.3}], "draws": [], "lighting": []}


@pytest.fixture(scope="session")
def clip(tmp_path_factory):
    folder = tmp_path_factory.mktemp("live-clip")
    return render_footage(Scenario.model_validate(SCENARIO), folder / "game.mp4", (180, 320),
                         knock_sounds=real_knock_excerpts(48_000))


def truth_rulings(clip) -> list[dict]:
    """What the referee rules on the footage's ground truth, offline."""
    setup = GameSetup(players=4, dealer=0)
    events = [parse_event(e, 4) for e in clip.events[1:]]
    return [r.to_dict() for r in replay(setup.new_game(), events)]


def summary(rulings: list[dict]) -> list[tuple]:
    return [(r["kind"], r["rule"], r["seat"], r.get("card")) for r in rulings]


def read_lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_recorded_game_fed_at_real_speed_is_ruled_spoken_and_journaled(clip, tmp_path):
    clock = SessionClock()
    stop = threading.Event()
    journal = tmp_path / "live.jsonl"
    session = LiveSession(GameSetup(players=4, dealer=0), journal, clock=clock)
    said: list[tuple[float, list[str]]] = []
    announcer = Announcer("en", clock, runner=lambda argv: said.append((clock.now(), argv)))
    runtime = LiveRuntime(session, announcer, read_card=TruthReader(clip.events[1:]), stop=stop,
                          frames=paced_video(clip.video, clock, stop),
                          blocks=paced_sound(clip.video, clock, stop))
    runtime.start()
    try:
        assert runtime.wait()
    finally:
        runtime.stop()
    # Real speed: the clip's 10 s, then the last knock window. (On the session clock, which
    # the paced sources follow from its start, not from when the runtime began: a busy
    # machine takes a moment to set up.)
    took = clock.now()
    assert 10.0 <= took < 14.0

    expected = truth_rulings(clip)
    assert summary(session.rulings) == summary(expected)
    for live, offline in zip(session.rulings, expected, strict=True):
        assert live["t"] == pytest.approx(offline["t"], abs=0.07)
    assert [argv for _, argv in said] == [
        ["espeak-ng", "-v", "en", "Instick."],
        ["espeak-ng", "-v", "en", "Missed knock, seat 0, two cards."],
        ["espeak-ng", "-v", "en", "Instick."],
    ]
    missed = next(r for r in session.rulings if r["rule"] == "missed_knock")
    spoken_at = said[1][0]
    assert missed["t"] < spoken_at < missed["t"] + 1.0  # said once its window closed (~0.2 s)

    lines = read_lines(journal)
    assert lines[0]["kind"] == "game"
    assert [line for line in lines if line["kind"] in ("ruling", "info")] == session.rulings
    cards = [(e["card"], e["seat"]) for e in lines if e["kind"] == "card"]
    assert cards == [(p["card"], p["seat"]) for p in SCENARIO["plays"]]
    assert len([e for e in lines if e["kind"] == "knock"]) == 2
    assert session.snapshot()["sources"] == {"camera": "ended", "mic": "ended"}


def bruno_live(*args, cwd) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-m", "bruno", "live", *map(str, args)], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def wait_for_line(path, wanted, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.exists() and any(wanted(line) for line in read_lines_tolerant(path)):
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} never got the line expected")


def read_lines_tolerant(path) -> list[dict]:
    lines = []
    for text in path.read_text().splitlines():
        with contextlib.suppress(json.JSONDecodeError):  # the line being written
            lines.append(json.loads(text))
    return lines


def test_resume_after_sigkill_mid_game_gives_the_same_state_and_loses_nothing(clip, tmp_path):
    journal = tmp_path / "game.jsonl"
    sources = ["--camera", clip.video, "--mic", clip.video, "--cards-from", clip.truth,
               "--mute", "--port", "0"]
    first = bruno_live(*sources, "--journal", journal, cwd=tmp_path)
    try:
        # Kill it once the red 0 and the turn it gives are journaled: its knock window (to
        # 6.7 s) is still open.
        wait_for_line(journal, lambda e: e.get("card") == "r_0" and e["kind"] == "card", 20)
        red_zero_t = next(e["t"] for e in read_lines_tolerant(journal) if e.get("card") == "r_0")
        wait_for_line(journal, lambda e: e.get("rule") == "turn" and e["t"] >= red_zero_t, 5)
    finally:
        first.send_signal(signal.SIGKILL)
        first.communicate(timeout=10)
    assert first.returncode == -signal.SIGKILL
    before = journal.read_bytes()
    killed = read_lines_tolerant(journal)
    last_turn = [r["seat"] for r in killed if r.get("rule") == "turn"][-1]

    second = bruno_live("--resume", journal, *sources, cwd=tmp_path)
    out, err = second.communicate(timeout=30)
    assert second.returncode == 0, err
    events = [e for e in killed if e["kind"] not in ("game", "clock", "ruling", "info")]
    assert f"replayed {len(events)} events" in out and "differ" not in out
    # The state the replay reached is the one the killed run had announced.
    assert f"State: top card red 0, colour red, seat {last_turn} to play" in out
    assert f"resume with: bruno live --resume {journal}" in out

    after = journal.read_bytes()
    whole = before[:before.rfind(b"\n") + 1]  # a torn last line is dropped, nothing else
    assert after.startswith(whole)
    rulings = [line for line in read_lines(journal) if line["kind"] in ("ruling", "info")]
    assert summary(rulings) == summary(truth_rulings(clip))


def bruno_live_in_process(args, monkeypatch, capfd, cwd) -> tuple[int, str, str]:
    from bruno.cli import main

    monkeypatch.chdir(cwd)
    monkeypatch.setattr(sys, "argv", ["bruno", "live", *map(str, args)])
    with pytest.raises(SystemExit) as exited:
        main()
    out, err = capfd.readouterr()  # the file descriptors: C libraries' warnings count too
    return exited.value.code, out, err


def one_line_error(code: int, err: str) -> str:
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert lines[0].startswith("bruno: error: ")
    return lines[0]


def test_a_missing_camera_or_microphone_is_one_line_saying_what_to_do(clip, tmp_path,
                                                                       monkeypatch, capfd):
    code, _, err = bruno_live_in_process(["--camera", "7", "--no-mic", "--port", "0"],
                                         monkeypatch, capfd, tmp_path)
    camera = one_line_error(code, err)
    assert "camera 7 cannot be opened" in camera and "--camera FILE" in camera
    code, _, err = bruno_live_in_process(
        ["--camera", clip.video, "--mic", "no such microphone", "--port", "0"],
        monkeypatch, capfd, tmp_path)
    assert "--no-mic" in one_line_error(code, err)
    code, _, err = bruno_live_in_process(
        ["--camera", tmp_path / "nothing.mp4", "--no-mic", "--port", "0"],
        monkeypatch, capfd, tmp_path)
    assert "no such file" in one_line_error(code, err)
    assert not list(tmp_path.glob("*.jsonl"))  # nothing was started


def test_no_mic_says_which_rules_are_off_and_ctrl_c_ends_cleanly(clip, tmp_path):
    journal = tmp_path / "game.jsonl"
    run = bruno_live("--camera", clip.video, "--no-mic", "--cards-from", clip.truth, "--mute",
                     "--port", "0", "--journal", journal, cwd=tmp_path)
    try:
        # The green 0 comes after the red 0's knock window closed (6.7 s): with knocks heard,
        # a missed knock would be journaled by now.
        wait_for_line(journal, lambda e: e.get("card") == "g_0", 20)
    finally:
        # Twice, as an impatient table does (or as a signal to the whole process group comes):
        # the second must not cut the shutdown short.
        run.send_signal(signal.SIGINT)
        time.sleep(0.05)
        run.send_signal(signal.SIGINT)
        out, err = run.communicate(timeout=20)
    assert run.returncode == 0, out + err
    assert "knocks are not heard, so these rules are off" in err
    assert "B7" in err and "B8" in err
    assert "bruno calibrate camera" in err  # no profile: the guided message
    assert f"Journal closed: {journal}; resume with: bruno live --resume {journal}" in out
    lines = read_lines(journal)  # closed cleanly: every line whole
    assert lines[0]["check_knocks"] is False
    assert not [line for line in lines if line["kind"] == "ruling"]
    assert [line["card"] for line in lines if line["kind"] == "card"] == [
        p["card"] for p in SCENARIO["plays"]]


def test_a_game_without_knocks_starts_without_a_microphone(clip, tmp_path):
    # DrukUNO listens for nothing: it refused to start on a machine without a microphone
    # unless told --no-mic, and said nothing about it being unneeded.
    journal = tmp_path / "druk.jsonl"
    run = bruno_live("--camera", clip.video, "--variant", "druk", "--cards-from", clip.truth,
                     "--mute", "--port", "0", "--journal", journal, cwd=tmp_path)
    try:
        wait_for_line(journal, lambda e: e.get("kind") == "card", 20)
    finally:
        run.send_signal(signal.SIGINT)
        out, err = run.communicate(timeout=20)
    assert run.returncode == 0, out + err
    assert "microphone" not in err and "knocks are not heard" not in err


def test_the_camera_view_and_a_calibration_saved_from_the_dashboard(clip, tmp_path):
    """The dashboard's still, its layout in pixels, and clicks that turn every seat one place:
    saved into the profile and used by the watcher from then on."""
    import cv2
    import numpy as np

    from bruno.live.capture import CameraCapture
    from calibration.camera import load_camera_profile
    from vision.frames import read_video

    profile, journal = tmp_path / "room.toml", tmp_path / "game.jsonl"
    session = LiveSession(GameSetup(players=4, dealer=0), journal, profile_path=profile)
    assert session.frame_jpeg() is None

    def frames():
        for frame in read_video(clip.video):
            yield frame
            if frame.index == 5:  # before the first card: click the seats one place round
                layout = session.camera_calibration()
                assert (layout["width"], layout["height"]) == (320, 180)
                turned = {**layout, "seats": layout["seats"][1:] + layout["seats"][:1]}
                assert session.save_camera_calibration(turned) == profile

    notes: list[str] = []
    capture = CameraCapture(session, frames(), TruthReader(clip.events[1:]), notes.append)
    capture.run()
    assert not notes
    saved = load_camera_profile(profile)
    assert saved.seat_angles_deg == pytest.approx((180.0, 270.0, 0.0, 90.0), abs=1.0)
    assert session.camera == saved
    session.close()
    seen = [(e["card"], e["seat"]) for e in read_lines(journal) if e["kind"] == "card"]
    assert seen == [(p["card"], (p["seat"] - 1) % 4) for p in SCENARIO["plays"]]

    plain = cv2.imdecode(np.frombuffer(session.frame_jpeg(annotated=False), np.uint8), 1)
    drawn = cv2.imdecode(np.frombuffer(session.frame_jpeg(annotated=True), np.uint8), 1)
    assert plain.shape == drawn.shape == (180, 320, 3)
    assert np.abs(plain.astype(int) - drawn.astype(int)).mean() > 2  # pile box, top card badge
    with pytest.raises(ValueError, match="one point per player"):
        session.save_camera_calibration({**session.camera_calibration(), "seats": [[1, 1]]})
    layout = session.camera_calibration()
    with pytest.raises(ValueError, match="the two draw piles are at one place"):
        session.save_camera_calibration({**layout, "draw_piles": [layout["draw_piles"][0]] * 2})


def test_resume_refuses_a_file_that_is_not_a_journal_and_leaves_it_as_it_was(clip, tmp_path):
    """A plain event log given to --resume: one line, exit 2, not one byte written to it."""
    from pathlib import Path

    events = tmp_path / "ev.jsonl"
    events.write_bytes((Path(__file__).parents[1] / "examples/bruno_every_penalty.jsonl")
                       .read_bytes())
    before = events.read_bytes()
    run = bruno_live("--resume", events, "--camera", clip.video, "--mic", clip.video,
                     "--cards-from", clip.truth, "--mute", "--port", "0", cwd=tmp_path)
    out, err = run.communicate(timeout=60)
    line = one_line_error(run.returncode, err)
    assert f"{events}: not a bruno live journal" in line and "bruno replay" in line
    assert "Resumed" not in out
    assert events.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ev.jsonl"]


def test_a_game_started_with_a_profile_is_resumed_with_it(tmp_path):
    """The journal names the room profile; --resume (from another folder) uses it."""
    from pathlib import Path

    from video_helpers import make_video

    video = tmp_path / "table.mp4"
    make_video(video, seconds=1.0, sound=False)
    profile = Path(__file__).parents[1] / "examples/demo/demo.room.toml"
    journal = tmp_path / "game.jsonl"
    sources = ["--camera", video, "--no-mic", "--mute", "--port", "0"]
    first = bruno_live("--profile", profile, "--journal", journal, *sources, cwd=tmp_path)
    out, err = first.communicate(timeout=60)
    assert first.returncode == 0, err
    assert "No room profile" not in err
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    second = bruno_live("--resume", journal, *sources, cwd=elsewhere)
    out, err = second.communicate(timeout=60)
    assert second.returncode == 0, err
    assert "Resumed" in out
    assert "No room profile" not in err and "calibrate camera" not in err


def test_a_refused_dashboard_option_leaves_no_journal_behind(clip, tmp_path, monkeypatch,
                                                             capfd):
    """A short token and a port in use are refused before the journal is written."""
    import socket

    code, _, err = bruno_live_in_process(
        ["--camera", clip.video, "--no-mic", "--cards-from", clip.truth, "--host", "0.0.0.0",
         "--token", "abc"], monkeypatch, capfd, tmp_path)
    assert "at least 8 characters" in one_line_error(code, err)
    assert not list(tmp_path.glob("*.jsonl"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, _, err = bruno_live_in_process(
            ["--camera", clip.video, "--no-mic", "--cards-from", clip.truth, "--port", port],
            monkeypatch, capfd, tmp_path)
    assert f"cannot listen on 127.0.0.1:{port}" in one_line_error(code, err)
    assert not list(tmp_path.glob("*.jsonl"))


def test_a_dashboard_beyond_this_machine_without_a_token_gets_one_made(tmp_path):
    import re

    from video_helpers import make_video

    video = tmp_path / "table.mp4"
    make_video(video, seconds=1.0, sound=False)
    run = bruno_live("--camera", video, "--no-mic", "--mute", "--host", "0.0.0.0", "--port",
                     "0", "--journal", tmp_path / "game.jsonl", cwd=tmp_path)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 0, err
    address = re.search(r"dashboard (http://\S+:\d+/\?token=(\S+))", out)
    assert address, out
    token = address.group(2)
    assert len(token) >= 16 and f"made for you: {token}" in err
