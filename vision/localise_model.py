"""Where are the cards? The learned localiser: every card face and back, with an oriented box.

The model (`models/localiser.onnx`, trained by `models/train_localiser.py` on composites)
labels every pixel of the frame, shrunk to `working_width` on its long side, as background,
`uno_face`, `uno_back` or `playing_card` (a French card), and marks each card's *core* (its
outline shrunk to `core_scale` about its centre). Cores of cards that touch or overlap stay
apart, so each connected core is one card: its smallest rotated rectangle, grown back by
1 / `core_scale`, is the card's box, and the mean class probability over the core says what
kind of card it is and how sure. Boxes are `vision.locate.Candidate`-like quads in image
pixels, so `vision.rectify` and `vision.classify` read them as they read the classical
locator's. onnxruntime only; no torch.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from vision.classify import NOT_CARD, CardClassifier, both_ways_up
from vision.locate import CARD_ASPECT, long_side, quad_aspect

KINDS = ("uno_face", "uno_back", "playing_card")

MIN_CORE_PIXELS = 6
"""A core smaller than this (pixels at the working size) is noise: the core of a card 15 px
high, the smallest trained on, is about 40."""

CORE_THRESHOLD = 2 / 3
"""Core probability above which a pixel is part of a core. Training weighs a core pixel twice
(`pos_weight` 2), which lifts the model's core probability so that an even chance reads as
2/3; this is where the core's true edge lies. (At 0.5 the cores, and the boxes grown from
them, came out about 20% too large on real photos.)"""

CARD_THRESHOLD = 1 / 3
"""A pixel is a card pixel when the background probability is below this: training weighs
card pixels twice against background, which moves an even chance to 1/3 (at 0.5 the card
masks of the wooden-table photos covered 1.1-1.3 times the cards)."""

REGION_SLACK = 1.25
REGION_AREA = (0.7, 1.3)
"""A card's pixels are looked for within its grown-back core box widened by REGION_SLACK; their
rectangle is its box when its area is within REGION_AREA of the grown-back core box (the
pixel outline is sharper than a core grown back 1 / core_scale times)."""

SECOND_LOOK = 1.5
"""The localiser looks at each image twice: at its working width and at SECOND_LOOK times it.
Cards a few dozen pixels high at the working size (a whole table from above) come out of the
closer look with more of them found and tighter boxes; close-ups would be larger there than
any card the model was trained on, so they are taken from the working size. `bruno identify`
reads the closer look's boxes of those larger cards too, beside the first look's
(`uno_face_outlines`): on a card held up in front of a room, the first look's box can take in
the hand and the room."""

TRAINED_CARD_HEIGHT = 110
"""The tallest card (pixels, long side, at the size the model looks at) of the training
composites' tables, scattered cards, piles and rows (`synth.composites._layout`, 14-110 px;
only its single close-ups are larger). A card of the closer look is used only up to this
height: within what the model learnt tables from."""

SAME_CARD_IOU = 0.5
"""Two looks' boxes with at least this IoU are one card; a closer look's box with at least
this share of it inside a first look's box is a part of that card."""

CLASSICAL_GATE = 0.5
"""A classical locator's quad is added (`uno_face_outlines`) when the localiser's mean UNO-face
probability over it is at least this."""


def shipped_localiser_path() -> Path:
    """Where the installed `models` package keeps localiser.onnx (as `vision.classify`)."""
    try:
        return Path(str(resources.files("models").joinpath("localiser.onnx")))
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[1] / "models" / "localiser.onnx"


LOCALISER_PATH = shipped_localiser_path()


@dataclass(frozen=True)
class LocatedCard:
    """A card the localiser found: `quad` 4x2 float32 image pixels (may reach past the image
    edge for a card cut off by it), `area` in pixels², `kind` one of KINDS, `confidence` the
    mean probability of that kind over the card's core."""

    quad: np.ndarray
    area: float
    kind: str
    confidence: float
    kind_probabilities: tuple[float, ...] = ()
    """The mean probability of each of KINDS over the core (empty: not known)."""

    @property
    def runner_up(self) -> str | None:
        """The kind with the next highest mean probability over the core."""
        if not self.kind_probabilities:
            return None
        return KINDS[int(np.argsort(self.kind_probabilities)[-2])]


@dataclass(frozen=True)
class Looks:
    """What `CardLocaliser.looks` saw: `cards` (both looks merged, largest first), `probs` and
    `scale` (the class probabilities [4, h, w] at the working size, and that size / the
    image's), `others` (the cards taller than TRAINED_CARD_HEIGHT in the closer look: the box
    of each from the look `cards` did not take it from)."""

    cards: list[LocatedCard]
    probs: np.ndarray
    scale: float
    others: list[LocatedCard]


