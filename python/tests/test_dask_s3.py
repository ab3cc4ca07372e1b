"""hashlab.dask over an object store: a real MinIO (built and started by
scripts/minio on 127.0.0.1), a dask.distributed LocalCluster whose workers
read the objects, and the CLI as the reference. Skipped, saying so, where Go
is missing (HASHLAB_CI=1 makes that a failure; .ci/run refuses to start without Go)."""

import io
import random
import subprocess

import pytest

import hashlab
import hashlab.dask
from hashlab import _hashlab


@pytest.fixture(scope="module")
def client(minio, local_cluster):
    with local_cluster(2) as client:
        yield client


def put(s3, name, data, part_size=None):
    s3.put_object("lake", name, io.BytesIO(data), len(data), part_size=part_size or 0)


def test_dask_sum_and_audit_over_minio(minio, client, hashlab_bin, tmp_path, corrupt_inline):
    s3 = minio["client"]
    s3.make_bucket("lake")
    rng = random.Random(3)
    names = [f"data/part-{i % 3}/{i:03d} file.bin" for i in range(30)]
    names += ["data/odd/sp ace", "data/empty", "data/small"]
    for name in names:
        if name.endswith("small"):
            data = b"sixteen bytes!!!"
        elif name.endswith("empty"):
            data = b""
        else:
            data = rng.randbytes(rng.randrange(1, 200_000))
        put(s3, name, data)
    # A multipart upload (two parts of 5 MiB and a bit).
    put(s3, "data/multi.bin", rng.randbytes((5 << 20) + 4321), part_size=5 << 20)

    manifest = hashlab.dask.sum(["s3://lake/data"], "sha256", client, partitions=4)
    assert len(manifest) == len(names) + 1 and not manifest.errors
    assert manifest.roots == ("s3://lake/data",)
    cli = subprocess.run([hashlab_bin, "sum", "-a", "sha256", "s3://lake/data"], check=True, capture_output=True)
    assert sorted(manifest.lines().splitlines()) == sorted(cli.stdout.splitlines())
    written = tmp_path / "lake.sha256"
    manifest.write(written)
    check = subprocess.run(
        [hashlab_bin, "check", "--allow-remote", "--verify-etag", str(written)], capture_output=True, text=True
    )
    assert check.returncode == 0, check.stderr
    # The multipart ETag is checked too, against its parts' MD5s.
    assert "--verify-etag: %d matched, 0 MISMATCHED, 0 not comparable" % (len(names) + 1) in check.stderr

    # The wheel's own calls: listing (sorted, names under the URL) and ETag verdicts.
    listed = _hashlab.list_objects(["s3://lake/data/part-0/", "s3://lake/data/odd"])
    assert [n for n, _, _ in listed] == [f"s3://lake/{n}" for n in sorted(names) if "/part-0/" in n] + [
        "s3://lake/data/odd/sp ace"
    ]
    outcomes = _hashlab.hash_objects(_hashlab.list_objects(["s3://lake/data"]), "md5", verify_etag=True)
    verdicts = [v for _, _, _, v in outcomes]
    assert verdicts.count("ETag matches the MD5 of the content") == len(names) + 1

    assert hashlab.dask.audit(manifest, client, allow_remote=True).clean

    corrupt_inline("data/small", b"sixteen bytes?!!")
    s3.remove_object("lake", "data/odd/sp ace")
    put(s3, "data/part-1/late arrival", b"new")
    report = hashlab.dask.audit(manifest, client, allow_remote=True)
    assert report.changed == ["s3://lake/data/small"]
    assert report.missing == ["s3://lake/data/odd/sp ace"]
    assert report.new == ["s3://lake/data/part-1/late arrival"]
    assert report.errors == [] and not report.clean
    assert len(report.ok) == len(manifest) - 2
    # The CLI agrees, and the ETag, unchanged by bitrot, no longer matches.
    audit = subprocess.run(
        [hashlab_bin, "audit", "--verify-etag", str(written), "s3://lake/data"], capture_output=True, text=True
    )
    assert audit.returncode == 1
    assert "changed: s3://lake/data/small" in audit.stdout
    assert "s3://lake/data/small: ETag MISMATCH" in audit.stderr


def test_object_store_errors_reach_python_as_oserrors(minio, client):
    with pytest.raises(FileNotFoundError, match="s3://no-such-bucket/x: no such bucket"):
        hashlab.dask.sum(["s3://no-such-bucket/x"], "sha256", client)
    with pytest.raises(PermissionError, match="access denied"):
        _hashlab.list_objects(["s3://lake/data"], storage_options={"aws_secret_access_key": "wrong"})
    with pytest.raises(ValueError, match="not a configuration key"):
        _hashlab.list_objects(["s3://lake/data"], storage_options={"no_such_option": "x"})
