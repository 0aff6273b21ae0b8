"""A footage file reviewed end to end into its folder, on a tiny rendered clip."""

from __future__ import annotations

import json

import pytest

from bruno.review.outputs import REVIEW_MARK
from bruno.review.pipeline import ReviewError, review_footage
from vision.card_readers import TruthReader
from vision.frames import video_duration_s

from table_helpers import MISSED_KNOCK_GAME, render_clip

SCENARIO = MISSED_KNOCK_GAME


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    return render_clip(SCENARIO, tmp_path_factory.mktemp("review"))


def test_the_review_folder_rules_on_what_the_footage_shows(rendered, tmp_path):
    clip, profile, reader = rendered
    outcome = review_footage(clip, tmp_path / "out", reader, profile=profile, dealer=1)
    assert outcome.sound_checked
    assert [(e.card.token, e.seat) for e in outcome.events if e.kind == "card"] == [
        ("b_4", 1), ("b_4", 2)]
    assert [(r["rule"], r["seat"]) for r in outcome.rulings if r["kind"] == "ruling"] == [
        ("missed_knock", 2)]
    saved = [json.loads(line) for line in outcome.files["rulings.jsonl"].read_text().splitlines()]
    assert saved == outcome.rulings
    page = outcome.files["report.html"].read_text()
    assert page.count("data:image/jpeg;base64,") == 1 and "knock window" in page
    # The report's duration is the video's, not its last event's (issue 24, item 6).
    length = video_duration_s(clip)
    assert length > max(e.t for e in outcome.events) + 0.5
    minutes, seconds = divmod(length, 60)
    assert f"<th>Duration</th><td>{int(minutes)}:{seconds:04.1f}</td>" in page
    assert outcome.files["annotated.mp4"].stat().st_size > 10_000


def test_a_file_that_is_no_video_cannot_be_reviewed(tmp_path):
    bogus = tmp_path / "notes.mp4"
    bogus.write_text("hello")
    with pytest.raises(ReviewError):
        review_footage(bogus, tmp_path / "out", TruthReader([]))


def bruno(*args: str):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "bruno", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def _review_clip(rendered, out, *extra: str):
    """`bruno review` of the rendered clip, its cards from the truth; (result, its folder)."""
    clip, profile, _ = rendered
    result = bruno("review", clip, "--profile", profile, "--dealer", "1", "--cards-from",
                   clip.with_suffix(".truth.jsonl"), "--out", out, *extra)
    assert result.returncode == 0, result.stderr
    return result, out / "game"


def _penalties(rulings: list[dict]) -> list[tuple[str, int]]:
    return [(r["rule"], r["seat"]) for r in rulings if r["kind"] == "ruling"]


def test_bruno_review_writes_the_folder_and_prints_the_rulings_as_json(rendered, tmp_path):
    result, folder = _review_clip(rendered, tmp_path / "out", "--json")
    rulings = [json.loads(line) for line in result.stdout.splitlines()]
    assert _penalties(rulings) == [("missed_knock", 2)]
    assert {p.name for p in folder.iterdir()} == {"events.jsonl", "rulings.jsonl",
                                                 "report.html", "annotated.mp4", REVIEW_MARK}


def test_bruno_review_with_no_video_writes_the_rest_of_the_folder(rendered, tmp_path):
    result, folder = _review_clip(rendered, tmp_path / "out", "--no-video")
    assert {p.name for p in folder.iterdir()} == {"events.jsonl", "rulings.jsonl",
                                                 "report.html", REVIEW_MARK}
    rulings = [json.loads(line) for line in (folder / "rulings.jsonl").read_text().splitlines()]
    assert _penalties(rulings) == [("missed_knock", 2)]
    assert "report:" in result.stdout and "annotated" not in result.stdout


def test_bruno_review_refuses_an_unwritable_folder_and_a_non_video_in_one_line(rendered,
                                                                             tmp_path):
    clip, profile, _ = rendered
    blocked = tmp_path / "file"
    blocked.write_text("x")
    result = bruno("review", clip, "--out", blocked / "sub")
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "cannot write the review there" in result.stderr
    bogus = tmp_path / "notes.mp4"
    bogus.write_text("hello")
    result = bruno("review", bogus, "--profile", profile, "--out", tmp_path / "out")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "notes.mp4" in result.stderr
    assert f"{bogus}: {bogus}:" not in result.stderr  # the file is named once before its fault


def test_a_damaged_video_is_reviewed_up_to_the_break_and_exits_3_both_ways(rendered, tmp_path):
    """The full review and --events-only agree: what was read is kept and written, stderr
    says where the video broke and that the review is incomplete, and the exit code is 3."""
    clip, profile, _ = rendered
    cut = tmp_path / "cut.mp4"
    data = clip.read_bytes()
    cut.write_bytes(data[: int(len(data) * 0.6)])
    common = ["--profile", profile, "--dealer", "1", "--cards-from",
              clip.with_suffix(".truth.jsonl")]
    full = bruno("review", cut, *common, "--no-video", "--json", "--out", tmp_path / "out")
    events = bruno("review", cut, *common, "--events-only", "--json")
    for result in (full, events):
        assert result.returncode == 3, result.stderr
        assert "Traceback" not in result.stderr
        said = [line for line in result.stderr.splitlines() if "incomplete" in line]
        assert len(said) == 1 and said[0].startswith(f"bruno: warning: {cut}: the video ")
        assert "(exit code 3)" in said[0]
    log = [json.loads(line) for line in events.stdout.splitlines()]
    assert log[0]["kind"] == "game"
    folder = tmp_path / "out" / "cut"
    assert {p.name for p in folder.iterdir()} == {"events.jsonl", "rulings.jsonl",
                                                 "report.html", REVIEW_MARK}
    written = [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]
    assert [e for e in written if e["kind"] != "game"] == log[1:]  # the same events, kept
    assert [json.loads(line) for line in full.stdout.splitlines()] == [
        json.loads(line) for line in (folder / "rulings.jsonl").read_text().splitlines()]
    assert "Incomplete review: the video breaks off" in (folder / "report.html").read_text()


def test_a_video_without_sound_says_on_stderr_that_the_knock_rules_were_not_checked(tmp_path):
    from video_helpers import make_video

    silent = tmp_path / "silent.mp4"
    make_video(silent, seconds=1.0, sound=False)
    for extra in ([], ["--json"], ["--events-only", "--json"]):
        result = bruno("review", silent, "--no-video", "--out", tmp_path / "out", *extra)
        assert result.returncode == 0, result.stderr
        said = [line for line in result.stderr.splitlines() if "no sound track" in line]
        assert len(said) == 1, result.stderr
        assert said[0].startswith(f"bruno: warning: {silent} has no sound track")
        assert "knock rules (B7 instick, B8 zeros, B10 going out)" in said[0]
        assert "no sound track" not in result.stdout  # stdout is the contract's (or the summary)


def test_bruno_review_takes_rule_settings_with_set(rendered, tmp_path):
    clip, profile, _ = rendered
    result = bruno("review", clip, "--profile", profile, "--events-only", "--json",
                   "--cards-from", clip.with_suffix(".truth.jsonl"),
                   "--set", "seg_after_s=8", "--set", "knock_after_s=1.5")
    assert result.returncode == 0, result.stderr
    game = json.loads(result.stdout.splitlines()[0])
    assert game["seg_after_s"] == 8 and game["knock_after_s"] == 1.5
    result = bruno("review", clip, "--set", "no_such_rule=1", "--out", tmp_path)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "unknown setting 'no_such_rule'" in result.stderr
