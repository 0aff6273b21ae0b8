"""An image -> the UNO cards seen in it. The public face of `vision`.

    from vision.recognise import recognise
    for s in recognise(cv2.imread("table.jpg")):
        print(s.card, s.confidence, s.center)

Pipeline: `vision.locate` proposes quads from geometry, `vision.rectify` warps each to an upright
white-balanced crop, `vision.classify` reads it with the ONNX model, and overlapping readings are
reduced to the most confident one. Drawing lives in `vision.annotate`, apart from seeing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.classify import NOT_CARD, CardClassifier, both_ways_up, default_classifier
from vision.localise_model import (
    LOCALISER_PATH,
    CardLocaliser,
    default_localiser,
    uno_face_outlines,
)
from vision.locate import CARD_ASPECT, locate, quad_aspect
from vision.rectify import order_quad, rectify

MIN_CONFIDENCE = 0.9
"""Readings less sure than this are dropped (probability of the top token, after the model's
temperature calibration): a wrong card costs a player a false penalty, a missed one only a late
ruling. It was 0.8 (on the first model's held-out Hemant phone photos 0.8 kept 52% of the cards
right with 4 wrong cards per 20 frames, against 57% and 12 at 0.5). 0.9 since the model of 30
Nov (the second 2020s-print step), chosen on the Hemant frames it was fine-tuned on before the
held-out ones were run: webcam/train 98.4% found with 17 wrong cards at 0.9, 98.6% with 27 at
0.8 (18 and 27 before the rule against joining a card's picture into parts); phone/train
98.1% with 1 either way; rendered three-card scenes 218 of 240 with 0 wrong against 219 with
1. This threshold only filters what `bruno identify` and the evaluation print: the pile
watcher's reader keeps its own, far lower, bar."""

ENCLOSING_AREA = (1.4, 5.0)
ENCLOSING_CONFIDENCE = 0.6
"""A reading is dropped for one 1.4 to 5 times larger (a part of a card is at least a fifth of
it) that contains its centre and is at least ENCLOSING_CONFIDENCE times as sure; only quads
not shaped like a whole card (`CARD_ASPECT`: a sunburst card's top half, a big digit) give way
to an enclosing reading."""

PARTS_MAX_OVERLAP = 0.2
PARTS_MAX_SPREAD = 2.0
"""Two readings are the top and bottom parts of one card when they overlap by at most a fifth
of the smaller, and the card quad that holds both is at most twice their areas together (a
sunburst card's two parts cover about 70 % of it)."""

PART_AREA = (0.15, 0.4)
"""A part of a card (its coloured body above or below a sunburst card's disc) covers this
share of the whole card's quad: 0.23 to 0.46 of the card's located outlines (its body, its
edge, the edge grown), 0.29 to 0.36 of its edge. Cards are all the same size, so a second
card cannot take so small a share of a card-shaped quad: two cards side by side in one
blob take half of it each."""

SMALLEST_CARD_SHARE = 0.125
"""A reading less than this share of the largest reading's area in the same image is dropped.
The cards on a table are all one size, and one camera sees them at most a few times smaller
by perspective (rendered scenes: up to 3.2 times, cards 25-45% of the frame high); an eighth
is no card, but a square of a checked cloth (read as `g_skip` beside a card taking a third of
a phone photo). At a fifth, the trained-on webcam frames lost cards."""

MIN_INSIDE = 0.5
"""A located quad with less than this fraction of its area inside the image is not read. The
locator grows a card cut by the image's edge back to 2:3; grown more than twice, it is mostly
a guess about the table beyond the edge, and on patterned cloth such guesses were read as cards
(a green check as `g_1`). Chosen on the Hemant frames trained on (webcam and phone `train`;
the held-out frames were printed beside them): 6 of 475 right readings lost, 58 of 124 wrong
ones gone."""

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class CardSighting:
    """One card face seen in an image.

    `card` is one of the 54 tokens, `confidence` its calibrated probability (0-1), `runner_up`
    the next most likely token; `quad` the four corners in image pixels (clockwise, starting at a
    corner of a short side) and `center` their mean.
    """

    card: str
    confidence: float
    runner_up: str
    quad: tuple[Point, Point, Point, Point]
    center: Point

    def to_json(self) -> dict:
        """The `bruno identify --json` form: coordinates rounded to 0.1 px, confidence to 3 dp."""
        return {
            "card": self.card,
            "confidence": round(float(self.confidence), 3),
            "runner_up": self.runner_up,
            "quad": [[round(x, 1), round(y, 1)] for x, y in self.quad],
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
        }


def quad_contains(quad: np.ndarray, point) -> bool:
    """Whether `point` (x, y) lies in or on `quad` (4x2, image pixels)."""
    return cv2.pointPolygonTest(np.asarray(quad, np.float32).reshape(-1, 1, 2),
                                (float(point[0]), float(point[1])), False) >= 0


LOCATORS = ("classical", "learned", "learned+classical")
"""Where `recognise` looks for cards: `vision.locate`'s border contours; the learned
localiser's UNO faces (`vision.localise_model`); or those and the classical quads the
localiser's map backs (`uno_face_outlines`)."""


IDENTIFY_LOCATOR = "learned+classical"
"""The locator `bruno identify` uses when the localiser is installed (see `default_locator`);
chosen on the leave-one-source-out tables in models/MODEL_CARD.md."""


def default_locator() -> str:
    """IDENTIFY_LOCATOR when the shipped localiser model is installed, else "classical"."""
    return IDENTIFY_LOCATOR if LOCALISER_PATH.is_file() else "classical"


def located_quads(image: np.ndarray, locator: str = "classical",
                  localiser: CardLocaliser | None = None) -> list[np.ndarray]:
    """The located quads `recognise` reads (ordered, 4x2 image pixels) from `locator` (one of
    LOCATORS; `localiser` defaults to the shipped model), less those mostly outside the image
    (`MIN_INSIDE`)."""
    return _located(image, locator, localiser)[0]


def _located(image: np.ndarray, locator: str, localiser: CardLocaliser | None
             ) -> tuple[list[np.ndarray], Callable[[np.ndarray], float] | None]:
    """(`located_quads`, and for the learned locators how well a quad outlines a card in the
    localiser's map, `vision.localise_model.outline_fit`; None for the classical one)."""
    h, w = image.shape[:2]
    fit = None
    if locator == "classical":
        quads = [c.quad for c in locate(image)]
    elif locator in LOCATORS:
        classical = [c.quad for c in locate(image)] if locator == "learned+classical" else None
        quads, fit = uno_face_outlines(image, localiser or default_localiser(), classical)
    else:
        raise ValueError(f"locator {locator!r} is not one of {LOCATORS}")
    quads = [order_quad(q) for q in quads]
    return [q for q in quads if _inside_fraction(q, w, h) >= MIN_INSIDE], fit


def recognise(image: np.ndarray, classifier: CardClassifier | None = None,
              min_confidence: float = MIN_CONFIDENCE,
              accept_quad: Callable[[np.ndarray], bool] | None = None,
              locator: str = "classical", localiser: CardLocaliser | None = None
              ) -> list[CardSighting]:
    """Every card face found in `image` (BGR uint8, any size), most confident first.
    `locator` and `localiser` say where to look (`located_quads`).

    `accept_quad`, when given, keeps only the located quads (4x2, image pixels) it accepts,
    before they are read: a caller that knows where the card must be (the pile watcher does)
    keeps a sure-looking wrong quad from hiding the right one."""
    if image is None or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError("recognise() needs a BGR colour image (H x W x 3 uint8)")
    clf = classifier or default_classifier()
    quads, fit = _located(image, locator, localiser)
    if not quads:
        return []
    if accept_quad is not None:
        quads = [q for q in quads if accept_quad(q)]
        if not quads:
            return []
    crops = [rectify(image, q, ordered=True) for q in quads]
    probs = clf.probabilities(crops)
    labels = clf.labels
    not_card = labels.index(NOT_CARD) if NOT_CARD in labels else -1
    # Second look at the likely cards: the same crop turned 180° (a card reads the same both
    # ways up), averaged with the first. Costs one more crop per card, not per candidate.
    likely = [i for i, p in enumerate(probs) if int(np.argmax(p)) != not_card]
    if likely:
        turned = clf.probabilities([crops[i][::-1, ::-1] for i in likely])
        probs[likely] = (probs[likely] + turned) / 2
    readings = []
    for q, p in zip(quads, probs, strict=True):
        top = int(np.argmax(p))
        if top == not_card or p[top] < min_confidence:
            continue
        card_p = p.copy()
        card_p[top] = -1.0
        if not_card >= 0:
            card_p[not_card] = -1.0
        # The fit of the outline read travels with its reading (a reading joined from two
        # parts keeps its part's: the quad around two cards side by side fits them well).
        readings.append((float(p[top]), top, int(np.argmax(card_p)), q,
                         fit(q) if fit is not None else 1.0))
    readings.sort(key=lambda r: -r[0])
    def reads_as(quad: np.ndarray, token: int) -> bool:
        crop = rectify(image, quad, ordered=True)
        return int(np.argmax(both_ways_up(clf, [crop])[0])) == token

    readings = _whole_over_parts(_join_parts(readings, quads, reads_as))
    # A reading inside a larger, fairly sure reading is a part of that card (the top half of a
    # sunburst card, its big digit): the whole card wins.
    areas = [abs(cv2.contourArea(r[3])) for r in readings]
    card_shaped = [CARD_ASPECT[0] <= quad_aspect(r[3]) <= CARD_ASPECT[1] for r in readings]
    readings = [r for i, r in enumerate(readings) if card_shaped[i] or not any(
        ENCLOSING_AREA[0] * areas[i] < areas[j] < ENCLOSING_AREA[1] * areas[i]
        and o[0] >= ENCLOSING_CONFIDENCE * r[0]
        and quad_contains(o[3], r[3].mean(axis=0)) for j, o in enumerate(readings))]
    if fit is not None:
        # Of the outlines of one card (the localiser's boxes of both looks, the classical
        # quads), the one kept is the surest reading weighed by how well its quad outlines a
        # card in the localiser's map: a quad over part of a card and part of the hand behind
        # it, or around the card's picture, can be read surely and wrongly.
        readings.sort(key=lambda r: -r[0] * r[4])
    kept: list[CardSighting] = []
    kept_quads: list[np.ndarray] = []
    for conf, top, second, q, *_ in readings:
        c = q.mean(axis=0)
        # One card, one reading: a quad overlapping a surer one is the same card (or a card
        # under it in a pile, of which only edges show).
        if any(quad_contains(k, c) or quad_contains(q, k.mean(axis=0)) for k in kept_quads):
            continue
        kept_quads.append(q)
        kept.append(CardSighting(
            card=labels[top], confidence=conf, runner_up=labels[second],
            quad=tuple((float(x), float(y)) for x, y in q),  # type: ignore[arg-type]
            center=(float(c[0]), float(c[1])),
        ))
    kept.sort(key=lambda s: -s.confidence)
    return _card_sized(kept)


def _card_sized(sightings: list[CardSighting]) -> list[CardSighting]:
    """The sightings at least `SMALLEST_CARD_SHARE` of the largest one's area, in order."""
    areas = [abs(cv2.contourArea(np.float32(s.quad))) for s in sightings]
    if not areas:
        return sightings
    smallest = SMALLEST_CARD_SHARE * max(areas)
    return [s for s, area in zip(sightings, areas, strict=True) if area >= smallest]


def _inside_fraction(quad: np.ndarray, width: int, height: int) -> float:
    area = abs(cv2.contourArea(quad))
    if area <= 0:
        return 0.0
    frame = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    inside, _ = cv2.intersectConvexConvex(np.float32(quad), frame)
    return float(inside) / area


Reading = tuple
"""(confidence, token index, runner-up index, quad[, outline fit]): a located quad read. The
fit (`vision.localise_model.outline_fit`, 1 for the classical locator) weighs the reading when
one card's outlines compete (`recognise`)."""


def _join_parts(readings: list[Reading], quads: list[np.ndarray],
                reads_as: Callable[[np.ndarray, int], bool] | None = None
                ) -> list[Reading]:
    """Two readings of the same card that are parts of one located card-shaped quad are that
    one card (the sunburst design's white disc cuts a card's coloured body into a top and a
    bottom part, each card-shaped enough to be read, and each was counted as a card, while the
    whole card's outline, read with the disc across its middle, was often less sure). The
    joined reading has the whole quad, the surer part's confidence and the worse part's fit.
    Readings (`Reading`), most confident first.

    When no located quad holds both (a white card on a pale cloth shows no outline), the
    smallest rectangle around the two parts stands for the card, if it is card-shaped, at most
    `PARTS_MAX_SPREAD` times their areas, and `reads_as(rectangle, token)` says it reads as
    that card at all (any confidence): two cards alike lying side by side do not, squeezed
    into one crop.

    Parts are not joined into a located card whose own reading is another card, at least
    `ENCLOSING_CONFIDENCE` times as sure: the two small cards in a draw two's picture were
    read as two 4s and joined into a 4 over the card read as the draw two it is (held-out
    single-card photos, natnael_k: r_draw_2 and g_draw_2)."""
    areas = [abs(cv2.contourArea(q)) for q in quads]
    whole = [(q, a) for q, a in zip(quads, areas, strict=True)
             if CARD_ASPECT[0] <= quad_aspect(q) <= CARD_ASPECT[1]]
    joined = list(readings)
    i = 0
    while i < len(joined):
        conf, top, second, q, *rest = joined[i]
        for j in range(i + 1, len(joined)):
            other = joined[j]
            if other[1] != top:
                continue
            part_areas = (abs(cv2.contourArea(q)), abs(cv2.contourArea(other[3])))
            if _overlap(q, other[3]) > PARTS_MAX_OVERLAP * min(part_areas):
                continue  # two outlines of the same part (the body and the grown quad)
            enclosing = next((wq for wq, wa in whole
                              if all(ENCLOSING_AREA[0] * pa < wa < ENCLOSING_AREA[1] * pa
                                     for pa in part_areas)
                              and wa < PARTS_MAX_SPREAD * sum(part_areas)
                              and quad_contains(wq, q.mean(axis=0))
                              and quad_contains(wq, other[3].mean(axis=0))), None)
            if enclosing is not None and any(
                    r[3] is enclosing and r[1] != top and r[0] >= ENCLOSING_CONFIDENCE * conf
                    for r in readings):
                continue  # the card reads as another card: these are pieces of its picture
            if enclosing is None and reads_as is not None:
                enclosing = _around_parts(q, other[3], part_areas)
                if enclosing is not None and not reads_as(enclosing, top):
                    enclosing = None
            if enclosing is not None:
                # A joined reading's outline fit (`recognise`'s fifth field) is its worse
                # part's: the join says both parts are one card, as sure as its weaker part.
                weaker = [min(rest[0], other[4])] if rest else []
                joined[i] = (conf, top, second, enclosing, *weaker)
                del joined[j]
                break
        else:
            i += 1
    return joined


def _around_parts(a: np.ndarray, b: np.ndarray, part_areas: tuple[float, float]
                  ) -> np.ndarray | None:
    """The smallest rectangle around two parts (ordered quad), when it is shaped like a card
    and not much larger than the two (`PARTS_MAX_SPREAD`); else None."""
    box = cv2.boxPoints(cv2.minAreaRect(np.concatenate([a, b]).astype(np.float32)))
    if not CARD_ASPECT[0] <= quad_aspect(box) <= CARD_ASPECT[1]:
        return None
    if abs(cv2.contourArea(box)) > PARTS_MAX_SPREAD * sum(part_areas):
        return None
    return order_quad(box)


def _whole_over_parts(readings: list[tuple[float, int, int, np.ndarray]]
                      ) -> list[Reading]:
    """A whole card read over its top and bottom parts read apart gives the reading, whatever
    the parts read. A sunburst card's top part holds the corner index and the rim of the disc,
    and was read as a 2 (y_4 -> y_2) while the whole card and its bottom part were read right;
    each part is card-shaped enough to be kept as a card of its own beside the whole one.
    Parts give way to a card-shaped reading when two or more of them have their centres
    inside its quad, a part's share of its area (`PART_AREA`), overlapping each other by at
    most `PARTS_MAX_OVERLAP`, and the whole reading is at least `ENCLOSING_CONFIDENCE` times
    as sure as each; a single such part gives way when it reads as the whole card does (seen
    on a held-out phone photo: a sure bottom part of y_4 hid the whole y_4, a hair less sure,
    whose top part read under the bar; on the trained-on frames and the rendered scenes the
    rule changes nothing). (Judged on the located quads alone, whatever was read in them, the rule
    also dropped parts read right for a whole card read wrong, on the photos trained on.)
    Readings as in `_join_parts`, most confident first."""
    areas = [abs(cv2.contourArea(r[3])) for r in readings]
    dropped: set[int] = set()
    for w, (conf, _, _, whole, *_) in enumerate(readings):
        if w in dropped or not CARD_ASPECT[0] <= quad_aspect(whole) <= CARD_ASPECT[1]:
            continue
        parts = [i for i, r in enumerate(readings)
                 if i != w and i not in dropped
                 and PART_AREA[0] * areas[w] <= areas[i] <= PART_AREA[1] * areas[w]
                 and conf >= ENCLOSING_CONFIDENCE * r[0]
                 and quad_contains(whole, r[3].mean(axis=0))]
        dropped |= {i for i in parts for j in parts if i != j and _overlap(
            readings[i][3], readings[j][3]) <= PARTS_MAX_OVERLAP * min(areas[i], areas[j])}
        # One part read as the whole card's own token is that card, whether or not the other
        # part was read: the whole outline is what a player points at.
        dropped |= {i for i in parts if readings[i][1] == readings[w][1]}
    return [r for i, r in enumerate(readings) if i not in dropped]


def _overlap(a: np.ndarray, b: np.ndarray) -> float:
    shared, _ = cv2.intersectConvexConvex(np.float32(a), np.float32(b))
    return float(shared)
