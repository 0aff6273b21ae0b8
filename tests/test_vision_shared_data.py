"""The recogniser on a few real photos from ../shared/data (skipped when it is absent), and the
evaluation's scene matching rule."""

import csv

import cv2
import numpy as np
import pytest

from evaluation.cards import match_scene
from evaluation.shared_data import shared_data_dir
from referee.cards import ALL_TOKENS
from vision.classify import MODEL_PATH
from vision.recognise import CardSighting, recognise

CARDS = shared_data_dir() / "cards-dev"
needs_data = pytest.mark.skipif(
    not (CARDS / "labels.csv").is_file() or not MODEL_PATH.is_file(),
    reason="shared data (../shared/data or $BRUNO_SHARED_DATA) or card model absent")


@needs_data
def test_most_single_card_photos_of_each_source_are_read_right():
    with open(CARDS / "labels.csv", newline="") as f:
        rows = list(csv.DictReader(f))[::9]
    right = 0
    for r in rows:
        sightings = recognise(cv2.imread(str(CARDS / r["path"])))
        right += bool(sightings) and sightings[0].card == r["card"]
    assert right / len(rows) >= 0.8, f"{right}/{len(rows)}"


def _sighting(card, x0, y0, x1, y1):
    quad = ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
    return CardSighting(card, 0.9, "r_1", quad, ((x0 + x1) / 2, (y0 + y1) / 2))


def test_a_labelled_card_is_found_only_by_a_sighting_of_its_token_covering_its_corner():
    sightings = [_sighting("r_7", 0, 0, 100, 150), _sighting("b_2", 200, 0, 300, 150)]
    found, wrong, misses = match_scene(sightings, [("r_7", 10, 12), ("g_2", 210, 12)])
    assert (found, wrong) == (1, 1) and misses == [("g_2", "b_2")]


def test_a_sighting_in_a_frame_without_cards_is_a_wrong_card():
    found, wrong, _ = match_scene([_sighting("wild", 0, 0, 10, 15)], [])
    assert (found, wrong) == (0, 1)
    assert np.isfinite(found)


@needs_data
def test_a_sunburst_card_on_a_table_is_one_card_not_its_two_halves():
    # Hemant phone photos never trained on: one labelled card each. The sunburst's white disc
    # cut each card into a top and a bottom part that were read as two cards (about 15 wrong
    # cards per 20 frames before the parts were joined, 5.4 after).
    scenes = CARDS / "scenes-hemant"
    with open(scenes / "labels.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["split"] == "valid"][::4]
    wrong = 0
    for r in rows:
        image = cv2.imread(str(scenes / r["path"]))
        h, w = image.shape[:2]
        box = (r["card"], float(r["x_center"]) * w, float(r["y_center"]) * h)
        wrong += match_scene(recognise(image), [box])[1]
    assert 20 * wrong / len(rows) <= 8, f"{wrong} wrong cards in {len(rows)} frames"


@needs_data
def test_real_faces_are_cut_upright_at_the_renderers_size_by_token():
    """The cards of a real photo source as faces for synthetic footage (evaluation.
    pile_cards_real): every token the source shows, each face portrait and mostly card (not
    the dark cloth it lies on)."""
    from evaluation.card_scenes import real_faces
    from synth.render import FACE_H, FACE_W

    faces = real_faces({"svolsch"})
    assert len(faces) >= 40
    for token, cut in faces.items():
        assert token in ALL_TOKENS
        for face in cut:
            assert face.shape == (FACE_H, FACE_W, 3)
            assert np.mean(face) > 60, f"{token}: a dark cut-out, the cloth and not the card"
