"""Synthetic game footage: a scenario -> a top-down table video with sound, and its ground truth.

    python -m synth.footage SCENARIO.json OUT.mp4 [--size 720x1280] [--fps 30]

The table comes from `synth.render` (texture, light); the two draw piles are stacks of card
backs (black, red oval); every play is an arm-like occluder coming in from its seat's side,
carrying a card rendered by `synth.render.render_face` in the footage's print style (see
`footage_style`), or a card cut out of a real photo when the caller hands such faces in
(`real_faces`), dropping it askew and off-centre on the pile, lingering and leaving. On top:
a lighting change, passing shadows, sensor noise and H.264 compression. The webcam family
(`synth.webcam`) films the same table through a tilted, cheap camera. The sound track has the
knocks the caller hands over (the evaluations pass real knuckle knocks), else synthesised ones,
in room noise. The ground truth is an event log in docs/DESIGN.md's format, `t` quantised to
the first frame at which the thing is true. Everything is deterministic given the seed.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import cv2
import numpy as np

from calibration.layout import TableLayout, border_point
from synth.footage_sound import render_sound_track
from synth.render import (
    FACE_H,
    FACE_W,
    face_mask,
    footage_style,
    light,
    render_face,
    render_table,
)
from synth.scenario import APPROACH_S, DRAW_DWELL_S, WITHDRAW_S, Scenario
from synth.webcam import WebcamLook, write_camera_sidecar

DEFAULT_SIZE = (720, 1280)
DEFAULT_FPS = 30

SEAT_JITTER_DEG = 12.0
"""An arm comes in within this many degrees of its seat's direction (people lean)."""

CARD_OFFSET_CARDS = 0.22
"""A card lands up to this many card heights from the pile centre (off-centre drops)."""

ADJUST_AFTER_S = 0.15
"""A nudged card moves this long after it first lands; its truth `t` is after the nudge."""

FAN_OFFSET_CARDS = (0.2, 0.4)
"""A card of a multi-card play lands this many card heights from the one before, further along
the play's fan (one direction for the play, as cards fanned in a hand lie; the fan is centred
where the hand aims, so a fan of four stays on the pile) ..."""

FAN_TURN_DEG = 15.0
"""... turned from it by up to this many degrees."""

FAN_WANDER_DEG = 20.0
"""Each card's step leaves the fan's direction by up to this (a hand is no ruler)."""

STACK_OFFSET_CARDS = 0.04
"""A card stacked on the one before lands within this many card heights of it ..."""

STACK_TURN_DEG = 4.0
"""... turned from it by up to this many degrees: squarely on it."""

AT_ONCE_S = 0.3
"""A card of a multi-card play laid less than this after the one before was in the hand with
it (a fan put down in one motion): the hand does not lift off in between."""

NEXT_CARD_MOVE_S = 0.25
"""The hand of a multi-card play comes in with its next card in this long (at most), after
lifting off the card it laid in the time before ..."""

LIFT_OFF_CARDS = 0.9
"""... this many card heights towards its seat: the card it laid shows, as at a real table."""

NOISE_SIGMA = 3.0
"""Sensor noise, grey levels (standard deviation)."""

SHADOW_DEPTH = 0.18
"""A passing shadow darkens by at most this fraction (a person leaning over a lit table)."""

BLUR_STEPS = 5
"""A moving arm is drawn at this many moments of the shutter's opening and averaged (the
webcam family's motion blur, `WebcamLook.shutter_s`)."""

PAIR_FAN_CARDS = 0.22
"""Two identical cards put down together lie fanned: the second this many card heights aside
from the first, turned 10-25 degrees."""


