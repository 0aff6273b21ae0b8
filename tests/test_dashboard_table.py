"""A table for the dashboard tests: the real referee (`referee.session.Session`) behind the
`DashboardBackend` protocol, with a drawn camera frame instead of a camera.

The dashboard tests drive the page against this table, so a ruling on the page is one the
referee really gave, an undo really withdraws a penalty, and a colour named on the page really
changes the referee's state. The clock is a step counter: every event lands one second after
the previous one, so the tests never wait for time to pass.

The tests in this module check that the table speaks the protocol the way the live session
must (snapshot fields, rulings by index with a wait), so the dashboard tests rest on something
checked rather than assumed.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.events import parse_event
from referee.game import Game
from referee.reorder import REORDER_WINDOW_S
from referee.rules import RuleSet
from referee.rulings import tally_totals
from referee.session import Session

STEP_S = 1.0
"""Session seconds between two events on this table."""

FRAME_SIZE = (360, 640)  # (h, w): small frames keep the page's polling cheap in tests
SNAPSHOT_FIELDS = {"players", "dealer", "variant", "game", "clock", "turn", "color", "top",
                   "top_seat", "paused", "in_round", "scores", "tally", "muted", "sources",
                   "announce_min_confidence"}


class RefereeTable:
    """A refereed table without camera or microphone; `play()` is what the camera would see."""

    def __init__(self, players: int = 4, dealer: int = 0, profile: Path | None = None,
                 with_camera: bool = True, variant: type[Game] = Game,
                 rules: RuleSet | None = None) -> None:
        self.session = Session(variant(players, dealer, rules))
        self.players = players
        self.t = 0.0
        self.journal: list[dict[str, Any]] = []
        """Every event as the referee got it, `t` stamped (what the live journal holds)."""
        self.profile = profile
        self.saved: list[dict[str, Any]] = []
        self.with_camera = with_camera
        self.layout = default_layout(players)
        self._rulings: list[dict[str, Any]] = []
        self._changed = threading.Condition()
        self._frames: dict[tuple[str | None, bool], bytes] = {}

    # --- what the camera and the microphone would report ----------------------------------

    def play(self, card: str, seat: int | None) -> list[dict[str, Any]]:
        return self._feed({"kind": "card", "card": card, "seat": seat})

    def knock(self) -> list[dict[str, Any]]:
        return self._feed({"kind": "knock"})

    # --- DashboardBackend -----------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        with self._changed:
            game = self.session.game
            state = game.state
            scored = game.scoreboard.rounds_played > 0
            return {
                "players": game.players, "dealer": game.dealer, "variant": game.name,
                "game": game.words.game,
                "clock": self.t, "turn": state.turn,
                "color": state.active_color.value if state.active_color else None,
                "top": state.top.token if state.top else None, "top_seat": state.top_seat,
                "paused": game.paused, "in_round": state.in_round,
                "scores": ({str(seat): total for seat, total in enumerate(game.scoreboard.totals)}
                           if scored and game.keeps_score else {}),
                "tally": None if game.tally is None else {
                    "name": game.tally[1],
                    "seats": {str(s): n for s, n in tally_totals(self._rulings, game.tally[0])
                              .items()}},
                "muted": False,
                "announce_min_confidence": game.rules.announce_min_confidence,
                "swaps": game.takes_swaps(),
                "sources": {"camera": "ok" if self.with_camera else "off", "mic": "off"},
            }

    def rulings_since(self, index: int, timeout_s: float = 0.0
                      ) -> tuple[int, list[dict[str, Any]]]:
        with self._changed:
            self._changed.wait_for(lambda: len(self._rulings) > index, timeout=timeout_s)
            return len(self._rulings), self._rulings[index:]

    def frame_jpeg(self, annotated: bool = True) -> bytes | None:
        if not self.with_camera:
            return None
        top = self.snapshot()["top"]
        key = (top, annotated)
        if key not in self._frames:
            self._frames[key] = draw_frame(top, self.layout, annotated)
        return self._frames[key]

    def check_jpeg(self, ruling_t: float) -> bytes | None:
        return self.frame_jpeg(annotated=False)

    def submit(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        if not isinstance(event, dict):
            raise ValueError("an event must be a JSON object")
        return self._feed(event)

    def camera_calibration(self) -> dict[str, Any]:
        return json.loads(json.dumps(self.layout))

    def save_camera_calibration(self, clicks: dict[str, Any]) -> Path:
        assert self.profile is not None, "this table was made without a profile path"
        self.saved.append(clicks)
        self.layout = {"width": FRAME_SIZE[1], "height": FRAME_SIZE[0],
                       **{k: clicks[k] for k in ("pile", "draw_piles", "seats")}}
        self.profile.write_text(json.dumps({"camera_clicks": clicks}), encoding="utf-8")
        return self.profile

    # --- inside ---------------------------------------------------------------------------

    def _feed(self, data: dict[str, Any]) -> list[dict[str, Any]]:
        with self._changed:
            t = self.t + STEP_S
            event = parse_event({**data, "t": t}, self.players)  # EventError is a ValueError
            self.t = t
            self.journal.append(event.to_dict())
            rulings = self.session.feed(event)
            # The live session's clock runs on; here it moves just past this event, so the
            # reorder buffer lets it through now.
            rulings += self.session.advance(t + REORDER_WINDOW_S + 1e-3)
            said = [ruling.to_dict() for ruling in rulings]
            self._rulings.extend(said)
            self._changed.notify_all()
            return said


def default_layout(players: int, size: tuple[int, int] = FRAME_SIZE) -> dict[str, Any]:
    """The pile in the middle, draw piles up-left and up-right, seats round the pile (where
    `calibration.layout.TableLayout` puts them, as the live session's default profile does)."""
    h, w = size
    cx, cy = w * 0.5, h * 0.56
    seats = []
    for seat in range(players):
        angle = np.radians(90 + 360 * seat / players)
        seats.append([round(cx + 0.42 * w * np.cos(angle)), round(cy + 0.4 * h * np.sin(angle))])
    return {"width": w, "height": h, "pile": [cx, cy, 0.18 * h], "seats": seats,
            "draw_piles": [[0.3 * w, 0.3 * h, 0.13 * h], [0.7 * w, 0.3 * h, 0.13 * h]]}


def draw_frame(top: str | None, layout: dict[str, Any], annotated: bool) -> bytes:
    """The camera view as JPEG: `draw_table`; annotated, the pile region, the seats and the
    recognised card drawn on it (as the live session does)."""
    image = draw_table(top, layout)
    if annotated:
        px, py, pr = layout["pile"]
        cv2.circle(image, (int(px), int(py)), int(pr), (0, 215, 255), 2, cv2.LINE_AA)
        for seat, (x, y) in enumerate(layout["seats"]):
            cv2.putText(image, f"seat {seat}", (int(x) - 26, int(y) + 5),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
        cv2.putText(image, top or "no card", (10, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.7,
                    (255, 255, 255), 2, cv2.LINE_AA)
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok
    return jpeg.tobytes()


def draw_table(top: str | None, layout: dict[str, Any]) -> np.ndarray:
    """A table seen from above (BGR, the layout's size): the top card on the pile, two
    face-down draw piles."""
    from synth.footage import card_back, card_quad, paste_card
    from synth.render import render_face

    h, w = layout["height"], layout["width"]
    rng = np.random.default_rng(7)
    image = np.empty((h, w, 3), np.uint8)
    image[:] = (52, 96, 40)  # green cloth
    image = np.clip(image + rng.normal(0, 4, (h, w, 1)), 0, 255).astype(np.uint8)
    card_h = 0.18 * h
    for x, y, _ in layout["draw_piles"]:
        paste_card(image, card_back(rng), card_quad((x, y), card_h, 8))
    px, py, _ = layout["pile"]
    if top is not None:
        paste_card(image, render_face(top, seed=3), card_quad((px, py), card_h, -12))
    return image


def check_speaks_the_protocol(backend: Any) -> None:
    """What the dashboard relies on, checked on any backend (this table or the live one)."""
    snapshot = backend.snapshot()
    assert set(snapshot) >= SNAPSHOT_FIELDS, SNAPSHOT_FIELDS - set(snapshot)
    json.dumps(snapshot, allow_nan=False)
    assert set(snapshot["sources"]) >= {"camera", "mic"}
    start = time.monotonic()
    _, rulings = backend.rulings_since(10_000, timeout_s=0.2)
    assert rulings == [] and 0.15 <= time.monotonic() - start < 2
    layout = backend.camera_calibration()
    assert {"width", "height", "pile", "draw_piles", "seats"} <= set(layout)


# --- tests of the table itself ------------------------------------------------------------

def test_the_test_table_speaks_the_dashboard_protocol():
    table = RefereeTable()
    check_speaks_the_protocol(table)
    table.play("r_5", 0)
    snapshot = table.snapshot()
    assert (snapshot["top"], snapshot["turn"], snapshot["color"]) == ("r_5", 1, "r")
    frame = table.frame_jpeg()
    assert frame is not None and frame[:2] == b"\xff\xd8"
    assert cv2.imdecode(np.frombuffer(frame, np.uint8), cv2.IMREAD_COLOR).shape[:2] == FRAME_SIZE


def test_the_test_table_hands_out_the_referees_own_rulings_by_index():
    table = RefereeTable()
    table.play("r_5", 0)
    said = table.play("g_7", 1)  # neither colour nor number: a penalty
    assert any(r["rule"] == "illegal_card" and r["seat"] == 1 for r in said)
    next_index, rulings = table.rulings_since(0)
    assert rulings[-len(said):] == said and next_index == len(rulings)
    waiter: list[tuple[int, list]] = []
    thread = threading.Thread(target=lambda: waiter.append(table.rulings_since(next_index, 5)))
    thread.start()
    table.submit({"kind": "undo"})
    thread.join(timeout=5)
    assert waiter and waiter[0][1][0]["rule"] == "withdrawn"
