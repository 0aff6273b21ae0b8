"""The learned card localiser: its training labels, its box decoding, and the shipped model on
real photos it was not trained on (skipped without ../shared/data or the model)."""

import json

import cv2
import numpy as np
import pytest

from evaluation.card_scenes import SHIPPED_TEST_PHOTOS, UNO_FACE, labelled_photos
from evaluation.localiser import quad_iou, read_box
from evaluation.shared_data import shared_data_dir
from synth.composites import CORE_SCALE, UNO_BACK, card_quad, make_composite
from synth.render import render_face, render_table
from vision.localise_model import LOCALISER_PATH, CardLocaliser
from vision.recognise import default_locator, recognise

needs_model = pytest.mark.skipif(not LOCALISER_PATH.is_file(), reason="no shipped localiser")
needs_data = pytest.mark.skipif(
    not (shared_data_dir() / "cards-wide" / "labels.csv").is_file()
    or not LOCALISER_PATH.is_file(), reason="shared data (../shared/data) or localiser absent")


def test_a_composites_cores_lie_on_its_cards_and_each_card_has_its_own():
    rng = np.random.default_rng(3)
    for _ in range(20):
        _, classes, core = make_composite(rng)
        assert not ((core == 1) & (classes == 0)).any()
        assert set(np.unique(classes)) <= {0, 1, 2, 3, 255}


def test_cards_in_a_touching_row_get_apart_cores():
    from synth.composites import _labels, _Layer

    h, w = 120, 300
    quads = [card_quad((40 + 45 * i, 60), 66, 0.0, np.random.default_rng(i), tilt=0.0)
             for i in range(5)]
    classes, core = _labels([_Layer(q, UNO_BACK, True) for q in quads], np.zeros((h, w), np.uint8),
                            h, w)
    count, _ = cv2.connectedComponents((core == 1).astype(np.uint8))
    assert count - 1 == 5
    assert (classes == UNO_BACK).sum() > 5 * 0.9 * 44 * 66 * 0.9


