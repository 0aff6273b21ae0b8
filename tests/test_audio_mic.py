"""The live microphone without a microphone: the ring buffer, and the one-line errors when
there is no PortAudio or no input device (sounddevice is faked or made to fail)."""

import sys
import threading
import types

import numpy as np
import pytest

import audio.mic_source as mic_source
from audio.blocks import AudioSourceError
from audio.detector import DETECTOR_RATE_HZ
from audio.mic_source import SampleRing, read_microphone
from audio.sources import open_microphone


def test_the_ring_hands_over_samples_in_order_with_their_index():
    ring = SampleRing(100)
    ring.write(np.arange(30, dtype=np.float32))
    ring.write(np.arange(30, 50, dtype=np.float32))
    start, samples = ring.read_available(timeout_s=0)
    assert start == 0 and samples.tolist() == list(range(50))
    ring.write(np.arange(50, 60, dtype=np.float32))
    start, samples = ring.read_available(timeout_s=0)
    assert start == 50 and samples.tolist() == list(range(50, 60))


def test_a_reader_that_falls_behind_gets_silence_for_the_lost_samples_so_time_stays_right():
    ring = SampleRing(100)
    ring.write(np.arange(1, 251, dtype=np.float32))
    start, samples = ring.read_available(timeout_s=0)
    assert ring.dropped == 150 and start == 0 and len(samples) == 250
    assert samples[:150].tolist() == [0.0] * 150 and samples[150:].tolist() == list(range(151, 251))


def test_no_portaudio_is_a_one_line_error(monkeypatch):
    def broken():
        raise AudioSourceError("no PortAudio library: install it (apt-get install libportaudio2)")

    monkeypatch.setattr(mic_source, "_import_sounddevice", broken)
    with pytest.raises(AudioSourceError, match="PortAudio"):
        open_microphone(DETECTOR_RATE_HZ)


def test_importing_sounddevice_without_its_library_says_how_to_install_it(monkeypatch):
    class Finder:
        def find_spec(self, name, path=None, target=None):
            if name == "sounddevice":
                raise OSError("PortAudio library not found")
            return None

    monkeypatch.delitem(sys.modules, "sounddevice", raising=False)
    monkeypatch.setattr(sys, "meta_path", [Finder(), *sys.meta_path])
    with pytest.raises(AudioSourceError, match="libportaudio2"):
        mic_source._import_sounddevice()


class FakePortAudioError(Exception):
    pass


def fake_sounddevice(devices_ok=True):
    """A stand-in for the sounddevice module: a device that plays a short recording."""
    module = types.SimpleNamespace(PortAudioError=FakePortAudioError)

    def query_devices(device=None, kind=None):
        if not devices_ok:
            raise FakePortAudioError("Error querying device -1")
        return {"name": "fake", "default_samplerate": 48_000.0, "max_input_channels": 1}

    class InputStream:
        def __init__(self, callback, **kwargs):
            self.callback = callback

        def __enter__(self):
            block = np.full((480, 1), 0.25, dtype=np.float32)
            for _ in range(10):  # 100 ms of sound, delivered as PortAudio would
                self.callback(block, 480, None, None)
            return self

        def __exit__(self, *exc):
            return False

    module.query_devices = query_devices
    module.InputStream = InputStream
    return module


def test_no_input_device_is_a_one_line_error(monkeypatch):
    monkeypatch.setattr(mic_source, "_import_sounddevice", lambda: fake_sounddevice(False))
    with pytest.raises(AudioSourceError, match="no microphone") as caught:
        open_microphone(DETECTOR_RATE_HZ)
    assert "\n" not in str(caught.value)


def test_a_microphone_gives_conformed_blocks_stamped_from_the_sample_count(monkeypatch):
    monkeypatch.setattr(mic_source, "_import_sounddevice", lambda: fake_sounddevice(True))
    stop = threading.Event()
    blocks = []
    for block in open_microphone(DETECTOR_RATE_HZ, stop=stop):
        blocks.append(block)
        if len(blocks) == 5:
            stop.set()
            break
    assert all(b.rate_hz == DETECTOR_RATE_HZ and len(b.samples) == 160 for b in blocks)
    steps = np.diff([b.t_s for b in blocks])
    np.testing.assert_allclose(steps, 0.01, atol=1e-9)


def test_read_microphone_stops_when_asked(monkeypatch):
    monkeypatch.setattr(mic_source, "_import_sounddevice", lambda: fake_sounddevice(True))
    stop = threading.Event()
    stop.set()
    assert list(read_microphone(stop=stop)) == []


def protocol_sounddevice(rate=48_000):
    """A fake microphone that plays the calibration protocol: 5 s of quiet, then 5 knocks."""
    from synth.sounds import knock, noise, place

    sound = place(noise(rate, seconds=13.5, rms=1e-3), knock(rate), [5.5 + i for i in range(5)],
                  rate)
    module = fake_sounddevice(True)

    class InputStream:
        def __init__(self, callback, **kwargs):
            self.callback = callback

        def __enter__(self):
            for start in range(0, len(sound), 480):
                chunk = sound[start : start + 480, None]
                self.callback(chunk, len(chunk), None, None)
            return self

        def __exit__(self, *exc):
            return False

    module.InputStream = InputStream
    return module


def test_live_calibration_prompts_records_the_protocol_and_writes_the_profile(
    monkeypatch, tmp_path, capsys
):
    from bruno.commands.calibrate import mic
    from calibration.profile import load_profile

    monkeypatch.setattr(mic_source, "_import_sounddevice", protocol_sounddevice)
    monkeypatch.setattr(mic_source, "RING_SECONDS", 30.0)  # the fake delivers it all at once
    profile = tmp_path / "room.toml"
    mic(recording=None, profile=profile, device=None, json_out=False)
    out = capsys.readouterr()
    assert "Stay quiet" in out.err and "Now knock 5 times" in out.err
    assert "margin" in out.out
    assert load_profile(profile).mic.knocks_heard == 5