class CardLocaliser:
    """An onnxruntime session over the localiser. `threads` = intra-op threads (1 = one core)."""

    def __init__(self, path: Path | str = LOCALISER_PATH, threads: int = 1) -> None:
        import onnxruntime as ort

        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"localiser model not found at {path}; run "
                                    "`make train-cards`")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        self.metadata = dict(self.session.get_modelmeta().custom_metadata_map)
        self.classes: tuple[str, ...] = tuple(json.loads(self.metadata["classes"]))
        self.core_scale = float(self.metadata["core_scale"])
        self.working_width = int(self.metadata["working_width"])
        # The boxes' size correction, fitted on the real photos the model was trained on
        # (`models.train_localiser.fit_box_scale`); 1 for a model without one.
        self.box_scale = float(self.metadata.get("box_scale", "1.0"))
        self._input = self.session.get_inputs()[0].name

    def maps(self, image: np.ndarray, width: int | None = None
             ) -> tuple[np.ndarray, np.ndarray, float]:
        """(class probabilities [4, h, w], core probability [h, w], scale): the model's maps at
        `width` on the long side (default the working size), where `scale` = that size / image
        size."""
        h, w = image.shape[:2]
        scale = (width or self.working_width) / max(h, w)
        sw, sh = max(16, round(w * scale)), max(16, round(h * scale))
        small = cv2.resize(image, (sw, sh), interpolation=cv2.INTER_AREA)
        ph, pw = -sh % 16, -sw % 16  # the net halves four times
        if ph or pw:
            small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
        x = np.ascontiguousarray(small.transpose(2, 0, 1)[None], np.float32) / 255.0
        out = self.session.run(None, {self._input: x})[0][0]
        full = np.stack([cv2.resize(m, (sw + pw, sh + ph), interpolation=cv2.INTER_LINEAR)
                         for m in out])[:, :sh, :sw]
        logits = full[:4] - full[:4].max(axis=0, keepdims=True)
        probs = np.exp(logits)
        probs /= probs.sum(axis=0, keepdims=True)
        core = 1.0 / (1.0 + np.exp(-full[4]))
        return probs, core, scale

    def locate(self, image: np.ndarray, classifier: CardClassifier | None = None
               ) -> list[LocatedCard]:
        """Every card found in `image` (BGR uint8, any size), largest first. With the crop
        `classifier` (`vision.classify.CardClassifier`), a second look at the kinds
        (`checked_kinds`)."""
        cards = self.analyse(image)[0]
        return cards if classifier is None else checked_kinds(image, cards, classifier)

    def _box(self, core_xy: np.ndarray, region: np.ndarray) -> np.ndarray:
        """The card's box at the working size: the rotated rectangle of its card pixels (those
        nearest its core, within its grown-back core box widened by REGION_SLACK) when they
        make a card-sized rectangle; else the grown-back core box (a card partly covered by
        another, whose visible pixels are not the whole card)."""
        guess = _grown_core_box(core_xy, self.core_scale)
        centre = guess.mean(axis=0)
        window = np.zeros(region.shape, np.uint8)
        cv2.fillPoly(window, [np.int32(np.round(centre + (guess - centre) * REGION_SLACK))], 1)
        ys, xs = np.nonzero(region & (window > 0))
        if len(xs) < MIN_CORE_PIXELS:
            return guess
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(np.stack([xs, ys], 1).astype(np.float32))
        rect = cv2.boxPoints(((cx + 0.5, cy + 0.5), (rw + 1, rh + 1), angle))
        ratio = abs(cv2.contourArea(rect)) / max(abs(cv2.contourArea(guess)), 1.0)
        if not REGION_AREA[0] <= ratio <= REGION_AREA[1]:
            return guess
        return rect.astype(np.float32)

    def analyse(self, image: np.ndarray) -> tuple[list[LocatedCard], np.ndarray, float]:
        """(the cards found in both looks, largest first; the class probabilities [4, h, w] at
        the working size; the working scale)."""
        looks = self.looks(image)
        return looks.cards, looks.probs, looks.scale

    def looks(self, image: np.ndarray) -> Looks:
        """Both looks at `image`: the cards found (`analyse`), and the second box of each card
        taller than TRAINED_CARD_HEIGHT in the closer look (`Looks.others`)."""
        cards, probs, scale = self._look(image, self.working_width)
        closer, _, closer_scale = self._look(image, round(self.working_width * SECOND_LOOK))
        trained = [c for c in closer if long_side(c.quad) * closer_scale <= TRAINED_CARD_HEIGHT]
        larger = [c for c in closer if long_side(c.quad) * closer_scale > TRAINED_CARD_HEIGHT]
        cards, others = _card_shaped_box(cards, larger)
        found = _merge_looks(cards, trained)
        found.sort(key=lambda c: -c.area)
        return Looks(found, probs, scale, others)

    def _look(self, image: np.ndarray, width: int
              ) -> tuple[list[LocatedCard], np.ndarray, float]:
        """The cards found with the image `width` pixels on its long side."""
        probs, core, scale = self.maps(image, width)
        count, labels, stats, _ = cv2.connectedComponentsWithStats(
            (core > CORE_THRESHOLD).astype(np.uint8), connectivity=8)
        card = probs[0] < CARD_THRESHOLD
        # Every card pixel goes to its nearest core, so cards that touch are cut apart.
        _, nearest = cv2.distanceTransformWithLabels(
            (labels == 0).astype(np.uint8), cv2.DIST_L2, 3, labelType=cv2.DIST_LABEL_CCOMP)
        found: list[LocatedCard] = []
        for k in range(1, count):
            if stats[k, cv2.CC_STAT_AREA] < MIN_CORE_PIXELS:
                continue
            ys, xs = np.nonzero(labels == k)
            kind_p = probs[1:, ys, xs].mean(axis=1)
            kind = int(np.argmax(kind_p))
            box = self._box(np.stack([xs, ys], axis=1), card & (nearest == nearest[ys[0], xs[0]]))
            centre = box.mean(axis=0)
            quad = ((centre + (box - centre) * self.box_scale) / scale).astype(np.float32)
            found.append(LocatedCard(quad, float(cv2.contourArea(quad)), KINDS[kind],
                                     float(kind_p[kind]),
                                     tuple(round(float(v), 4) for v in kind_p)))
        return found, probs, scale


