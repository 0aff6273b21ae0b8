"""The card reader a command reviews or plays with: the card recogniser, or (for synthetic
footage, `--cards-from`) the ground truth the footage was rendered from."""

from __future__ import annotations

import json
from pathlib import Path

from bruno.errors import UserError


def card_reader(cards_from: Path | None):
    """A `vision.pile_watcher.CardReader`; a missing model or an unreadable ground-truth log
    is a UserError."""
    from vision.card_readers import CardModelMissing, TruthReader, recogniser_reader

    if cards_from is None:
        try:
            return recogniser_reader()
        except CardModelMissing as error:
            raise UserError(str(error)) from None
    try:
        lines = cards_from.read_text(encoding="utf-8").splitlines()
        events = [json.loads(line) for line in lines if line.strip()]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise UserError(f"{cards_from}: cannot read the ground-truth log ({error})") from None
    return TruthReader(e for e in events if isinstance(e, dict) and "kind" in e)
