"""Training recipe for the card classifier shipped as `models/cards.onnx`.

Run `python -m models.train_cards` (or `make train-cards`) in a venv with the `[train]` extra
(torch CPU, onnx). It renders labelled crops with `synth.render.render_crop` (deterministic from
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
from functools import partial
from multiprocessing import Pool, get_context
from pathlib import Path

import numpy as np

from referee.cards import ALL_TOKENS
from synth.render import (
    NOT_CARD,
    SUNBURST_PART_TOKENS,
    footage_style,
    print2020_style,
    render_crop,
    render_part_crop,
)
from vision.rectify import CROP_H, CROP_W

LABELS: tuple[str, ...] = (*ALL_TOKENS, NOT_CARD)
NOT_CARD_SHARE = 6
"""not_card crops are drawn this many times as often as one card class (its looks vary most)."""

RENDER_VERSION = 3
"""Bump when synth/render.py changes what it draws, so cached crops are not reused."""

PARTS_RENDER_VERSION = 4
"""The version of the sunburst part crops and the 2020s print's crops, which changed apart
from the rest: parts reach down to where the disc cuts the body (`PART_REACH`), and the 2020s
print got its drop shadow, heavier strokes and flat-topped 3. The other crops render as in
`RENDER_VERSION`."""

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "models" / "cards.onnx"


def _label_for(i: int) -> int:
    cycle = len(ALL_TOKENS) + NOT_CARD_SHARE
    k = i % cycle
    return k if k < len(ALL_TOKENS) else len(ALL_TOKENS)


PRINTS = {"footage": footage_style, "2020": print2020_style}
"""Prints other than `random_style`'s that crops can be rendered in, by name."""


def _print(print_name: str | None):
    """The style function of `PRINTS` named `print_name`; None (`random_style`) for None."""
    return PRINTS[print_name] if print_name is not None else None


def _render_one(args: tuple[int, int, str | None]) -> np.ndarray:
    i, seed, print_name = args
    rng = np.random.default_rng([seed, i])
    return render_crop(LABELS[_label_for(i)], rng, style=_print(print_name))


