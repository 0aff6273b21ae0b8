"""The recogniser's rules about located quads, on geometry alone (no model needed)."""

import numpy as np

from vision.recognise import (
    CardSighting,
    _card_sized,
    _inside_fraction,
    _join_parts,
    _whole_over_parts,
)


def quad(x0, y0, x1, y1):
    return np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])


WHOLE = quad(100, 100, 200, 250)          # a card, 100 x 150
TOP, BOTTOM = quad(105, 105, 195, 160), quad(105, 190, 195, 245)  # its body above/below a disc


def test_the_top_and_bottom_parts_of_one_card_read_alike_are_one_reading_of_the_whole_card():
    # The whole outline, read with the disc across its middle, is read far less surely (under
    # ENCLOSING_CONFIDENCE times the parts) as another card.
    readings = [(0.99, 7, 3, TOP), (0.95, 7, 3, BOTTOM), (0.5, 9, 7, WHOLE)]
    joined = _join_parts(readings, [WHOLE, TOP, BOTTOM])
    assert [(conf, top) for conf, top, _, _ in joined] == [(0.99, 7), (0.5, 9)]
    assert np.array_equal(joined[0][3], WHOLE)


def test_a_reading_joined_from_two_parts_keeps_the_worse_fit_of_its_parts():
    # The fifth field, how well the outline read fits a card in the localiser's map: a join
    # claims both parts are one card, so it is only as well backed as its weaker part (the
    # quad around two cards side by side fits them well, though neither part fits one card).
    readings = [(0.99, 7, 3, TOP, 0.8), (0.95, 7, 3, BOTTOM, 0.3), (0.5, 9, 7, WHOLE, 0.9)]
    joined = _join_parts(readings, [WHOLE, TOP, BOTTOM])
    assert [(r[0], r[1], r[4]) for r in joined] == [(0.99, 7, 0.3), (0.5, 9, 0.9)]
    assert np.array_equal(joined[0][3], WHOLE)


def test_parts_are_not_joined_into_a_card_that_reads_as_another_card():
    # The two small cards in a draw two's picture, each read as a 4, inside the card read
    # (as surely) as the draw two it is: they are pieces of its picture, not its parts.
    readings = [(0.97, 4, 3, TOP), (0.96, 4, 3, BOTTOM), (0.96, 9, 4, WHOLE)]
    joined = _join_parts(readings, [WHOLE, TOP, BOTTOM])
    assert [(conf, top) for conf, top, _, _ in joined] == [(0.97, 4), (0.96, 4), (0.96, 9)]


def test_parts_read_as_different_cards_are_not_joined():
    readings = [(0.99, 7, 3, TOP), (0.95, 8, 3, BOTTOM)]
    assert len(_join_parts(readings, [WHOLE, TOP, BOTTOM])) == 2


def test_two_outlines_of_the_same_part_are_not_taken_for_two_parts():
    # The body and the body grown to a card overlap: they are one part, not a card's halves.
    grown = quad(100, 100, 200, 165)
    readings = [(0.99, 7, 3, TOP), (0.9, 7, 3, grown)]
    assert len(_join_parts(readings, [WHOLE, TOP, grown])) == 2


def test_two_cards_alike_far_apart_stay_two_cards():
    other = quad(400, 100, 500, 250)
    readings = [(0.99, 7, 3, WHOLE), (0.98, 7, 3, other)]
    assert len(_join_parts(readings, [WHOLE, other])) == 2


def test_parts_read_alike_with_no_located_card_around_them_are_joined_when_the_card_reads_so():
    # A white card on a pale cloth: only its top and bottom parts were located.
    asked = []

    def reads_as(quad, token):
        asked.append(token)
        return True

    joined = _join_parts([(0.99, 7, 3, TOP), (0.95, 7, 3, BOTTOM)], [TOP, BOTTOM], reads_as)
    assert asked == [7] and len(joined) == 1
    x0, y0 = joined[0][3].min(axis=0)
    x1, y1 = joined[0][3].max(axis=0)
    assert (x0, y0, x1, y1) == (105, 105, 195, 245)  # the rectangle around both parts


