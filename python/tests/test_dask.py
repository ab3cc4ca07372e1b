"""hashlab.dask on a real dask.distributed LocalCluster (worker processes,
every server on 127.0.0.1), checked against the CLI: `hashlab sum -r` makes
the same lines, `hashlab check` reads the manifest written."""

import hashlib
import os
import pathlib
import random
import signal
import subprocess
import sys

import cloudpickle
import psutil
import pytest
from distributed import WorkerPlugin

import hashlab
import hashlab.dask
from hashlab._manifest import partition_of

WORKERS = 3


@pytest.fixture(scope="module")
def client(local_cluster):
    with local_cluster(WORKERS) as client:
        yield client


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A tree with the names that break naive tools, in a directory that is
    also the current one, so names are relative (`lake/...`) as a user
    running `hashlab sum -r lake` gets them."""
    rng = random.Random(14)
    lake = tmp_path / "lake"
    write(lake / "empty", b"")
    write(lake / "big.bin", rng.randbytes(5 << 20 | 77))  # read ahead on a second thread
    for i in range(40):
        write(lake / f"part-{i % 4}" / f"{i:03d}.parquet", rng.randbytes(rng.randrange(0, 70_000)))
    write(lake / "odd" / "new\nline", b"newline in the name")
    write(lake / "odd" / "back\\slash", b"backslash in the name")
    write(lake / "odd" / "sp ace", b"space")
    with open(bytes(lake / "odd") + b"/latin-\xe9", "wb") as f:
        f.write(b"not UTF-8")
    os.symlink(lake / "empty", lake / "odd" / "link")  # skipped, as `hashlab sum -r` skips it
    monkeypatch.chdir(tmp_path)
    return "lake"


def cli_lines(hashlab_bin, algorithm, root):
    out = subprocess.run([hashlab_bin, "sum", "-r", "-a", algorithm, root], check=True, capture_output=True).stdout
    return sorted(out.splitlines())


@pytest.mark.parametrize("algorithm", ["sha256", "blake3", "xxh3-64"])
def test_sum_makes_the_cli_manifest_and_check_reads_it(client, tree, hashlab_bin, algorithm):
    manifest = hashlab.dask.sum([tree], algorithm, client)
    assert len(manifest) == 40 + 6 and not manifest.errors
    assert manifest.roots == ("lake",)
    assert sorted(manifest.lines().splitlines()) == cli_lines(hashlab_bin, algorithm, tree)
    names = [os.fsencode(n) for n, _ in manifest.entries]
    assert names == sorted(names) and b"lake/odd/latin-\xe9" in names
    assert manifest.bytes == sum(os.path.getsize(n) for n in names)
    # The root is the algorithm over the entry lines, e.g. `grep -v '^#' m | sha256sum`.
    assert manifest.root == hashlab.new(algorithm, manifest.lines()).hexdigest()
    if algorithm == "sha256":
        assert manifest.root == hashlib.sha256(manifest.lines()).hexdigest()
    path = f"lake.{algorithm}"
    manifest.write(path)
    written = open(path, "rb").read()
    assert written.endswith(manifest.lines())
    assert hashlib.sha256(b"".join(l for l in written.splitlines(True) if not l.startswith(b"#"))).hexdigest() == (
        hashlib.sha256(manifest.lines()).hexdigest()
    )
    checked = subprocess.run([hashlab_bin, "check", path], capture_output=True)
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.count(b": OK\n") == len(manifest)
    # Bitrot in one file: check names it and fails.
    victim = "lake/part-2/006.parquet"
    data = bytearray(open(victim, "rb").read())
    data[len(data) // 2] ^= 0x01
    open(victim, "wb").write(data)
    checked = subprocess.run([hashlab_bin, "check", "--quiet", path], capture_output=True)
    assert checked.returncode == 1
    assert checked.stdout == f"{victim}: FAILED\n".encode()


def test_the_manifest_reads_back_and_a_changed_file_is_refused(client, tree, tmp_path, hashlab_bin):
    manifest = hashlab.dask.sum(tree, "sha256", client, partitions=5)
    manifest.write("m.sha256")
    again = hashlab.Manifest.read("m.sha256")
    assert again == manifest and again.root == manifest.root
    assert (again.roots, again.partition_count) == (("lake",), 5)
    assert not [n for n in os.listdir(".") if n.endswith(".tmp")]
    lines = open("m.sha256", "rb").read().splitlines(True)
    tampered = [l.replace(b"0", b"1", 1) if l.endswith(b"lake/empty\n") else l for l in lines]
    open("m.sha256", "wb").writelines(tampered)
    with pytest.raises(ValueError, match="changed after it was written"):
        hashlab.Manifest.read("m.sha256")
    # A manifest from `hashlab sum` (no header) reads too; it records no roots.
    out = subprocess.run([hashlab_bin, "sum", "-r", tree], check=True, capture_output=True).stdout
    open("cli.sha256", "wb").write(out)
    from_cli = hashlab.Manifest.read("cli.sha256")
    assert from_cli == manifest and from_cli.roots == ()
    with pytest.raises(ValueError, match="pass roots="):
        hashlab.dask.audit(from_cli, client)
    assert hashlab.dask.audit(from_cli, client, roots=[tree]).clean


def test_partitions_narrow_a_mismatch_to_the_changed_file(client, tree):
    before = hashlab.dask.sum([tree], "blake3", client, partitions=8)
    victim = "lake/part-1/013.parquet"
    data = bytearray(open(victim, "rb").read())
    data[0] ^= 0x80
    open(victim, "wb").write(data)
    after = hashlab.dask.sum([tree], "blake3", client, partitions=8)
    assert before.root != after.root
    for count in (8, 3, 64):
        differing = before.differing_partitions(after, count)
        assert differing == [partition_of(victim, count)]
        [index] = differing
        changed = set(before.partition_entries(index, count)) ^ set(after.partition_entries(index, count))
        assert {name for name, _ in changed} == {victim}
    assert sum(p.entries for p in before.partitions()) == len(before)
    # Another worker count gives the same manifest: it depends on the files only.
    assert hashlab.dask.sum([tree], "blake3", client, partitions=1) == after


def test_audit_finds_bitrot_deleted_and_new_files(client, tree):
    manifest = hashlab.dask.sum([tree], "sha256", client)
    rot = "lake/part-0/000.parquet"
    stat = os.stat(rot)
    data = bytearray(open(rot, "rb").read())
    data[-1] ^= 0x04
    open(rot, "wb").write(data)
    os.utime(rot, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # bitrot: same size, same mtime
    os.unlink("lake/odd/sp ace")
    write(pathlib.Path("lake/part-3/new.parquet"), b"appeared later")
    report = hashlab.dask.audit(manifest, client)
    assert report.changed == [rot]
    assert report.missing == ["lake/odd/sp ace"]
    assert report.new == ["lake/part-3/new.parquet"]
    assert report.errors == [] and not report.clean
    assert len(report.ok) == len(manifest) - 2


def test_a_manifests_object_store_roots_are_read_only_with_allow_remote(client, tmp_path, monkeypatch):
    """A stand-in S3 endpoint on 127.0.0.1 records every request: a manifest
    naming s3:// roots makes none unless the caller passes allow_remote."""
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    requests = []

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                try:
                    requests.append(conn.recv(65536))
                    conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                except OSError:
                    pass

    threading.Thread(target=serve, daemon=True).start()
    for name in [k for k in os.environ if k.startswith("AWS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{server.getsockname()[1]}")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDHASHLABTEST")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-a-secret")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ALLOW_HTTP", "true")
    path = tmp_path / "m.sha256"
    hashlab.Manifest("sha256", [("s3://any-bucket/lake/a", "00" * 32)], roots=["s3://any-bucket/lake"]).write(path)
    manifest = hashlab.Manifest.read(path)
    with pytest.raises(ValueError, match="allow_remote=True"):
        hashlab.dask.audit(manifest, client)
    assert requests == []
    try:
        hashlab.dask.audit(manifest, client, allow_remote=True)
    except (OSError, ValueError):
        pass  # the stand-in answers 404 to everything
    server.close()
    assert requests and b"AKIDHASHLABTEST" in requests[0]


