"""hashlab.bench(like=PATH): the shape of a tree made here, the candidates
measured on its replica, and a report whose parts agree with each other."""

import json
import os

import pytest

import hashlab


def make_tree(root):
    """Files in four size bands: many small, some medium, two large."""
    sizes = [100 + 37 * i for i in range(20)]  # under 1 KiB
    sizes += [1024 + 211 * i for i in range(120)]  # 1-16 KiB
    sizes += [70_000 + 9_000 * i for i in range(12)]  # 64-256 KiB
    sizes += [3 << 20, (3 << 20) + 12345]  # 1-4 MiB
    for i, size in enumerate(sizes):
        d = root / f"d{i % 7}"
        d.mkdir(exist_ok=True)
        (d / f"f{i}").write_bytes(os.urandom(size))
    return sizes


def test_bench_like_reports_a_trees_shape_and_a_projection_per_algorithm(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    sizes = make_tree(tree)
    asked = ["blake3", "sha256", "xxh3-64"]
    report = hashlab.bench(like=tree, algorithms=asked, budget=2, workers=[2, 8], verify="xxh3-64")

    # The same value as serde's JSON: plain dicts, lists, numbers and str.
    assert json.loads(json.dumps(report)) == report
    assert {"shape", "replica", "cores", "storage", "projections", "dask_worker_efficiency", "verified", "notes",
            "seconds"} <= report.keys()

    shape = report["shape"]
    assert shape["source"] == "tree" and shape["exact"]
    assert shape["files"] == len(sizes) and shape["bytes"] == sum(sizes)
    assert shape["largest"] == max(sizes)
    bands = shape["bands"]
    # Bands are disjoint, smallest first, and hold every file once.
    assert sum(b["count"] for b in bands) == len(sizes)
    assert sum(b["bytes"] for b in bands) == sum(sizes)
    for b in bands:
        assert b["count"] == sum(1 for s in sizes if b["low"] <= s and (b["high"] is None or s < b["high"]))
    lows = [b["low"] for b in bands]
    assert lows == sorted(lows) and len(set(lows)) == len(lows)
    assert [r["low"] for r in report["replica"]] == lows

    projections = report["projections"]
    assert sorted(p["algorithm"] for p in projections) == sorted(asked)
    # Fastest (cached, every core) first.
    alls = [p["cached_all"] for p in projections]
    assert alls == sorted(alls)
    for p in projections:
        assert len(p["times"]["one"]) == len(bands) == len(p["times"]["all"])
        assert p["cached_one"] > 0 and p["cached_all"] > 0 and p["overhead_all"] >= 0
        assert p["bound_cached"] in {"cpu", "per_file", "reading"}
        assert [c["cores"] for c in p["cores"]] == [1, 4, 8, 64]
        assert [d["cores"] for d in p["dask"]] == [2, 8]
        # More cores never make a projection slower.
        on = [c["seconds"] for c in p["cores"]]
        assert all(a >= b for a, b in zip(on, on[1:])), on
        if report["storage"] is not None:
            assert p["uncached_all"] >= p["cached_all"]
            assert p["bound_uncached"] in {"cpu", "per_file", "reading", "disk"}

    [verified] = report["verified"]
    assert verified["algorithm"] == "xxh3-64"
    assert verified["files"] == len(sizes) and verified["bytes"] == sum(sizes) and verified["failed"] == 0
    xxh = next(p for p in projections if p["algorithm"] == "xxh3-64")
    expected = xxh["cached_one"] if verified["jobs"] == 1 else xxh["cached_all"]
    assert verified["projected_cached"] == expected


def test_bench_like_default_workers_and_algorithm_names(tmp_path):
    (tmp_path / "a").write_bytes(b"x" * 5000)
    (tmp_path / "b").write_bytes(b"y" * 300)
    # An alias is reported under its canonical name, once.
    report = hashlab.bench("xxh3,xxh3-64", like=str(tmp_path), budget=0.5)
    assert [p["algorithm"] for p in report["projections"]] == ["xxh3-64"]
    assert [d["cores"] for d in report["projections"][0]["dask"]] == [4, 16, 64]
    assert report["verified"] == []


def test_bench_like_arguments_are_checked(tmp_path):
    (tmp_path / "f").write_bytes(b"data")
    with pytest.raises(FileNotFoundError) as caught:
        hashlab.bench(like=tmp_path / "absent", algorithms="crc32c", budget=0.2)
    assert caught.value.filename == str(tmp_path / "absent")
    with pytest.raises(TypeError, match="sizes is not one of its arguments"):
        hashlab.bench(like=tmp_path, sizes=[64])
    with pytest.raises(TypeError, match="quick is not one of its arguments"):
        hashlab.bench(like=tmp_path, quick=False)
    with pytest.raises(TypeError, match="budget is an argument of bench\\(like=PATH\\)"):
        hashlab.bench("crc32c", budget=1)
    with pytest.raises(ValueError, match="workers: 0"):
        hashlab.bench(like=tmp_path, algorithms="crc32c", workers=[4, 0])
    with pytest.raises(TypeError, match="workers"):
        hashlab.bench(like=tmp_path, algorithms="crc32c", workers="many")
    with pytest.raises(ValueError, match="budget"):
        hashlab.bench(like=tmp_path, algorithms="crc32c", budget=-1)
    with pytest.raises(ValueError, match="unknown algorithm"):
        hashlab.bench(like=tmp_path, algorithms="nope", budget=0.2)
    with pytest.raises(ValueError, match="verify: .*unknown algorithm"):
        hashlab.bench(like=tmp_path, algorithms="crc32c", budget=0.2, verify=["nope"])
    # Verifying one that was not measured says so.
    with pytest.raises(ValueError, match="sha256 was not measured"):
        hashlab.bench(like=tmp_path, algorithms="crc32c", budget=0.2, verify="sha256")
