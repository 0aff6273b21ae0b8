"""Progress while a review runs: seconds of footage watched (the annotated video is drawn
meanwhile), a second pass for the video only when it has to be drawn again, then the report;
passed on a few times a second, and through a queue from the processes of `--jobs`."""

from __future__ import annotations

import shutil
from itertools import pairwise

import pytest

import bruno.review.annotation_pass as annotation_pass
import bruno.review.pipeline as review_pipeline
from bruno.review.annotated_video import Overlay, write_annotated_video
from bruno.review.footage import review_video
from bruno.review.pipeline import ThrottledProgress, review_footage
from bruno.review.run import ReviewBars, run_reviews
from calibration.camera import load_camera_profile
from synth.footage import DEFAULT_FPS
from vision.frames import video_duration_s

from table_helpers import render_clip
from video_helpers import FPS, make_video

SCENARIO = {"players": 4, "dealer": 1, "seed": 5, "duration_s": 3.0,
            "plays": [{"t": 1.0, "seat": 1, "card": "b_4", "linger_s": 0.1}],
            "knocks": [], "draws": [], "lighting": []}


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    return render_clip(SCENARIO, tmp_path_factory.mktemp("progress"))


def increasing(values: list[float]) -> bool:
    return all(a <= b for a, b in pairwise(values))


def test_watching_reports_every_frame_up_to_the_duration(rendered):
    clip, profile, reader = rendered
    seen: list[float] = []
    result = review_video(clip, load_camera_profile(profile), reader, listen=False,
                          progress=seen.append)
    assert len(seen) == result.frames and increasing(seen)
    assert seen[-1] == pytest.approx(video_duration_s(clip), abs=1e-3)


def test_annotating_reports_every_frame_up_to_the_duration(tmp_path):
    source = tmp_path / "game.mp4"
    make_video(source, seconds=2.0)
    seen: list[float] = []
    written = write_annotated_video(source, tmp_path / "out.mp4", Overlay([], []),
                                    progress=seen.append)
    assert len(seen) == written == 2 * FPS and increasing(seen)
    assert seen[0] == pytest.approx(1 / FPS) and seen[-1] == pytest.approx(2.0)


def by_stage(calls: list[tuple[str, float]]) -> dict[str, list[float]]:
    stages: dict[str, list[float]] = {}
    for stage, seconds in calls:
        stages.setdefault(stage, []).append(seconds)
    return stages


def test_a_review_reports_watching_then_the_report(rendered, tmp_path, monkeypatch):
    clip, profile, reader = rendered
    monkeypatch.setattr(review_pipeline, "PROGRESS_EVERY_S", 0.0)  # every frame
    calls: list[tuple[str, float]] = []
    review_footage(clip, tmp_path / "out", reader, profile=profile, dealer=1,
                   progress=lambda stage, s: calls.append((stage, s)))
    stages = by_stage(calls)
    assert list(stages) == ["watch", "report"]  # the video was drawn while watching
    assert [stage for stage, _ in calls] == sorted(
        (stage for stage, _ in calls), key=["watch", "report"].index)
    duration = video_duration_s(clip)
    frames = round(duration * DEFAULT_FPS)
    assert len(stages["watch"]) >= frames - 1 and increasing(stages["watch"])
    assert stages["watch"][-1] == pytest.approx(duration, abs=1e-3)
    assert stages["report"] == [0.0]


def test_a_second_pass_for_the_video_reports_annotating_before_the_report(rendered, tmp_path,
                                                                         monkeypatch):
    clip, profile, reader = rendered
    monkeypatch.setattr(review_pipeline, "PROGRESS_EVERY_S", 0.0)
    monkeypatch.setattr(annotation_pass, "LAG_S", 0.0)  # drawn before the play is seen
    # ... and at once: it waits for the sound track's knocks at the first frame rather than
    # hold frames until they come (on a busy machine they came after the last frame, and
    # every frame was drawn at the end, right the first time).
    monkeypatch.setattr(annotation_pass, "HOLD_BYTES", 0)
    calls: list[tuple[str, float]] = []
    review_footage(clip, tmp_path / "out", reader, profile=profile, dealer=1,
                   progress=lambda stage, s: calls.append((stage, s)))
    stages = by_stage(calls)
    assert list(stages) == ["watch", "annotate", "report"]
    assert increasing(stages["annotate"])
    assert stages["annotate"][-1] == pytest.approx(video_duration_s(clip), abs=1e-3)


def test_the_bar_grows_by_a_pass_when_the_video_is_drawn_again(rendered):
    from rich.progress import Progress

    clip = rendered[0]
    duration = video_duration_s(clip)
    with Progress(disable=True) as progress:
        bars = ReviewBars(progress, [clip])
        bars.update(0, "watch", duration)
        assert progress.tasks[0].total == pytest.approx(duration)
        bars.update(0, "annotate", duration / 2)
        assert progress.tasks[0].total == pytest.approx(2 * duration)
        assert progress.tasks[0].completed == pytest.approx(1.5 * duration)


def test_without_annotating_there_is_no_annotate_pass_and_reports_are_throttled(
        rendered, tmp_path):
    clip, profile, reader = rendered
    calls: list[tuple[str, float]] = []
    review_footage(clip, tmp_path / "out", reader, profile=profile, dealer=1, annotate=False,
                   progress=lambda stage, s: calls.append((stage, s)))
    stages = by_stage(calls)
    assert set(stages) == {"watch", "report"}
    assert 1 <= len(stages["watch"]) < 20  # a few a second, not one per frame (90)
    assert stages["watch"][-1] == pytest.approx(video_duration_s(clip), abs=1e-3)


