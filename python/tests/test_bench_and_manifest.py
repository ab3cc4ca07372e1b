"""hashlab.bench against `hashlab bench --json`, and Manifest without Dask."""

import json
import sys
import os
import subprocess

import pytest

import hashlab
from hashlab._manifest import partition_of


def shape(value):
    """The keys of a JSON value, recursively (lists by their first item)."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    return type(value).__name__ if value is not None else None


def test_bench_returns_the_cli_json_report(hashlab_bin):
    report = hashlab.bench(["crc32c", "xxh3-64"], sizes=[64, "1K"], threads=[1, 2], quick=True, max_time=0.3)
    cli = json.loads(
        subprocess.run(
            [hashlab_bin, "bench", "-a", "crc32c,xxh3-64", "--sizes", "64,1K", "--threads", "1,2", "--quick",
             "--max-time", "0.3", "--json"],
            check=True,
            capture_output=True,
        ).stdout
    )
    assert report["schema_version"] == cli["schema_version"]
    assert report.keys() == cli.keys()
    assert shape(report["cells"][0]) == shape(cli["cells"][0])
    assert shape(report["environment"]).keys() == shape(cli["environment"]).keys()
    cells = {(c["algorithm"], c["size"]) for c in report["cells"]}
    # The sha256 baseline is measured too, as the CLI does.
    assert {("crc32c", 64), ("crc32c", 1024), ("xxh3-64", 64), ("sha256", 1024)} <= cells
    assert all(c["throughput"]["mb_per_s"] > 0 for c in report["cells"])
    assert report["settings"]["threads"] == [1, 2] and report["scaling"]
    assert report["settings"]["sizes"] == [64, 1024]


def test_bench_measures_short_keys_a_chain_and_a_hash_table_as_the_cli(hashlab_bin, tmp_path):
    words = tmp_path / "words"
    words.write_text("".join(f"w{i * 7919 % 100003}x{i}\n" for i in range(1500)))
    report = hashlab.bench("crc32,wyhash", sizes=[64], quick=True, max_time=0.3,
                           latency=True, keys=True, table=words)
    cli = json.loads(
        subprocess.run(
            [hashlab_bin, "bench", "-a", "crc32,wyhash", "--sizes", "64", "--quick", "--max-time", "0.3",
             "--latency", "--keys", "--table", str(words), "--json"],
            check=True,
            capture_output=True,
        ).stdout
    )
    def modes(r):
        return {(c["algorithm"], json.dumps(c["mode"], sort_keys=True)) for c in r["cells"]}
    assert modes(report) == modes(cli)
    assert report["settings"]["table"] == cli["settings"]["table"]
    assert report["settings"]["table"]["words"] == 1500
    assert report["settings"]["keys"] and report["settings"]["latency"]
    # Table cells: one per algorithm, a message is one insert or lookup.
    table_cells = [c for c in report["cells"] if "table" in json.dumps(c["mode"])]
    assert {c["algorithm"] for c in table_cells} >= {"crc32", "wyhash"}
    assert all(c["throughput"]["ns_per_message"] > 0 for c in table_cells)


def test_bench_measures_other_runtimes_as_the_cli(hashlab_bin, monkeypatch):
    # The venv's python3 runs the Python harness: its blake3 and xxhash
    # packages are measured beside hashlib.
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    report = hashlab.bench("sha256,blake3,xxh3-64", sizes=[64], quick=True, max_time=0.5, runtimes="python,c")
    statuses = {r["runtime"]: r for r in report["runtimes"]}
    assert set(statuses) == {"python", "c"}
    assert statuses["python"]["state"] == "measured", statuses["python"]
    backends = {(c["algorithm"], c["backend"]) for c in report["cells"]}
    assert {("sha256", "python hashlib"), ("blake3", "python blake3"), ("xxh3-64", "python xxhash"),
            ("null", "python harness")} <= backends
    assert ("sha256", "c libgcrypt") in backends or statuses["c"]["state"] != "measured"
    cli = json.loads(
        subprocess.run(
            [hashlab_bin, "bench", "-a", "sha256,blake3,xxh3-64", "--sizes", "64", "--quick", "--max-time", "0.5",
             "--runtime", "python,c", "--json"],
            check=True,
            capture_output=True,
        ).stdout
    )
    assert report.keys() == cli.keys()
    assert [r["runtime"] for r in cli["runtimes"]] == ["python", "c"]
    with pytest.raises(ValueError, match="runtimes: 'cobol' is not a runtime"):
        hashlab.bench("sha256", sizes=[64], runtimes=["cobol"])


def test_bench_word_lists_are_checked(tmp_path):
    with pytest.raises(FileNotFoundError) as caught:
        hashlab.bench("crc32", sizes=[64], table=tmp_path / "absent")
    assert caught.value.filename == str(tmp_path / "absent")
    empty = tmp_path / "empty"
    empty.write_text("\n\n")
    with pytest.raises(ValueError, match="no words"):
        hashlab.bench("crc32", sizes=[64], table=empty)
    with pytest.raises(TypeError, match="table"):
        hashlab.bench("crc32", sizes=[64], table=3)
    # False is no table, as None.
    report = hashlab.bench("crc32", sizes=[64], quick=True, max_time=0.1, table=False)
    assert report["settings"].get("table") is None


def test_bench_arguments_are_checked():
    with pytest.raises(ValueError, match="unknown algorithm"):
        hashlab.bench(["nope"], sizes=[64])
    with pytest.raises(ValueError, match="sizes"):
        hashlab.bench(["crc32c"], sizes=["12Q"])
    with pytest.raises(ValueError, match="sizes"):
        hashlab.bench(["crc32c"], sizes=[0])
    with pytest.raises(TypeError, match="sizes"):
        hashlab.bench(["crc32c"], sizes=[1.5])
    with pytest.raises(ValueError, match="threads"):
        hashlab.bench(["crc32c"], sizes=[64], threads=0)
    with pytest.raises(ValueError, match="max_time"):
        hashlab.bench(["crc32c"], sizes=[64], max_time=-1)
    # Bounds checked by the engine before anything is allocated.
    with pytest.raises(ValueError, match="limit of 1 TiB"):
        hashlab.bench(["crc32c"], sizes=["2000G"])
    with pytest.raises(ValueError, match="threads"):
        hashlab.bench(["crc32c"], sizes=[64], threads=[1025])
    with pytest.raises(ValueError, match="unknown backend 'nosuch'"):
        hashlab.bench(["crc32c"], backends=["nosuch"], sizes=[64])
    with pytest.raises(TypeError, match="algorithms"):
        hashlab.bench([1, 2])


def test_manifest_root_and_partitions_are_defined_by_names_and_digests():
    entries = [(f"d/{i:02d}", f"{i:064x}") for i in range(30)]
    m = hashlab.Manifest("sha256", reversed(entries), partitions=4)
    assert m.entries == entries
    lines = b"".join(f"{h}  {n}\n".encode() for n, h in entries)
    assert m.lines() == lines
    assert m.root == hashlab.new("sha256", lines).hexdigest()
    parts = m.partitions()
    assert [p.index for p in parts] == [0, 1, 2, 3] and sum(p.entries for p in parts) == 30
    for p in parts:
        mine = [e for e in entries if partition_of(e[0], 4) == p.index]
        assert p.root == hashlab.new("sha256", b"".join(f"{h}  {n}\n".encode() for n, h in mine)).hexdigest()
    # SHA-256 of the name's bytes, first 8 bytes big-endian, modulo the count.
    import hashlib

    assert partition_of("d/07", 4) == int.from_bytes(hashlib.sha256(b"d/07").digest()[:8], "big") % 4
    other = hashlab.Manifest("sha256", entries[:29] + [("d/29", "f" * 64)])
    assert m.differing_partitions(other, 16) == [partition_of("d/29", 16)]
    assert hashlab.Manifest("sha256", []).root == hashlab.new("sha256").hexdigest()


def test_manifest_refuses_what_it_cannot_represent(tmp_path):
    with pytest.raises(ValueError, match="listed twice"):
        hashlab.Manifest("sha256", [("a", "0" * 64), ("a", "1" * 64)])
    with pytest.raises(ValueError, match="hex digits"):
        hashlab.Manifest("sha256", [("a", "0" * 10)])
    with pytest.raises(ValueError, match="unknown algorithm"):
        hashlab.Manifest("sha-1024", [])
    with pytest.raises(ValueError, match="partitions"):
        hashlab.Manifest("sha256", [], partitions=0)
    blake = hashlab.Manifest("blake3", [("a", "0" * 64)])
    with pytest.raises(ValueError, match="compares only with"):
        blake.differing_partitions(hashlab.Manifest("sha256", [("a", "0" * 64)]))
    junk = tmp_path / "junk.sha256"
    junk.write_bytes(b"this is not a manifest\n")
    with pytest.raises(ValueError, match="junk.sha256"):
        hashlab.Manifest.read(junk)
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="cannot tell the algorithm"):
        hashlab.Manifest.read(empty)


def test_empty_and_odd_manifests_round_trip(tmp_path):
    m = hashlab.Manifest("xxh3-64", [], roots=["lake/with\nnewline", b"caf\xe9"])
    m.write(tmp_path / "m")
    back = hashlab.Manifest.read(tmp_path / "m")
    assert back == m and back.roots == m.roots and back.root == m.root
    odd = hashlab.Manifest(
        "blake2b", [("a\\b", "ab" * 20), ("c\nd", "cd" * 20)], length=20, errors=[("gone", "No such file")]
    )
    odd.write(tmp_path / "odd.blake2b")
    back = hashlab.Manifest.read(tmp_path / "odd.blake2b")
    assert back == odd and back.length == 20 and back.errors == [("gone", "No such file")]


def test_compare_is_the_projects_bootstrap_test():
    import random

    rng = random.Random(3)
    a = [1.0 + rng.random() * 0.01 for _ in range(30)]
    b = [2.0 + rng.random() * 0.01 for _ in range(30)]
    c = hashlab.compare(a, b)
    assert c["significant"] and 1.98 < c["low"] <= c["ratio"] <= c["high"] < 2.02
    same = hashlab.compare(a, list(reversed(a)))
    assert not same["significant"] and same["ratio"] == 1.0
    assert hashlab.compare([], b) is None
    with pytest.raises(ValueError, match="finite"):
        hashlab.compare([1.0, float("nan")], b)


def test_entries_are_sorted_by_the_bytes_of_their_names():
    import os

    names = ["b", "a\udce9", "a\ue000", "A", "a", "a/b", "a-c", "é"]  # \udce9: the byte 0xe9, not UTF-8
    m = hashlab.Manifest("crc32c", [(n, "00000000") for n in names])
    assert [os.fsencode(n) for n, _ in m.entries] == sorted(os.fsencode(n) for n in names)
    ascii_only = hashlab.Manifest("crc32c", [(n, "00000000") for n in names if n.isascii()])
    assert [n for n, _ in ascii_only.entries] == ["A", "a", "a-c", "a/b", "b"]


def test_manifest_write_is_as_safe_as_sum_o(tmp_path):
    """Manifest.write writes as `hashlab sum -o`: links planted at the temp
    names the old code guessed are not followed, a link is written through
    to its target, a FIFO stays a FIFO, the mode is kept, and a failure
    leaves the old file whole with no temporary file."""
    import os
    import stat
    import threading

    m = hashlab.Manifest("sha256", [("a", "0" * 64)])
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    target = tmp_path / "M.sha256"
    os.symlink(victim, tmp_path / f".M.sha256.hashlab-{os.getpid()}.tmp")
    target.write_bytes(b"old\n")
    os.chmod(target, 0o600)
    m.write(target)
    assert victim.read_bytes() == b"precious"
    assert hashlab.Manifest.read(target) == m
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600

    link = tmp_path / "link"
    os.symlink("behind", link)
    m.write(link)
    assert os.path.islink(link) and hashlab.Manifest.read(tmp_path / "behind") == m

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
    reader.start()
    m.write(fifo)
    reader.join()
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and got == [m.header() + m.lines()]

    with pytest.raises(OSError) as failure:
        m.write("/dev/full")
    assert failure.value.errno == 28
    before = sorted(os.listdir(tmp_path))
    with pytest.raises(OSError):
        m.write(tmp_path / "no-such-dir" / "M")
    assert sorted(os.listdir(tmp_path)) == before


def test_partition_counts_are_bounded(tmp_path):
    from hashlab._manifest import MAX_PARTITIONS

    m = tmp_path / "m.sha256"
    m.write_bytes(b"# hashlab manifest 1\n# algorithm: sha256\n# partitions: 1000000000\n" + b"0" * 64 + b"  a\n")
    # Ran partitions() until the OOM killer came.
    with pytest.raises(ValueError, match=f"partitions: 1000000000 is more than {MAX_PARTITIONS}"):
        hashlab.Manifest.read(m)
    small = hashlab.Manifest("sha256", [("a", "0" * 64)])
    with pytest.raises(ValueError, match="count: 1000000000 is more than"):
        small.partitions(10**9)
    with pytest.raises(ValueError, match="partitions"):
        hashlab.Manifest("sha256", [], partitions=MAX_PARTITIONS + 1)
    assert len(small.partitions(1000)) == 1000


def test_manifest_lines_are_bounded(tmp_path):
    from hashlab._manifest import MAX_LINE_BYTES

    # /dev/zero was read until memory ran out.
    with pytest.raises(ValueError, match=f"/dev/zero: line 1 is longer than {MAX_LINE_BYTES} bytes"):
        hashlab.Manifest.read("/dev/zero")
    long_line = tmp_path / "long.sha256"
    long_line.write_bytes(b"0" * 64 + b"  a\n" + b"0" * 64 + b"  " + b"b" * MAX_LINE_BYTES + b"\n")
    with pytest.raises(ValueError, match="line 2 is longer"):
        hashlab.Manifest.read(long_line)
    at_limit = tmp_path / "at.sha256"
    at_limit.write_bytes(b"0" * 64 + b"  a\n" + b"0" * 64 + b"  " + b"b" * (MAX_LINE_BYTES - 66) + b"\n")
    assert len(hashlab.Manifest.read(at_limit)) == 2
