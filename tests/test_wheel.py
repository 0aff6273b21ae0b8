"""The wheel is the project a user gets from `pip install`: it must carry the card model and
the demo. Built here from the checkout, installed into a fresh venv and run from a folder
outside the checkout, so nothing of the checkout is on the path.

Slow (about a minute: the build, then the demo's whole review); `pytest -m "not slow"` leaves
it out. Offline: the wheel is built with this venv's own setuptools (`--no-build-isolation`,
the `[dev]` extra has it), installed with `--no-index --no-deps`, and the fresh venv takes the
runtime's dependencies from this venv's site-packages through a .pth line (which does not run
the .pth files there, so this checkout's editable install stays out of it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import cv2
import pytest

from synth.render import render_scene

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "README.md", "referee", "calibration", "vision", "audio", "bruno",
           "models", "examples/demo")
"""What the wheel is built from, copied out of the checkout: setuptools builds in the source
tree (build/, *.egg-info), and a build/ left there would slip stale files into the wheel."""


def _setuptools_version() -> tuple[int, ...]:
    try:
        import setuptools
    except ImportError:
        return ()
    return tuple(int(part) for part in setuptools.__version__.split(".")[:2] if part.isdigit())


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(_setuptools_version() < (77,),
                       reason="building the wheel offline needs setuptools>=77 in this venv "
                       "(pip install -e '.[dev]')"),
]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """(the fresh venv's bruno script, a work folder outside the checkout)."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            source.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    wheels = base / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--no-index", "--quiet", "--wheel-dir", str(wheels), str(source)],
                   check=True, cwd=base, timeout=300)
    [wheel] = wheels.glob("bruno_referee-*.whl")
    env_dir = base / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    fresh_site = Path(subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True, capture_output=True, text=True).stdout.strip())
    ours = [path for path in sys.path if Path(path).name in ("site-packages", "dist-packages")]
    (fresh_site / "zz_runtime_deps.pth").write_text("".join(f"{path}\n" for path in ours))
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                    "--no-deps", "--no-index", "--quiet", str(wheel)],
                   check=True, timeout=300)
    work = base / "work"
    work.mkdir()
    return env_dir / "bin" / "bruno", work


def _run(installed: tuple[Path, Path], *args: str) -> subprocess.CompletedProcess:
    bruno, work = installed
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run([str(bruno), *args], cwd=work, env=env, capture_output=True,
                          text=True, timeout=300)


def test_the_wheel_carries_the_model_and_the_demo(installed):
    bruno, _ = installed
    wheel_site = bruno.parents[1]
    assert list(wheel_site.rglob("models/cards.onnx"))
    assert list(wheel_site.rglob("share/bruno-referee/demo/demo.mp4"))
    where = subprocess.run([bruno.with_name("python"), "-c",
                            "import bruno, vision; print(bruno.__file__, vision.__file__)"],
                           cwd=installed[1], capture_output=True, text=True, check=True)
    assert str(ROOT) not in where.stdout and str(wheel_site) in where.stdout
    version = _run(installed, "--version")
    assert version.returncode == 0 and version.stdout.startswith("bruno "), version.stderr


def test_identify_from_a_wheel_install_reads_the_cards(installed):
    _, work = installed
    img, _ = render_scene(12, size=(720, 1280), n_cards=2, tokens=["g_4", "r_reverse"],
                              card_h_frac=(0.35, 0.4), tilt=0.05)
    image = work / "table.jpg"
    cv2.imwrite(str(image), img)
    run = _run(installed, "identify", str(image), "--json")
    assert run.returncode == 0, run.stderr
    [line] = [json.loads(line) for line in run.stdout.splitlines()]
    assert sorted(card["card"] for card in line["cards"]) == ["g_4", "r_reverse"]


def test_the_demo_runs_from_a_wheel_install(installed):
    run = _run(installed, "demo", "--json")
    assert run.returncode == 0, run.stderr
    rulings = [json.loads(line) for line in run.stdout.splitlines()]
    penalties = {r["rule"] for r in rulings if r["kind"] == "ruling"}
    assert penalties == {"illegal_card", "out_of_turn", "missed_knock",
                         "same_number_two_colors", "too_slow", "wrong_call"}
    _, work = installed
    assert (work / "bruno-demo" / "demo" / "report.html").is_file()