def test_the_rendered_uno_back_is_drawn_as_the_real_deck_prints_it():
    from synth.other_cards import render_uno_back

    back = render_uno_back(np.random.default_rng(5)).astype(int)
    red = (back[..., 2] > 150) & (back[..., 1] < 90) & (back[..., 0] < 90)
    yellow = (back[..., 2] > 180) & (back[..., 1] > 170) & (back[..., 0] < 120)
    h, w = red.shape
    # The oval runs from the lower left to the upper right corner.
    assert red[: h // 4, w // 2:].sum() > 3 * red[: h // 4, : w // 2].sum()
    assert red[3 * h // 4:, : w // 2].sum() > 3 * red[3 * h // 4:, w // 2:].sum()
    # The letters are big: they span most of the card's width.
    cols = np.nonzero(yellow.any(axis=0))[0]
    assert cols.max() - cols.min() > 0.6 * w


def test_a_located_crop_is_a_classifier_crop_with_table_round_the_card():
    from synth.composites import located_crop
    from vision.rectify import CROP_H, CROP_W

    rng = np.random.default_rng(8)
    crops = [located_crop("b_7", rng) for _ in range(12)]
    assert all(c.shape == (CROP_H, CROP_W, 3) and c.dtype == np.uint8 for c in crops)
    # A loose box shows the card's blue body well inside the crop, not filling it edge to edge
    # every time.
    blue = [((c[..., 0].astype(int) - c[..., 2]) > 60).mean() for c in crops]
    assert 0.05 < float(np.median(blue)) < 0.6
    assert located_crop("not_card", rng).shape == (CROP_H, CROP_W, 3)


@needs_model
def test_the_shipped_localiser_boxes_rendered_cards_where_they_are():
    rng = np.random.default_rng(5)
    image = render_table(720, 1280, rng)
    truth = []
    for k, (x, y) in enumerate(((300, 300), (700, 420), (1050, 250))):
        quad = card_quad((x, y), 260, 30.0 * k, rng, tilt=0.0)
        face = render_face(["r_5", "g_skip", "b_9"][k], rng)
        src = np.float32([[0, 0], [199, 0], [199, 299], [0, 299]])
        warp = cv2.warpPerspective(face, cv2.getPerspectiveTransform(src, quad), (1280, 720))
        mask = cv2.warpPerspective(np.full((300, 200), 255, np.uint8),
                                   cv2.getPerspectiveTransform(src, quad), (1280, 720))
        image[mask > 0] = warp[mask > 0]
        truth.append(quad)
    boxes = CardLocaliser().locate(image)
    faces = [b for b in boxes if b.kind == UNO_FACE]
    assert len(faces) == 3
    for quad in truth:
        assert max(quad_iou(quad, b.quad) for b in faces) >= 0.7


@needs_model
def test_the_shipped_localiser_says_what_it_was_trained_on():
    meta = CardLocaliser().metadata
    assert json.loads(meta["classes"]) == ["background", "uno_face", "uno_back", "playing_card"]
    assert float(meta["core_scale"]) == CORE_SCALE
    assert set(json.loads(meta["held_out_photos"])) == set(SHIPPED_TEST_PHOTOS)


def _photos(source: str, names: tuple[str, ...] = ()) -> list:
    chosen = [p for p in labelled_photos() if p.source == source
              and (not names or p.path.name in names)]
    if not chosen:
        pytest.skip(f"no {source} photos")
    return chosen


def _found_and_read(photo, localiser) -> tuple[int, int, int]:
    """(cards, found with IoU >= 0.5 as their kind, found faces read right)."""
    image = cv2.imread(str(photo.path))
    boxes = localiser.locate(image)
    found = right = 0
    cards = [c for c in photo.cards if c.kind in ("uno_face", "uno_back")]
    for card in cards:
        ious = [quad_iou(card.quad, b.quad) if b.kind == card.kind else 0.0 for b in boxes]
        if ious and max(ious) >= 0.5:
            found += 1
            if card.kind == UNO_FACE:
                right += read_box(image, boxes[int(np.argmax(ious))].quad) == card.token
    return len(cards), found, right


# The shipped model's real-photo tests: photos it was never trained on. The wooden-table and
# row photos are SHIPPED_TEST_PHOTOS (left out of its training); the light-table, hand and
# French sources have no outlines and are never trained on by any localiser. The bars are a
# little under what the shipped model measured on them (models/MODEL_CARD.md, 1 Dec 2026).

WOOD_FOUND = 0.95  # measured 70 of 70 UNO faces and backs on the five held-out wooden-table photos
WOOD_READ = 0.95  # measured 68 of 70 found cards read right (both models of 1 Dec)
ROW_READ = 3  # measured 4 of 4
HAND_READ = 6  # measured 6 of 7 held cards read right (5 before outlines were weighed by fit)
LIGHT_READ = 0.9  # measured 15 of 15 (every 4th light-grey photo and both minimalist ones)
FRENCH_FALSE_UNO = 0.05  # the target; measured 0 in 22 photos


@needs_data
def test_cards_on_a_wooden_table_are_boxed_and_read():
    cards = found = right = 0
    localiser = CardLocaliser()
    for photo in _photos("omar_masri_bicocca", SHIPPED_TEST_PHOTOS):
        n, f, r = _found_and_read(photo, localiser)
        cards, found, right = cards + n, found + f, right + r
    assert cards >= 50
    assert found / cards >= WOOD_FOUND, f"{found}/{cards} found"
    assert right / found >= WOOD_READ, f"{right}/{found} read right"


@needs_data
def test_several_cards_in_a_row_are_each_boxed():
    (photo,) = _photos("r3xol_row", ("r3_3_earlier.jpg",))
    cards, found, right = _found_and_read(photo, CardLocaliser())
    assert cards == 4 and found == 4 and right >= ROW_READ


@needs_data
def test_a_card_held_in_a_hand_is_found_and_read():
    photos = _photos("stefanpe95_webcam")
    right = sum(_single_read_right(p) for p in photos)
    assert right >= HAND_READ, f"{right}/{len(photos)}"


@needs_data
def test_a_card_on_a_light_table_is_found_and_read():
    photos = _photos("alinivan_mdx")[::4] + _photos("afsah_minimalista")
    right = sum(_single_read_right(p) for p in photos)
    assert right / len(photos) >= LIGHT_READ, f"{right}/{len(photos)}"


@needs_data
def test_a_french_deck_table_shows_no_uno_card():
    photos = _photos("french_dev")
    false_uno = sum(len(recognise(cv2.imread(str(p.path)), locator=default_locator()))
                    for p in photos)
    assert false_uno / len(photos) <= FRENCH_FALSE_UNO, f"{false_uno} in {len(photos)} photos"


def _single_read_right(photo) -> bool:
    sightings = recognise(cv2.imread(str(photo.path)), min_confidence=0.0,
                          locator=default_locator())
    return bool(sightings) and sightings[0].card == photo.cards[0].token


def _located(centre, height, confidence, angle=0.0):
    from vision.localise_model import LocatedCard

    quad = card_quad(centre, height, angle, np.random.default_rng(0), tilt=0.0)
    return LocatedCard(quad, float(cv2.contourArea(quad)), UNO_FACE, confidence)


def test_the_closer_look_replaces_its_cards_adds_new_ones_and_drops_fragments():
    from vision.localise_model import _merge_looks

    first = [_located((100, 100), 60, 0.99), _located((300, 100), 60, 0.9)]
    same_card = _located((302, 101), 58, 0.5)       # the second card, a tighter box, less sure
    new_card = _located((500, 300), 40, 0.8)        # missed by the first look
    fragment = _located((100, 110), 20, 0.99)       # print inside the first card
    merged = _merge_looks(first, [same_card, new_card, fragment])
    assert len(merged) == 3
    assert merged[0] is first[0] and merged[1] is same_card and merged[2] is new_card


def test_a_close_up_is_taken_from_the_working_size_alone():
    """A card filling the picture is larger in the closer look than any card the model learnt
    tables from: the closer look adds nothing to it."""
    from vision.localise_model import SECOND_LOOK, TRAINED_CARD_HEIGHT, CardLocaliser

    loc = CardLocaliser.__new__(CardLocaliser)
    loc.working_width = 320
    big = _located((640, 360), 600, 0.9)
    looks = {320: [big], round(320 * SECOND_LOOK): [_located((640, 360), 560, 0.99)]}
    loc._look = lambda image, width: (looks[width], None, width / 1280)
    assert 560 * SECOND_LOOK * 320 / 1280 > TRAINED_CARD_HEIGHT
    found, _, _ = loc.analyse(np.zeros((720, 1280, 3), np.uint8))
    assert [c.quad.tolist() for c in found] == [big.quad.tolist()]


def _face_map(h=90, w=160, card=(40, 20, 80, 80)):
    """An UNO-face probability map with one card (x0, y0, x1, y1) on an empty table."""
    face = np.zeros((h, w), np.float32)
    x0, y0, x1, y1 = card
    face[y0:y1, x0:x1] = 1.0
    return face


def _rect(x0, y0, x1, y1):
    return np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])


