"""A local tree checked against the checksums an object store recorded,
reading no object: `hashlab audit DIR s3://...` and `hashlab sum
--from-store`, against a real MinIO (scripts/minio, 127.0.0.1). The objects
are uploaded by boto3, the AWS SDK for Python, with every checksum algorithm
and type MinIO accepts, single-part and multipart with uneven parts; rclone
(Debian's package) is the peer both verdicts and digests are compared with.
Skipped, saying so, where Go is missing (HASHLAB_CI=1 makes that a failure)."""

import base64
import json
import os
import random
import shutil
import subprocess

import pytest

import hashlab
import hashlab.dask

import minio_server  # scripts/, on sys.path by conftest.py
from counting_proxy import CountingProxy

MiB = 1 << 20
#: Part sizes of every multipart upload here, then an uneven last part.
PARTS = [5 * MiB + 3, 5 * MiB + 1001]
LAST_PART = 4321
BUCKET = "store"


@pytest.fixture(scope="module")
def s3(minio):
    # The SDK's defaults, and an upload with no checksum, as clients before
    # 2025 made them (boto3 now sends CRC-32 unless told otherwise).
    sdk, bare = minio_server.boto3_clients(minio)
    sdk.create_bucket(Bucket=BUCKET)
    return {"sdk": sdk, "bare": bare}


def multipart(client, key, data, algorithm=None, kind=None):
    extra = {"ChecksumAlgorithm": algorithm, "ChecksumType": kind} if algorithm else {}
    upload = client.create_multipart_upload(Bucket=BUCKET, Key=key, **extra)
    parts, at = [], 0
    for number, size in enumerate(PARTS + [len(data) - sum(PARTS)], 1):
        sent = client.upload_part(
            Bucket=BUCKET,
            Key=key,
            UploadId=upload["UploadId"],
            PartNumber=number,
            Body=data[at : at + size],
            **({"ChecksumAlgorithm": algorithm} if algorithm else {}),
        )
        part = {"PartNumber": number, "ETag": sent["ETag"]}
        if algorithm:
            part["Checksum" + algorithm] = sent["Checksum" + algorithm]
        parts.append(part)
        at += size
    client.complete_multipart_upload(
        Bucket=BUCKET,
        Key=key,
        UploadId=upload["UploadId"],
        MultipartUpload={"Parts": parts},
        **({"ChecksumType": kind} if algorithm else {}),
    )


@pytest.fixture(scope="module")
def uploaded(s3, tmp_path_factory):
    """A tree and its upload under s3://store/tree; returns the tree and,
    per name, the value the audit must compare by."""
    from boto3.s3.transfer import TransferConfig

    rng = random.Random(24)
    tree = tmp_path_factory.mktemp("upload") / "tree"
    expected = {}

    def local(name, data):
        path = tree / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    for algorithm in ["CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"]:
        data = rng.randbytes(rng.randrange(1, 300_000))
        local(f"single/{algorithm}", data)
        s3["sdk"].put_object(Bucket=BUCKET, Key=f"tree/single/{algorithm}", Body=data, ChecksumAlgorithm=algorithm)
        expected[f"single/{algorithm}"] = f"x-amz-checksum-{algorithm.lower()}"
    for name, size in [("plain", 70_000), ("odd name ü", 10), ("empty", 0)]:
        data = rng.randbytes(size)
        local(name, data)
        s3["bare"].put_object(Bucket=BUCKET, Key=f"tree/{name}", Body=data)
        expected[name] = "ETag"
    size = sum(PARTS) + LAST_PART
    for algorithm in ["CRC32", "CRC32C", "SHA1", "SHA256"]:
        data = rng.randbytes(size)
        local(f"multi/composite-{algorithm}", data)
        multipart(s3["sdk"], f"tree/multi/composite-{algorithm}", data, algorithm, "COMPOSITE")
        expected[f"multi/composite-{algorithm}"] = f"x-amz-checksum-{algorithm.lower()} of a 3-part upload"
    for algorithm in ["CRC64NVME", "CRC32C", "CRC32"]:
        data = rng.randbytes(size)
        local(f"multi/full-{algorithm}", data)
        multipart(s3["sdk"], f"tree/multi/full-{algorithm}", data, algorithm, "FULL_OBJECT")
        expected[f"multi/full-{algorithm}"] = f"x-amz-checksum-{algorithm.lower()}"
    data = rng.randbytes(size)
    local("multi/plain", data)
    multipart(s3["bare"], "tree/multi/plain", data)
    expected["multi/plain"] = "ETag of a 3-part upload"
    # A common client's multipart upload: boto3's upload_file, its defaults
    # but the part size (CRC-32, COMPOSITE, since boto3 1.36).
    data = rng.randbytes(12 * MiB + 5)
    local("multi/upload_file", data)
    source = tree.parent / "upload_file.bin"
    source.write_bytes(data)
    s3["sdk"].upload_file(
        str(source),
        BUCKET,
        "tree/multi/upload_file",
        Config=TransferConfig(multipart_threshold=5 * MiB, multipart_chunksize=5 * MiB),
    )
    expected["multi/upload_file"] = "x-amz-checksum-crc32 of a 3-part upload"
    return tree, expected


