"""Training recipe for the card classifier shipped as `models/cards.onnx`.

Run `python -m models.train_cards` (or `make train-cards`) in a venv with the `[train]` extra
(torch CPU, onnx). It renders labelled crops with `vision.render.render_crop` (deterministic from
`--seed`), trains a small CNN on them, fits a softmax temperature on held-out rendered crops, and
exports an ONNX graph that takes a batch of crops and returns calibrated probabilities. The
runtime (`vision.classify`) never imports torch.

Input:  float32 [N, 3, 96, 64], BGR, pixel/255 (the white-balanced crop from `vision.rectify`).
Output: float32 [N, 55] probabilities; the labels (54 card tokens, then `not_card`) are stored in
the ONNX metadata under `labels`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from referee.cards import ALL_TOKENS
from vision.rectify import CROP_H, CROP_W
from vision.render import NOT_CARD, render_crop

LABELS: tuple[str, ...] = (*ALL_TOKENS, NOT_CARD)
NOT_CARD_SHARE = 3
"""not_card crops are drawn this many times as often as one card class (its looks vary most)."""

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "models" / "cards.onnx"


def _label_for(i: int) -> int:
    cycle = len(ALL_TOKENS) + NOT_CARD_SHARE
    k = i % cycle
    return k if k < len(ALL_TOKENS) else len(ALL_TOKENS)


def _render_one(args: tuple[int, int]) -> np.ndarray:
    i, seed = args
    rng = np.random.default_rng([seed, i])
    return render_crop(LABELS[_label_for(i)], rng)


def make_set(n: int, seed: int, workers: int, cache: Path | None) -> tuple[np.ndarray, np.ndarray]:
    """`n` rendered crops (uint8 [n, H, W, 3]) and their label indices, cached as .npz."""
    if cache is not None and cache.exists():
        data = np.load(cache)
        if len(data["y"]) == n:
            return data["x"], data["y"]
    t0 = time.time()
    with Pool(workers) as pool:
        xs = pool.map(_render_one, [(i, seed) for i in range(n)], chunksize=64)
    x = np.stack(xs)
    y = np.array([_label_for(i) for i in range(n)], np.int64)
    print(f"rendered {n} crops (seed {seed}) in {time.time() - t0:.0f} s", flush=True)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, x=x, y=y)
    return x, y


def build_model(n_classes: int = len(LABELS)):
    import torch.nn as nn

    def block(cin, cout, stride=1):
        return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True)]

    # Width is spent late, where the maps are small: on 2 CPU cores the early full-size layers
    # cost the most time (a step of 128 crops takes about 0.3 s).
    return nn.Sequential(
        *block(3, 24, 2), nn.MaxPool2d(2),   # 24x16
        *block(24, 64), nn.MaxPool2d(2),     # 12x8
        *block(64, 128), nn.MaxPool2d(2),    # 6x4
        *block(128, 128),
        nn.Flatten(),
        nn.Dropout(0.3),
        nn.Linear(128 * 6 * 4, n_classes),
    )


def _augment(xb, rng):
    """Cheap on-the-fly variation: 180° turns, small shifts, exposure, noise. No hue change."""
    import torch

    n = xb.shape[0]
    flip = torch.from_numpy(rng.random(n) < 0.5)
    xb[flip] = torch.flip(xb[flip], dims=(2, 3))
    dx, dy = (int(v) for v in rng.integers(-3, 4, 2))
    xb = torch.roll(xb, shifts=(dy, dx), dims=(2, 3))
    gain = torch.from_numpy(rng.uniform(0.8, 1.15, (n, 1, 1, 1)).astype(np.float32))
    xb = xb * gain + torch.randn_like(xb) * float(rng.uniform(0, 0.03))
    return xb.clamp(0, 1)


def _to_tensor(x):
    import torch

    return torch.from_numpy(x).permute(0, 3, 1, 2).float().div_(255.0)


def evaluate(model, x, y, batch=512):
    import torch

    model.eval()
    logits = []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            logits.append(model(_to_tensor(x[i:i + batch])))
    logits = torch.cat(logits)
    acc = float((logits.argmax(1).numpy() == y).mean())
    return logits, acc


def fit_temperature(logits, y) -> float:
    """The softmax temperature that minimises held-out negative log-likelihood (grid search)."""
    import torch
    import torch.nn.functional as F

    yt = torch.from_numpy(y)
    best = (math.inf, 1.0)
    for t in np.exp(np.linspace(np.log(0.3), np.log(5.0), 60)):
        nll = float(F.cross_entropy(logits / float(t), yt))
        best = min(best, (nll, float(t)))
    return best[1]


class _Calibrated:
    """Wraps the network for export: divide logits by T, softmax."""

    def __new__(cls, net, temperature):
        import torch.nn as nn

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = net
                self.t = float(temperature)

            def forward(self, x):
                return (self.net(x) / self.t).softmax(dim=1)

        return M()


def export(model, temperature: float, out: Path, meta: dict) -> None:
    import onnx
    import torch

    model.eval()
    wrapped = _Calibrated(model, temperature).eval()
    dummy = torch.zeros(1, 3, CROP_H, CROP_W)
    tmp = out.with_suffix(".tmp.onnx")
    torch.onnx.export(wrapped, dummy, str(tmp), input_names=["crops"], output_names=["probs"],
                      dynamic_axes={"crops": {0: "n"}, "probs": {0: "n"}}, opset_version=17,
                      dynamo=False)
    m = onnx.load(str(tmp))
    for k, v in {"labels": json.dumps(list(LABELS)), **meta}.items():
        p = m.metadata_props.add()
        p.key, p.value = k, str(v)
    onnx.save(m, str(out))
    tmp.unlink()
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)", flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", type=int, default=22000, help="rendered training crops")
    ap.add_argument("--val", type=int, default=2200, help="rendered held-out crops")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/bruno-cards-cache"))
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)

    import torch
    import torch.nn.functional as F

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    t_start = time.time()
    xtr, ytr = make_set(args.train, args.seed, args.threads,
                        args.cache / f"train_{args.seed}_{args.train}.npz")
    # Held-out crops come from a different seed, so no rendered card is in both sets.
    xva, yva = make_set(args.val, args.seed + 1000, args.threads,
                        args.cache / f"val_{args.seed + 1000}_{args.val}.npz")

    model = build_model()
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * math.ceil(len(xtr) / args.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps,
                                                pct_start=0.15)
    rng = np.random.default_rng(args.seed)
    ytr_t = torch.from_numpy(ytr)
    for epoch in range(args.epochs):
        model.train()
        order = rng.permutation(len(xtr))
        t0, total = time.time(), 0.0
        for i in range(0, len(order), args.batch):
            idx = order[i:i + args.batch]
            xb = _augment(_to_tensor(xtr[idx]), rng)
            loss = F.cross_entropy(model(xb), ytr_t[idx], label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        _, acc = evaluate(model, xva, yva)
        print(f"epoch {epoch + 1}/{args.epochs} loss {total / len(xtr):.3f} "
              f"val_acc {acc:.4f} ({time.time() - t0:.0f} s)", flush=True)
        torch.save(model.state_dict(), args.cache / "checkpoint.pt")

    logits, acc = evaluate(model, xva, yva)
    t = fit_temperature(logits, yva)
    print(f"held-out rendered accuracy {acc:.4f}; temperature {t:.3f}", flush=True)
    export(model, t, args.out, {
        "temperature": f"{t:.4f}",
        "rendered_val_accuracy": f"{acc:.4f}",
        "train_crops": args.train, "epochs": args.epochs, "seed": args.seed,
        "input": f"float32 [N,3,{CROP_H},{CROP_W}] BGR/255, white-balanced crop",
    })
    print(f"total {time.time() - t_start:.0f} s", flush=True)


if __name__ == "__main__":
    main()