def test_unknown_schemes_are_refused_and_file_urls_are_paths(client, tree, tmp_path):
    # Object stores (s3://...) are tested against MinIO in test_dask_s3.py.
    for url in ["ftp://host/lake", "https://example.com/x", "hdfs://nn/x"]:
        with pytest.raises(ValueError, match="not supported by hashlab.dask"):
            hashlab.dask.sum([url], "sha256", client)
    via_url = hashlab.dask.sum([f"file://{tmp_path}/lake"], "sha256", client)
    direct = hashlab.dask.sum([str(tmp_path / "lake")], "sha256", client)
    assert via_url == direct and via_url.roots == (str(tmp_path / "lake"),)
    with pytest.raises(FileNotFoundError):
        hashlab.dask.sum(["lake", "no-such-dir"], "sha256", client)
    with pytest.raises(ValueError, match="unknown algorithm"):
        hashlab.dask.sum(["lake"], "sha-999", client)
    with pytest.raises(ValueError, match="key"):
        hashlab.dask.sum(["lake"], "sha256", client, key=b"k")


class KillOnFirstTask(WorkerPlugin):
    """Kills the first worker that starts executing a hashlab task (SIGKILL,
    no clean-up), once per marker file."""

    def __init__(self, marker):
        self.marker = marker

    def setup(self, worker):
        self.worker = worker

    def transition(self, key, start, finish, **kwargs):
        if finish != "executing" or "hashlab-sum" not in str(key):
            return
        try:
            fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.write(fd, f"{os.getpid()} {key}".encode())
        os.close(fd)
        os.kill(os.getpid(), signal.SIGKILL)