def audit(hashlab_bin, tree, *extra, env=None):
    out = subprocess.run(
        [hashlab_bin, "audit", "--json", *extra, str(tree), f"s3://{BUCKET}/tree"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert out.stdout, out.stderr
    return out.returncode, json.loads(out.stdout), out.stderr


def rows_by_status(report):
    found = {}
    for row in report["rows"]:
        found.setdefault(row["status"], {})[row["name"]] = row["detail"]
    return found


def rclone(minio, *args):
    """rclone with a remote `minio:` made of the server's settings. The
    machine's AWS_CA_BUNDLE would make rclone 1.60 fail to build its client."""
    env = {k: v for k, v in os.environ.items() if k != "AWS_CA_BUNDLE"}
    env.update(
        RCLONE_CONFIG_MINIO_TYPE="s3",
        RCLONE_CONFIG_MINIO_PROVIDER="Minio",
        RCLONE_CONFIG_MINIO_ACCESS_KEY_ID=minio["AWS_ACCESS_KEY_ID"],
        RCLONE_CONFIG_MINIO_SECRET_ACCESS_KEY=minio["AWS_SECRET_ACCESS_KEY"],
        RCLONE_CONFIG_MINIO_ENDPOINT=minio["AWS_ENDPOINT_URL"],
        RCLONE_CONFIG_MINIO_REGION="us-east-1",
        RCLONE_CONFIG="/dev/null",
    )
    return subprocess.run(["rclone", *args], capture_output=True, text=True, env=env)


@pytest.fixture(scope="module")
def client(minio, local_cluster):
    # After `minio`: the workers inherit its settings from the environment.
    with local_cluster(2) as client:
        yield client


def test_rclone_is_installed():
    if shutil.which("rclone") is None:
        pytest.fail("rclone is missing: scripts/setup installs Debian's package")


def test_every_recorded_checksum_is_reproduced_reading_no_object(minio, s3, uploaded, hashlab_bin, client):
    tree, expected = uploaded
    proxy = CountingProxy(int(minio["AWS_ENDPOINT_URL"].rsplit(":", 1)[1]))
    try:
        env = dict(os.environ, AWS_ENDPOINT_URL=proxy.address)
        status, report, said = audit(hashlab_bin, tree, env=env)
    finally:
        proxy.close()
    assert status == 0, said
    assert report["passed"] and report["mode"] == "recorded"
    assert "not that the stored bytes are still intact" in report["proves"]
    assert rows_by_status(report) == {"matched": expected}
    assert report["counts"]["matched"] == len(expected)
    # The Python package, and on Dask workers, the same.
    found = hashlab.compare_store(tree, f"s3://{BUCKET}/tree")
    assert found.passed and found.matched == expected and found.proves == report["proves"]
    assert not (found.changed or found.only_local or found.only_in_store or found.not_comparable or found.errors)
    assert hashlab.dask.compare_store(tree, f"s3://{BUCKET}/tree", client, partitions=3) == found
    # On Dask the workers list the prefix, each its own key range, from
    # where the range before it ended: the client lists nothing.
    lister = CountingProxy(int(minio["AWS_ENDPOINT_URL"].rsplit(":", 1)[1]))
    try:
        spread = hashlab.dask.compare_store(
            tree, f"s3://{BUCKET}/tree", client, partitions=3, storage_options={"aws_endpoint": lister.address}
        )
    finally:
        lister.close()
    assert spread == found
    assert len(lister.listings) == 3, lister.listings
    assert sum("start-after=" in target for target in lister.listings) == 2, lister.listings
    # HEADs only: a few hundred bytes an object, not the 95 MiB uploaded.
    uploaded_bytes = sum(p.stat().st_size for p in tree.rglob("*") if p.is_file())
    assert uploaded_bytes > 90 * MiB
    assert proxy.from_server < 2_000 * (len(expected) + 5 * 3), proxy.from_server

    # The store's own values, as boto3 reads them, are what --from-store lists.
    heads = {
        name: s3["sdk"].head_object(Bucket=BUCKET, Key=f"tree/{name}", ChecksumMode="ENABLED") for name in expected
    }
    for algorithm in ["CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256"]:
        listed = subprocess.run(
            [hashlab_bin, "sum", "--from-store", "--json", "-a", algorithm.lower(), f"s3://{BUCKET}/tree"],
            capture_output=True,
            text=True,
        )
        assert listed.returncode == 1  # objects without this checksum are errors, named
        rows = {row["file"].removeprefix(f"s3://{BUCKET}/tree/"): row["digest"] for row in json.loads(listed.stdout)}
        full = {
            name: base64.b64decode(head["Checksum" + algorithm]).hex()
            for name, head in heads.items()
            if head.get("ChecksumType") == "FULL_OBJECT" and "Checksum" + algorithm in head
        }
        assert rows == full and full, algorithm
        assert f"the store recorded no {algorithm.lower()} of the whole object (it has " in listed.stderr
    # MD5: the single-part ETags, as rclone reports them.
    listed = subprocess.run(
        [hashlab_bin, "sum", "--from-store", "-a", "md5", f"s3://{BUCKET}/tree"], capture_output=True, text=True
    )
    ours = {}
    for line in listed.stdout.splitlines():
        digest, name = line.split("  ", 1)
        ours[name.removeprefix(f"s3://{BUCKET}/tree/")] = digest
    peer = rclone(minio, "hashsum", "MD5", f"minio:{BUCKET}/tree")
    assert peer.returncode == 0, peer.stderr
    theirs = {}
    for line in peer.stdout.splitlines():
        # A 32-column hash (blank where rclone has none), two spaces, the name.
        digest, name = line[:32].strip(), line[34:]
        if digest:
            theirs[name] = digest
    assert ours == theirs and len(ours) == 8
    assert "ETag of a 3-part upload" in listed.stderr


def test_changes_bitrot_and_missing_objects(minio, s3, uploaded, hashlab_bin, tmp_path, corrupt_inline, client):
    tree, _ = uploaded
    mine = tmp_path / "tree"
    shutil.copytree(tree, mine)

    def flip(name, at):
        path = mine / name
        data = bytearray(path.read_bytes())
        data[at] ^= 1
        path.write_bytes(bytes(data))

    flip("single/CRC32C", 7)  # same size, one bit
    flip("multi/composite-SHA256", PARTS[0] + 5)  # in the second part
    flip("multi/full-CRC64NVME", sum(PARTS) + 1)  # in the last part
    flip("multi/plain", 0)
    with open(mine / "single/SHA1", "ab") as f:
        f.write(b"longer")
    (mine / "new local file").write_bytes(b"not uploaded")
    s3["sdk"].delete_object(Bucket=BUCKET, Key="tree/single/SHA256")
    s3["sdk"].put_object(Bucket=BUCKET, Key="tree/only in the store", Body=b"x")
    (mine / "single/SHA256").unlink()  # gone on both sides: no row
    # Bitrot under the store: the bytes served change, its records do not.
    corrupt_inline("tree/plain", b"\0" * 70_000, BUCKET)
    try:
        status, report, said = audit(hashlab_bin, mine)
        assert status == 1, said
        rows = rows_by_status(report)
        assert sorted(rows["changed"]) == [
            "multi/composite-SHA256",
            "multi/full-CRC64NVME",
            "multi/plain",
            "single/CRC32C",
            "single/SHA1",
        ]
        assert rows["changed"]["single/SHA1"].startswith("size: the file gives ")
        assert rows["changed"]["multi/plain"].startswith("ETag of a 3-part upload: the file gives ")
        assert rows["changed"]["multi/composite-SHA256"].endswith("-3")
        assert rows["only-local"] == {"new local file": "no object with this key"}
        assert rows["only-in-store"] == {"only in the store": "no file with this path"}
        # The recorded checksum cannot see bitrot: only reading can.
        assert "plain" in rows["matched"]
        status, read, said = audit(hashlab_bin, mine, "--download", "-a", "blake3")
        assert status == 1, said
        read_rows = rows_by_status(read)
        assert read["mode"] == "download" and "stored bytes are intact" in read["proves"]
        assert sorted(read_rows["changed"]) == sorted([*rows["changed"], "plain"])
        assert read_rows["changed"]["plain"].startswith("blake3 of the bytes read: the file gives ")
        # The Python package agrees, on Dask workers too.
        for found in [
            hashlab.compare_store(mine, f"s3://{BUCKET}/tree", download=True, algorithm="blake3"),
            hashlab.dask.compare_store(mine, f"s3://{BUCKET}/tree", client, download=True, algorithm="blake3"),
        ]:
            assert sorted(found.changed) == sorted(read_rows["changed"])
            assert found.only_local == ["new local file"] and found.only_in_store == ["only in the store"]
            assert not found.passed and "stored bytes are intact" in found.proves
        recorded = hashlab.dask.compare_store(mine, f"s3://{BUCKET}/tree", client)
        assert sorted(recorded.changed) == sorted(rows["changed"]) and "plain" in recorded.matched
        assert recorded.changed["single/SHA1"][0] == "size"

        # rclone check sees the same differences where it has a hash (the
        # single-part MD5s) and sizes; multipart objects it cannot check.
        peer = rclone(minio, "check", str(mine), f"minio:{BUCKET}/tree", "--combined", "-")
        assert peer.returncode == 1
        theirs = {line[2:]: line[0] for line in peer.stdout.splitlines()}
        assert theirs["single/CRC32C"] == "*" and theirs["single/SHA1"] == "*"
        assert theirs["new local file"] == "+" and theirs["only in the store"] == "-"
        assert theirs["plain"] == "="  # rclone compares the ETag: blind to bitrot, as we are without --download
        assert {n for n, mark in theirs.items() if mark == "*"} <= set(rows["changed"])
    finally:
        corrupt_inline("tree/plain", (tree / "plain").read_bytes(), BUCKET)
        s3["sdk"].delete_object(Bucket=BUCKET, Key="tree/only in the store")
        s3["sdk"].put_object(
            Bucket=BUCKET, Key="tree/single/SHA256", Body=(tree / "single/SHA256").read_bytes(), ChecksumAlgorithm="SHA256"
        )


def test_bad_stores_and_arguments_are_one_line_each(minio, s3, uploaded, hashlab_bin, tmp_path):
    tree, _ = uploaded

    def run(*args, env=None):
        return subprocess.run([hashlab_bin, *args], capture_output=True, text=True, env=env)

    wrong_key = dict(os.environ, AWS_SECRET_ACCESS_KEY="not-the-secret")
    cases = [
        (("audit", str(tree), f"s3://{BUCKET}/tree"), wrong_key, 1, "signature does not match"),
        (("audit", str(tree), "s3://no-such-bucket/tree"), None, 1, "s3://no-such-bucket/tree: no such bucket"),
        (("sum", "--from-store", "-a", "crc32", f"s3://{BUCKET}/nothing-here"), None, 1, "no object at or under"),
        (("sum", "--from-store", "-a", "blake3", f"s3://{BUCKET}/tree"), None, 2, "one algorithm a store records"),
        (("sum", "--from-store", "-a", "md5", str(tree)), None, 2, "object-store URLs only"),
        (("audit", str(tree)), None, 2, "a directory, not a manifest"),
        (("audit", "--download", "-a", "nope", str(tree), f"s3://{BUCKET}/tree"), None, 2, "-a: "),
        (("audit", "-a", "sha256", str(tree), f"s3://{BUCKET}/tree"), None, 2, "-a chooses the hash of --download"),
    ]
    for args, env, code, message in cases:
        out = run(*args, env=env)
        assert out.returncode == code, (args, out.stdout, out.stderr)
        assert message in out.stderr, (args, out.stderr)
        assert "panicked" not in out.stderr and len(out.stderr.strip().splitlines()) <= 20, out.stderr
    # An object deleted between the listing and its HEAD: one line for it,
    # the others compared.
    pairs, only_local, only_in_store, errors = hashlab._hashlab.pair_store(os.fsencode(tree), f"s3://{BUCKET}/tree")
    assert not (only_local or only_in_store or errors)
    s3["sdk"].delete_object(Bucket=BUCKET, Key="tree/single/CRC32")
    try:
        verdicts, _ = hashlab._hashlab.compare_pairs(pairs)
        named = {pair[0]: verdict for pair, verdict in zip(pairs, verdicts)}
        assert named.pop("single/CRC32") == ("unreadable", "no such object", None, None)
        assert {status for status, _, _, _ in named.values()} == {"matched"}
    finally:
        s3["sdk"].put_object(
            Bucket=BUCKET, Key="tree/single/CRC32", Body=(tree / "single/CRC32").read_bytes(), ChecksumAlgorithm="CRC32"
        )
    # The Python package raises what the CLI says.
    with pytest.raises(FileNotFoundError, match="no such bucket"):
        hashlab.compare_store(tree, "s3://no-such-bucket/tree")
    with pytest.raises(NotADirectoryError):
        hashlab.compare_store(tree / "plain", f"s3://{BUCKET}/tree")
    with pytest.raises(ValueError, match="nope"):
        hashlab.compare_store(tree, f"s3://{BUCKET}/tree", download=True, algorithm="nope")
    # A prefix with nothing under it: every file is only local.
    out = run("audit", "--json", str(tree), f"s3://{BUCKET}/empty-prefix")
    assert out.returncode == 1
    assert json.loads(out.stdout)["counts"]["only_local"] == sum(1 for p in tree.rglob("*") if p.is_file())



def test_this_minio_drops_s3s_newer_algorithms_and_the_etag_decides(minio, s3, hashlab_bin, tmp_path):
    """S3's five newer checksum algorithms (2026) are checked against the
    AWS SDK's own functions (test_s3_algorithms.py), not against this store:
    the MinIO scripts/minio builds (RELEASE.2025-09-07) knows CRC32, CRC32C,
    CRC64NVME, SHA1 and SHA256 only (its internal/hash/checksum.go). An
    upload asking for SHA512 or an xxHash is taken and its checksum dropped,
    shown by no HEAD (botocore itself refuses to send MD5); hashlab then
    compares the object by its ETag and says so. When a MinIO that keeps them
    is pinned, this fails, and the uploads above should take them."""
    from botocore.exceptions import FlexibleChecksumError

    tree = tmp_path / "newer"
    tree.mkdir()
    rng = random.Random(2026)
    algorithms = ["SHA512", "XXHASH64", "XXHASH3", "XXHASH128"]
    for algorithm in algorithms:
        data = rng.randbytes(rng.randrange(1, 100_000))
        (tree / algorithm).write_bytes(data)
        s3["sdk"].put_object(Bucket=BUCKET, Key=f"newer/{algorithm}", Body=data, ChecksumAlgorithm=algorithm)
        head = s3["sdk"].head_object(Bucket=BUCKET, Key=f"newer/{algorithm}", ChecksumMode="ENABLED")
        kept = [h for h in head["ResponseMetadata"]["HTTPHeaders"] if h.startswith("x-amz-checksum-")]
        assert kept == [], (algorithm, kept)
    with pytest.raises(FlexibleChecksumError):
        s3["sdk"].put_object(Bucket=BUCKET, Key="newer/MD5", Body=b"abc", ChecksumAlgorithm="MD5")
    out = subprocess.run(
        [hashlab_bin, "audit", "--json", str(tree), f"s3://{BUCKET}/newer"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert rows_by_status(json.loads(out.stdout)) == {"matched": {a: "ETag" for a in algorithms}}
    # A file changed after the upload is found by the ETag too.
    changed = bytearray((tree / "XXHASH3").read_bytes())
    changed[0] ^= 1
    (tree / "XXHASH3").write_bytes(bytes(changed))
    out = subprocess.run(
        [hashlab_bin, "audit", "--json", str(tree), f"s3://{BUCKET}/newer"], capture_output=True, text=True
    )
    assert out.returncode == 1, out.stderr
    [(name, detail)] = rows_by_status(json.loads(out.stdout))["changed"].items()
    assert name == "XXHASH3" and detail.startswith("ETag: the file gives "), detail