def checked_kinds(image: np.ndarray, cards: list[LocatedCard], classifier: CardClassifier
                  ) -> list[LocatedCard]:
    """The cards with a second look at what the localiser calls a UNO face: the crop
    classifier reads the box at the card's own resolution, and a box it reads as no card at
    all (`not_card` its top reading, the crop and its 180° turn averaged) takes the
    localiser's next kind, a back or a French card. At the working size a card on a table
    photo is some 24x36 pixels, and there a UNO back and a face are near alike (mean
    probabilities 0.35-0.55 each over the wooden table's backs); the crop shows the back's
    oval and letters. Nothing is decided the other way round: a box the localiser calls a
    back or a French card is never made a face (French cards read as UNO cards is what the
    localiser is there to stop)."""
    from vision.rectify import order_quad, rectify

    faces = [i for i, c in enumerate(cards) if c.kind == KINDS[0] and c.runner_up is not None]
    if not faces:
        return cards
    probs = both_ways_up(classifier, [rectify(image, order_quad(cards[i].quad), ordered=True)
                                      for i in faces])
    not_card = classifier.labels.index(NOT_CARD)
    checked = list(cards)
    for i, p in zip(faces, probs, strict=True):
        if int(np.argmax(p)) == not_card:
            card = cards[i]
            kind = card.runner_up
            checked[i] = LocatedCard(card.quad, card.area, kind,
                                     card.kind_probabilities[KINDS.index(kind)],
                                     card.kind_probabilities)
    return checked


