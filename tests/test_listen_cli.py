"""`bruno listen` and `bruno calibrate mic` as a user runs them: a subprocess, its output
and its exit code."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import soundfile

from synth.sounds import knock, noise, place

ROOT = Path(__file__).resolve().parents[1]
KNOCK_TIMES_S = [0.7, 1.6, 2.45]


def bruno(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bruno", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=60)


@pytest.fixture
def knocks_wav(tmp_path):
    path = tmp_path / "knocks.wav"
    sound = place(noise(44_100, seconds=3.2, rms=5e-4), knock(44_100), KNOCK_TIMES_S, 44_100)
    soundfile.write(path, sound, 44_100)
    return path


def test_listen_json_prints_one_knock_event_per_line_and_nothing_else(knocks_wav):
    result = bruno("listen", "--json", str(knocks_wav))
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["t"] for e in events] == pytest.approx(KNOCK_TIMES_S, abs=0.003)
    for event in events:
        assert list(event) == ["t", "kind", "strength", "confidence"]
        assert event["kind"] == "knock" and 0 <= event["confidence"] <= 1


def test_listen_prints_a_readable_list_and_a_count(knocks_wav):
    result = bruno("listen", str(knocks_wav))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 4 and "knock" in lines[0] and "dB above floor" in lines[0]
    assert lines[-1].startswith("3 knocks heard in 3.2 s")


@pytest.mark.parametrize("args,message", [
    (["listen", "no_such_file.wav"], "no such file"),
    (["listen"], "give either"),
    (["listen", "--profile", "missing.toml", "x.wav"], "no such profile"),
])
def test_bad_input_is_one_line_on_stderr_and_exit_code_2(args, message):
    result = bruno(*args)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_listen_mic_without_a_microphone_is_a_one_line_error():
    result = bruno("listen", "--mic")
    assert result.returncode == 2
    assert ("PortAudio" in result.stderr) or ("microphone" in result.stderr)
    assert "Traceback" not in result.stderr


def test_calibrate_from_a_recording_writes_a_profile_that_listen_uses(tmp_path, knocks_wav):
    rate = 48_000
    protocol = tmp_path / "protocol.wav"
    times = [5.5 + i for i in range(5)]
    soundfile.write(protocol, place(noise(rate, seconds=11.0, rms=1e-3), knock(rate), times,
                                    rate), rate)
    profile = tmp_path / "room.toml"
    result = bruno("calibrate", "mic", "--from", str(protocol), "--profile", str(profile))
    assert result.returncode == 0, result.stderr
    assert "noise floor" in result.stdout and "margin" in result.stdout
    assert "[mic]" in profile.read_text()
    heard = bruno("listen", "--json", "--profile", str(profile), str(knocks_wav))
    assert heard.returncode == 0, heard.stderr
    assert len(heard.stdout.splitlines()) == 3


def test_calibrating_on_claps_warns_that_they_do_not_sound_like_knocks(tmp_path):
    from synth.sounds import clap

    rate = 48_000
    protocol = tmp_path / "claps.wav"
    soundfile.write(protocol, place(noise(rate, seconds=11.0, rms=1e-3), clap(rate),
                                    [5.5 + i for i in range(5)], rate), rate)
    result = bruno("calibrate", "mic", "--from", str(protocol), "--profile",
                   str(tmp_path / "room.toml"))
    assert result.returncode == 0, result.stderr
    assert "only 0 of the 5 sounds taken for knocks sound like knocks" in result.stderr
    # No other sound was heard: the separation line says so instead of being left out.
    assert "no other sound was heard to compare them with" in result.stdout


def test_a_profile_with_a_bad_field_is_refused_by_listen(tmp_path, knocks_wav):
    profile = tmp_path / "room.toml"
    profile.write_text("version = 1\n[mic]\nnoise_floor_db = 'loud'\n")
    result = bruno("listen", "--profile", str(profile), str(knocks_wav))
    assert result.returncode == 2 and "mic.noise_floor_db" in result.stderr


def test_a_video_cut_short_says_where_its_sound_ends_and_exits_3(tmp_path):
    demo = ROOT / "examples" / "demo" / "demo.mp4"
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(demo.read_bytes()[: demo.stat().st_size // 3])
    result = bruno("listen", str(cut))
    assert result.returncode == 3, result.stderr
    (warning,) = result.stderr.strip().splitlines()
    assert warning.startswith(f"bruno: warning: {cut}: the sound ends at ")
    assert "of the 130.0 s the file states" in warning
    whole = bruno("listen", str(demo))
    assert whole.returncode == 0 and whole.stderr == ""


def test_calibrating_from_a_recording_cut_short_says_where_its_sound_ends(tmp_path):
    demo = ROOT / "examples" / "demo" / "demo.mp4"
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(demo.read_bytes()[: demo.stat().st_size // 3])
    result = bruno("calibrate", "mic", "--from", str(cut), "--profile",
                   str(tmp_path / "room.toml"))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    warning, error = result.stderr.strip().splitlines()
    assert warning.startswith(f"bruno: warning: {cut}: the sound ends at ")
    assert error.startswith("bruno: error: ")
    assert not (tmp_path / "room.toml").exists()


@pytest.mark.parametrize("format_", ["FLAC", "MP3"])
def test_a_sound_file_cut_short_hears_only_its_own_knocks_and_says_where_it_ends(tmp_path,
                                                                                format_):
    # A cut MP3 repeated its last buffer as sound (knocks every 0.27 s); a cut FLAC was a
    # traceback ("flac decoder lost sync").
    if format_ not in soundfile.available_formats():
        pytest.skip(f"this libsndfile writes no {format_}")
    whole = tmp_path / f"knocks.{format_.lower()}"
    sound = place(noise(44_100, seconds=4.0, rms=5e-4), knock(44_100), [0.7, 1.6, 2.45, 3.3],
                  44_100)
    soundfile.write(whole, sound, 44_100, format=format_)
    cut = tmp_path / f"cut.{format_.lower()}"
    cut.write_bytes(whole.read_bytes()[: int(whole.stat().st_size * 0.45)])
    result = bruno("listen", "--json", str(cut))
    assert "Traceback" not in result.stderr
    heard = [json.loads(line)["t"] for line in result.stdout.splitlines()]
    assert heard and all(any(abs(t - k) < 0.02 for k in (0.7, 1.6, 2.45)) for t in heard)
    assert result.returncode == 3 and "the sound ends at" in result.stderr


def test_nan_and_inf_samples_are_a_dropout_not_deafness(tmp_path):
    path = tmp_path / "damaged.wav"
    sound = place(noise(44_100, seconds=4.0, rms=5e-4), knock(44_100), [0.7, 1.6, 2.45, 3.3],
                  44_100).astype("float32")
    sound[44_100] = float("nan")
    sound[44_100 + 5] = float("inf")
    soundfile.write(path, sound, 44_100, subtype="FLOAT")
    result = bruno("listen", "--json", str(path))
    assert result.returncode == 0 and result.stderr == ""
    assert len(result.stdout.splitlines()) == 4


@pytest.mark.parametrize("offset", [0.01, 0.1, -0.3])
def test_a_microphones_dc_offset_hides_no_knock(tmp_path, offset):
    # At 1 % of full scale the soft knocks were all missed, at 10 % every knock.
    path = tmp_path / "offset.wav"
    sound = place(noise(44_100, seconds=4.0, rms=5e-4), 0.05 * knock(44_100),
                  [0.7, 1.6, 2.45, 3.3], 44_100) + offset
    soundfile.write(path, sound, 44_100, subtype="PCM_16")
    result = bruno("listen", "--json", str(path))
    assert result.returncode == 0, result.stderr
    heard = [json.loads(line)["t"] for line in result.stdout.splitlines()]
    assert len(heard) == 4
    assert all(abs(t - k) < 0.02 for t, k in zip(heard, [0.7, 1.6, 2.45, 3.3], strict=True))