def test_two_cards_alike_side_by_side_are_not_joined_when_together_they_read_as_no_card():
    left, right = quad(100, 100, 200, 250), quad(210, 100, 310, 250)
    readings = [(0.99, 7, 3, left), (0.98, 7, 3, right)]
    assert len(_join_parts(readings, [left, right], lambda quad, token: False)) == 2


def test_parts_too_far_apart_for_one_card_are_not_joined_or_read_again():
    far = quad(105, 400, 195, 455)
    asked = []
    readings = [(0.99, 7, 3, TOP), (0.95, 7, 3, far)]
    assert len(_join_parts(readings, [TOP, far],
                           lambda quad, token: asked.append(token) or True)) == 2
    assert asked == []


def test_a_whole_card_read_over_its_parts_read_apart_is_the_reading():
    # A sunburst yellow 4: its top part (the corner index, the disc's rim) was read as a 2.
    readings = [(1.0, 4, 2, BOTTOM), (0.98, 2, 4, TOP), (0.95, 4, 2, WHOLE)]
    assert [(conf, top) for conf, top, _, _ in _whole_over_parts(readings)] == [(0.95, 4)]


def test_one_part_alone_is_not_given_up_for_the_whole_card():
    # With one part only there is no sign of a card in parts: which reading stands is left
    # to the surer one (one card, one reading).
    readings = [(0.98, 2, 4, TOP), (0.95, 4, 2, WHOLE)]
    assert len(_whole_over_parts(readings)) == 2


def test_one_part_read_as_the_whole_card_gives_way_to_it():
    # A sure bottom part of a yellow 4 and the whole card read the same, a hair less surely
    # (its top part was not read): the card's whole outline is the reading.
    readings = [(1.0, 4, 2, BOTTOM), (0.99, 4, 2, WHOLE)]
    kept = _whole_over_parts(readings)
    assert len(kept) == 1 and np.array_equal(kept[0][3], WHOLE)


def test_parts_stay_when_the_whole_card_is_read_far_less_surely():
    readings = [(1.0, 4, 2, BOTTOM), (0.98, 2, 4, TOP), (0.5, 9, 2, WHOLE)]
    assert len(_whole_over_parts(readings)) == 3


def test_two_whole_cards_inside_a_card_shaped_blob_are_not_parts():
    # Cards are all one size: a card's quad is too large a share of the blob to be a part.
    blob = quad(100, 100, 300, 250)  # two cards side by side, 4:3
    left, right = quad(100, 100, 200, 250), quad(200, 100, 300, 250)
    readings = [(0.99, 7, 3, left), (0.98, 8, 3, right), (0.97, 9, 3, blob)]
    assert len(_whole_over_parts(readings)) == 3


def test_the_share_of_a_quad_inside_the_image():
    assert _inside_fraction(quad(0, 0, 50, 50), 100, 100) == 1.0
    assert abs(_inside_fraction(quad(-75, 0, 25, 100), 100, 100) - 0.25) < 1e-6
    assert _inside_fraction(quad(-50, -50, -10, -10), 100, 100) == 0.0


def sighting(card, q):
    corners = tuple((float(x), float(y)) for x, y in q)
    return CardSighting(card, 0.9, "r_1", corners, tuple(q.mean(axis=0).tolist()))


def test_a_reading_far_smaller_than_the_cards_beside_it_is_no_card():
    card = sighting("y_4", quad(100, 100, 300, 400))       # 200 x 300
    far_card = sighting("b_2", quad(500, 100, 600, 250))  # a quarter of its area: kept
    check = sighting("g_skip", quad(700, 100, 750, 170))  # a square of the cloth: dropped
    assert [s.card for s in _card_sized([card, far_card, check])] == ["y_4", "b_2"]
    assert _card_sized([]) == []