def test_a_cards_own_outline_fits_it_better_than_a_part_of_it_or_a_quad_half_off_it():
    from vision.localise_model import outline_fit

    face = _face_map()
    own = outline_fit(face, _rect(40, 20, 80, 80))
    part = outline_fit(face, _rect(50, 35, 70, 65))        # its picture: card on both sides
    half_off = outline_fit(face, _rect(60, 20, 100, 80))   # half over the card, half the table
    assert own > 0.9
    assert part < 0.1
    assert half_off < 0.5 * own


class _Localiser:
    """Stands in for CardLocaliser: fixed boxes and a fixed UNO-face map at scale 1/4."""

    def __init__(self, boxes, face):
        self.boxes, self.face = boxes, face

    def looks(self, image):
        from vision.localise_model import LocatedCard, Looks

        probs = np.stack([1 - self.face, self.face, 0 * self.face, 0 * self.face])
        cards = [LocatedCard(b, float(cv2.contourArea(b)), UNO_FACE, 0.9) for b in self.boxes]
        return Looks(cards, probs, 0.25, [])


class _Classifier:
    """Reads a crop that is all card (bright) as r_1 at 0.9, and one with the table in it
    (darker) as g_5 at 0.99: the surer reading is the wrong one."""

    labels = ("r_1", "g_5", "not_card")

    def probabilities(self, crops):
        out = []
        for crop in crops:
            whole = np.asarray(crop).mean() > 150
            out.append([0.9, 0.05, 0.05] if whole else [0.005, 0.99, 0.005])
        return np.float32(out)


