"""A review's folder: events, rulings, a report with the real frames, an annotated video."""

from __future__ import annotations

import json
import math

import av
import numpy as np
import pytest

from audio.recording import knocks_in_recording
from bruno.review.outputs import envelope_of, grab_frames, sound_envelope, write_review_folder
from referee.eventlog import parse_lines
from referee.session import replay

from event_helpers import events_of
from video_helpers import FPS, make_video

GAME = {"t": 0.0, "kind": "game", "variant": "bruno", "players": 4, "dealer": 0}
EVENTS = [{"t": 0.2, "kind": "card", "card": "r_5", "seat": 0},
          {"t": 0.6, "kind": "card", "card": "r_0", "seat": 1}]


def rulings_for(events: list[dict], **settings) -> list[dict]:
    lines = [json.dumps({**GAME, **settings}), *(json.dumps(e) for e in events)]
    log = parse_lines(lines)
    return [r.to_dict() for r in replay(log.setup.new_game(), log.events)]


def test_frames_are_grabbed_at_or_after_each_time(tmp_path):
    video = tmp_path / "game.mp4"
    make_video(video, seconds=2.0)
    frames = grab_frames(video, [1.0, 0.1, 5.0])
    assert set(frames) == {0.1, 1.0, 5.0}  # past the end: the last frame
    assert frames[1.0].shape == (180, 320, 3)


def _counting_video(path, frames: int, gop: int) -> None:
    """Frame i shows i % 15 on its left half and i // 15 on its right, as grey levels."""
    with av.open(str(path), "w") as container:
        video = container.add_stream("libx264", rate=FPS)
        video.width, video.height, video.pix_fmt = 64, 32, "yuv420p"
        video.gop_size = gop
        for i in range(frames):
            image = np.empty((32, 64, 3), np.uint8)
            image[:, :32] = 40 + (i % 15) * 10
            image[:, 32:] = 40 + (i // 15) * 10
            frame = av.VideoFrame.from_ndarray(image, format="bgr24")
            frame.pts = i
            container.mux(video.encode(frame))
        container.mux(video.encode())


def _index_shown(image: np.ndarray) -> int:
    low, high = (round((float(image[:, half].mean()) - 40) / 10) for half in
                 (slice(4, 28), slice(36, 60)))
    return high * 15 + low


def test_frames_grabbed_by_seeking_are_the_first_at_or_after_each_time(tmp_path):
    video = tmp_path / "counting.mp4"
    _counting_video(video, frames=12 * FPS, gop=FPS)  # 12 s, a keyframe a second
    times = [0.0, 0.5, 0.51, 6.0, 6.02, 11.5, 2.0, 30.0]  # far apart: seeks, and one past the end
    frames = grab_frames(video, times)
    expected = {t: min(math.ceil(t * FPS - 1e-6), 12 * FPS - 1) for t in times}
    assert {t: _index_shown(image) for t, image in frames.items()} == expected


def test_the_envelope_follows_the_sound_track_and_is_none_without_one(tmp_path):
    video, silent = tmp_path / "game.mp4", tmp_path / "silent.mp4"
    make_video(video, seconds=2.0)
    make_video(silent, seconds=1.0, sound=False)
    envelope = sound_envelope(video)
    assert envelope is not None and len(envelope.db) == pytest.approx(200, abs=10)
    assert sound_envelope(silent) is None
    # The knock detector's process hands back the track it heard: the same envelope, without
    # reading the sound a second time.
    heard = knocks_in_recording(video, keep_sound=True)
    assert heard.note is None and heard.sound is not None
    np.testing.assert_array_equal(envelope_of(*heard.sound).db, envelope.db)


def test_the_review_folder_holds_all_four_files(tmp_path):
    video = tmp_path / "game.mp4"
    make_video(video, seconds=2.0)
    rulings = rulings_for(EVENTS)
    assert [r["rule"] for r in rulings if r["kind"] == "ruling"] == ["missed_knock"]
    paths = write_review_folder(tmp_path / "review", video, GAME, events_of(EVENTS), rulings,
                                pile_box=(0.4, 0.3, 0.6, 0.7),
                                seat_angles_deg=(90.0, 180.0, 270.0, 0.0))
    lines = paths["events.jsonl"].read_text().splitlines()
    assert json.loads(lines[0])["kind"] == "game" and len(lines) == 3
    assert [json.loads(x) for x in paths["rulings.jsonl"].read_text().splitlines()] == rulings
    page = paths["report.html"].read_text()
    assert page.count("data:image/jpeg;base64,") == 1 and "knock window" in page
    with av.open(str(paths["annotated.mp4"])) as container:
        assert container.streams.audio
        assert sum(1 for _ in container.decode(video=0)) == 2 * FPS
    assert not list((tmp_path / "review").glob("*.part*"))


def test_a_review_of_silent_footage_reports_the_knock_rules_as_not_checked(tmp_path):
    video = tmp_path / "silent.mp4"
    make_video(video, seconds=1.0, sound=False)
    rulings = rulings_for(EVENTS, check_knocks=False)
    assert [r for r in rulings if r["kind"] == "ruling"] == []
    paths = write_review_folder(tmp_path / "review", video, GAME, events_of(EVENTS), rulings,
                                sound_checked=False, annotate=False)
    assert "not checked" in paths["report.html"].read_text()
    assert "annotated.mp4" not in paths
