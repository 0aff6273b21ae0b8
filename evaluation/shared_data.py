"""Where the real data sets lie: `$BRUNO_SHARED_DATA`, else `../shared/data` beside the
repository. They are never copied into the repository; what needs them skips without them."""

from __future__ import annotations

import os
from pathlib import Path

#: Environment variable naming the shared data folder (the one holding knocks-dev/, cards-dev/).
SHARED_DATA_ENV = "BRUNO_SHARED_DATA"


def shared_data_dir() -> Path:
    """`$BRUNO_SHARED_DATA`, else ../shared/data next to the repository."""
    if os.environ.get(SHARED_DATA_ENV):
        return Path(os.environ[SHARED_DATA_ENV])
    return Path(__file__).resolve().parents[1].parent / "shared" / "data"
