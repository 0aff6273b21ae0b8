"""Card crops -> token probabilities with the shipped ONNX model (onnxruntime; no torch).

The model (`models/cards.onnx`, trained by `models/train_cards.py`) is package data of the
`models` package, found with importlib.resources, so a wheel install has it as a checkout
does (only the package's empty `__init__` is loaded, never the training recipe). It takes
white-balanced crops from `vision.rectify` and returns calibrated probabilities over the 54
card tokens and `not_card`. Its label list is read from the model's own metadata, so model
and code cannot disagree about the order.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np


def shipped_model_path() -> Path:
    """Where the installed `models` package keeps cards.onnx (the checkout's `models/` when
    run from one); beside this package's folder when `models` cannot be imported."""
    try:
        return Path(str(resources.files("models").joinpath("cards.onnx")))
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[1] / "models" / "cards.onnx"


MODEL_PATH = shipped_model_path()
NOT_CARD = "not_card"


class CardClassifier:
    """An onnxruntime session over the card model. `threads` = intra-op threads (1 = one core)."""

    def __init__(self, path: Path | str = MODEL_PATH, threads: int = 1) -> None:
        import onnxruntime as ort

        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"card model not found at {path}; run `make train-cards`")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        meta = self.session.get_modelmeta().custom_metadata_map
        self.labels: tuple[str, ...] = tuple(json.loads(meta["labels"]))
        self.metadata = dict(meta)
        shape = self.session.get_inputs()[0].shape
        self.crop_hw = (int(shape[2]), int(shape[3]))
        self._input = self.session.get_inputs()[0].name

    def probabilities(self, crops: list[np.ndarray] | np.ndarray) -> np.ndarray:
        """[N, len(labels)] probabilities for N crops (each H x W x 3 BGR uint8)."""
        if len(crops) == 0:
            return np.zeros((0, len(self.labels)), np.float32)
        x = np.ascontiguousarray(np.stack(crops).transpose(0, 3, 1, 2), np.float32) / 255.0
        return self.session.run(None, {self._input: x})[0]


def both_ways_up(classifier: CardClassifier, crops: list[np.ndarray]) -> np.ndarray:
    """[N, len(labels)] probabilities for N crops, each averaged with the same crop turned
    180°: a card reads the same both ways up."""
    n = len(crops)
    probs = classifier.probabilities([*crops, *(c[::-1, ::-1] for c in crops)])
    return (probs[:n] + probs[n:]) / 2


@lru_cache(maxsize=4)
def default_classifier(path: str = str(MODEL_PATH), threads: int = 1) -> CardClassifier:
    """The shared classifier for `path` (loaded once per process)."""
    return CardClassifier(path, threads)
