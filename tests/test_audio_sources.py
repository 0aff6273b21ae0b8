"""Every input gives the same blocks: sound files at any rate and channel count, a video's
sound track, and clear one-line errors for files that cannot be heard."""

import av
import numpy as np
import pytest
import soundfile

from audio.blocks import AudioSourceError, array_blocks
from audio.detector import DETECTOR_RATE_HZ, detect_knocks
from audio.resample import StreamingResampler, downmix
from audio.sources import open_recording
from synth.sounds import knock, noise, place

KNOCK_TIMES_S = [0.8, 1.9]


def heard_times(path):
    return [k.t_s for k in detect_knocks(open_recording(path, DETECTOR_RATE_HZ).blocks)]


def test_resampling_a_sine_keeps_its_frequency_and_level():
    rate_in = 44_100
    t = np.arange(rate_in) / rate_in
    sine = np.sin(2 * np.pi * 1000 * t).astype(np.float32)
    out = np.concatenate([b.samples for b in array_blocks(sine, rate_in, 16_000)])
    steady = out[2000:14000]
    spectrum = np.abs(np.fft.rfft(steady * np.hanning(len(steady))))
    peak_hz = np.argmax(spectrum) * 16_000 / len(steady)
    assert peak_hz == pytest.approx(1000, abs=3)
    assert np.sqrt(np.mean(steady**2)) == pytest.approx(np.sqrt(0.5), rel=0.02)


def test_resampling_removes_what_the_output_rate_cannot_hold():
    rate_in = 48_000
    t = np.arange(rate_in) / rate_in
    too_high = np.sin(2 * np.pi * 12_000 * t).astype(np.float32)  # above 8 kHz Nyquist
    out = StreamingResampler(rate_in, 16_000).process(too_high)
    assert np.sqrt(np.mean(out[500:] ** 2)) < 0.01


def test_the_resampler_gives_the_same_samples_whole_or_in_pieces():
    signal = np.random.default_rng(0).standard_normal(48_000).astype(np.float32)
    whole = StreamingResampler(48_000, 16_000).process(signal)
    resampler = StreamingResampler(48_000, 16_000)
    pieces = np.concatenate([resampler.process(signal[i : i + 997]) for i in range(0, 48_000, 997)])
    np.testing.assert_allclose(pieces, whole[: len(pieces)], atol=1e-6)
    assert len(whole) - len(pieces) <= 1


def test_downmix_averages_the_channels():
    stereo = np.array([[1.0, 0.0], [0.5, 0.5]], dtype=np.float32)
    np.testing.assert_allclose(downmix(stereo), [0.5, 0.5])


def test_a_stereo_recording_whose_channels_cancel_is_heard_on_one_channel():
    # One channel's polarity turned: the mean is silence, and calibration said "heard no
    # knocks" of a recording full of them.
    t = np.arange(1600) / 16_000
    tone = (0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    mono = downmix(np.stack([tone, -tone], axis=1))
    np.testing.assert_allclose(mono, tone)
    half = downmix(np.stack([tone, np.zeros_like(tone)], axis=1))  # one channel silent
    np.testing.assert_allclose(half, tone / 2)


@pytest.mark.parametrize("rate_hz,channels,subtype", [(44_100, 2, "PCM_16"), (48_000, 1, "FLOAT"),
                                                      (8_000, 3, "PCM_24"), (16_000, 1, "PCM_16")])
def test_a_sound_file_at_any_rate_and_channel_count_gives_the_knocks_at_their_times(
    tmp_path, rate_hz, channels, subtype
):
    mono = place(noise(rate_hz, seconds=3.0, rms=3e-4), knock(rate_hz), KNOCK_TIMES_S, rate_hz)
    samples = np.stack([mono] * channels, axis=1)
    path = tmp_path / f"knocks_{rate_hz}.wav"
    soundfile.write(path, samples, rate_hz, subtype=subtype)
    assert heard_times(path) == pytest.approx(KNOCK_TIMES_S, abs=0.003)


def test_flac_and_ogg_files_are_read(tmp_path):
    mono = place(noise(seconds=3.0, rms=3e-4), knock(), KNOCK_TIMES_S)
    for name in ("k.flac", "k.ogg"):
        soundfile.write(tmp_path / name, mono, 16_000)
        assert heard_times(tmp_path / name) == pytest.approx(KNOCK_TIMES_S, abs=0.004)


def write_video(path, sound=None, rate_hz=48_000, seconds=3.0):
    """A small MP4 made with PyAV: grey frames, and an AAC sound track when `sound` is given."""
    with av.open(str(path), "w") as container:
        video = container.add_stream("libx264", rate=10)
        video.width, video.height, video.pix_fmt = 64, 48, "yuv420p"
        audio = None
        if sound is not None:
            audio = container.add_stream("aac", rate=rate_hz)
            audio.layout = "stereo"
        for i in range(int(seconds * 10)):
            frame = av.VideoFrame.from_ndarray(np.full((48, 64, 3), 80, np.uint8), format="rgb24")
            frame.pts = i
            for packet in video.encode(frame):
                container.mux(packet)
        for packet in video.encode():
            container.mux(packet)
        if audio is not None:
            stereo = np.stack([sound, sound]).astype(np.float32)  # planar (channels, samples)
            step = 1024
            for start in range(0, stereo.shape[1], step):
                chunk = np.ascontiguousarray(stereo[:, start : start + step])
                frame = av.AudioFrame.from_ndarray(chunk, format="fltp", layout="stereo")
                frame.sample_rate = rate_hz
                frame.pts = start
                for packet in audio.encode(frame):
                    container.mux(packet)
            for packet in audio.encode():
                container.mux(packet)


def test_the_sound_track_of_a_video_gives_the_knocks_at_their_media_times(tmp_path):
    sound = place(noise(48_000, seconds=3.0, rms=3e-4), knock(48_000), KNOCK_TIMES_S, 48_000)
    path = tmp_path / "table.mp4"
    write_video(path, sound)
    opened = open_recording(path, DETECTOR_RATE_HZ)
    assert opened.duration_s == pytest.approx(3.0, abs=0.2)
    times = [k.t_s for k in detect_knocks(opened.blocks)]
    # AAC priming is removed by the decoder's timestamps: the knocks keep their times.
    assert times == pytest.approx(KNOCK_TIMES_S, abs=0.005)


def test_a_video_with_no_sound_track_is_a_one_line_error(tmp_path):
    path = tmp_path / "silent.mp4"
    write_video(path, sound=None)
    with pytest.raises(AudioSourceError, match="no sound track") as caught:
        open_recording(path, DETECTOR_RATE_HZ)
    assert "\n" not in str(caught.value)


def test_a_missing_file_is_a_one_line_error(tmp_path):
    with pytest.raises(AudioSourceError, match="no such file"):
        open_recording(tmp_path / "nothing.wav", DETECTOR_RATE_HZ)


def test_a_file_that_is_neither_sound_nor_video_is_a_one_line_error(tmp_path):
    path = tmp_path / "notes.wav"
    path.write_text("these are not samples")
    with pytest.raises(AudioSourceError, match="cannot open"):
        open_recording(path, DETECTOR_RATE_HZ)


def test_a_folder_is_not_a_recording(tmp_path):
    with pytest.raises(AudioSourceError, match="folder"):
        open_recording(tmp_path, DETECTOR_RATE_HZ)