def test_a_worker_killed_mid_run_is_retried_and_the_result_is_identical(client, tree, tmp_path):
    reference = hashlab.dask.sum([tree], "sha256", client, partitions=12)
    marker = tmp_path / "killed"
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    pids_before = set(client.run(os.getpid).values())
    client.register_plugin(KillOnFirstTask(str(marker)), name="kill-once")
    try:
        manifest = hashlab.dask.sum([tree], "sha256", client, partitions=12)
    finally:
        client.unregister_worker_plugin("kill-once")
    pid, key = marker.read_text().split(" ", 1)
    assert int(pid) in pids_before
    assert not psutil.pid_exists(int(pid)), "the worker was to die"
    # The killed worker held that task as it died: Dask ran it again elsewhere.
    index = int(key.rsplit("-", 1)[1].strip("')"))
    assert manifest.partition_entries(index) == reference.partition_entries(index) != []
    assert manifest == reference and manifest.root == reference.root
    client.wait_for_workers(WORKERS, timeout=60)


def test_every_server_listens_on_loopback_only(client):
    def listening():
        return [c.laddr.ip for c in psutil.Process().net_connections("inet") if c.status == psutil.CONN_LISTEN]

    # The scheduler, the nannies and the dashboard live in this process; the workers in theirs.
    addresses = listening() + [ip for ips in client.run(listening).values() for ip in ips]
    assert addresses and set(addresses) == {"127.0.0.1"}, addresses


def test_the_packed_names_split_and_merge_as_the_manifest_defines(tree, tmp_path):
    """The client's per-file work in the wheel (walk, split into partitions,
    hash, merge) against the definitions in Python: partition_of, os.fsdecode
    and sorting by the names' bytes."""
    from hashlab import _hashlab

    # Overlapping roots list each file once.
    packed, count, problems = _hashlab.walk_packed([b"lake", b"lake/odd"])
    names = [n for n in packed.split(b"\0") if n]
    assert count == len(names) == len(set(names)) == 46
    assert b"lake/odd/latin-\xe9" in names and b"lake/odd/new\nline" in names
    assert problems == []
    for partitions in (1, 3, 16):
        parts = _hashlab.split_packed(packed, partitions)
        assert len(parts) == partitions
        for index, part in enumerate(parts):
            for name in filter(None, part.split(b"\0")):
                assert partition_of(name, partitions) == index
        assert sorted(n for part in parts for n in part.split(b"\0") if n) == sorted(names)
    with pytest.raises(ValueError, match="partitions"):
        _hashlab.split_packed(packed, 0)

    # Relative names are read under the base and recorded as given; absolute ones as they are.
    absolute = os.fsencode(tmp_path / "lake" / "odd" / "sp ace")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.chdir(elsewhere)
    part = b"lake/odd/latin-\xe9\0lake/gone\0" + absolute + b"\0"
    entries, errors, total = _hashlab.hash_packed(part, os.fsencode(tmp_path), "sha256", threads=1)
    assert [name for name, _ in errors] == ["lake/gone"]
    assert total == len(b"not UTF-8") + len(b"space")
    merged = _hashlab.merge_packed([entries, b"lake/odd/a\0" + b"0" * 64 + b"\0"])
    assert merged == sorted(
        [
            (os.fsdecode(b"lake/odd/latin-\xe9"), hashlib.sha256(b"not UTF-8").hexdigest()),
            (os.fsdecode(absolute), hashlib.sha256(b"space").hexdigest()),
            ("lake/odd/a", "0" * 64),
        ],
        key=lambda entry: os.fsencode(entry[0]),
    )
    with pytest.raises(ValueError, match="without its digest"):
        _hashlab.merge_packed([b"lake/odd/a\0"])


def test_sum_with_update_sends_only_what_changed_to_the_workers(client, tree, tmp_path, hashlab_bin):
    first = hashlab.dask.sum([tree], "sha256", client)
    # No stamps yet: every file is read once, and found as it was.
    base = hashlab.dask.sum([tree], "sha256", client, update=first)
    assert base == first
    assert len(base.update_report.rehashed) == len(first)
    base.write(tmp_path / "m.sha256")
    read = hashlab.Manifest.read(tmp_path / "m.sha256")
    assert read.stamps == base.stamps and len(read.stamps) == len(read)

    write(pathlib.Path(tree) / "part-1" / "001.parquet", b"rewritten")
    os.remove(pathlib.Path(tree) / "part-2" / "002.parquet")
    write(pathlib.Path(tree) / "part-9" / "new.parquet", b"new")
    updated = hashlab.dask.sum([tree], "sha256", client, update=read, prune=True)
    report = updated.update_report
    assert report.added == ["lake/part-9/new.parquet"]
    assert report.changed == ["lake/part-1/001.parquet"]
    assert report.removed == ["lake/part-2/002.parquet"]
    assert report.unchanged == len(first) - 2
    assert updated == hashlab.dask.sum([tree], "sha256", client)
    with pytest.raises(ValueError, match="holds sha256, not blake3"):
        hashlab.dask.sum([tree], "blake3", client, update=updated)
    # The CLI reads the manifest and sidecar it writes, and finds nothing to read.
    updated.write(tmp_path / "m.sha256")
    out = subprocess.run(
        [hashlab_bin, "sum", "--update", str(tmp_path / "m.sha256"), "-r", tree],
        capture_output=True,
        check=True,
    )
    assert f"{len(updated)} unchanged (not read)" in out.stderr.decode(), out.stderr
