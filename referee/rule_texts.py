"""The rules as the report quotes them, by the ids rulings cite (`ref`): our own summary of
each game's page (docs/RULES.md, docs/rules/), one table per game. A game names its table on its
class (`Game.rule_texts`); the ids it shares with the game it is built on are looked up there.
"""

BRUNO_RULE_TEXTS: dict[str, str] = {
    "B1": "The dealer's turned card acts as if an invisible player in the dealer's seat played "
          "it; the player left of the dealer plays first.",
    "B2": "A card may be played on the top card if it has the same colour, the same value, or "
          "it is black. After a wild the named colour counts.",
    "B3": "Skip skips the next player, reverse flips the direction (with two players it acts "
          "as skip), draw two and wild draw four make the next player take cards and miss "
          "the turn.",
    "B4": "One card per turn, except two identical cards together (an instick on yourself) and "
          "zeros of different colours. Any other second card in the same turn is out of turn.",
    "B5": "No same number in two colours within one turn (zeros excepted).",
    "B6": "A player who cannot play takes one card and says pass; on Bruno (one card left) the "
          "player takes three cards silently.",
    "B7": "Anyone may at any moment play a card exactly identical to the top card (an instick) "
          "and must knock on the table once; play continues after the jumper.",
    "B8": "Every zero played needs a knock; a zero may be inserted on a zero of any colour.",
    "B9": "On a draw card you may first insert an identical card: you still take your cards and "
          "the next player takes as many too.",
    "B10": "Going out by an instick or on a zero still needs the knock.",
    "B11": "STOP pauses play (and the referee's clocks) until GO.",
    "P1": "Every error noticed costs two cards from a draw pile. Saying \"UNO\" instead of "
          "\"Bruno\", or \"pass\" while on Bruno, is an error.",
    "P2": "A card from someone whose turn it is not, and that is no instick, is out of turn.",
    "P3": "SEG: a player who takes too long takes penalty cards and the turn passes on.",
    "P4": "A wrong card on one's turn stays and counts as the play; a card out of turn stays but "
          "has no effect; a card taken back restores the game.",
    "S1": "Cards left in a hand score face value; coloured specials 20, black specials 50.",
    "S2": "A hand's total is rounded up to the next ten.",
    "S3": "The lowest total over the match wins.",
}
"""Bruno (docs/RULES.md): rule id -> one or two sentences, as shown next to each ruling."""

UNO_RULE_TEXTS: dict[str, str] = {
    "U1": "The dealer's turned card acts as if played from the dealer's seat.",
    "U2": "A card may be played on the top card if it has the same colour, the same number or "
          "symbol, or it is a wild. After a wild the named colour counts.",
    "U3": "One card per turn, in turn: no jump-ins, so a card from another seat (even the top "
          "card's twin) or a second card is out of turn.",
    "U4": "A player who cannot play draws one card and may play it at once; there are no "
          "knocks.",
    "U5": "\"UNO\" is said at one card; a forgotten call caught before the next player's card "
          "costs two cards (the referee counts the hands from the deal of seven).",
    "U6": "Every error costs two penalty cards.",
    "U7": "The round's winner scores the cards left in the other hands: numbers face value, "
          "action cards 20, wilds 50.",
    "U8": "The match goes to 500 points; the highest total wins.",
}
"""Standard UNO (docs/rules/uno.md)."""

SNABB_RULE_TEXTS: dict[str, str] = {
    "Q1": "Two cards each to start; the dealer's turned card acts as the dealer's play.",
    "Q2": "A card may be played on the top card if it has the same colour, the same number or "
          "symbol, or it is black.",
    "Q3": "Anyone may jump in at any moment with the top card's exact twin (never black); it "
          "counts as the jumper's play and turns the direction round.",
    "Q4": "One card per turn, in turn; a card out of turn costs one penalty card and is taken "
          "back.",
    "Q5": "A draw two jumped in by the player who must draw sends the cards back to the giver.",
    "Q6": "Two identical black cards straight on each other turn the direction too.",
    "Q7": "Nobody may go out on a black card: who does takes two cards.",
    "Q8": "A round won adds a card to the next start; going out in a round started with 7 "
          "cards wins the match.",
}
"""Snabb-UNO (docs/rules/snabb.md)."""

FLASKE_RULE_TEXTS: dict[str, str] = {
    "F1": "Standard UNO's turns; nothing is ever ruled an error.",
    "F2": "A 1 to 5: the player drinks that many sips.",
    "F3": "0 category, 6 waterfall, 7 pee card, 8 make a rule, 9 finger on the bottle.",
    "F4": "Draw two: two sips for the right-hand neighbour (red, blue) or the left-hand one "
          "(green, yellow); wild draw four: four for both.",
    "F5": "A wild: everyone drinks together.",
}
"""Flaske UNO (docs/rules/flaske.md)."""

DRUK_RULE_TEXTS: dict[str, str] = {
    "D1": "Seven cards each; the dealer's turned card counts as the dealer's play.",
    "D2": "A card goes on the top card by colour, number or symbol, or it is black; on a pool "
          "of draw cards still to take, only a card of the pool's kind.",
    "D3": "Several cards of one number, any colours, may go down in one play; the first must "
          "match.",
    "D4": "Several skips, draw twos or reverses of one kind may go down in one play; the first "
          "must match.",
    "D5": "Each skip skips one more player, and whoever is skipped drinks a sip.",
    "D6": "Draw twos stack: the next player adds draw twos and passes the whole pool on, or "
          "takes it and misses the turn.",
    "D7": "Each reverse turns the direction once.",
    "D8": "A wild never goes on an active pool; wild draw fours stack, and the one who takes "
          "the pool then plays the named colour.",
    "D9": "A player who cannot or will not play draws one card, and the turn passes.",
    "D10": "Anyone may jump in with the top card's exact number twin; the player whose turn it "
           "was plays on.",
    "D11": "One play per turn, in turn; a card out of turn costs two cards.",
    "D12": "Say \"UNO\" with one card left, before the turn passes; forgetting costs two cards.",
    "D13": "Helsinki: draw until you can play; a zero moves every hand one seat against the "
           "direction.",
    "D14": "Warszawa (with Helsinki): a 7 makes its player swap hands with an opponent.",
    "D15": "Sips: one per card drawn, one for being skipped, and the hand left at the end.",
}
"""DrukUNO (docs/rules/druk.md)."""
