"""One line at the end of a test run that says what was skipped and why, grouped by what the
skipped tests need:

    skipped 29: 15 need chromium-driver, 9 need ../shared/data, 4 need espeak-ng, 1 needs chromium

The README ("What `make test` needs") says how to install each of them. Loaded by
tests/conftest.py; `pytest -rs` still lists every skip on its own.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

import pytest

NEEDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"chromedriver|chromium-driver", re.I), "chromium-driver"),
    (re.compile(r"chromium", re.I), "chromium"),
    (re.compile(r"espeak-ng", re.I), "espeak-ng"),
    (re.compile(r"shared data|shared/data|BRUNO_SHARED_DATA", re.I), "../shared/data"),
    (re.compile(r"fonts-dejavu|DejaVu", re.I), "fonts-dejavu-core"),
    (re.compile(r"selenium", re.I), "selenium (pip install -e '.[dev]')"),
    (re.compile(r"card model", re.I), "the card model (models/cards.onnx)"),
    (re.compile(r"setuptools", re.I), "setuptools>=77 (pip install -e '.[dev]')"),
)
"""What a skip reason says is missing, first match wins (a test that needs both the shared data
and the card model counts once, for the data); a reason none of them matches is quoted."""


def skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    """The reason a skipped report gives, without pytest's 'Skipped: ' prefix."""
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return reason.removeprefix("Skipped: ").strip()


def need_of(reason: str) -> str | None:
    """The thing a skip reason says is missing, or None when it names none of NEEDS."""
    for pattern, need in NEEDS:
        if pattern.search(reason):
            return need
    return None


def summary_line(reasons: Iterable[str]) -> str | None:
    """'skipped N: 9 need chromium-driver, ...' (most first), or None when nothing skipped."""
    reasons = list(reasons)
    if not reasons:
        return None
    needs = Counter(need_of(reason) or f"'{reason}'" for reason in reasons)
    parts = []
    for need, count in needs.most_common():
        if need.startswith("'"):
            parts.append(f"{count} because {need}")
        else:
            parts.append(f"{count} {'needs' if count == 1 else 'need'} {need}")
    return f"skipped {len(reasons)}: " + ", ".join(parts)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_sessionfinish(session: pytest.Session):
    """Outermost, so that the line comes after pytest's own summary, as the run's last line."""
    result = yield
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        line = summary_line(skip_reason(r) for r in reporter.stats.get("skipped", []))
        if line is not None:
            reporter.write_line(line, yellow=True)
    return result
