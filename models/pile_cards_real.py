"""How well the card reader reads REAL card faces on the pile, through a cheap webcam or overhead.

    python -m models.pile_cards_real [--model PATH | --fold-models DIR] [--overhead]

The webcam family's footage lands cards rendered by `synth.render`; the tables we are measured
on land cards photographed by other people. This puts the two side by side on the same games:
the pile's top card of the held-out webcam-family games (`models.train_cards`'
WEBCAM_PILE_VAL_SEEDS, never trained on), cut as the pile watcher's patch is
(`models.train_cards.pile_crops`), once with rendered faces and once per fold of real photo
sources (`models.train_localiser.FOLDS`) with that fold's cards cut out of its photos landing
instead (`evaluation.card_scenes.real_faces`; a token the fold's photos lack is left out of
its score). Each crop is read as `vision.recognise` reads a card (the crop and its 180° turn,
averaged) by the shipped model or `--model`, or, with `--fold-models DIR`, each fold by
`DIR/cards-<fold>.onnx`, a model that never saw that fold's photos.

`--overhead`: the same with the overhead family's footage (straight above, even light;
games PILE_VAL_SEEDS).

Reported per set: cards read right, the share read at 0.9 or more and how many of those are
right (what a penalty rests on), and the commonest misreadings.
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evaluation.card_scenes import real_faces
from models.train_cards import LABELS, PILE_VAL_SEEDS, WEBCAM_PILE_VAL_SEEDS, pile_crops
from models.train_localiser import FOLDS
from vision.classify import MODEL_PATH, CardClassifier

SURE = 0.9
"""The reading bar a penalty rests on (the referee's default confidence bar)."""


@dataclass
class ReadScore:
    name: str
    crops: int
    right: int
    sure: int
    sure_right: int
    misreadings: list[tuple[tuple[str, str], int]]

    def row(self) -> str:
        def pct(n: int, d: int) -> str:
            return f"{100 * n / d:.1f}%" if d else "-"

        worst = ", ".join(f"{a}→{b} {n}" for (a, b), n in self.misreadings[:4]) or "-"
        return (f"| {self.name} | {self.crops} | {pct(self.right, self.crops)} | "
                f"{pct(self.sure, self.crops)} | {pct(self.sure_right, self.sure)} | {worst} |")


def held_out_pile(faces: dict | None, overhead: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(crops, label indices) of the held-out games' pile, with `faces` landing if given."""
    seeds = PILE_VAL_SEEDS if overhead else WEBCAM_PILE_VAL_SEEDS
    return pile_crops(seeds, 2, None, webcam=not overhead, faces=faces)


def read(model: Path, name: str, crops: np.ndarray, labels: np.ndarray,
         tokens: set[str] | None = None) -> ReadScore:
    """Score `model` on `crops` (only those of `tokens`, when given)."""
    if tokens is not None:
        keep = np.array([LABELS[y] in tokens for y in labels])
        crops, labels = crops[keep], labels[keep]
    classifier = CardClassifier(model, threads=2)
    both = (classifier.probabilities(crops)
            + classifier.probabilities(np.ascontiguousarray(crops[:, ::-1, ::-1]))) / 2
    said = [classifier.labels[i] for i in both.argmax(axis=1)]
    truth = [LABELS[y] for y in labels]
    right = np.array([s == t for s, t in zip(said, truth, strict=True)])
    sure = both.max(axis=1) >= SURE
    wrong = Counter((t, s) for s, t, r in zip(said, truth, right, strict=True) if not r)
    return ReadScore(name, len(labels), int(right.sum()), int(sure.sum()),
                     int((right & sure).sum()), wrong.most_common())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.pile_cards_real",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, default=MODEL_PATH)
    parser.add_argument("--fold-models", type=Path, default=None,
                        help="read each fold with DIR/cards-<fold>.onnx (trained without it)")
    parser.add_argument("--folds", default=",".join(FOLDS))
    parser.add_argument("--overhead", action="store_true",
                        help="the overhead family's footage instead of the webcam's")
    args = parser.parse_args(argv)
    folds = [f for f in args.folds.split(",") if f]
    unknown = [f for f in folds if f not in FOLDS]
    if unknown:
        parser.error(f"--folds: no fold {', '.join(unknown)}; the folds: {', '.join(FOLDS)}")
    models = [args.model] + [args.fold_models / f"cards-{f}.onnx" for f in folds
                             if args.fold_models]
    missing = [str(m) for m in models if not m.is_file()]
    if missing:
        parser.error(f"no card model at {', '.join(missing)}")
    print("| faces | crops | read right | read at >= 0.9 | right of those | commonest "
          "misreadings |\n| --- | ---: | ---: | ---: | ---: | --- |", flush=True)
    crops, labels = held_out_pile(None, args.overhead)
    print(read(args.model, "rendered", crops, labels).row(), flush=True)
    for fold in folds:
        faces = real_faces(set(FOLDS[fold]))
        if not faces:
            print(f"| {fold} | no photos of this fold (../shared/data missing?) | | | | |")
            continue
        model = args.fold_models / f"cards-{fold}.onnx" if args.fold_models else args.model
        crops, labels = held_out_pile(faces, args.overhead)
        print(read(model, f"{fold} (real)", crops, labels, set(faces)).row(), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
