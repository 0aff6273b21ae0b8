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
