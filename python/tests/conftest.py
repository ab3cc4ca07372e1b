import contextlib
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


@pytest.fixture(scope="session")
def local_cluster():
    """`with local_cluster(n) as client:` a dask.distributed cluster for a test
    module (see `_local_cluster`)."""
    return _local_cluster


@contextlib.contextmanager
def _local_cluster(workers):
    """A dask.distributed cluster of `workers` single-threaded worker
    processes and a client, every server on 127.0.0.1."""
    from distributed import Client, LocalCluster

    with LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        # ":0" would bind the dashboard on every interface.
        dashboard_address="127.0.0.1:0",
    ) as cluster, Client(cluster) as client:
        yield client