def make_set(n: int, seed: int, workers: int, cache: Path | None, print_name: str | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
    """`n` rendered crops (uint8 [n, H, W, 3]) and their label indices, cached as .npz.
    `print_name`: cards printed in one of `PRINTS` (the synthetic footage's, `"footage"`; the
    2020s deck's, `"2020"`) instead of `random_style`'s."""
    def render() -> tuple[np.ndarray, np.ndarray]:
        t0 = time.time()
        with Pool(workers) as pool:
            xs = pool.map(_render_one, [(i, seed, print_name) for i in range(n)], chunksize=64)
        print(f"rendered {n} crops (seed {seed}) in {time.time() - t0:.0f} s", flush=True)
        return np.stack(xs), np.array([_label_for(i) for i in range(n)], np.int64)

    return _cached(cache, render, size=n)


def _part_token(i: int) -> str:
    return SUNBURST_PART_TOKENS[i % len(SUNBURST_PART_TOKENS)]


def _render_part(args: tuple[int, int, str | None]) -> np.ndarray:
    i, seed, print_name = args
    return render_part_crop(_part_token(i), np.random.default_rng([seed, i]),
                            style=_print(print_name))


def part_crops(n: int, seed: int, workers: int, cache: Path | None,
               print_name: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """`n` crops of sunburst cards' parts (`synth.render.render_part_crop`), every coloured
    card in turn, and their label indices, cached as .npz; `print_name` as in `make_set`."""
    def render() -> tuple[np.ndarray, np.ndarray]:
        t0 = time.time()
        with Pool(workers) as pool:
            xs = pool.map(_render_part, [(i, seed, print_name) for i in range(n)],
                          chunksize=64)
        print(f"rendered {n} part crops (seed {seed}) in {time.time() - t0:.0f} s", flush=True)
        return np.stack(xs), np.array([LABELS.index(_part_token(i)) for i in range(n)], np.int64)

    return _cached(cache, render, size=n)


LOCATED_VERSION = 3
"""Bump when `synth.composites.located_crop` changes what it draws (the cache's name)."""

LOCATED_NOT_CARD_SHARE = 18
"""In the located crops, not_card is drawn this many times as often as one card class (a
quarter of them): the boxes the localiser puts on backs, French cards and hands."""


def _located_label(i: int) -> int:
    k = i % (len(ALL_TOKENS) + LOCATED_NOT_CARD_SHARE)
    return k if k < len(ALL_TOKENS) else len(ALL_TOKENS)


def _render_located(args: tuple[int, int]) -> np.ndarray:
    from synth.composites import located_crop

    i, seed = args
    return located_crop(LABELS[_located_label(i)], np.random.default_rng([seed, i]), NOT_CARD)


def located_crops(n: int, seed: int, workers: int, cache: Path | None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """`n` crops cut by loose, localiser-like boxes (`synth.composites.located_crop`) and their
    label indices, cached as .npz."""
    def render() -> tuple[np.ndarray, np.ndarray]:
        t0 = time.time()
        with Pool(workers) as pool:
            xs = pool.map(_render_located, [(i, seed) for i in range(n)], chunksize=64)
        print(f"rendered {n} located crops (seed {seed}) in {time.time() - t0:.0f} s",
              flush=True)
        return np.stack(xs), np.array([_located_label(i) for i in range(n)], np.int64)

    return _cached(cache, render, size=n)


def _cached(cache: Path | None, build, size: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) from the .npz `cache` when it is there (and holds `size` items, if given), else
    built and saved there."""
    if cache is not None and cache.exists():
        data = np.load(cache)
        if size is None or len(data["y"]) == size:
            return data["x"], data["y"]
    x, y = build()
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, x=x, y=y)
    return x, y


# ---------------------------------------------------------------------------------------------
# The pile's top card as synthetic footage shows it (H.264-like compression, the footage's
# light, shadows and hands), cut at its true corners moved a little, as the pile watcher's
# patch is. Footage seeds here are never the ones evaluated on (101-110, the demo, the tests).

PILE_SEEDS = range(5001, 5121)
PILE_VAL_SEEDS = range(6001, 6021)
PILE_OFFSETS_S = (0.05, 0.4, 0.9, 1.5)
WEBCAM_PILE_SEEDS = range(7001, 7121)
WEBCAM_PILE_VAL_SEEDS = range(9101, 9111)
"""The webcam family's games for pile crops: seeds no evaluation or test renders (301-326)."""


def _moved_quad(quad: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """`quad` turned a few degrees, scaled by up to 8% and shifted a little, as the pile
    watcher's patch lies on the card."""
    centre = quad.mean(axis=0)
    side = float(np.linalg.norm(quad[0] - quad[3]))
    angle = np.deg2rad(rng.normal(0, 3))
    turn = np.float32([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    return (quad - centre) @ turn.T * rng.uniform(0.92, 1.08) + centre \
        + rng.normal(0, 0.04 * side, 2)


def _pile_still_times(renderer) -> list[float]:
    """When to cut the pile's top card: PILE_OFFSETS_S after each card came to rest, while it
    is still the top card (0.6 s before the next one lands)."""
    rests = [c.t for c in renderer.pile_changes if c.token is not None]
    return [t + dt for i, t in enumerate(rests) for dt in PILE_OFFSETS_S
            if i + 1 == len(rests) or t + dt < rests[i + 1] - 0.6]


def pile_crops_of_game(seed: int, real_faces: dict | None = None
                        ) -> tuple[list[np.ndarray], list[int]]:
    """The pile's top card of a footage game (straight above), cut at its true corners moved a
    little, as the pile watcher's patch is, JPEG-compressed; `real_faces` as for
    `webcam_pile_crops_of_game`."""
    import cv2

    from synth.footage import DEFAULT_FPS, DEFAULT_SIZE, FootageRenderer
    from synth.scenario import random_scenario
    from vision.rectify import order_quad, rectify

    rng = np.random.default_rng(seed)
    renderer = FootageRenderer(random_scenario(seed, plays=24), DEFAULT_SIZE, DEFAULT_FPS,
                               real_faces=real_faces)
    times = _pile_still_times(renderer)
    xs, ys = [], []
    for _, image, token, quad in renderer.stills(times):
        if token is None or quad is None:
            continue
        moved = _moved_quad(quad, rng)
        side = float(np.linalg.norm(quad[0] - quad[3]))
        x0, y0 = np.maximum(np.floor(moved.min(axis=0) - side * 0.3).astype(int), 0)
        x1, y1 = np.ceil(moved.max(axis=0) + side * 0.3).astype(int)
        region = image[y0:y1, x0:x1]
        _, jpeg = cv2.imencode(".jpg", region, [cv2.IMWRITE_JPEG_QUALITY,
                                                 int(rng.integers(35, 80))])
        region = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
        xs.append(rectify(region, order_quad((moved - [x0, y0]).astype(np.float32)),
                          ordered=True))
        ys.append(LABELS.index(token))
    return xs, ys


def webcam_pile_crops_of_game(seed: int, real_faces: dict | None = None
                               ) -> tuple[list[np.ndarray], list[int]]:
    """The pile's top card of a fast-hands game as the webcam family films it
    (`synth.webcam`: tilted, a colour cast, a lamp's hotspot, the glare, exposure steps,
    noise, soft focus), then compressed blockily (JPEG at the low qualities a 300-600 kb/s
    stream shows) and cut at its true corners, moved a little, as the pile watcher's patch is.
    `real_faces` (token -> faces cut out of real photos): those land instead of rendered ones
    (`synth.footage.FootageRenderer`)."""
    import cv2

    from synth.footage import DEFAULT_FPS, DEFAULT_SIZE, FootageRenderer
    from synth.scenario import random_scenario
    from synth.webcam import WebcamLook
    from vision.rectify import order_quad, rectify

    rng = np.random.default_rng(seed)
    scenario = random_scenario(seed, plays=24, fast_hands=True)
    look = WebcamLook.draw(seed, scenario.length_s())
    renderer = FootageRenderer(scenario, DEFAULT_SIZE, DEFAULT_FPS, look=look,
                               real_faces=real_faces)
    warp = look.homography(DEFAULT_SIZE)
    times = _pile_still_times(renderer)
    xs, ys = [], []
    for t, image, token, quad in renderer.stills(times):
        if token is None or quad is None:
            continue
        seen = look.see(image, t, round(t * DEFAULT_FPS), warp)
        corners = cv2.perspectiveTransform(quad.reshape(-1, 1, 2).astype(np.float64), warp)
        corners = corners[:, 0].astype(np.float32)
        moved = _moved_quad(corners, rng)
        _, jpeg = cv2.imencode(".jpg", seen, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(15, 55))])
        seen = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
        xs.append(rectify(seen, order_quad(moved.astype(np.float32)), ordered=True))
        ys.append(LABELS.index(token))
    return xs, ys


def pile_crops(seeds: range, workers: int, cache: Path | None, webcam: bool = False,
               faces: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Crops of the pile's top card from synthetic footage games `seeds` (through the webcam
    family's camera when `webcam`, with `faces` (token -> cards cut out of real photos)
    landing instead of rendered faces where they show the card), cached as .npz."""
    def cut() -> tuple[np.ndarray, np.ndarray]:
        t0 = time.time()
        cutter = webcam_pile_crops_of_game if webcam else pile_crops_of_game
        if faces:
            cutter = partial(cutter, real_faces=faces)
        # Spawned, not forked, when faces were cut in this process: OpenCV's thread pool, used
        # to cut them, can hang in a forked child (an evaluation's run did).
        context = get_context("spawn" if faces else "fork")
        with context.Pool(workers) as pool:
            games = pool.map(cutter, list(seeds))
        y = np.array([label for _, ys in games for label in ys], np.int64)
        print(f"cut {len(y)} pile crops from {len(games)} {'webcam ' * webcam}footage games "
              f"in {time.time() - t0:.0f} s", flush=True)
        return np.stack([c for xs, _ in games for c in xs]), y

    return _cached(cache, cut)


# ---------------------------------------------------------------------------------------------
# Real photos for fine-tuning (only the splits named here; the rest is kept for evaluation)

REAL_JITTERS = 8
"""Crops made per real photo, each from a slightly moved quad."""


def _largest_card_blob(image):
    import cv2

    from vision.locate import quad_aspect, quad_of

    grey = cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    _, m = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for c in sorted(contours, key=cv2.contourArea, reverse=True)[:3]:
        q = quad_of(cv2.convexHull(c))
        if 1.3 <= quad_aspect(q) <= 1.8 and cv2.contourArea(c) < 0.8 * m.size:
            return q
    return None


def _quad_at_corner(image, x, y):
    """The largest located quad that has the labelled corner index (x, y) near one corner."""
    import cv2

    from vision.locate import locate, quad_aspect

    best = None
    for cand in locate(image):
        q = cand.quad
        if not 1.3 <= quad_aspect(q) <= 1.8:
            continue
        if cv2.pointPolygonTest(q.reshape(-1, 1, 2), (x, y), False) < 0:
            continue
        short = min(np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1))
        if np.min(np.linalg.norm(q - np.float32([x, y]), axis=1)) > 0.45 * short:
            continue
        if best is None or cand.area > cv2.contourArea(best):
            best = q
    return best


LOOSE_REAL_SCALE = (0.95, 1.25)
LOOSE_REAL_TURN_DEG = 5.0
LOOSE_REAL_SHIFT = 0.04
"""`--loose-real`: the real training cards cut again as the learned localiser boxes them: up to
a quarter larger than the card, off centre by a few percent of its size, turned a few degrees
(its boxes on held cards; the classifier, trained on tight crops, read 2 of 7 of those right)."""


def real_crops(data: Path, seed: int, loose: bool = False
               ) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Jittered crops of the real photos in the training splits, their labels, and the files.
    `loose`: cut by loose boxes (`LOOSE_REAL_SCALE`...) instead of near the outline."""
    import csv

    import cv2

    from evaluation.card_data import REAL_TRAIN_SCENES, REAL_TRAIN_SINGLE, single_card_source
    from vision.rectify import normalise_white, warp_card

    rng = np.random.default_rng(seed)
    items: list[tuple[Path, np.ndarray, str]] = []
    cards = data / "cards-dev"
    with open(cards / "labels.csv", newline="") as f:
        for r in csv.DictReader(f):
            if single_card_source(r["path"], r["source"]) in REAL_TRAIN_SINGLE:
                img = cv2.imread(str(cards / r["path"]))
                q = _largest_card_blob(img) if img is not None else None
                if q is not None:
                    items.append((cards / r["path"], q, r["card"]))
    scenes = cards / "scenes-hemant"
    with open(scenes / "labels.csv", newline="") as f:
        for r in csv.DictReader(f):
            if r["split"] != REAL_TRAIN_SCENES or not r["card"]:
                continue
            img = cv2.imread(str(scenes / r["path"]))
            if img is None:
                continue
            h, w = img.shape[:2]
            q = _quad_at_corner(img, float(r["x_center"]) * w, float(r["y_center"]) * h)
            if q is not None:
                items.append((scenes / r["path"], q, r["card"]))
    xs, ys = [], []
    for path, q, token in items:
        img = cv2.imread(str(path))
        size = np.sqrt(cv2.contourArea(q))
        for _ in range(REAL_JITTERS):
            c = q.mean(axis=0)
            if loose:
                a = np.deg2rad(rng.uniform(-LOOSE_REAL_TURN_DEG, LOOSE_REAL_TURN_DEG))
                turn = np.float32([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
                est = (q - c) @ turn.T * rng.uniform(*LOOSE_REAL_SCALE) + c \
                    + rng.normal(0, size * LOOSE_REAL_SHIFT, 2)
            else:
                est = c + (q - c) * rng.uniform(0.9, 1.06)
                est = est + rng.normal(0, size * 0.015, q.shape)
            crop, valid = warp_card(img, est.astype(np.float32))
            xs.append(normalise_white(crop, valid))
            ys.append(LABELS.index(token))
    print(f"real crops: {len(xs)} from {len(items)} labelled cards", flush=True)
    return np.stack(xs), np.array(ys, np.int64), sorted({str(p) for p, _, _ in items})


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


def init_from_onnx(model, path: Path, x_sample: np.ndarray) -> None:
    """Load the weights of an exported classifier (`models/cards.onnx`) into `model`. The
    export folds each batch norm into its convolution, so the norms are rebuilt to pass the
    folded convolution's output through unchanged in eval mode: their statistics are the
    output's own on `x_sample` (so that training-mode batches see about the same), their scale
    and shift undo them and add the folded bias."""
    import onnx
    import torch
    import torch.nn as nn
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    layers = list(model)
    conv_layers = [m for m in layers if isinstance(m, nn.Conv2d)]
    gemm = next(n for n in graph.node if n.op_type == "Gemm")
    model.eval()
    with torch.no_grad():
        for node, conv in zip(convs, conv_layers, strict=True):
            conv.weight.copy_(torch.from_numpy(weights[node.input[1]]))
        x = _to_tensor(x_sample)
        for k, layer in enumerate(layers):
            if isinstance(layer, nn.BatchNorm2d):
                bias = torch.from_numpy(weights[convs[conv_layers.index(layers[k - 1])].input[2]])
                mean, var = x.mean(dim=(0, 2, 3)), x.var(dim=(0, 2, 3))
                layer.running_mean.copy_(mean)
                layer.running_var.copy_(var)
                layer.weight.copy_(torch.sqrt(var + layer.eps))
                layer.bias.copy_(mean + bias)
            x = layer(x)
        linear = layers[-1]
        linear.weight.copy_(torch.from_numpy(weights[gemm.input[1]]))
        linear.bias.copy_(torch.from_numpy(weights[gemm.input[2]]))


def rng_sample(n: int, k: int, seed: int) -> np.ndarray:
    """`k` distinct indices of `n` (all of them when fewer), sorted."""
    return np.sort(np.random.default_rng(seed).permutation(n)[:k])


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


# ---------------------------------------------------------------------------------------------
# Bare tables: every quad the runtime locator finds on a rendered table with no card on it
# (gingham cloths among them) is a `not_card` crop, cut as the runtime cuts it. The model read
# gingham squares as green cards in real photos.

TABLE_SEEDS_START = 7001
TABLE_VAL_SEEDS = range(8001, 8061)
TABLE_SIZE = (720, 1280)


def _bare_table(seed: int) -> np.ndarray:
    from synth.render import render_bare_table

    return render_bare_table(*TABLE_SIZE, np.random.default_rng(seed))


def _table_crops(seed: int) -> list[np.ndarray]:
    from vision.recognise import located_quads
    from vision.rectify import rectify

    image = _bare_table(seed)
    return [rectify(image, q, ordered=True) for q in located_quads(image)]


def table_negatives(count: int, workers: int, cache: Path | None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """`not_card` crops of what the locator finds on `count` bare tables, cached as .npz."""
    def cut() -> tuple[np.ndarray, np.ndarray]:
        t0 = time.time()
        seeds = range(TABLE_SEEDS_START, TABLE_SEEDS_START + count)
        with Pool(workers) as pool:
            crops = [c for cs in pool.map(_table_crops, list(seeds)) for c in cs]
        print(f"cut {len(crops)} not_card crops from {count} bare tables in "
              f"{time.time() - t0:.0f} s", flush=True)
        return np.stack(crops), np.full(len(crops), LABELS.index(NOT_CARD), np.int64)

    return _cached(cache, cut)


def bare_table_readings(model_path: Path) -> int:
    """Cards the whole runtime pipeline reads (at its confidence bar) on the held-out bare
    tables `TABLE_VAL_SEEDS`: every one is a wrong card."""
    from vision.classify import CardClassifier
    from vision.recognise import recognise

    classifier = CardClassifier(model_path)
    return sum(len(recognise(_bare_table(seed), classifier)) for seed in TABLE_VAL_SEEDS)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", type=int, default=18000, help="rendered training crops")
    ap.add_argument("--val", type=int, default=1800, help="rendered held-out crops")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/bruno-cards-cache"))
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--real", type=Path, default=None,
                    help="shared data folder to fine-tune on (default: ../shared/data if present)")
    ap.add_argument("--no-real", action="store_true", help="train on rendered crops only")
    ap.add_argument("--real-repeat", type=int, default=2, help="real crops shown per epoch")
    ap.add_argument("--footage-crops", type=int, default=0,
                    help="extra crops printed in the synthetic footage's style")
    ap.add_argument("--pile-crops", action="store_true",
                    help="add the pile's top card cut from synthetic footage (PILE_SEEDS)")
    ap.add_argument("--pile-games", type=int, default=0,
                    help="with --pile-crops: only the first this many of PILE_SEEDS (0: all)")
    ap.add_argument("--webcam-pile-games", type=int, default=0,
                    help="add the pile's top card cut from this many webcam-family games "
                         "(WEBCAM_PILE_SEEDS)")
    ap.add_argument("--webcam-pile-repeat", type=int, default=1,
                    help="with --webcam-pile-games: shown this many times per epoch")
    ap.add_argument("--webcam-real-faces", default="",
                    help="comma-separated real photo sources (never the ones a model is "
                         "scored on) whose cut-out cards land on the pile of "
                         "--webcam-real-games more webcam-family games")
    ap.add_argument("--webcam-real-games", type=int, default=0,
                    help="with --webcam-real-faces: this many games (WEBCAM_PILE_SEEDS)")
    ap.add_argument("--located-crops", type=int, default=0,
                    help="add crops cut by loose localiser-like boxes, a quarter of them "
                         "not_card (backs, French cards, covered faces, table)")
    ap.add_argument("--loose-real", action="store_true",
                    help="add the real training cards cut again by loose boxes")
    ap.add_argument("--init-onnx", type=Path, default=None,
                    help="start from the weights of an exported model (e.g. models/cards.onnx)")
    ap.add_argument("--table-negatives", type=int, default=0,
                    help="add not_card crops of what the locator finds on this many bare "
                         "tables (gingham among them)")
    ap.add_argument("--part-crops", type=int, default=0,
                    help="add crops of sunburst cards' top and bottom parts, labelled with "
                         "their card")
    ap.add_argument("--print2020-crops", type=int, default=0,
                    help="add this many crops of cards in the 2020s deck's print, and half as "
                         "many of their sunburst parts (needs Pillow and DejaVu Sans Bold)")
    ap.add_argument("--init", type=Path, default=None,
                    help="start from these weights (a checkpoint.pt) instead of from scratch")
    args = ap.parse_args(argv)

    import torch
    import torch.nn.functional as F

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    t_start = time.time()
    xtr, ytr = make_set(args.train, args.seed, args.threads,
                        args.cache / f"train_{RENDER_VERSION}_{args.seed}_{args.train}.npz")
    # Held-out crops come from a different seed, so no rendered card is in both sets.
    xva, yva = make_set(args.val, args.seed + 1000, args.threads,
                        args.cache / f"val_{RENDER_VERSION}_{args.seed + 1000}_{args.val}.npz")

    n_val = max(args.val // 3, 100)  # the size of each extra held-out set
    xfv = yfv = None
    if args.footage_crops:
        xfo, yfo = make_set(args.footage_crops, args.seed + 2000, args.threads,
                            args.cache / f"footage_{RENDER_VERSION}_{args.seed + 2000}_"
                                         f"{args.footage_crops}.npz", print_name="footage")
        xtr, ytr = np.concatenate([xtr, xfo]), np.concatenate([ytr, yfo])
        xfv, yfv = make_set(n_val, args.seed + 3000, args.threads,
                            args.cache / f"footage_val_{RENDER_VERSION}_{args.seed + 3000}_"
                                         f"{n_val}.npz", print_name="footage")
        print(f"plus {args.footage_crops} crops in the footage's print", flush=True)

    xpv = ypv = None
    if args.pile_crops:
        seeds = PILE_SEEDS[:args.pile_games] if args.pile_games else PILE_SEEDS
        xpi, ypi = pile_crops(seeds, args.threads,
                              args.cache / f"pile_{RENDER_VERSION}_{len(seeds)}.npz")
        xtr, ytr = np.concatenate([xtr, xpi]), np.concatenate([ytr, ypi])
        xpv, ypv = pile_crops(PILE_VAL_SEEDS, args.threads,
                              args.cache / f"pile_val_{RENDER_VERSION}_{len(PILE_VAL_SEEDS)}.npz")

    xwv = ywv = None
    if args.webcam_pile_games:
        seeds = WEBCAM_PILE_SEEDS[:args.webcam_pile_games]
        xwp, ywp = pile_crops(seeds, args.threads, args.cache /
                              f"webcam_pile_{RENDER_VERSION}_{len(seeds)}.npz", webcam=True)
        xtr, ytr = np.concatenate([xtr, *([xwp] * args.webcam_pile_repeat)]), \
            np.concatenate([ytr, *([ywp] * args.webcam_pile_repeat)])
        xwv, ywv = pile_crops(WEBCAM_PILE_VAL_SEEDS, args.threads, args.cache /
                              f"webcam_pile_val_{RENDER_VERSION}_{len(WEBCAM_PILE_VAL_SEEDS)}.npz",
                              webcam=True)
        print(f"plus {len(ywp)} crops of the pile's top card through the webcam family "
              f"(x{args.webcam_pile_repeat})", flush=True)

    face_sources = tuple(sorted(f for f in args.webcam_real_faces.split(",") if f))
    if not args.webcam_real_games:
        face_sources = ()
    if face_sources:
        from evaluation.card_scenes import SHIPPED_TEST_PHOTOS, real_face_sources, real_faces

        known = real_face_sources()
        if known and not set(face_sources) <= known:
            ap.error(f"--webcam-real-faces: no outlined UNO cards in "
                     f"{', '.join(sorted(set(face_sources) - known))}; "
                     f"the sources with them: {', '.join(sorted(known))}")
        # Never the photos the shipped models' tests read (tests/test_localiser.py).
        faces = real_faces(set(face_sources), skip_photos=SHIPPED_TEST_PHOTOS)
        if not faces:
            print("no real photos (../shared/data): no pile crops with real cards", flush=True)
            face_sources = ()
    if face_sources:
        seeds = WEBCAM_PILE_SEEDS[:args.webcam_real_games]
        xwr, ywr = pile_crops(seeds, args.threads, args.cache /
                              f"webcam_real_{RENDER_VERSION}_{len(seeds)}_no-test-photos_"
                              f"{'+'.join(face_sources)}.npz", webcam=True, faces=faces)
        xtr, ytr = np.concatenate([xtr, xwr]), np.concatenate([ytr, ywr])
        print(f"plus {len(ywr)} crops of the pile's top card through the webcam family, "
              f"with the cards of {', '.join(face_sources)}", flush=True)

    if args.table_negatives:
        tables = args.table_negatives
        xtn, ytn = table_negatives(tables, args.threads,
                                   args.cache / f"tables_{RENDER_VERSION}_{tables}.npz")
        xtr, ytr = np.concatenate([xtr, xtn]), np.concatenate([ytr, ytn])

    xpav = ypav = None
    if args.part_crops:
        xpa, ypa = part_crops(args.part_crops, args.seed + 4000, args.threads,
                              args.cache / f"parts_{PARTS_RENDER_VERSION}_{args.seed + 4000}_"
                                           f"{args.part_crops}.npz")
        xtr, ytr = np.concatenate([xtr, xpa]), np.concatenate([ytr, ypa])
        xpav, ypav = part_crops(n_val, args.seed + 8000, args.threads,
                                args.cache / f"parts_val_{PARTS_RENDER_VERSION}_"
                                             f"{args.seed + 8000}_{n_val}.npz")
        print(f"plus {args.part_crops} crops of sunburst cards' parts", flush=True)

    x20v = y20v = None
    if args.print2020_crops:
        n = args.print2020_crops
        x20, y20 = make_set(n, args.seed + 5000, args.threads,
                            args.cache / f"print2020_{PARTS_RENDER_VERSION}_{args.seed + 5000}_"
                                         f"{n}.npz", print_name="2020")
        x2p, y2p = part_crops(n // 2, args.seed + 6000, args.threads,
                              args.cache / f"parts2020_{PARTS_RENDER_VERSION}_{args.seed + 6000}_"
                                           f"{n // 2}.npz", print_name="2020")
        xtr, ytr = np.concatenate([xtr, x20, x2p]), np.concatenate([ytr, y20, y2p])
        x20v, y20v = make_set(n_val, args.seed + 7000, args.threads,
                              args.cache / f"print2020_val_{PARTS_RENDER_VERSION}_"
                                           f"{args.seed + 7000}_{n_val}.npz", print_name="2020")
        print(f"plus {n} crops in the 2020s print and {n // 2} of their parts", flush=True)

    from evaluation.shared_data import shared_data_dir

    real_dir = args.real or shared_data_dir()
    real_files: list[str] = []
    if not args.no_real and (real_dir / "cards-dev" / "labels.csv").is_file():
        cache = args.cache / f"real_{RENDER_VERSION}_{args.seed}.npz"
        if cache.exists():
            data = np.load(cache)
            xre, yre, real_files = data["x"], data["y"], list(data["files"])
        else:
            xre, yre, real_files = real_crops(real_dir, args.seed)
            np.savez(cache, x=xre, y=yre, files=np.array(real_files))
        xtr = np.concatenate([xtr, *([xre] * args.real_repeat)])
        ytr = np.concatenate([ytr, *([yre] * args.real_repeat)])
        print(f"fine-tuning on {len(real_files)} real photos (x{args.real_repeat})", flush=True)
    else:
        print("no real photos: training on rendered crops only", flush=True)

    xlv = ylv = None
    if args.located_crops:
        xlo, ylo = located_crops(args.located_crops, args.seed + 9000, args.threads,
                                 args.cache / f"located_{LOCATED_VERSION}_{args.seed + 9000}_"
                                              f"{args.located_crops}.npz")
        xtr, ytr = np.concatenate([xtr, xlo]), np.concatenate([ytr, ylo])
        xlv, ylv = located_crops(n_val, args.seed + 10000, args.threads,
                                 args.cache / f"located_val_{LOCATED_VERSION}_{args.seed + 10000}_"
                                              f"{n_val}.npz")
        print(f"plus {args.located_crops} crops cut by loose localiser-like boxes", flush=True)
    if args.loose_real and real_files:
        cache = args.cache / f"real_loose_{RENDER_VERSION}_{args.seed}.npz"
        if cache.exists():
            data = np.load(cache)
            xrl, yrl = data["x"], data["y"]
        else:
            xrl, yrl, _ = real_crops(real_dir, args.seed + 1, loose=True)
            np.savez(cache, x=xrl, y=yrl)
        xtr, ytr = np.concatenate([xtr, xrl]), np.concatenate([ytr, yrl])
        print(f"plus {len(yrl)} real crops cut by loose boxes", flush=True)

    side_sets = [(name, x, y) for name, x, y in (("footage_val_acc", xfv, yfv),
                                                  ("pile_val_acc", xpv, ypv),
                                                  ("webcam_pile_val_acc", xwv, ywv),
                                                  ("parts_val_acc", xpav, ypav),
                                                  ("print2020_val_acc", x20v, y20v),
                                                  ("located_val_acc", xlv, ylv))
                 if x is not None]

    def side_accuracies(model) -> str:
        """Held-out accuracy on each extra set trained with, as ` name 0.9876` pieces."""
        return "".join(f" {name} {evaluate(model, x, y)[1]:.4f}" for name, x, y in side_sets)

    pile_games = args.pile_games or len(PILE_SEEDS)
    model = build_model()
    if args.init_onnx is not None:
        init_from_onnx(model, args.init_onnx, xtr[rng_sample(len(xtr), 2048, args.seed)])
    if args.init is not None:
        model.load_state_dict(torch.load(args.init))
    if args.init is not None or args.init_onnx is not None:
        print(f"starting from {args.init or args.init_onnx}: "
              f"val_acc {evaluate(model, xva, yva)[1]:.4f}"
              f"{side_accuracies(model)}", flush=True)
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
              f"val_acc {acc:.4f}{side_accuracies(model)} ({time.time() - t0:.0f} s)",
              flush=True)
        torch.save(model.state_dict(), args.cache / "checkpoint.pt")

    logits, acc = evaluate(model, xva, yva)
    t = fit_temperature(logits, yva)
    print(f"held-out rendered accuracy {acc:.4f}; temperature {t:.3f}", flush=True)
    export(model, t, args.out, {
        "temperature": f"{t:.4f}",
        "rendered_val_accuracy": f"{acc:.4f}",
        "train_crops": args.train, "epochs": args.epochs, "seed": args.seed,
        "real_photos_trained_on": len(real_files),
        "footage_style_crops": args.footage_crops,
        "pile_crops_from_footage_seeds": f"{PILE_SEEDS.start}-{PILE_SEEDS.start + pile_games - 1}"
        if args.pile_crops else "none",
        "webcam_pile_crops_from_seeds":
        f"{WEBCAM_PILE_SEEDS.start}-{WEBCAM_PILE_SEEDS.start + args.webcam_pile_games - 1}"
        if args.webcam_pile_games else "none",
        "webcam_real_faces": ",".join(face_sources) or "none",
        "webcam_real_games": args.webcam_real_games if face_sources else 0,
        "bare_table_negatives": args.table_negatives,
        "sunburst_part_crops": args.part_crops,
        "print2020_crops": args.print2020_crops,
        "located_crops": args.located_crops, "loose_real": int(args.loose_real),
        "initialised_from": str(args.init.name) if args.init else
        str(args.init_onnx.name) if args.init_onnx else "scratch",
        "input": f"float32 [N,3,{CROP_H},{CROP_W}] BGR/255, white-balanced crop",
    })
    print(f"cards read on {len(TABLE_VAL_SEEDS)} held-out bare tables (all wrong): "
          f"{bare_table_readings(args.out)}", flush=True)
    print(f"total {time.time() - t_start:.0f} s", flush=True)


if __name__ == "__main__":
    main()
