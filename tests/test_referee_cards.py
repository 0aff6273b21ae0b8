import pytest

from referee.cards import ALL_TOKENS, Card, CardError, Color, deck, parse_color, token_words


def test_there_are_54_distinct_tokens():
    assert len(ALL_TOKENS) == len(set(ALL_TOKENS)) == 54


def test_every_token_parses_back_to_itself():
    for token in ALL_TOKENS:
        assert Card.parse(token).token == token


def test_the_deck_has_108_cards_with_one_zero_per_colour_and_four_of_each_black_card():
    cards = deck()
    assert len(cards) == 108
    assert cards.count(Card.parse("r_0")) == 1
    assert cards.count(Card.parse("g_7")) == 2
    assert cards.count(Card.parse("b_draw_2")) == 2
    assert cards.count(Card.parse("wild")) == 4
    assert cards.count(Card.parse("wild_draw_4")) == 4


@pytest.mark.parametrize("token", ["r_10", "R_1", "red_1", "wild4", "", "x_skip", "r-1"])
def test_unknown_tokens_are_refused_with_a_hint(token):
    with pytest.raises(CardError, match="cards are r_0"):
        Card.parse(token)


def test_a_non_string_token_is_refused():
    with pytest.raises(CardError):
        Card.parse(7)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("token", "points"),
    [("r_0", 0), ("y_7", 7), ("g_skip", 20), ("b_reverse", 20), ("r_draw_2", 20),
     ("wild", 50), ("wild_draw_4", 50)],
)
def test_card_values_for_scoring(token, points):
    assert Card.parse(token).points == points


def test_names_are_plain_english():
    assert Card.parse("y_1").name == "yellow 1"
    assert Card.parse("g_draw_2").name == "green draw two"
    assert Card.parse("wild_draw_4").name == "wild draw four"


def test_colours_parse_from_letters_and_words():
    assert parse_color("g") is Color.GREEN
    assert parse_color("blue") is Color.BLUE
    with pytest.raises(CardError, match="colours are r, y, g, b"):
        parse_color("purple")


def test_cards_are_named_for_people_in_words():
    assert token_words("b_9") == "blue 9"
    assert token_words("y_draw_2") == "yellow draw two"
    assert token_words("wild_draw_4") == "wild draw four"
    assert token_words("not_a_card") == "not_a_card"
