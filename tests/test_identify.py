"""`bruno identify` as a user runs it: JSON lines in the agreed format, and bad images."""

import json
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from referee.cards import ALL_TOKENS
from synth.render import render_scene
from vision.classify import MODEL_PATH

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not MODEL_PATH.is_file(), reason="no shipped card model")


def bruno(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bruno", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


@pytest.fixture(scope="module")
def table_photo(tmp_path_factory) -> tuple[Path, list[str]]:
    img, cards = render_scene(12, size=(720, 1280), n_cards=2, tokens=["g_4", "r_reverse"],
                              card_h_frac=(0.35, 0.4), tilt=0.05)
    path = tmp_path_factory.mktemp("photos") / "table.jpg"
    cv2.imwrite(str(path), img)
    return path, [c.token for c in cards]


def test_json_prints_one_line_per_image_in_the_agreed_format(table_photo, tmp_path):
    path, _ = table_photo
    result = bruno("identify", "--json", str(path), str(path))
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 2
    for line in lines:
        assert list(line) == ["image", "cards"] and line["image"] == str(path)
        confidences = [c["confidence"] for c in line["cards"]]
        assert confidences == sorted(confidences, reverse=True)
        for c in line["cards"]:
            assert list(c) == ["card", "confidence", "runner_up", "quad", "center"]
            assert c["card"] in ALL_TOKENS and c["runner_up"] in ALL_TOKENS
            assert c["card"] != c["runner_up"] and 0 <= c["confidence"] <= 1
            assert len(c["quad"]) == 4 and all(len(p) == 2 for p in c["quad"])
            assert 0 <= c["center"][0] <= 1280 and 0 <= c["center"][1] <= 720


def test_identify_reads_the_cards_on_a_rendered_table(table_photo):
    path, tokens = table_photo
    result = bruno("identify", "--json", str(path))
    seen = {c["card"] for c in json.loads(result.stdout)["cards"]}
    assert seen == set(tokens)


def test_bad_images_get_one_line_each_the_rest_are_read_and_the_exit_code_is_2(
        table_photo, tmp_path):
    path, _ = table_photo
    broken = tmp_path / "broken.jpg"
    broken.write_text("not a picture")
    missing = tmp_path / "missing.png"
    result = bruno("identify", "--json", str(missing), str(path), str(broken))
    assert result.returncode == 2
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 2 and "missing.png" in errors[0] and "broken.jpg" in errors[1]
    assert [json.loads(line)["image"] for line in result.stdout.splitlines()] == [str(path)]


def test_annotate_writes_each_image_with_the_cards_drawn(table_photo, tmp_path):
    path, _ = table_photo
    out = tmp_path / "seen"
    result = bruno("identify", str(path), "--annotate", str(out))
    assert result.returncode == 0, result.stderr
    drawn = cv2.imread(str(out / "table.annotated.jpg"))
    assert drawn is not None and drawn.shape == cv2.imread(str(path)).shape
    assert "table.jpg:" in result.stdout


def test_annotate_never_writes_over_a_photo_it_reads_or_one_of_the_users(table_photo, tmp_path):
    path, _ = table_photo
    folder = tmp_path / "photos"
    folder.mkdir()
    photo = folder / "table.jpg"
    photo.write_bytes(path.read_bytes())
    mine = folder / "table.png"
    mine.write_bytes(b"the user's own file")
    result = bruno("identify", str(photo), "--annotate", str(folder))
    assert result.returncode == 0, result.stderr
    assert photo.read_bytes() == path.read_bytes() and mine.read_bytes() == b"the user's own file"
    assert cv2.imread(str(folder / "table.annotated.jpg")) is not None
    # Read again, the earlier copy is a photo of this run: it is read, not written over.
    earlier = (folder / "table.annotated.jpg").read_bytes()
    again = bruno("identify", str(photo), str(folder / "table.annotated.jpg"),
                  "--annotate", str(folder))
    assert again.returncode == 0, again.stderr
    assert (folder / "table.annotated.jpg").read_bytes() == earlier
    assert sorted(p.name for p in folder.iterdir()) == [
        "table.annotated.annotated.jpg", "table.annotated.jpg", "table.jpg", "table.png",
        "table_2.annotated.jpg"]
