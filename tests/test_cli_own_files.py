"""The command line writes only its own files: an output path that names a photo read, or a
file of the user's, is refused in one line and left as it was; numbers that are no numbers
(nan, inf) and options that cannot hold are one line, never a traceback."""

from __future__ import annotations

from pathlib import Path

import av
import cv2
import pytest
from test_cli_small_wrongs import DEMO, ROOT, one_error_line, run


@pytest.fixture(scope="module")
def table_photo(tmp_path_factory) -> Path:
    """A still of the demo table, 3 s in."""
    path = tmp_path_factory.mktemp("photo") / "table.jpg"
    with av.open(str(DEMO)) as container:
        for frame in container.decode(video=0):
            if frame.time >= 3.0:
                cv2.imwrite(str(path), frame.to_ndarray(format="bgr24"))
                break
    return path


def test_calibrate_camera_never_writes_its_picture_over_the_photo_or_a_users_file(
        table_photo, tmp_path):
    photo = tmp_path / "table.jpg"
    photo.write_bytes(table_photo.read_bytes())
    mine = tmp_path / "holiday.png"
    mine.write_bytes(b"the user's own picture")
    for picture in (photo, mine):
        line = one_error_line(run("calibrate", "camera", "--from", photo,
                                  "--out", tmp_path / "room.toml", "--picture", picture))
        assert f"--picture {picture}" in line and "give a new name" in line
    assert photo.read_bytes() == table_photo.read_bytes()
    assert mine.read_bytes() == b"the user's own picture"
    assert not (tmp_path / "room.toml").exists()  # refused before anything was written
    done = run("calibrate", "camera", "--from", photo, "--out", tmp_path / "room.toml")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "room.camera.png").exists()
    again = run("calibrate", "camera", "--from", photo, "--out", tmp_path / "room.toml")
    assert again.returncode == 0, again.stderr  # its own picture of before is replaced


@pytest.mark.parametrize(("args", "words"), [
    (("--seat0-angle", "nan"), "--seat0-angle nan: give degrees"),
    (("--seat0-angle", "1e308"), "--seat0-angle 1e+308: give degrees"),
    (("--seat-angles", "90,90,1,2"), "two seats have the same direction"),
    (("--seat-angles", "nan,1,2,3"), "angles are degrees"),
    (("--table-corners", "412,300,868,302,930,520,350,516", "--rectangle", "nan,1"),
     "give plain numbers"),
    (("--picture", "pic.txt"), "give a .png or .jpg name"),
])
def test_calibrate_camera_numbers_that_cannot_hold_are_one_line(table_photo, tmp_path, args,
                                                                 words):
    line = one_error_line(run("calibrate", "camera", "--from", table_photo,
                              "--out", tmp_path / "room.toml", *args))
    assert words in line
    assert not (tmp_path / "room.toml").exists()


def test_calibrate_camera_at_nan_or_before_the_start_is_one_line(tmp_path):
    for at in ("nan", "-1"):
        line = one_error_line(run("calibrate", "camera", "--from", DEMO, "--at", at,
                                  "--out", tmp_path / "room.toml"))
        assert "give a moment in seconds from the start" in line and "(0 to 130.0)" in line


def test_a_profile_that_cannot_be_written_is_one_line(table_photo, tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    line = one_error_line(run("calibrate", "camera", "--from", table_photo,
                              "--out", blocked / "room.toml", "--picture",
                              tmp_path / "room.camera.png"))
    assert f"{blocked / 'room.toml'}: cannot write the profile" in line


@pytest.mark.parametrize("command", [("review",), ("live", "--no-mic", "--camera")])
def test_a_still_photo_given_as_footage_is_one_line(table_photo, tmp_path, command):
    extra = ("--out", tmp_path / "out") if command == ("review",) else (
        "--journal", tmp_path / "game.jsonl")
    line = one_error_line(run(*command, table_photo, *extra))
    assert "a still photo, not a recording" in line
    assert not (tmp_path / "game.jsonl").exists()


def test_a_journal_path_that_is_a_folder_or_another_file_is_refused_for_what_it_is(tmp_path):
    photo = tmp_path / "holiday.jpg"
    photo.write_bytes(b"\xff\xd8 not the table's")
    for journal, words in ((tmp_path, "is a folder; give --journal a new file's name"),
                           (photo, "is another file, not a journal, and is left as it is")):
        line = one_error_line(run("live", "--camera", DEMO, "--no-mic", "--journal", journal))
        assert words in line
    assert photo.read_bytes() == b"\xff\xd8 not the table's"


def test_notes_for_another_number_of_players_than_the_profile_say_where_it_came_from(tmp_path):
    notes = tmp_path / "notes.jsonl"
    notes.write_text('{"t": 0, "kind": "game", "variant": "bruno", "players": 3, "dealer": 0}\n')
    result = run("review", DEMO, "--profile", ROOT / "examples" / "demo" / "demo.room.toml",
                 "--notes", notes, "--out", tmp_path / "out")
    assert result.returncode == 2 and "--players" not in result.stderr
    assert f"{notes} says 3 players but the profile has 4 seats" in result.stderr


def test_calibrating_from_a_video_cut_short_before_the_moment_asked_for_is_one_line(tmp_path):
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(DEMO.read_bytes()[: DEMO.stat().st_size // 25])
    line = one_error_line(run("calibrate", "camera", "--from", cut, "--out",
                              tmp_path / "room.toml"))
    assert "the video breaks at" in line and "before 3 s" in line
    assert not (tmp_path / "room.toml").exists()
