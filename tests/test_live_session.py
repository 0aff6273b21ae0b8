"""The live session without camera or microphone: manual events, the journal, resuming it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bruno.live.journal import JournalError, read_journal
from bruno.live.session import LiveSession
from referee.eventlog import GameSetup

EXAMPLES = Path(__file__).parents[1] / "examples"

def journal_lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


GAME_LINE = ('{"t": 0.0, "kind": "game", "players": 4, "dealer": 0, '
             '"journal": {"version": 1, "profile": null}}\n')
"""A journal's first line as `bruno live` writes it: the game line with the journal's mark."""


def test_manual_events_are_ruled_journaled_and_shown(tmp_path):
    path = tmp_path / "game.jsonl"
    with LiveSession(GameSetup(players=4, dealer=0), journal=path) as session:
        assert [r["seat"] for r in session.submit({"kind": "card", "card": "r_5", "seat": 0})
                if r["rule"] == "turn"] == [1]
        session.submit({"kind": "card", "card": "r_7", "seat": 1})
        snapshot = session.snapshot()
        assert (snapshot["turn"], snapshot["top"], snapshot["top_seat"], snapshot["color"]) == (
            2, "r_7", 1, "r")
        session.submit({"kind": "call", "word": "stop", "seat": 3})
        assert session.snapshot()["paused"]
        with pytest.raises(ValueError, match="unknown card"):
            session.submit({"kind": "card", "card": "r_11", "seat": 2})
        count, rulings = session.rulings_since(0)
    lines = journal_lines(path)
    game = {key: value for key, value in lines[0].items() if key != "journal"}
    assert game == {"t": 0.0, "kind": "game", "variant": "bruno", "players": 4, "dealer": 0}
    assert lines[0]["journal"]["version"] == 1
    assert [e["card"] for e in lines if e["kind"] == "card"] == ["r_5", "r_7"]
    assert [r for r in lines if r["kind"] in ("info", "ruling")] == rulings
    assert count == len(rulings) == 2


def test_a_table_of_another_game_is_refereed_journaled_and_shown_as_that_game(tmp_path):
    path = tmp_path / "game.jsonl"
    with LiveSession(GameSetup(variant="snabb", players=4, dealer=0), journal=path) as session:
        session.submit({"kind": "card", "card": "r_5", "seat": None})
        session.submit({"kind": "card", "card": "r_7", "seat": 1})
        said = session.submit({"kind": "card", "card": "r_7", "seat": 3})
        assert (session.snapshot()["variant"], session.snapshot()["game"]) == ("snabb",
                                                                              "Snabb-UNO")
    assert [r["message"] for r in said if r["rule"] == "instick"] == [
        "Jump-in by seat 3: the red 7."]
    assert journal_lines(path)[0]["variant"] == "snabb"


def test_a_missed_knock_is_ruled_when_its_window_closes_and_undo_withdraws_it(tmp_path):
    path = tmp_path / "game.jsonl"
    setup = GameSetup(players=3, dealer=0, settings={"knock_after_s": 0.3})
    with LiveSession(setup, journal=path) as session:
        session.submit({"kind": "card", "card": "g_3", "seat": 0})
        session.submit({"kind": "card", "card": "g_0", "seat": 1})  # a zero needs a knock
        _, new = session.rulings_since(len(session.rulings), timeout_s=2.0)
        assert [(r["rule"], r["seat"]) for r in new] == [("missed_knock", 1)]
        zero_t = next(e["t"] for e in journal_lines(path) if e.get("card") == "g_0")
        assert new[0]["t"] == pytest.approx(zero_t + 0.3, abs=1e-3)
        withdrawn = session.submit({"kind": "undo"})
        assert [(r["rule"], r["seat"]) for r in withdrawn] == [("withdrawn", 1)]


def test_rulings_since_waits_for_a_ruling_and_gives_up_after_its_timeout():
    with LiveSession(GameSetup(players=2)) as session:
        assert session.rulings_since(0, timeout_s=0.05) == (0, [])
        session.submit({"kind": "card", "card": "b_2", "seat": 0})
        index, rulings = session.rulings_since(0, timeout_s=1.0)
        assert index == 1 and rulings[0]["rule"] == "turn"


def test_a_journal_of_another_game_is_not_overwritten(tmp_path):
    path = tmp_path / "old.jsonl"
    path.write_text('{"t": 0.0, "kind": "game", "players": 4, "dealer": 0}\n')
    with pytest.raises(ValueError, match="--resume"):
        LiveSession(GameSetup(players=4), journal=path)


def test_resume_gets_the_same_state_and_appends_to_the_same_journal(tmp_path):
    path = tmp_path / "game.jsonl"
    with LiveSession(GameSetup(players=4, dealer=2), journal=path) as session:
        for card, seat in (("y_4", 2), ("y_9", 3), ("b_9", 0)):
            session.submit({"kind": "card", "card": card, "seat": seat})
        session.submit({"kind": "color", "color": "g"})
        before = session.snapshot()
        said = list(session.rulings)
    written = path.read_text()
    resumed, report = LiveSession.resume(path)
    with resumed:
        assert report.same and report.events == 4 and not report.torn
        after = resumed.snapshot()
        assert {k: after[k] for k in ("turn", "top", "color", "dealer")} == {
            k: before[k] for k in ("turn", "top", "color", "dealer")}
        assert resumed.rulings == said
        assert resumed.clock.now() >= max(e["t"] for e in journal_lines(path))
        resumed.submit({"kind": "card", "card": "b_1", "seat": 1})
    assert path.read_text().startswith(written)
    assert [e["card"] for e in journal_lines(path) if e["kind"] == "card"][-1] == "b_1"


def test_a_torn_last_line_is_dropped_and_cut_off_before_appending(tmp_path):
    path = tmp_path / "game.jsonl"
    with LiveSession(GameSetup(players=4), journal=path) as session:
        session.submit({"kind": "card", "card": "r_5", "seat": 0})
    whole = path.read_text()
    path.write_text(whole + '{"t": 9.5, "kind": "card", "card": "r_')
    resumed, report = LiveSession.resume(path)
    with resumed:
        assert report.torn and report.events == 1 and "torn" in report.describe()
        resumed.submit({"kind": "card", "card": "r_6", "seat": 1})
    lines = journal_lines(path)  # every line is whole JSON again
    assert path.read_text().startswith(whole)
    assert [e["card"] for e in lines if e["kind"] == "card"] == ["r_5", "r_6"]


def test_rulings_the_crash_kept_out_of_the_journal_are_added_on_resume(tmp_path):
    path = tmp_path / "game.jsonl"
    path.write_text(GAME_LINE + '{"t": 1.0, "kind": "card", "card": "r_5", "seat": 0}\n'
                    '{"t": 1.3, "kind": "clock"}\n')
    resumed, report = LiveSession.resume(path)
    resumed.close()
    assert report.cut_off and report.cut_off[0]["rule"] == "turn"
    assert journal_lines(path)[-1] == report.cut_off[-1]


def test_a_journal_damaged_in_the_middle_is_refused_with_its_line(tmp_path):
    path = tmp_path / "game.jsonl"
    path.write_text(GAME_LINE + 'garbage\n'
                    '{"t": 1.0, "kind": "card", "card": "r_5", "seat": 0}\n')
    with pytest.raises(JournalError, match="line 2"):
        read_journal(path)
    with pytest.raises(JournalError, match="no such journal"):
        read_journal(tmp_path / "missing.jsonl")


def test_a_file_that_is_not_a_journal_is_refused_and_left_as_it_was(tmp_path):
    plain = tmp_path / "events.jsonl"  # an event log: a game line, then events
    plain.write_bytes((EXAMPLES / "bruno_every_penalty.jsonl").read_bytes())
    rulings = tmp_path / "rulings.jsonl"
    rulings.write_text('{"t": 1.0, "kind": "info", "rule": "turn", "seat": 1, '
                       '"message": "Seat 1 to play."}\n')
    video = tmp_path / "game.mp4"
    video.write_bytes(b"\x00\x00\x00\x18ftypmp42\n\xff\xfe garbage \n" * 20)
    for path in (plain, rulings, video):
        before = path.read_bytes()
        with pytest.raises(JournalError, match="not a bruno live journal") as refused:
            LiveSession.resume(path)
        assert str(path) in str(refused.value) and "\n" not in str(refused.value)
        assert path.read_bytes() == before
    with pytest.raises(JournalError, match=r"not a bruno live journal.*'journal' mark"):
        read_journal(plain)


def test_a_journal_refused_on_replay_is_left_as_it_was_torn_line_and_all(tmp_path):
    path = tmp_path / "game.jsonl"
    path.write_text(GAME_LINE + '{"t": 1.0, "kind": "card", "card": "r_5", "seat": 7}\n'
                    '{"t": 2.0, "kind": "card", "card": "r_')
    before = path.read_bytes()
    with pytest.raises(JournalError, match=r"the event at t=1\.0: 'seat' 7"):
        LiveSession.resume(path)
    assert path.read_bytes() == before


def test_the_journal_remembers_the_room_profile_and_a_resume_uses_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "game.jsonl"
    with LiveSession(GameSetup(players=4), journal=path, profile_path="room.toml") as session:
        session.submit({"kind": "card", "card": "r_5", "seat": 0})
    assert journal_lines(path)[0]["journal"] == {"version": 1,
                                                 "profile": str(tmp_path / "room.toml")}
    assert read_journal(path).profile == tmp_path / "room.toml"
    monkeypatch.chdir(Path(__file__).parent)  # resumed from elsewhere: the same profile
    resumed, report = LiveSession.resume(path)
    resumed.close()
    assert report.same and resumed.profile_path == tmp_path / "room.toml"


def test_camera_and_microphone_options_name_a_device_or_a_recording():
    from bruno.live.sources import camera_spec, mic_spec

    assert camera_spec(None).device == 0 and camera_spec("2").device == 2
    assert camera_spec("/dev/video3").device == "/dev/video3"
    assert camera_spec("game.mp4").path.name == "game.mp4"
    assert mic_spec(None).device is None and not mic_spec(None).is_recording
    assert mic_spec("USB Audio").device == "USB Audio"
    assert mic_spec("typo.wav").is_recording  # a missing file is said to be missing


def test_an_unsure_penalty_keeps_the_cameras_frame_of_its_moment_for_the_check(tmp_path):
    import cv2
    import numpy as np

    from vision.frames import frame_from_image

    def shown(shade: int, t: float):
        return frame_from_image(np.full((90, 160, 3), shade, np.uint8), t)

    with LiveSession(GameSetup(players=4, dealer=0), journal=tmp_path / "g.jsonl") as session:
        session.show_frame(shown(40, 1.0))
        session.submit({"kind": "card", "card": "r_5", "seat": 0})
        session.submit({"kind": "card", "card": "r_6", "seat": 2})  # before seat 1 drew: unsure
        session.show_frame(shown(200, 9.0))  # the table later looks otherwise
        _, rulings = session.rulings_since(0)
        (check,) = [r for r in rulings if r["kind"] == "ruling"]
        assert check["confidence"] < session.snapshot()["announce_min_confidence"]
        picture = cv2.imdecode(np.frombuffer(session.check_jpeg(check["t"]), np.uint8),
                               cv2.IMREAD_COLOR)
        assert abs(float(picture.mean()) - 40) < 5  # the frame of the ruling, not the newest
        assert session.check_jpeg(check["t"] + 5) is None


def test_a_correction_sent_as_the_session_closes_is_refused_not_lost(tmp_path):
    path = tmp_path / "game.jsonl"
    session = LiveSession(GameSetup(players=4, dealer=0), journal=path).start()
    session.submit({"kind": "card", "card": "r_5", "seat": 0})
    session.close()
    with pytest.raises(ValueError, match="the session has ended; nothing was recorded"):
        session.submit({"kind": "undo"})
    assert [line["kind"] for line in journal_lines(path)].count("undo") == 0


def test_the_dashboard_offers_a_swap_only_where_the_game_takes_one(tmp_path):
    druk = GameSetup(variant="druk", players=4, dealer=0,
                     settings={"helsinki": True, "warszawa": True})
    with LiveSession(druk, journal=tmp_path / "druk.jsonl") as session:
        assert session.snapshot()["swaps"] is True
        session.submit({"kind": "card", "card": "r_5", "seat": None})
        session.submit({"kind": "swap", "seat": 1, "with": 3})
    assert any(line["kind"] == "swap" for line in journal_lines(tmp_path / "druk.jsonl"))
    with LiveSession(GameSetup(players=4, dealer=0), journal=tmp_path / "b.jsonl") as session:
        assert session.snapshot()["swaps"] is False


def test_bruno_replay_of_a_journal_gives_the_rulings_the_table_heard(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "game.jsonl"
    setup = GameSetup(players=3, dealer=0, settings={"knock_after_s": 0.3})
    with LiveSession(setup, journal=path) as session:
        session.submit({"kind": "card", "card": "g_3", "seat": 0})
        session.submit({"kind": "card", "card": "g_0", "seat": 1})  # a zero, no knock
        session.rulings_since(len(session.rulings), timeout_s=2.0)
        session.submit({"kind": "card", "card": "b_9", "seat": 2})
        session.submit({"kind": "correct", "card": "g_9"})
        session.submit({"kind": "undo"})
        heard = list(session.rulings)
    done = subprocess.run([sys.executable, "-m", "bruno", "replay", str(path), "--json"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert [json.loads(line) for line in done.stdout.splitlines()] == heard
    assert {"missed_knock", "withdrawn", "corrected"} <= {r["rule"] for r in heard}
    refused = subprocess.run([sys.executable, "-m", "bruno", "replay", str(path), "--players",
                              "4"], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "replays as its table was refereed" in refused.stderr
