"""Tiny synthetic table clips for the table-vision tests: rendered straight to frames (no
encoding) at 320x180, so each clip costs well under a second."""

from __future__ import annotations

from vision.card_readers import TruthReader
from vision.footage import FootageRenderer
from vision.frames import frame_from_image
from vision.layout import TableLayout
from vision.scenario import Scenario
from vision.table_watcher import TableWatcher

TINY = (180, 320)


def watch(scenario: dict, size: tuple[int, int] = TINY) -> tuple[list[dict], list[dict]]:
    """(events the watcher finds, ground-truth events) for a scenario dict."""
    sc = Scenario.model_validate(scenario).check()
    renderer = FootageRenderer(sc, size)
    truth = renderer.truth()[1:]
    camera = TableLayout().camera_profile(sc.players, size=size)
    watcher = TableWatcher(camera, TruthReader(truth))
    found: list[dict] = []
    for index, (t, image) in enumerate(renderer.frames()):
        found += watcher.update(frame_from_image(image, t, index))
    found += watcher.finish()
    return found, truth


def of_kind(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["kind"] == kind]
