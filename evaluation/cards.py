"""Measure the recogniser on labelled photos: `python -m evaluation.cards`.

Two kinds of labelled folder are read (both from `../shared/data/cards-dev`, or the folder named
by the environment variable BRUNO_SHARED_DATA):

- single-card photos (`cards-dev/labels.csv`): the most confident sighting must be the labelled
  card. Prints top-1, colour and value accuracy, the confusion pairs, per-source figures.
- scenes (`cards-dev/scenes-hemant/labels.csv`, one row per labelled card, whose box marks the
  card's corner index): a labelled card is *found* when a sighting with its token has a quad that
  contains the box centre; every other sighting is a *wrong card*.

The data is read in place and never copied into the repository.
"""

from __future__ import annotations

import argparse
import csv
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from evaluation.card_data import (
    REAL_TRAIN_SCENES,
    REAL_TRAIN_SINGLE,
    face_sources_trained_on,
    single_card_source,
)
from evaluation.shared_data import shared_data_dir
from vision.recognise import MIN_CONFIDENCE, CardSighting, recognise


def colour_of(token: str) -> str:
    return token[0] if "_" in token else "black"


def value_of(token: str) -> str:
    return token[2:] if "_" in token else token


@dataclass
class Tally:
    """Counts for one group of single-card photos."""

    n: int = 0
    top1: int = 0
    colour: int = 0
    value: int = 0
    none_found: int = 0
    unsure: int = 0
    confidence: float = 0.0
    confusions: Counter = field(default_factory=Counter)

    def add(self, label: str, pred: str | None, confidence: float = 0.0) -> None:
        self.n += 1
        self.confidence += confidence
        if pred is None:
            self.none_found += 1
            self.confusions[(label, "-")] += 1
            return
        self.top1 += pred == label
        self.colour += colour_of(pred) == colour_of(label)
        self.value += value_of(pred) == value_of(label)
        if pred != label:
            self.confusions[(label, pred)] += 1

    def row(self, name: str) -> str:
        n = max(self.n, 1)
        return (f"| {name} | {self.n} | {100 * self.top1 / n:.1f}% | {100 * self.colour / n:.1f}% "
                f"| {100 * self.value / n:.1f}% | {self.none_found} | {self.unsure} "
                f"| {self.confidence / n:.2f} |")


def evaluate_single(root: Path, rows: Iterable[dict], log=print) -> dict[str, Tally]:
    tallies: dict[str, Tally] = defaultdict(Tally)
    for r in rows:
        image = cv2.imread(str(root / r["path"]))
        # Top-1 is the most confident reading whatever its confidence; readings under
        # MIN_CONFIDENCE (which `bruno identify` would not print) are counted apart.
        sightings = recognise(image, min_confidence=0.0) if image is not None else []
        pred = sightings[0].card if sightings else None
        conf = sightings[0].confidence if sightings else 0.0
        if sightings and conf < MIN_CONFIDENCE:
            for key in ("all", single_card_source(r["path"], r["source"])):
                tallies[key].unsure += 1
        for key in ("all", single_card_source(r["path"], r["source"])):
            tallies[key].add(r["card"], pred, conf)
    return tallies


@dataclass
class SceneTally:
    frames: int = 0
    labelled: int = 0
    found: int = 0
    wrong: int = 0
    confusions: Counter = field(default_factory=Counter)

    def row(self, name: str) -> str:
        return (f"| {name} | {self.frames} | {self.labelled} | "
                f"{100 * self.found / max(self.labelled, 1):.1f}% | {self.wrong} | "
                f"{20 * self.wrong / max(self.frames, 1):.2f} |")


def match_scene(sightings: list[CardSighting], boxes: list[tuple[str, float, float]]
                ) -> tuple[int, int, list[tuple[str, str]]]:
    """(found, wrong, confusions) for one frame: boxes are (token, x, y) in pixels."""
    used: set[int] = set()
    found = 0
    confusions = []
    for token, x, y in boxes:
        hit = None
        near = None
        for i, s in enumerate(sightings):
            inside = cv2.pointPolygonTest(np.float32(s.quad).reshape(-1, 1, 2), (x, y), False)
            if inside >= 0 and i not in used:
                near = near if near is not None else i
                if s.card == token:
                    hit = i
                    break
        if hit is not None:
            used.add(hit)
            found += 1
        else:
            confusions.append((token, sightings[near].card if near is not None else "-"))
    return found, len(sightings) - len(used), confusions