def card_back(rng: np.random.Generator) -> np.ndarray:
    """An UNO card back: black, a tilted red oval, a yellow logo stroke (FACE_H x FACE_W)."""
    back = np.full((FACE_H, FACE_W, 3), int(rng.integers(12, 30)), np.uint8)
    cv2.ellipse(back, (FACE_W // 2, FACE_H // 2), (72, 122), 35, 0, 360, (30, 35, 215), -1,
                cv2.LINE_AA)
    cv2.putText(back, "UNO", (52, 170), cv2.FONT_HERSHEY_TRIPLEX, 1.9, (20, 220, 245), 5,
                cv2.LINE_AA)
    back[face_mask() == 0] = 0
    return back


def card_quad(centre: tuple[float, float], height_px: float, angle_deg: float) -> np.ndarray:
    """Corners (TL, TR, BR, BL of the upright face) of a card centred at `centre`."""
    w, h = height_px * FACE_W / FACE_H, height_px
    pts = np.float32([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    a = math.radians(angle_deg)
    rot = np.float32([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return pts @ rot.T + np.float32(centre)


def paste_card(img: np.ndarray, face: np.ndarray, quad: np.ndarray) -> None:
    """Draw `face` onto `img` at `quad`, warping only inside the quad's bounding box."""
    h, w = img.shape[:2]
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    src = np.float32([[0, 0], [FACE_W - 1, 0], [FACE_W - 1, FACE_H - 1], [0, FACE_H - 1]])
    m = cv2.getPerspectiveTransform(src, np.float32(quad - [x0, y0]))
    size = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(face, m, size, flags=cv2.INTER_AREA)
    alpha = cv2.warpPerspective(face_mask(), m, size, flags=cv2.INTER_LINEAR)
    a = (alpha.astype(np.float32) / 255.0)[..., None]
    roi = img[y0:y1, x0:x1]
    roi[:] = (roi * (1 - a) + warped * a).astype(np.uint8)


def _ease(s: float) -> float:
    s = min(max(s, 0.0), 1.0)
    return s * s * (3 - 2 * s)


@dataclass
class _Reach:
    """One arm movement: in from `entry` to `target`, still until `leave_t`, back out."""

    arrive_t: float
    leave_t: float
    entry: np.ndarray
    target: np.ndarray
    skin: tuple[int, int, int]
    sleeve: tuple[int, int, int]
    carry_in: list[tuple[np.ndarray, np.ndarray]] | None = None  # (face, quad at arrival)s
    fan: list[tuple[np.ndarray, np.ndarray, float]] = field(default_factory=list)
    """Cards held with `carry_in` that land later, (face, quad, landing time): a fan put down
    in one motion."""
    carry_out: list[tuple[np.ndarray, np.ndarray]] | None = None
    tremble_px: float = 0.0
    start: np.ndarray | None = None
    """Where the hand comes from: the entry, or the last card's place in a multi-card play."""
    approach_s: float = APPROACH_S
    withdraws: bool = True
    """False when the hand goes on to lay the next card of its play instead."""

    def active(self, t: float) -> bool:
        out_s = WITHDRAW_S if self.withdraws else 0.0
        return self.arrive_t - self.approach_s <= t <= self.leave_t + out_s

    def moving(self, t: float) -> bool:
        return self.active(t) and not self.arrive_t <= t <= self.leave_t

    def hand(self, t: float) -> np.ndarray:
        if t < self.arrive_t:
            start = self.entry if self.start is None else self.start
            return start + (self.target - start) * _ease(
                1 - (self.arrive_t - t) / self.approach_s)
        if t <= self.leave_t:
            wobble = math.sin(t * 23.0) * self.tremble_px
            return self.target + np.float32([wobble, -wobble * 0.7])
        return self.target + (self.entry - self.target) * _ease((t - self.leave_t) / WITHDRAW_S)


@dataclass
class _PileChange:
    t: float
    face: np.ndarray | None  # None: the top card leaves
    quad: np.ndarray | None
    token: str | None = None  # the card, once it rests (for training crops)


class FootageRenderer:
    """Renders a scenario frame by frame; `truth()` is the event log it stands for."""

    def __init__(self, scenario: Scenario, size: tuple[int, int] = DEFAULT_SIZE,
                 fps: int = DEFAULT_FPS, layout: TableLayout | None = None,
                 look: WebcamLook | None = None,
                 real_faces: Mapping[str, Sequence[np.ndarray]] | None = None) -> None:
        self.scenario = scenario
        # Faces cut out of real photos, by token (FACE_H x FACE_W BGR), handed in by the caller
        # (this package never reads the shared data); a token without one is rendered.
        self.real_faces = real_faces or {}
        self._face_rng = np.random.default_rng([scenario.seed, 7])
        self.size = size
        self.fps = fps
        self.layout = layout or TableLayout()
        # The webcam family's people: each seat's own skin and sleeve, and motion blur.
        self.look = look
        self.rng = np.random.default_rng(scenario.seed)
        h, w = size
        self.card_h = self.layout.card_height_px(h)
        self.pile_centre = np.float32(self.layout.pile_centre) * [w, h]
        self._build_table()
        self._plan()

    # -- the still table -------------------------------------------------------------------

    def _build_table(self) -> None:
        h, w = self.size
        rng = self.rng
        table = render_table(h, w, rng)
        for cx, cy in self.layout.draw_centres:
            centre = np.float32([cx * w, cy * h])
            angle = float(rng.uniform(-20, 20))
            for k in range(6):  # a stack: each back a little offset from the one below
                quad = card_quad(tuple(centre - [k * 0.6, k * 0.9]), self.card_h,
                                 angle + float(rng.normal(0, 2)))
                paste_card(table, card_back(rng), quad)
        # Light is baked as a per-pixel gain so pasted cards are lit the same way.
        grey = np.full((h, w, 3), 128, np.uint8)
        self.gain_map = light(grey, rng, strength=0.4).astype(np.float32) / 128.0
        self.unlit = table
        self.lit = np.clip(table * self.gain_map, 0, 255).astype(np.uint8)
        self.noise_bank = [
            (np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8))
            for n in (rng.normal(0, NOISE_SIGMA, (h, w, 3)) for _ in range(4))]

    # -- what happens when -----------------------------------------------------------------

    def _quantise(self, t: float) -> float:
        """The time of the first frame at or after `t`."""
        return math.ceil(t * self.fps - 1e-6) / self.fps

    def _entry(self, seat: int, towards: np.ndarray) -> np.ndarray:
        h, w = self.size
        angle = 90.0 + 360.0 * seat / self.scenario.players
        angle += float(self.rng.uniform(-SEAT_JITTER_DEG, SEAT_JITTER_DEG))
        x, y = border_point(tuple(self.pile_centre), angle, h, w)
        out = np.float32([x, y]) - towards
        out = out / (np.linalg.norm(out) + 1e-6)
        return np.float32([x, y]) + out * self.card_h * 0.8  # start outside the frame

    def _colours(self) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        rng = self.rng
        skin = (int(rng.integers(60, 150)), int(rng.integers(90, 170)), int(rng.integers(140, 225)))
        sleeve = tuple(int(v) for v in rng.integers(20, 235, 3))
        return skin, sleeve  # type: ignore[return-value]

    def _plan(self) -> None:
        rng = self.rng
        sc = self.scenario
        self.reaches: list[_Reach] = []
        self.pile_changes: list[_PileChange] = []
        self.truth_events: list[dict] = []
        pile_stack: list[tuple[str, np.ndarray, np.ndarray]] = []
        events = [("play", p.t, p) for p in sc.plays] + [("take", b.t, b) for b in sc.takebacks]
        events += [("draw", d.t, d) for d in sc.draws] + [("pass", b.t, b) for b in sc.passes]
        for kind, _, item in sorted(events, key=lambda e: e[1]):
            skin, sleeve = self._colours()  # drawn always: the plan is the same either way
            if self.look is not None:
                skin, sleeve = self.look.skin(item.seat), self.look.sleeve(item.seat)
            if kind == "play":
                self._plan_play(item, skin, sleeve, pile_stack)
            elif kind == "take" and pile_stack:
                token, face, quad = pile_stack.pop()
                t = self._quantise(item.t)
                self.pile_changes.append(_PileChange(t, None, None))
                target = quad.mean(axis=0)
                self.reaches.append(_Reach(t, t + 0.1, self._entry(item.seat, target), target,
                                           skin, sleeve, carry_out=[(face, quad)]))
                self.truth_events.append({"t": t, "kind": "card_removed", "card": token})
            elif kind == "pass":  # over the pile (or short of it) and away, dropping nothing
                t = self._quantise(item.t)
                target = self.pile_centre + rng.normal(0, 0.2, 2).astype(np.float32) * self.card_h
                entry = self._entry(item.seat, target)
                if item.short_cards > 0:  # an arm resting in view, its hand short of the pile
                    towards = (entry - target) / (np.linalg.norm(entry - target) + 1e-6)
                    target = target + towards * item.short_cards * self.card_h
                self.reaches.append(_Reach(t, t + item.dwell_s, entry, target, skin, sleeve,
                                           tremble_px=self.card_h * 0.02))
            elif kind == "draw":
                which = int(rng.integers(2))
                cx, cy = self.layout.draw_centres[which]
                target = np.float32([cx * self.size[1], cy * self.size[0]])
                t = self._quantise(item.t)
                entry = self._entry(item.seat, target)
                back_quad = card_quad(tuple(target), self.card_h, float(rng.uniform(0, 360)))
                self.reaches.append(_Reach(t, t + DRAW_DWELL_S, entry, target, skin, sleeve,
                                           carry_out=[(card_back(rng), back_quad)],
                                           tremble_px=self.card_h * 0.01))
                self.truth_events.append({"t": t, "kind": "draw", "seat": item.seat,
                                          "count": 1})
        self.truth_events += [{"t": round(k.t, 3), "kind": "knock"} for k in sc.knocks]
        order = {"card_removed": 1, "card": 2, "knock": 4, "draw": 5}
        for event in self.truth_events:
            event["t"] = round(event["t"], 4)
        self.truth_events.sort(key=lambda e: (e["t"], order[e["kind"]]))
        self.pile_changes.sort(key=lambda c: c.t)

    def _plan_play(self, play, skin, sleeve, pile_stack) -> None:
        rng = self.rng
        offset = rng.normal(0, CARD_OFFSET_CARDS / 2, 2).clip(-CARD_OFFSET_CARDS,
                                                               CARD_OFFSET_CARDS)
        centre = self.pile_centre + np.float32(offset) * self.card_h
        angle = float(rng.uniform(0, 360))
        fan_dir = 0.0
        fanned = sum(more.lay == "fanned" for more in play.more)
        if fanned:
            # Centred where the hand aims: the first card lies half the fan back from it.
            fan_dir = float(rng.uniform(0, 2 * math.pi))
            back = fanned * float(np.mean(FAN_OFFSET_CARDS)) / 2 * self.card_h
            centre = centre - np.float32([math.cos(fan_dir), math.sin(fan_dir)]) * back
        quad = card_quad(tuple(centre), self.card_h, angle)
        face = self._face(play.card, rng)
        t = self._quantise(play.t)
        entry = self._entry(play.seat, centre)
        towards_seat = (entry - centre) / (np.linalg.norm(entry - centre) + 1e-6)
        grip = centre + towards_seat * self.card_h * 0.45
        carry_quad = quad
        rest_t = t
        if play.adjust and play.linger_s >= 2 * ADJUST_AFTER_S:
            # Dropped, then nudged into place: it lands at `quad` and rests at the nudged one.
            self.pile_changes.append(_PileChange(t, face, quad))
            rest_t = self._quantise(t + ADJUST_AFTER_S)
            nudge = rng.normal(0, 0.06, 2).astype(np.float32) * self.card_h
            quad = card_quad(tuple(centre + nudge), self.card_h, angle + float(rng.normal(0, 6)))
            self.pile_changes.append(_PileChange(rest_t, None, None))
        self.pile_changes.append(_PileChange(rest_t, face, quad, play.card))
        carried = [(face, carry_quad)]
        pile_stack.append((play.card, face, quad))
        self.truth_events.append({"t": rest_t, "kind": "card", "card": play.card,
                                  "seat": play.seat})
        if play.pair:  # its twin, fanned beside it, put down in the same movement
            # From a generator of its own: the rest of the plan stays as without pairs.
            fan = np.random.default_rng([self.scenario.seed, round(play.t * 1000)])
            a = math.radians(angle)
            side = np.float32([math.cos(a), math.sin(a)]) * PAIR_FAN_CARDS * self.card_h
            twin_quad = card_quad(tuple(centre + side), self.card_h,
                                  angle + float(fan.choice([-1, 1]) * fan.uniform(10, 25)))
            twin = self._face(play.card, fan)
            self.pile_changes.append(_PileChange(rest_t, twin, twin_quad, play.card))
            carried.append((twin, twin_quad))
            pile_stack.append((play.card, twin, twin_quad))
            self.truth_events.append({"t": rest_t, "kind": "card", "card": play.card,
                                      "seat": play.seat})
        reach = _Reach(t, t + play.linger_s, entry, grip, skin, sleeve,
                       carry_in=carried, tremble_px=self.card_h * 0.015)
        self.reaches.append(reach)
        last_t = t
        for more in play.more:
            reach, centre, angle, last_t = self._plan_next_card(
                play, more, reach, last_t, (centre, angle, fan_dir), pile_stack)
        reach.leave_t = last_t + play.linger_s  # the last card's linger counts

    def _plan_next_card(self, play, more, before: _Reach, before_t: float, placed: tuple,
                        pile_stack) -> tuple[_Reach, np.ndarray, float, float]:
        """The next card of a multi-card play, laid `more.after_s` after the card before
        (at `before_t`, by the reach `before`), which lies at `placed` = (centre, angle, the
        play's fan direction). Laid at once (under AT_ONCE_S) it was in the same hand and
        lands from it; else the hand lets go of the card before, lifts back off it towards its
        seat, and comes in again with this one. (This card's reach, centre, angle, time.)"""
        rng = self.rng
        centre, angle, fan_dir = placed
        t = self._quantise(before_t + more.after_s)
        away = float(rng.uniform(0, 2 * math.pi))  # drawn for either lay: same seeds, same fan
        if more.lay == "stacked":
            step = float(rng.uniform(0, STACK_OFFSET_CARDS)) * self.card_h
            angle = angle + float(rng.uniform(-STACK_TURN_DEG, STACK_TURN_DEG))
        else:
            step = float(rng.uniform(*FAN_OFFSET_CARDS)) * self.card_h
            away = fan_dir + math.radians(FAN_WANDER_DEG) * (away / math.pi - 1)
            angle = angle + float(rng.uniform(-FAN_TURN_DEG, FAN_TURN_DEG))
        centre = centre + np.float32([math.cos(away), math.sin(away)]) * step
        quad = card_quad(tuple(centre), self.card_h, angle)
        face = self._face(more.card, rng)
        self.pile_changes.append(_PileChange(t, face, quad, more.card))
        pile_stack.append((more.card, face, quad))
        self.truth_events.append({"t": t, "kind": "card", "card": more.card, "seat": play.seat})
        if more.after_s < AT_ONCE_S:
            before.fan.append((face, quad, t))  # in the hand since it came in
            return before, centre, angle, t
        step_s = min(NEXT_CARD_MOVE_S, more.after_s * 0.3)  # to come in with this card
        towards_seat = (before.entry - centre) / (np.linalg.norm(before.entry - centre) + 1e-6)
        grip = centre + towards_seat * self.card_h * 0.45
        lifted = before.target + towards_seat * self.card_h * LIFT_OFF_CARDS
        let_go = before_t + min(0.1, more.after_s * 0.1)
        before.leave_t, before.withdraws = let_go, False
        lift = _Reach(t - step_s, t - step_s, before.entry, lifted, before.skin, before.sleeve,
                      tremble_px=before.tremble_px, start=before.target,
                      approach_s=t - step_s - let_go, withdraws=False)
        reach = _Reach(t, t, before.entry, grip, before.skin, before.sleeve,
                       carry_in=[(face, quad)], tremble_px=before.tremble_px, start=lifted,
                       approach_s=step_s)
        self.reaches += [lift, reach]
        return reach, centre, angle, t

    def _face(self, token: str, rng: np.random.Generator) -> np.ndarray:
        """The face `token` lands with: rendered in the footage's print, or, where the caller
        handed in real faces of it, one of those. The face is rendered either way, so `rng`
        moves on alike and a game plays out the same with real faces as without."""
        face = render_face(token, rng, style=footage_style(rng))
        real = self.real_faces.get(token)
        if real:
            face = np.array(real[int(self._face_rng.integers(len(real)))], np.uint8)
        return face

    # -- frames ----------------------------------------------------------------------------

    def truth(self) -> list[dict]:
        """The ground-truth event log: the game line, then events in time order."""
        game = {"t": 0.0, "kind": "game", "variant": self.scenario.variant,
                "players": self.scenario.players, "dealer": self.scenario.dealer}
        return [game, *self.truth_events]

    def frame_count(self) -> int:
        return math.ceil(self.scenario.length_s() * self.fps)

    def frames(self) -> Iterator[tuple[float, np.ndarray]]:
        """(t, BGR image) for every frame, in order."""
        times = [index / self.fps for index in range(self.frame_count())]
        for t, image, _, _ in self.stills(times):
            yield t, image

    def stills(self, times: list[float]) -> Iterator[tuple[float, np.ndarray, str | None,
                                                           np.ndarray | None]]:
        """(t, BGR image, top card token, its quad) at the given times only (sorted), composed
        exactly as `frames()` would; for training crops of the pile's top card as footage
        shows it. The token is None while the top card is one that is still moving in."""
        pending = list(self.pile_changes)
        undo: list[tuple[tuple[int, int, int, int], np.ndarray, np.ndarray]] = []
        tops: list[tuple[str | None, np.ndarray | None]] = []
        shadow_rng = np.random.default_rng(self.scenario.seed + 1)
        shadow_paths = [(s, shadow_rng.uniform(0, 1, 4)) for s in self.scenario.shadows]
        for t in sorted(times):
            index = round(t * self.fps)
            t = index / self.fps
            while pending and pending[0].t <= t + 1e-9:
                change = pending.pop(0)
                self._apply(change, undo)
                if change.face is None:
                    if tops:
                        tops.pop()
                else:
                    tops.append((change.token, change.quad))
            token, quad = tops[-1] if tops else (None, None)
            yield t, self._compose(t, index, shadow_paths), token, quad

    def _apply(self, change: _PileChange, undo: list) -> None:
        if change.face is None:
            if undo:
                (x0, y0, x1, y1), unlit, lit = undo.pop()
                self.unlit[y0:y1, x0:x1] = unlit
                self.lit[y0:y1, x0:x1] = lit
            return
        h, w = self.size
        x0, y0 = np.maximum(np.floor(change.quad.min(axis=0)).astype(int) - 2, 0)
        x1, y1 = np.minimum(np.ceil(change.quad.max(axis=0)).astype(int) + 3, [w, h])
        undo.append(((x0, y0, x1, y1), self.unlit[y0:y1, x0:x1].copy(),
                     self.lit[y0:y1, x0:x1].copy()))
        paste_card(self.unlit, change.face, change.quad)
        box = self.unlit[y0:y1, x0:x1] * self.gain_map[y0:y1, x0:x1]
        self.lit[y0:y1, x0:x1] = np.clip(box, 0, 255).astype(np.uint8)

    def _compose(self, t: float, index: int, shadow_paths) -> np.ndarray:
        img = self.lit.copy()
        active = [reach for reach in self.reaches if reach.active(t)]
        shutter = self.look.shutter_s if self.look is not None else 0.0
        if shutter > 0 and any(reach.moving(t) for reach in active):
            # Motion blur: the arms as the shutter saw them while it was open.
            total = np.zeros(img.shape, np.float32)
            for step in range(BLUR_STEPS):
                layer = self.lit.copy()
                at = t - shutter * step / (BLUR_STEPS - 1)
                for reach in active:
                    if reach.active(at):
                        self._draw_reach(layer, reach, at)
                total += layer
            img = (total / BLUR_STEPS).astype(np.uint8)
        else:
            for reach in active:
                self._draw_reach(img, reach, t)
        for shadow, path in shadow_paths:
            if shadow.t <= t <= shadow.t + shadow.duration_s:
                self._draw_shadow(img, (t - shadow.t) / shadow.duration_s, path)
        gain = 1.0
        for change in self.scenario.lighting:
            if t >= change.t:
                gain = change.gain
        if gain != 1.0:
            img = cv2.convertScaleAbs(img, alpha=gain)
        plus, minus = self.noise_bank[index % len(self.noise_bank)]
        img = cv2.subtract(cv2.add(img, plus), minus)
        return img

    def _draw_reach(self, img: np.ndarray, reach: _Reach, t: float) -> None:
        hand = reach.hand(t)
        carried = reach.carry_in if t < reach.arrive_t else (
            reach.carry_out if t > reach.arrive_t else None)
        for face, quad in carried or ():
            paste_card(img, face, quad + (hand - reach.target))
        for face, quad, land_t in reach.fan:
            if t < land_t:  # still in the hand, over the cards that landed
                paste_card(img, face, quad + (hand - reach.target))
        direction = hand - reach.entry
        length = float(np.linalg.norm(direction)) + 1e-6
        unit = direction / length
        normal = np.float32([-unit[1], unit[0]])
        half = self.card_h * 0.28
        wrist = hand - unit * self.card_h * 0.35
        arm = np.int32([reach.entry + normal * half * 1.2, wrist + normal * half,
                        wrist - normal * half, reach.entry - normal * half * 1.2])
        cv2.fillConvexPoly(img, arm, reach.sleeve, cv2.LINE_AA)
        forearm = np.int32([wrist + normal * half * 0.9, hand + normal * half * 0.8,
                            hand - normal * half * 0.8, wrist - normal * half * 0.9])
        cv2.fillConvexPoly(img, forearm, reach.skin, cv2.LINE_AA)
        angle = math.degrees(math.atan2(unit[1], unit[0]))
        axes = (int(self.card_h * 0.3), int(self.card_h * 0.22))
        cv2.ellipse(img, tuple(int(v) for v in hand), axes, angle, 0, 360, reach.skin, -1,
                    cv2.LINE_AA)

    def _draw_shadow(self, img: np.ndarray, progress: float, path: np.ndarray) -> None:
        h, w = img.shape[:2]
        x = (path[0] + (path[1] - path[0]) * progress) * w
        y = (path[2] + (path[3] - path[2]) * progress) * h
        radius = 0.35 * h
        x0, y0 = int(max(0, x - radius)), int(max(0, y - radius))
        x1, y1 = int(min(w, x + radius)), int(min(h, y + radius))
        if x1 <= x0 or y1 <= y0:
            return
        ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        d2 = ((xs - x) ** 2 + (ys - y) ** 2) / (radius * 0.5) ** 2
        fade = math.sin(math.pi * progress)  # it comes and goes
        darken = 1.0 - SHADOW_DEPTH * fade * np.exp(-d2)
        roi = img[y0:y1, x0:x1]
        roi[:] = (roi * darken[..., None]).astype(np.uint8)


@dataclass(frozen=True)
class RenderedFootage:
    video: Path
    truth: Path
    events: list[dict]


def render_footage(scenario: Scenario, out: str | Path, size: tuple[int, int] = DEFAULT_SIZE,
                   fps: int = DEFAULT_FPS, sound: bool = True, crf: int = 23,
                   knock_sounds: Sequence[np.ndarray] = (),
                   look: WebcamLook | None = None,
                   real_faces: Mapping[str, Sequence[np.ndarray]] | None = None
                   ) -> RenderedFootage:
    """Write `out` (MP4: H.264 video, AAC sound) and `out`.truth.jsonl; return the truth.
    The knocks are drawn from `knock_sounds` (see `synth.footage_sound.render_sound_track`).

    `look`: film the table through this webcam (`synth.webcam`): the frames rendered at
    `size` from straight above are warped, lit and blurred as it sees them, at its size and
    bitrate, and `out`.camera.json says how (with the camera profile of that view).

    `real_faces`: faces cut out of real card photos, by token, to land in place of rendered
    ones (see `FootageRenderer`)."""
    import av

    from referee.eventlog import dumps

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    renderer = FootageRenderer(scenario, size, fps, look=look, real_faces=real_faces)
    h, w = look.size if look is not None else size
    warp = look.homography(size) if look is not None else None
    # faststart puts the index first, so a truncated file still opens and plays up to the cut.
    with av.open(str(out), "w", options={"movflags": "faststart"}) as container:
        video = container.add_stream("libx264", rate=fps)
        video.width, video.height, video.pix_fmt = w, h, "yuv420p"
        video.time_base = Fraction(1, fps)
        # x264's macroblock tree came out differently from run to run: under the webcam's
        # bitrate cap the first encode in a process differed from the later ones (the tilted
        # clip's tests passed and failed on identical runs), and at constant quality two renders
        # of one game, late in a full test run, were other files now and then (1 Dec, night).
        # Without it every render of a game is the same file; real-time encoders do without it.
        quality = {"crf": str(crf)} if look is None else {
            "b": f"{look.bitrate_kbps}k", "maxrate": f"{look.bitrate_kbps}k",
            "bufsize": f"{2 * look.bitrate_kbps}k"}
        quality["x264-params"] = "mbtree=0"
        video.options = {**quality, "preset": "veryfast", "g": str(2 * fps), "threads": "1"}
        audio = None
        if sound:
            audio = container.add_stream("aac", rate=48_000)
            audio.layout = "mono"
        for index, (t, image) in enumerate(renderer.frames()):
            if look is not None:
                image = look.see(image, t, index, warp)
            frame = av.VideoFrame.from_ndarray(_aligned(image), format="bgr24")
            frame.pts = index
            container.mux(video.encode(frame))
        container.mux(video.encode())
        if audio is not None:
            track = render_sound_track(scenario, scenario.length_s(), 48_000, knock_sounds)
            _encode_audio(container, audio, track, 48_000)
    truth = renderer.truth()
    if look is not None:
        write_camera_sidecar(
            out, look, look.table_plane_profile(renderer.layout, scenario.players, size),
            seen=look.camera_profile(renderer.layout, scenario.players, size),
            hands=fast_hand_counts(scenario))
    truth_path = out.with_suffix(".truth.jsonl")
    truth_path.write_text("".join(dumps(e) + "\n" for e in truth), encoding="utf-8")
    return RenderedFootage(out, truth_path, truth)


def _aligned(image: np.ndarray, alignment: int = 64) -> np.ndarray:
    """`image` copied to memory that starts on an `alignment`-byte boundary. The conversion to
    the encoder's YUV takes other (SIMD) paths for other alignments, with other roundings:
    numpy aligns a small frame to 16 bytes only, so two renders of one game differed in 268 of
    270 frames, and a watcher's decision near a line went either way from render to render."""
    buffer = np.empty(image.nbytes + alignment, np.uint8)
    start = (-buffer.ctypes.data) % alignment
    out = buffer[start:start + image.nbytes].reshape(image.shape)
    out[...] = image
    return out


def fast_hand_counts(scenario: Scenario) -> dict[str, int]:
    """How many of each fast-hand condition a scenario has (for the webcam sidecar)."""
    gaps = [b.t - a.t for a, b in zip(scenario.plays, scenario.plays[1:], strict=False)]
    return {"jump_ins_within_0_7_s": sum(g < 0.7 for g in gaps),
            "pairs_of_identical_cards": sum(p.pair for p in scenario.plays),
            "hands_over_the_pile": sum(p.short_cards == 0 for p in scenario.passes),
            "second_arms_in_view": sum(p.short_cards > 0 for p in scenario.passes)}


def _encode_audio(container, stream, samples: np.ndarray, rate_hz: int) -> None:
    import av

    chunk = 1024
    for start in range(0, len(samples), chunk):
        piece = samples[start:start + chunk].astype(np.float32)
        frame = av.AudioFrame.from_ndarray(piece[None, :], format="fltp", layout="mono")
        frame.sample_rate = rate_hz
        frame.pts = start
        frame.time_base = Fraction(1, rate_hz)
        container.mux(stream.encode(frame))
    container.mux(stream.encode())


def main(argv: list[str] | None = None) -> int:
    import argparse

    from synth.scenario import load_scenario

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario")
    parser.add_argument("out")
    parser.add_argument("--size", default="720x1280", help="HEIGHTxWIDTH in pixels")
    parser.add_argument("--fps", type=int, default=DEFAULT_FPS)
    args = parser.parse_args(argv)
    h, w = (int(v) for v in args.size.lower().split("x"))
    rendered = render_footage(load_scenario(args.scenario), args.out, (h, w), args.fps)
    print(f"wrote {rendered.video} and {rendered.truth} ({len(rendered.events) - 1} events)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
