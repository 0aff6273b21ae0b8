"""Operating points of the LOSO models (diagnostic only; NOT used to choose any threshold):
for each fold's model, the logits of every onset the stage finds in the held-out clips
(onsets found with every onset accepted, so refractory time follows every onset: a slight
approximation of the real run), and recall / false knocks per 10 min at several thresholds.

    PYTHONPATH=main_snapshot:. .venv/bin/python operating_points.py --tag _v3
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

from audio.knock_classifier import KnockClassifier
from models.knocks.knock_data import (
    LOSO_FOLDS,
    RATE_HZ,
    SCORED_FROM_S,
    held_out,
    load_audio,
    load_clips,
    recorded_seconds,
)
from models.knocks.onset_stage import find_onsets

THRESHOLDS = (-1.0, 0.0, 1.0, 2.0, 3.0)


def fold_logits(fold: str, model: Path):
    clf = KnockClassifier(model)
    _, out = held_out(load_clips(), fold)
    knocks, quiet, quiet_s = {}, [], 0.0
    for c in out:
        x = load_audio(c)
        if c.kind in ("background", "distractor"):
            quiet_s += recorded_seconds(x)
        for o in find_onsets(x, block_samples=4000):
            if o.t_s < SCORED_FROM_S:
                continue
            logit = clf.judge(x, round(o.t_s * RATE_HZ), o.features).logit
            if c.is_knock and any(abs(o.t_s - e) <= 0.05 for e in c.event_times_s):
                knocks.setdefault(c.source, []).append(logit)
            elif c.kind in ("background", "distractor"):
                quiet.append(logit)
    n_knocks = {c.source: 0 for c in out if c.is_knock}
    for c in out:
        if c.is_knock:
            n_knocks[c.source] += len(c.event_times_s)
    return knocks, n_knocks, np.array(quiet), quiet_s


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tag", default="_v3")
    args = parser.parse_args(argv)
    lab = Path(os.environ.get("BRUNO_KNOCK_LAB", "/tmp/bruno-knock-lab"))
    rows = ["| left-out source | " + " | ".join(f"logit >= {t:g}: recall / false per 10 min"
                                                 for t in THRESHOLDS) + " |",
            "| --- |" + " ---: |" * len(THRESHOLDS)]
    for fold in LOSO_FOLDS:
        model = lab / "models" / f"loso_{fold.split()[0]}{args.tag}.onnx"
        if not model.exists():
            continue
        knocks, n_knocks, quiet, quiet_s = fold_logits(fold, model)
        for source, total in n_knocks.items():
            k = np.array(knocks.get(source, []))
            cells = [f"{100 * np.sum(k >= t) / total:.0f}% / "
                     f"{600 * np.sum(quiet >= t) / quiet_s:.1f}" for t in THRESHOLDS]
            rows.append(f"| {source} | " + " | ".join(cells) + " |")
    table = "\n".join(rows)
    (lab / f"operating_points{args.tag}.md").write_text(table + "\n")
    print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
