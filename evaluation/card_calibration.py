"""How far the card reader's confidence can be trusted on real photos: the calibration curve
and expected calibration error (ECE) per real source, and what a calibration fitted without
the source would make of it.

    python -m evaluation.card_calibration [--data DIR] [--localiser FOLDER]

Every single-card photo of cards-dev and cards-wide goes through `vision.recognise.recognise`
(with any confidence) with the classical locator, or, with `--localiser FOLDER`, through `bruno
identify`'s path (`learned+classical`) with, for each source, the localiser in FOLDER that was
not trained on it (`evaluation.localiser.model_for`, as the leave-one-source-out tables pick);
its most confident reading is right or wrong. Per source: the reading's mean confidence against
how often it is right (the curve, in ten bins of confidence), and ECE, the photo-weighted mean
gap between the two. Then, leave one source out, a two-number Platt map on the confidence's
logit (conf' = sigmoid(a * logit + b), fitted by gradient descent on every OTHER source's
readings) and the ECE it gives the source left out. The groups the reader was fine-tuned on
(`evaluation.card_data.REAL_TRAIN_SINGLE`) are left out: they are no test; sources whose cards
it was trained on as pile faces (`face_sources_trained_on`) are marked "(cards trained on)".
A photo where nothing was read is no reading and is left out (until 6 December it counted as
a reading of confidence 0 that is wrong, which has no gap and so made a source whose cards
were missed look better calibrated: the MODEL_CARD tables before then were measured so). Photos of
several cards (the wooden table, the row) count every reading: right when it lies over a
labelled card's centre and names it.
Nothing here is shipped: it measures.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

from evaluation.card_data import REAL_TRAIN_SINGLE, face_sources_trained_on, single_card_source
from evaluation.shared_data import shared_data_dir
from vision.recognise import recognise

BINS = 10


def readings(data: Path, localisers: Path | None = None) -> dict[str, list[tuple[float, bool]]]:
    """Source -> (confidence of the top reading, whether it is the card) per photo; with
    `localisers` (a folder of localiser models), each source read through `learned+classical`
    with the one of them that never saw it (sources every model saw are left out)."""
    models = None
    if localisers is not None:
        from evaluation.localiser import load_models

        models = load_models(localisers)

    def how(source: str) -> dict | None:
        """recognise's locator arguments for `source`; None when no model is fair to it."""
        if models is None:
            return {}
        from evaluation.localiser import model_for

        name = model_for(source, models)
        return None if name is None else {"locator": "learned+classical",
                                          "localiser": models[name]["localiser"]}

    from vision.classify import default_classifier

    # Sources whose cards the reader was trained on as pile faces are marked, not left out.
    faces = face_sources_trained_on(default_classifier().metadata)

    def name(source: str) -> str:
        return f"{source} (cards trained on)" if source in faces else source

    out: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for folder in ("cards-dev", "cards-wide"):
        labels = data / folder / "labels.csv"
        if not labels.is_file():
            continue
        with labels.open(newline="") as handle:
            rows = list(csv.DictReader(handle))
        per_photo = defaultdict(list)
        for row in rows:
            per_photo[row["path"]].append(row)
        for path, cards in per_photo.items():
            if len(cards) > 1 or cards[0].get("x_center"):
                kwargs = how(cards[0]["source"])
                if kwargs is None:
                    continue
                pairs = _scene_readings(data / folder / path, cards, kwargs)
                out[f"{name(cards[0]['source'])} (scene)"] += pairs
                continue
            if not cards[0].get("card"):
                continue
            source = single_card_source(path, cards[0]["source"])
            kwargs = how(source)
            if source in REAL_TRAIN_SINGLE or kwargs is None:
                continue
            image = cv2.imread(str(data / folder / path))
            if image is None:
                continue
            seen = recognise(image, min_confidence=0.0, **kwargs)
            if seen:  # (nothing read: no confidence to calibrate; "found" counts the miss)
                out[name(source)].append((seen[0].confidence, seen[0].card == cards[0]["card"]))
    return dict(out)


