"""Where the bundled demo lives (`examples/demo/`): the footage `bruno demo` reviews, the notes
and room profile that go with it, and the scenario and truth it was rendered from
(`synth.demo_footage` renders it again)."""

from __future__ import annotations

from pathlib import Path

DEMO_DIR = Path(__file__).resolve().parents[1] / "examples" / "demo"
SCENARIO = DEMO_DIR / "demo.json"
NOTES = DEMO_DIR / "demo.notes.jsonl"
ROOM = DEMO_DIR / "demo.room.toml"
VIDEO = DEMO_DIR / "demo.mp4"
TRUTH = DEMO_DIR / "demo.truth.jsonl"
