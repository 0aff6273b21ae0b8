"""Where the bundled demo lives: the footage `bruno demo` reviews, the notes and room profile
that go with it, and the scenario and truth it was rendered from (`synth.demo_footage` renders
it again).

In a checkout that is `examples/demo/`. An installed wheel carries the same files as data
files, in `<prefix>/share/bruno-referee/demo/` (pyproject.toml, `[tool.setuptools.data-files]`),
found through the files the installed distribution lists, wherever pip put them."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

CHECKOUT_DEMO_DIR = Path(__file__).resolve().parents[1] / "examples" / "demo"
DISTRIBUTION = "bruno-referee"


def installed_demo_dir() -> Path | None:
    """The folder an installed wheel put the demo's files in, or None."""
    try:
        files = metadata.distribution(DISTRIBUTION).files or []
    except metadata.PackageNotFoundError:
        return None
    for file in files:
        if file.name == "demo.mp4" and "share" in file.parts:
            return Path(str(file.locate())).resolve().parent
    return None


def demo_dir() -> Path:
    """The checkout's examples/demo/ when there is one, else the installed copy (else the
    checkout's path, which `bruno demo` then says is missing)."""
    if CHECKOUT_DEMO_DIR.is_dir():
        return CHECKOUT_DEMO_DIR
    return installed_demo_dir() or CHECKOUT_DEMO_DIR


DEMO_DIR = demo_dir()
SCENARIO = DEMO_DIR / "demo.json"
NOTES = DEMO_DIR / "demo.notes.jsonl"
ROOM = DEMO_DIR / "demo.room.toml"
VIDEO = DEMO_DIR / "demo.mp4"
TRUTH = DEMO_DIR / "demo.truth.jsonl"
