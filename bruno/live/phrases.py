"""What the announcer says, written for the ear in English and Swedish: short, the rule first,
then who, then what it costs ("Missed knock, seat 2, two cards."). Penalties are always said;
of the information lines only those a table acts on (an instick, the colour after a wild, who
takes cards, the end of a round or match, a withdrawn penalty), and briefly. Whose turn it is
is not said: the table sees it, and saying it after every card would drown everything else.
The game's own words (its jump-in, its too-slow call) are the game's (`referee.words`).
"""

from __future__ import annotations

from typing import Any

from referee.words import BRUNO_WORDS, Words

LANGUAGES = ("en", "sv")

_PENALTY_WORDS = {
    "en": {"missed_knock": "Missed knock", "illegal_card": "Wrong card",
           "out_of_turn": "Out of turn", "same_number_two_colors": "Same number, two colours",
           "wrong_call": "Wrong call", None: "Penalty"},
    "sv": {"missed_knock": "Glömd knackning", "illegal_card": "Fel kort",
           "out_of_turn": "Inte din tur", "same_number_two_colors": "Samma siffra, två färger",
           "wrong_call": "Fel utrop", None: "Straff"},
}

_NUMBERS = {
    "en": ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"],
    "sv": ["noll", "ett", "två", "tre", "fyra", "fem", "sex", "sju", "åtta", "nio", "tio"],
}

_COLOURS = {
    "en": {"r": "Red", "y": "Yellow", "g": "Green", "b": "Blue"},
    "sv": {"r": "Röd", "y": "Gul", "g": "Grön", "b": "Blå"},
}

_WORDS = {
    "en": {"seat": "seat {}", "unseen": "whoever played", "cards": "{} cards", "card": "one card",
           "takes": "Seat {} takes {}.", "takes_none": "Seat {} takes no cards.",
           "round_over": "Round over.",
           "went_out": "Round over, seat {} went out.", "match_won": "Match over, seat {} wins.",
           "match_shared": "Match over, shared win.", "withdrawn": "Penalty withdrawn, {}.",
           "corrected": "Corrected."},
    "sv": {"seat": "plats {}", "unseen": "den som spelade", "cards": "{} kort", "card": "ett kort",
           "takes": "Plats {} tar {}.", "takes_none": "Plats {} tar inga kort.",
           "round_over": "Rundan är slut.",
           "went_out": "Rundan är slut, plats {} gick ut.",
           "match_won": "Matchen är slut, plats {} vinner.",
           "match_shared": "Matchen är slut, delad seger.",
           "withdrawn": "Straffet återkallas, {}.", "corrected": "Rättat."},
}


def number(n: int, lang: str) -> str:
    words = _NUMBERS[lang]
    return words[n] if 0 <= n < len(words) else str(n)


def phrase(ruling: dict[str, Any], lang: str = "en", game: Words = BRUNO_WORDS) -> str | None:
    """What to say for a ruling (a docs/DESIGN.md dict) in the game whose words are `game`, or
    None when it is not said aloud."""
    if lang not in LANGUAGES:
        raise ValueError(f"language {lang!r} is not one of {', '.join(LANGUAGES)}")
    words = _WORDS[lang]
    own = game.spoken[lang]
    seat = ruling.get("seat")
    who = words["unseen"] if seat is None else words["seat"].format(seat)
    if ruling.get("kind") == "ruling":
        table = {**_PENALTY_WORDS[lang], "too_slow": own.too_slow}
        name = table.get(ruling.get("rule"), table[None])
        cards = int(ruling.get("penalty") or 0)
        cost = words["card"] if cards == 1 else words["cards"].format(number(cards, lang))
        return f"{name}, {who}, {cost}."
    rule = ruling.get("rule")
    if rule == "instick":
        return own.jump_in
    if rule == "color" and ruling.get("color") in _COLOURS[lang]:
        return _COLOURS[lang][ruling["color"]] + "."
    if rule == "draw_due" and seat is not None:
        count = int(ruling.get("count") or 0)
        if count == 0:  # a draw card corrected away
            return words["takes_none"].format(seat)
        return words["takes"].format(seat, number(count, lang))
    if rule == "round_over":
        return words["round_over"] if seat is None else words["went_out"].format(seat)
    if rule == "match_over":
        return words["match_shared"] if seat is None else words["match_won"].format(seat)
    if rule == "withdrawn":
        return words["withdrawn"].format(who)
    if rule == "corrected" and ruling.get("card"):
        return words["corrected"]
    if rule == "flaske" and lang == "sv" and ruling.get("card"):
        return _flaske_sv(ruling, who)
    if rule in own.says_message and ruling.get("message"):
        return ruling["message"]
    return None  # turn, score, and anything new: shown, not said


_SV_VALUES = {"skip": "hoppa över", "reverse": "vänd", "draw_2": "dra två"}
_SV_FLASKE = {
    "0": "kategori: {s} väljer en, och var och en runt bordet nämner något i den",
    "6": "vattenfall: alla dricker, {s} först",
    "7": "kisskort till {s}",
    "8": "{s} hittar på en regel",
    "9": "finger på flaskan: den sista som lyfter dricker",
    "skip": "nästa spelare hoppas över",
    "reverse": "spelet vänder",
}


def _flaske_sv(ruling: dict[str, Any], who: str) -> str:
    """Flaske UNO's announcement of a card (referee.variants.FlaskeUno.announce_card) said in
    Swedish, from its fields (`who`: its seat as said): the English message is written for the
    screen."""
    token, seat, count = ruling["card"], ruling.get("seat"), ruling.get("count")
    colour, _, value = token.partition("_")
    if token == "wild_draw_4":
        name = "Dra fyra"
    elif token == "wild":
        return "Jokern: alla dricker tillsammans, skål!"
    else:
        name = f"{_COLOURS['sv'][colour]} {_SV_VALUES.get(value) or number(int(value), 'sv')}"
    if count:  # sips: a number card's for its player, a draw card's for a neighbour
        sips = "en klunk" if count == 1 else f"{number(int(count), 'sv')} klunkar"
        if seat is None and value == "draw_2":  # F4: red and blue to the right
            side = "höger" if colour in ("r", "b") else "vänster"
            who = f"grannen till {side} om den som lade det"
        elif seat is None and token == "wild_draw_4":
            sips, who = "fyra klunkar var", "båda grannarna till den som lade det"
        return f"{name}: {sips} för {who}."
    return f"{name}: {_SV_FLASKE.get(value, '').format(s=who)}."
