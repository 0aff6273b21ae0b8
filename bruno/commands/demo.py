"""`bruno demo`: review the bundled demo footage. Being built (issue 6)."""

from __future__ import annotations

from bruno.errors import UserError


def demo() -> None:
    """Review the bundled demo footage and print its rulings and the report's path."""
    raise UserError("bruno demo is not built yet")
