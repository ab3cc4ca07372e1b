import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def hashlab_bin():
    """The `hashlab` CLI built from this repository (scripts/test-python builds
    it and passes HASHLAB_BIN), for differential tests and `hashlab check`."""
    given = os.environ.get("HASHLAB_BIN")
    candidates = [pathlib.Path(given)] if given else [REPO / "target" / "debug" / "hashlab"]
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    pytest.fail(
        f"no hashlab binary at {', '.join(map(str, candidates))}: run `cargo build -p hashlab-cli` "
        "or set HASHLAB_BIN (scripts/test-python does both)"
    )
