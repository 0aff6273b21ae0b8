"""The games this referee knows, found by name. Bruno is the base (`referee.game.Game`);
another house game is a small subclass of it that overrides a few rule hooks and defaults, added
to `VARIANTS` here without touching Bruno's code."""

from __future__ import annotations

from referee.game import Game

VARIANTS: list[type[Game]] = [Game]


class UnknownVariantError(ValueError):
    """A variant name no game answers to."""


def find_variant(name: str) -> type[Game]:
    """The game class for `name` (case-insensitive, aliases included)."""
    wanted = name.casefold()
    for variant in VARIANTS:
        if wanted in (variant.name.casefold(), *(a.casefold() for a in variant.aliases)):
            return variant
    known = ", ".join(v.name for v in VARIANTS)
    raise UnknownVariantError(f"unknown variant {name!r} (known: {known})")
