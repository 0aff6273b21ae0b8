"""The `bruno` command line. Each subcommand lives in its own module under `bruno.commands`
and is registered here with one line.

Every error, ours (`UserError`) and the command line's own (a bad option value, a missing
argument, an unknown option), is one line on stderr, `bruno: error: ...`, with exit code 2.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer
import typer.core

import bruno
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


def _click_error(name: str) -> type[Exception]:
    """The command line parser's own error class `name` (click's, vendored or not, as the typer
    installed has it), found through the public `typer.BadParameter`."""
    return next(k for k in typer.BadParameter.__mro__ if k.__name__ == name)


UsageError = _click_error("UsageError")
ClickException = _click_error("ClickException")

app = typer.Typer(
    name="bruno",
    help="A table referee for Bruno, the fast Swedish UNO variant.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(asked: bool) -> None:
    if asked:
        typer.echo(f"bruno {bruno.__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print the version and exit.")] = False,
) -> None:
    """Referee a Bruno game from a camera and a microphone, or review recorded footage."""


def _no_type_for_flags(display_type_rich):
    """Typer's help shows a `<bool>` type beside every flag (`--json <bool>`); a flag takes no
    value, so it shows none."""

    def shown(self, ctx):
        return None if self.is_flag else display_type_rich(self, ctx)

    return shown


typer.core.TyperOption.display_type_rich = _no_type_for_flags(
    typer.core.TyperOption.display_type_rich)


app.command("replay")(replay.replay)
app.command("identify")(identify.identify)
app.command("listen")(listen.listen)
app.add_typer(calibrate.calibrate_app, name="calibrate")
calibrate.calibrate_app.command("camera")(calibrate_camera.camera)
app.command("review")(review.review)
app.command("demo")(demo.demo)
app.command("live")(live.live)


def main(args: list[str] | None = None) -> None:
    """Console entry point: user errors and usage errors become one line on stderr and exit
    code 2."""
    try:
        code = app(args=args, prog_name="bruno", standalone_mode=False)
    except UserError as error:
        _error(str(error))
        sys.exit(error.exit_code)
    except UsageError as error:
        if type(error).__name__ == "NoArgsIsHelpError":  # `bruno`, `bruno calibrate`
            typer.echo(error.format_message())
            sys.exit(2)
        ctx = getattr(error, "ctx", None)
        where = ctx.command_path if ctx is not None else "bruno"
        if where == "bruno":  # (an option's missing value is told from the top)
            where = _command_path(sys.argv[1:] if args is None else args)
        _error(f"{error.format_message()} (see `{where} --help`)")
        sys.exit(2)
    except ClickException as error:
        _error(error.format_message())
        sys.exit(2)
    except (KeyboardInterrupt, typer.Abort):
        code = INTERRUPTED_EXIT_CODE
    if code == INTERRUPTED_EXIT_CODE:  # (typer turns Ctrl-C into this code itself)
        print("bruno: interrupted", file=sys.stderr)
    sys.exit(code if isinstance(code, int) else 0)


INTERRUPTED_EXIT_CODE = 130
"""Ctrl-C: the shell's code for a command stopped by SIGINT (128 + 2)."""


def _command_path(args: list[str]) -> str:
    """`bruno calibrate camera` for `["calibrate", "camera", "--at"]`: the command the
    arguments name, as far as they name one."""
    command, path = typer.main.get_command(app), ["bruno"]
    for word in args:
        commands = getattr(command, "commands", {})
        if word not in commands:
            break
        command = commands[word]
        path.append(word)
    return " ".join(path)


def _error(message: str) -> None:
    print("bruno: error: " + " ".join(message.split()), file=sys.stderr)
