"""The rulings as a terminal table (Rich), the same for `bruno replay` and `bruno demo`."""

from __future__ import annotations

from rich.table import Table


def rulings_table() -> Table:
    """An empty table with the columns every printed list of rulings has; add one row per
    ruling with `add_ruling_row`."""
    table = Table(show_edge=False, pad_edge=False)
    table.add_column("t (s)", justify="right")
    table.add_column("seat", justify="right")
    table.add_column("rule")
    table.add_column("ref")
    table.add_column("message")
    return table


def add_ruling_row(table: Table, ruling: dict, style: str = "") -> None:
    """One ruling (its docs/DESIGN.md dict); an unseen seat shows as '?'."""
    seat = ruling.get("seat")
    table.add_row(f"{ruling['t']:.2f}", "?" if seat is None else str(seat), ruling["rule"],
                  ruling.get("ref") or "", ruling["message"], style=style)


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """'1 penalty', '2 penalties', '0 plays': a count with its noun in the right number."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def penalty_summary(penalties: list[dict]) -> str:
    """'seat 0: 4, seat 2: 2, unseen: 2': the cards each seat has to take, seats in order and
    the unseen last."""
    cards: dict[int | None, int] = {}
    for ruling in penalties:
        cards[ruling.get("seat")] = cards.get(ruling.get("seat"), 0) + (ruling.get("penalty") or 0)
    parts = [f"seat {seat}: {cards[seat]}" for seat in sorted(s for s in cards if s is not None)]
    if None in cards:
        parts.append(f"unseen: {cards[None]}")
    return ", ".join(parts)