def _scene_readings(path: Path, cards: list[dict], kwargs: dict
                    ) -> list[tuple[float, bool]]:
    """Every reading in a photo of several cards: right when it lies over a labelled card's
    centre and names that card; wrong otherwise (another card, a card back, the table)."""
    image = cv2.imread(str(path))
    if image is None:
        return []
    h, w = image.shape[:2]
    centres = [(row.get("card") or "", float(row["x_center"]) * w, float(row["y_center"]) * h)
               for row in cards if row.get("x_center")]
    pairs = []
    for seen in recognise(image, min_confidence=0.0, **kwargs):
        quad = np.float32(seen.quad).reshape(-1, 1, 2)
        under = [token for token, x, y in centres
                 if cv2.pointPolygonTest(quad, (x, y), False) >= 0]
        pairs.append((seen.confidence, seen.card in under))
    return pairs


def curve(pairs: list[tuple[float, bool]]) -> list[tuple[float, float, int]]:
    """Per confidence bin with readings: (mean confidence, share right, readings)."""
    bins: dict[int, list[tuple[float, bool]]] = defaultdict(list)
    for conf, right in pairs:
        bins[min(BINS - 1, int(conf * BINS))].append((conf, right))
    return [(float(np.mean([c for c, _ in b])), float(np.mean([r for _, r in b])), len(b))
            for _, b in sorted(bins.items())]


def ece(pairs: list[tuple[float, bool]]) -> float:
    total = len(pairs)
    return sum(n / total * abs(conf - right) for conf, right, n in curve(pairs)) if total else 0.0


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def fit_platt(pairs: list[tuple[float, bool]], steps: int = 3000) -> tuple[float, float]:
    """(a, b) minimising the log loss of sigmoid(a * logit(conf) + b) on `pairs`."""
    x = _logit(np.array([c for c, _ in pairs]))
    y = np.array([r for _, r in pairs], float)
    a, b = 1.0, 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(a * x + b)))
        a -= 0.05 * float(np.mean((p - y) * x))
        b -= 0.05 * float(np.mean(p - y))
    return a, b


def platt(pairs: list[tuple[float, bool]], a: float, b: float) -> list[tuple[float, bool]]:
    return [(float(1 / (1 + math.exp(-(a * _logit(np.array(c)) + b)))), r) for c, r in pairs]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.card_calibration",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None, help="shared data folder")
    parser.add_argument("--localiser", type=Path, default=None, metavar="FOLDER",
                        help="read through learned+classical with FOLDER's localiser models, "
                             "each source with one not trained on it")
    args = parser.parse_args(argv)
    data = args.data or shared_data_dir()
    by_source = readings(data, args.localiser)
    if not by_source:
        print(f"evaluation.card_calibration: error: no single-card photos under {data}",
              file=sys.stderr)
        return 2
    print("| source | photos | right | mean confidence | ECE | ECE, Platt map "
          "fitted on the other sources | map (a, b) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    everything = [p for pairs in by_source.values() for p in pairs]
    for source, pairs in sorted(by_source.items()):
        others = [p for s, ps in by_source.items() if s != source for p in ps]
        a, b = fit_platt(others)
        right = sum(r for _, r in pairs)
        print(f"| {source} | {len(pairs)} | {right / len(pairs):.1%} | "
              f"{np.mean([c for c, _ in pairs]):.3f} | {ece(pairs):.3f} | "
              f"{ece(platt(pairs, a, b)):.3f} | ({a:.2f}, {b:.2f}) |")
    print(f"| all | {len(everything)} | {np.mean([r for _, r in everything]):.1%} | "
          f"{np.mean([c for c, _ in everything]):.3f} | {ece(everything):.3f} | | |")
    print("\nCalibration curve, all sources (confidence bin: mean confidence -> share right, "
          "readings):")
    for conf, right, n in curve(everything):
        print(f"  {conf:.2f} -> {right:.2f} ({n})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
