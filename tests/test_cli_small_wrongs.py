"""The command line's small wrongs of issue 24 (item 6): one style of error, the right advice,
counts in the right number, `--version`, flags without a type in their help."""

from __future__ import annotations

import importlib.abc
import subprocess
import sys
from pathlib import Path

import pytest

import bruno

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "examples" / "demo" / "demo.mp4"


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bruno", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def one_error_line(result: subprocess.CompletedProcess) -> str:
    """The one `bruno: error:` line a refused command prints (exit code 2), nothing else."""
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bruno: error: "), result.stderr
    return lines[0]


def test_version():
    result = run("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"bruno {bruno.__version__}"


@pytest.mark.parametrize("args", [("review", "x.mp4", "--jobs", "many"),
                                  ("replay", "--no-such-option", "x.jsonl"),
                                  ("review",),
                                  ("calibrate", "camera", "--players", "11")])
def test_usage_errors_are_one_bruno_error_line(args):
    line = one_error_line(run(*args))
    assert "╭" not in line and "--help" in line


@pytest.mark.parametrize(("args", "where"), [(("review", "--out"), "bruno review"),
                                             (("calibrate", "camera", "--at"),
                                              "bruno calibrate camera")])
def test_an_options_missing_value_points_to_its_commands_help(args, where):
    line = one_error_line(run(*args))
    assert "requires an argument" in line and line.endswith(f"(see `{where} --help`)")


def test_flags_show_no_bool_type_in_the_help():
    for command in (("review",), ("replay",), ("demo",), ("calibrate", "camera"), ()):
        result = run(*command, "--help")
        assert result.returncode == 0
        assert "<bool>" not in result.stdout, command
    assert "<path>" in run("review", "--help").stdout  # options that take a value keep theirs


def test_counts_are_in_the_right_number(tmp_path):
    from bruno.rulings_table import counted

    assert [counted(n, "penalty", "penalties") for n in (0, 1, 2)] == [
        "0 penalties", "1 penalty", "2 penalties"]
    assert counted(1, "ruling") == "1 ruling" and counted(3, "play") == "3 plays"
    log = tmp_path / "one.jsonl"
    log.write_text('{"t": 0, "kind": "game", "players": 3, "dealer": 0}\n'
                   '{"t": 1, "kind": "card", "card": "r_5", "seat": null}\n'
                   '{"t": 3, "kind": "card", "card": "b_9", "seat": 1}\n')
    result = run("replay", log)
    assert result.returncode == 0, result.stderr
    assert "1 penalty in" in result.stdout and "1 penalties" not in result.stdout


def test_review_of_a_folder_says_it_is_a_folder(tmp_path):
    line = one_error_line(run("review", tmp_path, "--out", tmp_path / "out"))
    assert "is a folder" in line and "no such file" not in line and "*.mp4" in line


def test_identify_of_a_folder_says_it_is_a_folder(tmp_path):
    result = run("identify", tmp_path)
    assert result.returncode != 0
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith("bruno: error: ") and "is a folder" in line and "*.jpg" in line
    assert "not a readable image" not in line


def test_no_video_and_full_size_video_contradict(tmp_path):
    line = one_error_line(run("review", DEMO, "--no-video", "--full-size-video",
                              "--out", tmp_path))
    assert "--no-video" in line and "--full-size-video" in line
    assert not any(tmp_path.iterdir())


def test_calibrate_camera_at_past_the_end_of_the_video_is_refused(tmp_path):
    line = one_error_line(run("calibrate", "camera", "--from", DEMO, "--at", "500",
                              "--out", tmp_path / "room.toml"))
    assert "--at 500" in line and "130.0 s" in line
    assert not (tmp_path / "room.toml").exists()


def test_calibrate_camera_without_a_camera_is_one_line_that_suggests_from(tmp_path):
    line = one_error_line(run("calibrate", "camera", "--camera", "/dev/video-not-there",
                              "--out", tmp_path / "room.toml"))
    assert "--from RECORDING" in line and "WARN" not in line


class _NoPortAudio(importlib.abc.MetaPathFinder):
    """`import sounddevice` fails as it does when libportaudio2 is not installed."""

    def find_spec(self, name, path=None, target=None):
        if name == "sounddevice":
            raise OSError("PortAudio library not found")
        return None


def test_calibrate_mic_without_portaudio_advises_from(monkeypatch, capsys, tmp_path):
    from bruno.cli import main

    monkeypatch.delitem(sys.modules, "sounddevice", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_NoPortAudio(), *sys.meta_path])
    monkeypatch.setattr(sys, "argv", ["bruno", "calibrate", "mic",
                                      "--profile", str(tmp_path / "room.toml")])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "--from RECORDING" in err and "--mic" not in err and "libportaudio2" in err


@pytest.mark.parametrize("whole_group", [True, False])
def test_ctrl_c_stops_a_review_at_once_with_one_line_and_code_130(tmp_path, whole_group):
    # A terminal's Ctrl-C reaches every process of the group (the sound worker too); a
    # `kill -INT` reaches the parent alone. Either way: no worker's traceback, no process
    # left behind, nothing waited for.
    import os
    import signal
    import time

    review = subprocess.Popen(
        [sys.executable, "-m", "bruno", "review", str(DEMO), "--out", str(tmp_path)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # Once the watch is under way (its video is being drawn): a loaded machine may take
    # seconds just to start Python.
    started = time.monotonic()
    while not list(tmp_path.glob("*/annotated.part.mp4")) and time.monotonic() - started < 60:
        time.sleep(0.2)
    time.sleep(1.0)
    if whole_group:
        os.killpg(review.pid, signal.SIGINT)
    else:
        review.send_signal(signal.SIGINT)
    _, err = review.communicate(timeout=120)
    assert review.returncode == 130
    assert "Traceback" not in err and err.rstrip().endswith("bruno: interrupted")
    time.sleep(0.5)
    with pytest.raises(ProcessLookupError):
        os.killpg(review.pid, 0)  # the whole group is gone


def test_demo_into_a_file_is_one_line_and_nothing_else(tmp_path):
    taken = tmp_path / "a-file"
    taken.write_text("mine")
    line = one_error_line(run("demo", "--out", taken))
    assert "cannot write the review there" in line and taken.read_text() == "mine"


def test_an_unknown_variant_on_review_is_one_line_before_any_video_is_read(tmp_path):
    out = tmp_path / "review"
    line = one_error_line(run("review", ROOT / "examples" / "demo" / "demo.mp4",
                              "--variant", "drunk", "--out", out))
    assert line.startswith("bruno: error: --variant: unknown variant 'drunk'")
    assert not out.exists()  # no half review folder left behind
