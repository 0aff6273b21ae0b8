"""The card renderer: deterministic from a seed, every token drawn and labelled right."""

import numpy as np
import pytest

from referee.cards import ALL_TOKENS
from synth.render import (
    FACE_H,
    FACE_W,
    NOT_CARD,
    face_mask,
    render_crop,
    render_face,
    render_part_crop,
    render_scene,
)


def test_the_same_seed_draws_the_same_face_and_another_seed_does_not():
    a = render_face("y_9", 7)
    assert np.array_equal(a, render_face("y_9", 7))
    assert not np.array_equal(a, render_face("y_9", 8))


def test_the_same_seed_draws_the_same_scene():
    img1, cards1 = render_scene(3, size=(180, 320), n_cards=2, pile=2)
    img2, cards2 = render_scene(3, size=(180, 320), n_cards=2, pile=2)
    assert np.array_equal(img1, img2)
    assert [c.token for c in cards1] == [c.token for c in cards2]


@pytest.mark.parametrize("token", ALL_TOKENS)
def test_every_token_renders_as_a_card_face(token):
    face = render_face(token, 1)
    assert face.shape == (FACE_H, FACE_W, 3) and face.dtype == np.uint8
    inside = face[face_mask() > 0]
    assert inside.std() > 20  # something is printed on it
    # The white border shows along the long sides.
    assert face[FACE_H // 2, 3].min() > 150 and face[FACE_H // 2, FACE_W - 4].min() > 150


def test_the_colour_of_a_face_is_its_token_colour():
    import cv2

    hues = {"r": (0, 12), "y": (18, 35), "g": (45, 85), "b": (95, 125)}
    for token in ("r_5", "y_5", "g_5", "b_5"):
        face = render_face(token, 2)
        body = cv2.cvtColor(face[20:40, FACE_W // 2 - 5:FACE_W // 2 + 5], cv2.COLOR_BGR2HSV)
        hue = np.median(body[..., 0])
        lo, hi = hues[token[0]]
        assert lo <= hue <= hi or (token[0] == "r" and hue >= 170), (token, hue)


def test_a_scene_returns_each_whole_card_with_its_token_and_corners_in_the_image():
    tokens = ["r_1", "g_skip", "wild", "b_draw_2", "y_reverse"]
    img, cards = render_scene(5, size=(360, 640), n_cards=3, pile=2, tokens=tokens)
    assert img.shape == (360, 640, 3)
    # The pile's bottom card is hidden; its top card and the three scattered ones are whole.
    assert [c.token for c in cards] == tokens[1:]
    for c in cards:
        assert c.quad.shape == (4, 2)
        assert (c.quad[:, 0] > -5).all() and (c.quad[:, 0] < 645).all()


def test_training_crops_are_canonical_size_for_cards_and_non_cards():
    for label in ("g_7", NOT_CARD):
        crop = render_crop(label, 11)
        assert crop.shape == (96, 64, 3) and crop.dtype == np.uint8


def test_a_sunburst_part_crop_is_deterministic_and_shows_the_cards_colour():
    import cv2

    crop = render_part_crop("b_4", 21)
    assert crop.shape == (96, 64, 3) and crop.dtype == np.uint8
    assert np.array_equal(crop, render_part_crop("b_4", 21))
    assert not np.array_equal(crop, render_part_crop("b_4", 22))
    # A part is mostly the coloured body: blue is the commonest strong hue in it.
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    strong = hsv[..., 1] > 80
    assert strong.mean() > 0.3
    assert 95 <= np.median(hsv[..., 0][strong]) <= 125


def test_a_sunburst_part_reaches_down_into_the_disc():
    import cv2

    # A located part holds the disc's upper half (and the top of the big digit), not only the
    # coloured body above the disc's rim: much of the crop is the white disc.
    whites = []
    for seed in range(10):
        hsv = cv2.cvtColor(render_part_crop("b_4", 100 + seed), cv2.COLOR_BGR2HSV)
        whites.append(((hsv[..., 1] < 50) & (hsv[..., 2] > 150)).mean())
    assert np.median(whites) > 0.25


def test_black_cards_have_no_sunburst_parts():
    with pytest.raises(ValueError, match="coloured card"):
        render_part_crop("wild", 1)


def _print2020():
    """The 2020s print, or a skip where Pillow or its font is missing (it is for training)."""
    pytest.importorskip("PIL")
    from pathlib import Path

    from synth.render import print2020_style
    from synth.typeface import TYPEFACE_2020

    if not Path(TYPEFACE_2020).is_file():
        pytest.skip(f"{TYPEFACE_2020} is not installed (Debian's fonts-dejavu-core)")
    return print2020_style


def _face_2020(token: str, seed: int) -> np.ndarray:
    style = _print2020()
    rng = np.random.default_rng(seed)
    return render_face(token, rng, style=style(rng))


def test_the_2020_print_draws_every_token_the_same_way_for_a_seed():
    for token in ALL_TOKENS:
        face = _face_2020(token, 4)
        assert face.shape == (FACE_H, FACE_W, 3)
        assert face[face_mask() > 0].std() > 20
        assert np.array_equal(face, _face_2020(token, 4))


def test_in_the_2020_print_a_six_turned_over_is_not_a_nine_and_digits_lean_right():
    import cv2

    six, nine, zero = (_face_2020(t, 9) for t in ("r_6", "r_9", "r_0"))
    centre = (slice(FACE_H // 4, 3 * FACE_H // 4), slice(FACE_W // 8, 7 * FACE_W // 8))
    # Same seed, same colours and sizes: only the digit and where its underline lies differ.
    differs = np.abs(six[::-1, ::-1].astype(int) - nine.astype(int)).max(axis=2) > 80
    assert differs[centre].sum() > 0.02 * differs[centre].size
    # The 0 in the middle leans: its ink sits further right at the top than at the bottom.
    hsv = cv2.cvtColor(zero, cv2.COLOR_BGR2HSV)
    ink = (hsv[..., 1] > 100) & (np.arange(FACE_W)[None, :] > FACE_W // 5) \
        & (np.arange(FACE_W)[None, :] < 4 * FACE_W // 5)
    rows = [r for r in range(FACE_H // 3, 2 * FACE_H // 3) if ink[r].any()]
    top = np.nonzero(ink[rows[len(rows) // 5]])[0].mean()
    bottom = np.nonzero(ink[rows[-len(rows) // 5]])[0].mean()
    assert top > bottom + 2


def test_the_2020_print_draws_a_three_with_a_flat_top():
    _print2020()
    from synth.typeface import typeface_mask

    three = typeface_mask((300, 240), "3", (120, 150), 200, italic=False) > 127
    ys, xs = np.nonzero(three)
    top_row = np.nonzero(three[ys.min() + (ys.max() - ys.min()) // 50])[0]
    # A round-topped 3 is half as wide this near its top; the 2020s print's bar spans it.
    assert np.ptp(top_row) > 0.8 * np.ptp(xs)


def test_a_drop_shadow_falls_on_one_side_and_an_outline_on_both():
    from synth.render import _ink, random_style

    style = _print2020()(np.random.default_rng(1))
    assert style.drop_shadow and style.shadow_offset[0] < 0
    layer = np.zeros((100, 100), np.uint8)
    layer[30:70, 40:60] = 255
    dark_left, dark_right = [], []
    for st in (style, random_style(np.random.default_rng(1))):
        img = np.full((100, 100, 3), 255, np.uint8)
        _ink(img, layer, (0, 0, 255), (0, 0, 0), 100, st)
        dark = img.max(axis=2) < 60
        dark_left.append(dark[40:60, 30:40].any())
        dark_right.append(dark[40:60, 60:70].any())
    assert dark_left == [True, True]
    assert dark_right == [False, True]  # the 2020s print's shadow is cast left only
