"""The real card photos (cards-dev and its scenes): source groups, and the splits the card
model is fine-tuned on (`models.train_cards`); everything else is kept for evaluation
(`evaluation.cards`)."""

from __future__ import annotations

from pathlib import Path

REAL_TRAIN_SINGLE = ("nuno_set1", "nuno_set2")
"""Single-card photo groups trained on. nuno_highres and natnael_k are never trained on."""
REAL_TRAIN_SCENES = "train"
"""The scenes-hemant source split trained on; `valid` is kept for evaluation."""


def face_sources_trained_on(metadata: dict) -> set[str]:
    """The real photo sources whose cards, cut out, a card model was trained on as faces landing
    on synthetic footage's pile (`models.train_cards --webcam-real-faces`, in its metadata):
    their photos are no fair test of that model."""
    value = metadata.get("webcam_real_faces", "none") or "none"
    return set() if value == "none" else set(value.split(","))


def single_card_source(path: str, source: str) -> str:
    """Finer source names: nuno_ferreira's highres/set1/set2 photos differ a lot."""
    name = Path(path).name
    if source == "nuno_ferreira":
        return f"nuno_{name.split('_')[0]}"
    return source
