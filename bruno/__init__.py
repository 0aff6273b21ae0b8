"""The bruno application: the command line (`cli`, `commands/`), reviewing footage
(`review/`), live play (`live/`) and its dashboard (`dashboard/`)."""

__version__ = "0.1.0"
"""The project's version (pyproject.toml reads it from here; `bruno --version` prints it)."""
