import contextlib
import os
import pathlib
import subprocess
import sys

import pytest

import hashlab

REPO = pathlib.Path(__file__).resolve().parents[2]
# The helpers the tests share with the benchmarks.
sys.path.insert(0, str(REPO / "scripts"))
import minio_server  # noqa: E402


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


# MinIO, for the object-store tests (test_dask_s3.py, test_store_checksums.py).
SCRIPT = REPO / "scripts" / "minio"
#: MinIO's bitrot checksum key, `magicHighwayHash256Key` in MinIO's cmd/bitrot.go.
MINIO_BITROT_KEY = bytes.fromhex("4be734fa8e238acd263e83e6bb968552040f935da39f441497e09d1322de36a0")


@pytest.fixture(scope="module")
def minio(tmp_path_factory):
    """A MinIO server, its settings in this process's environment (which the
    cluster's worker processes inherit); stopped at the end, even on failure."""
    build = subprocess.run(["bash", str(SCRIPT), "build"], capture_output=True, text=True)
    if build.returncode == 3:
        if os.environ.get("HASHLAB_CI"):
            pytest.fail(f"HASHLAB_CI is set and MinIO cannot be built: {build.stderr}")
        pytest.skip(f"skipped: the MinIO tests need Go to build MinIO ({build.stderr.strip()})")
    assert build.returncode == 0, build.stderr
    data = tmp_path_factory.mktemp("minio") / "data"
    log = open(data.parent / "minio.log", "wb")
    server, settings = minio_server.start(data, log)
    try:
        assert settings.get("AWS_ENDPOINT_URL", "").startswith("http://127.0.0.1:"), settings
        saved = {k: os.environ.get(k) for k in settings}
        os.environ.update(settings)
        from minio import Minio

        s3 = Minio(
            settings["AWS_ENDPOINT_URL"].removeprefix("http://"),
            access_key=settings["AWS_ACCESS_KEY_ID"],
            secret_key=settings["AWS_SECRET_ACCESS_KEY"],
            secure=False,
            region="us-east-1",
        )
        _wait_until_up(s3)
        yield {"client": s3, "data": data, **settings}
    finally:
        server.kill()
        server.wait()
        log.close()
        for key, value in locals().get("saved", {}).items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _wait_until_up(s3):
    import time

    deadline = time.monotonic() + 60
    while True:
        try:
            s3.list_buckets()
            return
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@pytest.fixture(scope="module")
def corrupt_inline(minio):
    """Corrupts an object as `_corrupt_inline` says, in this module's MinIO."""
    return lambda key, new, bucket="lake": _corrupt_inline(minio, key, new, bucket)


def _corrupt_inline(minio, key, new, bucket):
    """Bitrot under MinIO that MinIO itself does not notice: an object under
    128 KiB lives at the end of its xl.meta, after its HighwayHash-256
    checksum; new bytes of the same length with their own checksum are
    served as the object, under the ETag of the old ones."""
    path = minio["data"] / bucket / key / "xl.meta"
    meta = path.read_bytes()
    tail = len(meta) - len(new) - 32
    old = meta[tail + 32 :]
    assert meta[tail : tail + 32] == hashlab.new("highwayhash-256", old, key=MINIO_BITROT_KEY).digest()
    path.write_bytes(meta[:tail] + hashlab.new("highwayhash-256", new, key=MINIO_BITROT_KEY).digest() + new)


