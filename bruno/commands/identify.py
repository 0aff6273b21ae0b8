"""`bruno identify IMAGE... [--json] [--annotate OUT_DIR]`: the UNO cards seen in photos."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from bruno.errors import UserError


def identify(
    images: Annotated[list[Path], typer.Argument(help="Photos or video frames (JPEG, PNG, ...).",
                                                 show_default=False)],
    json_out: Annotated[bool, typer.Option("--json", help="One JSON line per image.")] = False,
    annotate: Annotated[Path | None, typer.Option(
        "--annotate", help="Write each image with quads and tokens drawn into this folder "
        "(NAME.annotated.jpg).",
        file_okay=False)] = None,
) -> None:
    """Find every UNO card face in each image: its token, confidence, runner-up and corners.

    With --json, one line per image:
    {"image": PATH, "cards": [{"card", "confidence", "runner_up", "quad", "center"}]},
    pixel coordinates in the original image, cards sorted by confidence. Images that cannot be
    read get a one-line error each; the rest are still read; the exit code is then 2.
    """
    import cv2

    from vision.annotate import annotate as draw
    from vision.classify import default_classifier
    from vision.recognise import default_locator, recognise

    try:
        classifier = default_classifier()
    except FileNotFoundError as error:
        raise UserError(str(error)) from None
    if annotate is not None:
        if annotate.exists() and not annotate.is_dir():
            raise UserError(f"--annotate {annotate}: not a folder; give a folder to write into")
        try:
            annotate.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise UserError(f"--annotate {annotate}: cannot make that folder "
                            f"({error.strerror}); give a folder you can write to") from None

    failed = 0
    written: set[Path] = set()
    inputs = {path.resolve() for path in images}
    for path in images:
        image = cv2.imread(str(path)) if path.is_file() else None
        if image is None:
            failed += 1
            if path.is_dir():
                why = f"is a folder; give the photos in it, e.g. bruno identify {path}/*.jpg"
            else:
                why = ("no such file" if not path.exists() else "not a readable image") + \
                    "; give a JPEG or PNG photo"
            print(f"bruno: error: {path}: {why}", file=sys.stderr)
            continue
        sightings = recognise(image, classifier, locator=default_locator())
        if json_out:
            line = {"image": str(path), "cards": [s.to_json() for s in sightings]}
            print(json.dumps(line), flush=True)
        else:
            seen = ", ".join(
                f"{s.card} ({s.confidence:.2f}, runner-up {s.runner_up}) at "
                f"({s.center[0]:.0f}, {s.center[1]:.0f})" for s in sightings)
            print(f"{path}: {seen or 'no cards seen'}", flush=True)
        if annotate is not None:
            target = _annotated_path(annotate, path, written, inputs)
            if not cv2.imwrite(str(target), draw(image, sightings)):
                raise UserError(f"--annotate {annotate}: cannot write {target.name} there; "
                                "give a folder you can write to")
    if failed:
        raise typer.Exit(code=2)


ANNOTATED_SUFFIX = ".annotated.jpg"
"""The names identify writes (`table.annotated.jpg` for `table.png`): a file of that name in the
folder is an earlier run's and is replaced; no other file ever is (not a photo read, not a
photo of the same stem)."""


def _annotated_path(folder: Path, image: Path, written: set[Path], inputs: set[Path]) -> Path:
    """Where the annotated copy of `image` goes: its stem with ANNOTATED_SUFFIX, numbered when
    two images of this run share a stem or the name is one of the photos read."""
    k = 1
    while True:
        name = image.stem + ("" if k == 1 else f"_{k}") + ANNOTATED_SUFFIX
        target = folder / name
        if target.resolve() not in written and target.resolve() not in inputs:
            written.add(target.resolve())
            return target
        k += 1