def _overlap(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """(intersection over union, intersection over b's area) of two convex quads (4x2)."""
    a32, b32 = np.float32(a).reshape(-1, 1, 2), np.float32(b).reshape(-1, 1, 2)
    inter, _ = cv2.intersectConvexConvex(a32, b32)
    area_b = abs(cv2.contourArea(b32))
    union = abs(cv2.contourArea(a32)) + area_b - inter
    return (float(inter / union) if union > 0 else 0.0,
            float(inter / area_b) if area_b > 0 else 0.0)


def _merge_looks(first: list[LocatedCard], closer: list[LocatedCard]) -> list[LocatedCard]:
    """Every card of both looks once. A card of the closer look that is one of the first's
    (IoU >= SAME_CARD_IOU) replaces it (its box is the tighter); one lying mostly inside a card
    of the first look is part of that card (print a closer look cut off) and is dropped."""
    merged = list(first)
    for card in closer:
        overlaps = [_overlap(c.quad, card.quad) for c in merged]
        same = [i for i, (iou, _) in enumerate(overlaps) if iou >= SAME_CARD_IOU]
        if same:
            merged[same[0]] = card
            for i in sorted(same[1:], reverse=True):
                del merged[i]
        elif not any(inside >= SAME_CARD_IOU for _, inside in overlaps):
            merged.append(card)
    return merged


def _card_shaped_box(first: list[LocatedCard], larger: list[LocatedCard]
                     ) -> tuple[list[LocatedCard], list[LocatedCard]]:
    """(the first look's cards, each large card's box the card-shaped one of its two looks; the
    boxes of those cards not chosen). A card larger in the closer look than TRAINED_CARD_HEIGHT
    keeps its first look's box, unless that box is not shaped like a card (`CARD_ASPECT`) and
    the closer look's box of it (IoU >= SAME_CARD_IOU) is: the first look's box of a card held
    up in front of a room can take in the hand and come out square."""
    chosen, others = list(first), []
    for card in larger:
        ious = [_overlap(c.quad, card.quad)[0] for c in chosen]
        best = int(np.argmax(ious)) if ious else -1
        if best >= 0 and ious[best] >= SAME_CARD_IOU and not _card_shaped(chosen[best].quad) \
                and _card_shaped(card.quad):
            others.append(chosen[best])
            chosen[best] = card
        else:
            others.append(card)
    return chosen, others


def _card_shaped(quad: np.ndarray) -> bool:
    return CARD_ASPECT[0] <= quad_aspect(quad) <= CARD_ASPECT[1]


def _grown_core_box(core_xy: np.ndarray, core_scale: float) -> np.ndarray:
    """The card's box from its core's pixels alone: their rotated rectangle grown back."""
    # Pixel centres span one pixel less than the core itself.
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(core_xy.astype(np.float32))
    return cv2.boxPoints(((cx + 0.5, cy + 0.5), ((rw + 1) / core_scale, (rh + 1) / core_scale),
                          angle)).astype(np.float32)


def _mean_inside(prob: np.ndarray, quad: np.ndarray) -> float:
    mask = np.zeros(prob.shape, np.uint8)
    cv2.fillPoly(mask, [np.int32(np.round(quad))], 1)
    inside = mask > 0
    return float(prob[inside].mean()) if inside.any() else 0.0


def outline_fit(face: np.ndarray, quad: np.ndarray) -> float:
    """How well `quad` (4x2, at the size of `face`) outlines a card in the localiser's UNO-face
    probability map `face`: the mean probability inside the quad less the mean in the ring
    between it and the quad grown REGION_SLACK times about its centre. A card's own outline
    has card inside and table or hand just outside (near 1 where the map is sharp); a part of
    a card (its picture, its digit) has card on both sides of its edge, and a quad over part
    of a card and part of the room has neither (both near 0)."""
    q = np.float32(quad)
    centre = q.mean(axis=0)
    inner = np.zeros(face.shape, np.uint8)
    outer = np.zeros(face.shape, np.uint8)
    cv2.fillPoly(inner, [np.int32(np.round(q))], 1)
    cv2.fillPoly(outer, [np.int32(np.round(centre + (q - centre) * REGION_SLACK))], 1)
    inside, ring = inner > 0, (outer > 0) & (inner == 0)
    if not inside.any():
        return 0.0
    return float(face[inside].mean()) - (float(face[ring].mean()) if ring.any() else 0.0)


def uno_face_outlines(image: np.ndarray, localiser: CardLocaliser,
                      classical: list[np.ndarray] | None = None
                      ) -> tuple[list[np.ndarray], Callable[[np.ndarray], float]]:
    """(the quads of the UNO faces to read, 4x2 image pixels; `fit(quad)`, the `outline_fit`
    of any quad in image pixels on the working size's map).

    The quads: the UNO faces the localiser found, largest first; the other look's box of each
    card taller than TRAINED_CARD_HEIGHT in the closer look (`Looks.others`: a card held up
    close, whose box at the working size can take in the hand and the room; a second outline
    of the same card, read beside the first); then, when `classical` quads are given
    (`vision.locate`'s), those the localiser's own map says mostly show an UNO face (mean
    `uno_face` probability >= CLASSICAL_GATE). All outlines of one card go on to the
    classifier, and `vision.recognise` keeps one reading per card, weighing each reading's
    confidence by its outline's fit (a contour that follows the card's printed border is often
    tighter than the localiser's box, and the classifier was trained on such crops), while the
    gate keeps the classical quads off French cards, chips and table patterns the localiser
    knows are no UNO face."""
    looks = localiser.looks(image)
    face, scale = looks.probs[1], looks.scale
    quads = [c.quad for c in looks.cards if c.kind == "uno_face"]
    quads += [c.quad for c in looks.others if c.kind == "uno_face"]
    if classical:
        quads += [q for q in classical if _mean_inside(face, q * scale) >= CLASSICAL_GATE]
    return quads, lambda quad: outline_fit(face, np.float32(quad) * scale)


@lru_cache(maxsize=4)
def default_localiser(path: str = str(LOCALISER_PATH), threads: int = 1) -> CardLocaliser:
    """The shared localiser for `path` (loaded once per process)."""
    return CardLocaliser(path, threads)
