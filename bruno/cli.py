"""The `bruno` command line. Each subcommand lives in its own module under `bruno.commands`
and is registered here with one line."""

from __future__ import annotations

import sys

import typer

from bruno.commands import (
    calibrate,
    calibrate_camera,
    demo,
    identify,
    listen,
    live,
    replay,
    review,
)
from bruno.errors import UserError

app = typer.Typer(
    name="bruno",
    help="A table referee for Bruno, the fast Swedish UNO variant.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Referee a Bruno game from a camera and a microphone, or review recorded footage."""


app.command("replay")(replay.replay)
app.command("identify")(identify.identify)
app.command("listen")(listen.listen)
app.add_typer(calibrate.calibrate_app, name="calibrate")
calibrate.calibrate_app.command("camera")(calibrate_camera.camera)
app.command("review")(review.review)
app.command("demo")(demo.demo)
app.command("live")(live.live)


def main() -> None:
    """Console entry point: user errors become one line on stderr and exit code 2."""
    try:
        app()
    except UserError as error:
        print(f"bruno: error: {error}", file=sys.stderr)
        sys.exit(error.exit_code)
    except KeyboardInterrupt:
        print("bruno: interrupted", file=sys.stderr)
        sys.exit(130)
