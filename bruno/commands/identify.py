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
        "--annotate", help="Write each image with quads and tokens drawn into this folder.",
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
        annotate.mkdir(parents=True, exist_ok=True)

    failed = 0
    written: set[str] = set()
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
            name = path.stem + ".jpg"
            k = 1
            while name in written:
                k += 1
                name = f"{path.stem}_{k}.jpg"
            written.add(name)
            cv2.imwrite(str(annotate / name), draw(image, sightings))
    if failed:
        raise typer.Exit(code=2)