def evaluate_scenes(root: Path, rows: Iterable[dict], log=print) -> dict[str, SceneTally]:
    frames: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        frames[r["path"]].append(r)
    tallies: dict[str, SceneTally] = defaultdict(SceneTally)
    for path, rs in frames.items():
        image = cv2.imread(str(root / path))
        if image is None:
            continue
        h, w = image.shape[:2]
        boxes = [(r["card"], float(r["x_center"]) * w, float(r["y_center"]) * h)
                 for r in rs if r["card"]]
        sightings = recognise(image)
        found, wrong, conf = match_scene(sightings, boxes)
        for key in ("all", f"{rs[0]['capture']}/{rs[0]['split']}"):
            t = tallies[key]
            t.frames += 1
            t.labelled += len(boxes)
            t.found += found
            t.wrong += wrong
            t.confusions.update(conf)
    return tallies


def trained_groups() -> set[str]:
    """The groups of real photos the shipped model was fine-tuned on (empty if none): their
    figures are marked, since they are not a fair test."""
    from vision.classify import default_classifier

    meta = default_classifier().metadata
    faces = face_sources_trained_on(meta)
    if int(meta.get("real_photos_trained_on", "0") or 0) == 0:
        return faces
    return {*REAL_TRAIN_SINGLE, f"webcam/{REAL_TRAIN_SCENES}", f"phone/{REAL_TRAIN_SCENES}",
            *faces}


def _name(key: str, trained: set[str]) -> str:
    return f"{key} (trained on)" if key in trained else key


def _read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _merge(into, other) -> None:
    for f in ("n", "top1", "colour", "value", "none_found", "unsure", "confidence"):
        setattr(into, f, getattr(into, f) + getattr(other, f))
    into.confusions.update(other.confusions)


def _confusion_text(conf: Counter, top: int = 15) -> str:
    return ", ".join(f"{a}->{b} x{n}" for (a, b), n in conf.most_common(top)) or "none"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=None, help="shared data folder")
    ap.add_argument("--only", choices=("single", "scenes"), default=None)
    ap.add_argument("--limit", type=int, default=0, help="use every k-th row only (quick look)")
    ap.add_argument("--localiser", type=Path, default=None, metavar="FOLDER",
                    help="score the learned localisers in FOLDER leave-one-source-out "
                         "(evaluation.localiser) instead")
    ap.add_argument("--sources", default="", help="with --localiser: only these (comma-separated)")
    args = ap.parse_args(argv)
    if args.localiser is not None:
        from evaluation.localiser import evaluate_localiser

        t0 = time.time()
        evaluate_localiser(args.localiser, max(args.limit, 1),
                           {s for s in args.sources.split(",") if s})
        print(f"\n{time.time() - t0:.0f} s")
        return 0
    data = args.data or shared_data_dir()
    cards = data / "cards-dev"
    if not (cards / "labels.csv").is_file():
        print(f"no labelled data at {cards}; set BRUNO_SHARED_DATA or pass --data")
        return 2
    step = max(args.limit, 1)
    trained = trained_groups()
    if trained:
        print("the model was fine-tuned on: " + ", ".join(sorted(trained))
              + "; every other group is held out")
    if args.only in (None, "single"):
        rows = _read_csv(cards / "labels.csv")[::step]
        t0 = time.time()
        tallies = evaluate_single(cards, rows)
        print(f"\nSingle-card photos ({cards}), {time.time() - t0:.0f} s")
        print("| source | photos | top-1 | colour | value | no card found "
              f"| top reading < {MIN_CONFIDENCE} | mean confidence |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        held = Tally()
        for k in ["all", *sorted(k for k in tallies if k != "all")]:
            print(tallies[k].row(_name(k, trained)))
            if k != "all" and k not in trained:
                _merge(held, tallies[k])
        if trained and held.n:
            print(held.row("held out (not trained on)"))
            print(f"held-out confusions (label->read): {_confusion_text(held.confusions)}")
        print(f"confusions (label->read): {_confusion_text(tallies['all'].confusions)}")
    scenes = cards / "scenes-hemant"
    if args.only in (None, "scenes") and (scenes / "labels.csv").is_file():
        rows = _read_csv(scenes / "labels.csv")
        if step > 1:
            keep = sorted({r["path"] for r in rows})[::step]
            rows = [r for r in rows if r["path"] in set(keep)]
        t0 = time.time()
        tallies = evaluate_scenes(scenes, rows)
        print(f"\nScenes ({scenes}), {time.time() - t0:.0f} s")
        print("| capture/split | frames | labelled cards | found right | wrong cards "
              "| wrong per 20 frames |")
        print("| --- | --- | --- | --- | --- | --- |")
        for k in ["all", *sorted(k for k in tallies if k != "all")]:
            print(tallies[k].row(_name(k, trained)))
        for k in sorted(k for k in tallies if k != "all" and k not in trained):
            print(f"misses in {k} (label->read there): "
                  f"{_confusion_text(tallies[k].confusions)}")
        print(f"misses (label->read there): {_confusion_text(tallies['all'].confusions)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