def test_the_throttle_passes_on_the_first_and_the_last_value_of_a_burst():
    calls: list[tuple[str, float]] = []
    throttle = ThrottledProgress(lambda stage, s: calls.append((stage, s)), every_s=60.0)
    update = throttle.stage("watch")
    for second in range(10):
        update(float(second))
    throttle.end()
    assert calls == [("watch", 0.0), ("watch", 9.0)]


def test_parallel_reviews_send_their_progress_to_the_bars(rendered, tmp_path, monkeypatch):
    clip, profile, reader = rendered
    copies = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        copies.append(shutil.copy(clip, tmp_path / name / "game.mp4"))
    seen: list[tuple[int, str, float]] = []
    finished: list[tuple[int, bool]] = []
    update, finish = ReviewBars.update, ReviewBars.finish

    def recording_update(self, index, stage, seconds):
        seen.append((index, stage, seconds))
        update(self, index, stage, seconds)

    def recording_finish(self, index, ok):
        finished.append((index, ok))
        finish(self, index, ok)
        if all(self.finished):
            bars.append(self)

    bars: list[ReviewBars] = []
    monkeypatch.setattr(ReviewBars, "update", recording_update)
    monkeypatch.setattr(ReviewBars, "finish", recording_finish)
    results, failures = run_reviews([type(clip)(c) for c in copies], tmp_path / "out", reader,
                                    profile=profile, dealer=1, jobs=2, quiet=True)
    assert failures == [] and len(results) == 2
    assert sorted(finished) == [(0, True), (1, True)]
    duration = video_duration_s(clip)
    for index in (0, 1):
        stages = by_stage([(stage, s) for i, stage, s in seen if i == index])
        assert set(stages) == {"watch", "report"}
        assert stages["watch"][-1] == pytest.approx(duration, abs=1e-3)
    # The bars ended full, the overall line too.
    progress = bars[0].progress
    assert all(task.finished for task in progress.tasks)


def test_parallel_reviews_start_while_opencv_has_its_threads_running(rendered, tmp_path):
    # OpenCV's thread pool, running in this process when the reviewers are forked, must not
    # hang them (a forked process has none of its threads).
    import threading

    import cv2
    import numpy as np

    clip, profile, reader = rendered
    cv2.setNumThreads(2)
    cv2.GaussianBlur(np.zeros((1500, 1500, 3), np.uint8), (9, 9), 0)  # the pool now runs
    copies = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        copies.append(type(clip)(shutil.copy(clip, tmp_path / name / "game.mp4")))
    done: list = []
    thread = threading.Thread(daemon=True, target=lambda: done.append(run_reviews(
        copies, tmp_path / "out", reader, profile=profile, dealer=1, jobs=2, quiet=True)))
    thread.start()
    thread.join(timeout=120)
    assert done, "the forked reviewers hung"
    results, failures = done[0]
    assert failures == [] and len(results) == 2


def test_parallel_reviews_take_a_card_reader_that_cannot_be_pickled(rendered, tmp_path):
    # The recogniser's reader is a closure over a model session: it reaches the reviewing
    # processes by the fork, not with each file's task.
    clip, profile, reader = rendered

    def read(crop, t_s):  # a local function: pickle refuses it
        return reader(crop, t_s)

    copies = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        copies.append(type(clip)(shutil.copy(clip, tmp_path / name / "game.mp4")))
    results, failures = run_reviews(copies, tmp_path / "out", read, profile=profile, dealer=1,
                                    jobs=2, quiet=True)
    assert failures == [] and len(results) == 2
    assert results[0].rulings == results[1].rulings
    assert [e.card for e in results[0].events if e.kind == "card"]  # read by `read`


def test_a_review_writes_only_into_its_own_folders(rendered, tmp_path):
    # A user's folder of the footage's name, and the folder the footage itself lies in (a
    # review of an earlier review's annotated.mp4), are left as they were: the review goes to
    # the next free name.
    clip, profile, reader = rendered
    out = tmp_path / "out"
    mine = out / "game"
    mine.mkdir(parents=True)
    (mine / "report.html").write_text("the user's own report")
    footage = shutil.copy(clip, tmp_path / "game.mp4")
    _, failures = run_reviews([type(clip)(footage)], out, reader, profile=profile,
                              dealer=1, quiet=True, annotate=False)
    assert failures == [] and (mine / "report.html").read_text() == "the user's own report"
    assert sorted(p.name for p in out.iterdir()) == ["game", "game-2"]
    assert (out / "game-2" / "report.html").exists()
    _, failures = run_reviews([type(clip)(footage)], out, reader, profile=profile, dealer=1,
                              quiet=True, annotate=False)  # its own earlier folder: replaced
    assert failures == []
    assert sorted(p.name for p in out.iterdir()) == ["game", "game-2"]
    before = clip.read_bytes()
    nested = tmp_path / "inp" / "annotated"
    nested.mkdir(parents=True)
    footage = shutil.copy(clip, nested / "annotated.mp4")
    _, failures = run_reviews([type(clip)(footage)], tmp_path / "inp", reader,
                              profile=profile, dealer=1, quiet=True)
    assert failures == [] and (nested / "annotated.mp4").read_bytes() == before
    assert (tmp_path / "inp" / "annotated-2" / "annotated.mp4").exists()
