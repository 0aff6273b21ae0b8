"""Tiny synthetic table clips for the table-vision tests: rendered straight to frames (no
encoding) at 320x180, so each clip costs well under a second."""

from __future__ import annotations

from calibration.camera import save_camera_section
from calibration.layout import TableLayout
from evaluation.knock_data import real_knock_excerpts
from synth.footage import FootageRenderer, render_footage
from synth.scenario import Scenario
from vision.card_readers import TruthReader
from vision.frames import frame_from_image
from vision.table_watcher import TableWatcher

from event_helpers import log_lines

TINY = (180, 320)

MISSED_KNOCK_GAME = {
    "players": 4, "dealer": 1, "seed": 5, "duration_s": 5.0,
    "plays": [{"t": 1.0, "seat": 1, "card": "b_4", "linger_s": 0.1},
              {"t": 2.4, "seat": 2, "card": "b_4", "linger_s": 0.1}],
    "knocks": [], "draws": [], "lighting": []}
"""Five seconds of footage: seat 1 deals a blue 4; seat 2 inserts the other blue 4 and never
knocks (one penalty)."""


def watch(scenario: dict, size: tuple[int, int] = TINY) -> tuple[list[dict], list[dict]]:
    """(events the watcher finds, ground-truth events) for a scenario dict, both as their
    event-log lines (the truth is written as lines; comparing lines compares the two)."""
    sc = Scenario.model_validate(scenario).check()
    renderer = FootageRenderer(sc, size)
    truth = renderer.truth()[1:]
    camera = TableLayout().camera_profile(sc.players, size=size)
    watcher = TableWatcher(camera, TruthReader(truth))
    found: list[dict] = []
    for index, (t, image) in enumerate(renderer.frames()):
        found += log_lines(watcher.update(frame_from_image(image, t, index)))
    found += log_lines(watcher.finish())
    return found, truth


def of_kind(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["kind"] == kind]


def render_clip(scenario: dict, folder, size: tuple[int, int] = TINY):
    """`scenario` rendered to folder/game.mp4 (with sound) and a room profile for its table:
    (video, profile, a reader of its ground-truth cards)."""
    video = folder / "game.mp4"
    footage = render_footage(Scenario.model_validate(scenario), video, size,
                             knock_sounds=real_knock_excerpts(48_000))
    profile = folder / "room.toml"
    save_camera_section(profile, TableLayout().camera_profile(scenario["players"], size=size))
    return video, profile, TruthReader(footage.events[1:])
