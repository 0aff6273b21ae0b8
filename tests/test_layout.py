"""The layout's rules, checked on the imports themselves so the house stays as README's
"Layout" section draws it: data flows one way, the two senses are independent, and runtime
code never reaches into the tooling (synthesis, evaluation, training, benchmarks)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("referee", "calibration", "vision", "audio", "bruno", "synth", "evaluation",
            "models", "bench")
RUNTIME = ("referee", "calibration", "vision", "audio", "bruno")

MAY_IMPORT = {
    "referee": set(),
    "calibration": {"referee"},
    "vision": {"referee", "calibration"},
    "audio": {"referee", "calibration"},
    "bruno": {"referee", "calibration", "vision", "audio"},
    "synth": {"referee", "calibration", "vision", "audio", "bruno"},
    "evaluation": {"referee", "calibration", "vision", "audio", "bruno", "synth"},
    "models": {"referee", "calibration", "vision", "audio", "bruno", "synth", "evaluation"},
    "bench": {"referee", "calibration", "vision", "audio", "bruno", "synth", "evaluation"},
}
"""What each package may import besides itself: each layer only what lies below it."""


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> dict[str, Path]:
    return {module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}


def imported_modules(path: Path, known: set[str]) -> set[str]:
    """The project's modules that `path` imports when it runs, at the top or inside a
    function."""
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    # Imports only a type checker reads (`if TYPE_CHECKING:`) never run: they make no loop.
    typing_only = {id(inner) for node in ast.walk(tree)
                   if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
                   for stmt in node.body for inner in ast.walk(stmt)}
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # `from package import module` imports the module; `from module import name`
            # imports the module itself.
            names = [f"{node.module}.{alias.name}" for alias in node.names] + [node.module]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                found.add(name)
    return found


MODULES = project_modules()
GRAPH = {name: imported_modules(path, set(MODULES)) - {name} for name, path in MODULES.items()}


def package_of(module: str) -> str:
    return module.split(".")[0]


def test_every_package_imports_only_the_layers_below_it():
    wrong = sorted(
        f"{module} imports {other}"
        for module, imports in GRAPH.items() for other in imports
        if package_of(other) != package_of(module)
        and package_of(other) not in MAY_IMPORT[package_of(module)]
    )
    assert wrong == []


def test_the_senses_never_import_each_other_and_runtime_never_imports_tooling():
    # Stated apart from the layer table, so a change to the table cannot quietly allow it.
    for module, imports in GRAPH.items():
        packages = {package_of(other) for other in imports}
        if package_of(module) == "vision":
            assert "audio" not in packages, module
        if package_of(module) == "audio":
            assert "vision" not in packages, module
        if package_of(module) in RUNTIME:
            assert not packages & {"synth", "evaluation", "models", "bench"}, module


def test_no_module_is_part_of_an_import_loop():
    loops = []
    for start in GRAPH:
        seen, todo = set(), list(GRAPH[start])
        while todo:
            module = todo.pop()
            if module == start:
                loops.append(start)
                break
            if module not in seen:
                seen.add(module)
                todo += GRAPH.get(module, ())
    assert loops == []


def test_no_module_imports_a_private_name_from_another():
    leaks = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module in MODULES:
                leaks += [f"{module}: {alias.name} from {node.module}" for alias in node.names
                          if alias.name.startswith("_") and node.module != module]
    assert leaks == []


def test_the_referee_uses_the_standard_library_only():
    import sys

    outside = set()
    for module, path in MODULES.items():
        if package_of(module) != "referee":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                tops = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                tops = [node.module.split(".")[0]]
            else:
                continue
            outside |= {t for t in tops if t != "referee" and t not in sys.stdlib_module_names}
    assert outside == set()


@pytest.mark.parametrize("package", PACKAGES)
def test_every_package_says_what_lives_there(package):
    init = ROOT / package / "__init__.py"
    assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), init


def test_the_checker_sees_a_forbidden_import(tmp_path):
    # The rules above must be able to fail: a vision module importing audio is found.
    fake = tmp_path / "fake.py"
    fake.write_text("from audio.detector import KnockDetector\nimport vision.frames\n")
    assert imported_modules(fake, set(MODULES)) == {"audio.detector", "vision.frames"}
