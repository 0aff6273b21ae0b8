"""`bruno live`: referee a table now (camera, microphone, dashboard). Being built (issue 7)."""

from __future__ import annotations

from bruno.errors import UserError


def live() -> None:
    """Referee a table now, from a camera and a microphone."""
    raise UserError("bruno live is not built yet")
