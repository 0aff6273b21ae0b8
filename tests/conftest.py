"""Shared by the whole suite: the run ends with one line naming what was skipped and why."""

from skip_summary import pytest_sessionfinish  # noqa: F401  (a hook pytest finds here)