def test_of_two_outlines_of_one_card_the_better_fitting_ones_reading_is_kept():
    """A quad half over the card and half over what lies beside it (a hand, the room) can be
    read more surely than the card's own outline; the reading kept is the one whose outline
    fits the card in the localiser's map."""
    image = np.zeros((360, 640, 3), np.uint8)
    image[80:320, 160:320] = 220                        # the card, 160 x 240 pixels
    own, half_off = _rect(160, 80, 320, 320), _rect(240, 80, 400, 320)
    face = _face_map(card=(40, 20, 80, 80))             # the card at scale 1/4
    localiser = _Localiser([own, half_off], face)
    sightings = recognise(image, _Classifier(), min_confidence=0.0, locator="learned",
                          localiser=localiser)
    assert [s.card for s in sightings] == ["r_1"]
    assert sightings[0].confidence == pytest.approx(0.9, abs=1e-6)


def test_a_large_cards_square_box_gives_way_to_the_closer_looks_card_shaped_one():
    """On a card held up in front of a room the first look's box can take in the hand and
    come out square; the closer look's box of the same card, shaped like a card, is taken
    instead, and the square one is kept as the card's other outline. A card-shaped first box
    stays, and so does a box the closer look has no card for."""
    from vision.localise_model import _card_shaped_box

    square = _located((300, 300), 200, 0.9)
    square = type(square)(_rect(200, 200, 400, 420), square.area, UNO_FACE, 0.9)
    shaped = _located((300, 310), 200, 0.8)
    kept = _located((800, 300), 200, 0.9)
    kept_closer = type(kept)(_rect(700, 200, 900, 420), kept.area, UNO_FACE, 0.9)
    chosen, others = _card_shaped_box([square, kept], [shaped, kept_closer])
    assert chosen[0] is shaped and chosen[1] is kept
    assert others[0] is square and others[1] is kept_closer


@needs_data
def test_the_shipped_classifier_reads_real_card_backs_as_no_card_and_the_faces_beside_them():
    """The wooden table's face-down cards: no real back was ever trained on (only rendered
    ones, `synth.other_cards.render_uno_back`). Before the back was drawn with its white rim,
    big oval and outlined letters, the classifier read 35 of its 37 as a wild card."""
    from evaluation.card_scenes import UNO_BACK as BACK
    from vision.classify import NOT_CARD

    backs = faces = backs_right = faces_right = 0
    for photo in _photos("omar_masri_bicocca")[::3]:
        image = cv2.imread(str(photo.path))
        for card in photo.cards:
            if card.quad is None or card.occluded or card.kind not in (UNO_FACE, BACK):
                continue
            reading = read_box(image, card.quad)
            if card.kind == BACK:
                backs += 1
                backs_right += reading == NOT_CARD
            else:
                faces += 1
                faces_right += reading == card.token
    assert backs >= 5 and backs_right >= 0.9 * backs
    assert faces >= 50 and faces_right >= 0.9 * faces


def test_a_face_box_the_classifier_reads_as_no_card_takes_the_localisers_next_kind():
    from types import SimpleNamespace

    from vision.localise_model import KINDS, LocatedCard, checked_kinds

    def box(x: float, kind: str, probs: tuple[float, ...]) -> LocatedCard:
        quad = np.float32([[x, 10], [x + 40, 10], [x + 40, 70], [x, 70]])
        return LocatedCard(quad, 2400.0, kind, max(probs), probs)

    image = np.zeros((100, 300, 3), np.uint8)
    image[10:70, 100:140] = 255  # the second box's card: white, read as a card

    class ByBrightness:  # a dark crop is no card, a white one a red five
        labels = ("r_5", "not_card")

        def probabilities(self, crops):
            return np.float32([[1.0, 0.0] if c.mean() > 128 else [0.1, 0.9] for c in crops])

    cards = [box(20, "uno_face", (0.5, 0.4, 0.1)),   # dark: a back, its next kind
             box(100, "uno_face", (0.5, 0.1, 0.4)),  # white: read as a card, stays a face
             box(180, "uno_back", (0.4, 0.6, 0.0)),  # a back is never made a face
             box(240, "uno_face", (0.45, 0.15, 0.4))]  # dark: a French card, its next kind
    checked = checked_kinds(image, cards, ByBrightness())
    assert [c.kind for c in checked] == ["uno_back", "uno_face", "uno_back", "playing_card"]
    assert checked[0].confidence == 0.4 and checked[3].confidence == 0.4
    # Boxes from before the kinds' probabilities were kept are left as they are.
    old = [LocatedCard(cards[0].quad, 2400.0, "uno_face", 0.5)]
    assert checked_kinds(image, old, SimpleNamespace(labels=KINDS))[0].kind == "uno_face"
