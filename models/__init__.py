"""The shipped models (`cards.onnx`, with MODEL_CARD.md) and the recipes that train them
(`python -m models.train_cards`; torch in the `[train]` extra only, never at run time)."""
