"""Manifest.update where users trust it most (issue 42): a root that is
gone or unreadable drops nothing and says so, and updates of one manifest
file made at once (Python and the CLI) keep each other's additions."""

import os
import subprocess
import sys

import pytest

import hashlab


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    names = ["pr/mnt/f1", "pr/mnt/f2", "pr/mnt/sub/f3"]
    for name in names:
        write(tmp_path / name, name.encode())
    return names


def test_a_root_that_is_gone_prunes_nothing_and_says_so(tmp_path, monkeypatch):
    names = tree(tmp_path, monkeypatch)
    digests = list(zip(names, hashlab.hash_files(names)))
    for roots, paths in ((["pr/mnt"], None), (["pr/mnt"], ["pr/mnt"]), ((), None)):
        manifest = hashlab.Manifest("sha256", digests, roots=roots)
        before = list(manifest.entries)
        os.rename("pr/mnt", "pr/x")
        try:
            report = manifest.update(paths, prune=True)
        finally:
            os.rename("pr/x", "pr/mnt")
        assert report.removed == [] and report.missing == []
        assert manifest.entries == before
        assert report.errors, f"{roots} {paths}: nothing reported"
        assert all("pr/mnt" in name for name, _ in report.errors)


def test_a_path_that_does_not_exist_is_an_error(tmp_path, monkeypatch):
    names = tree(tmp_path, monkeypatch)
    manifest = hashlab.Manifest("sha256", zip(names, hashlab.hash_files(names)), roots=["pr/mnt"])
    missing = str(tmp_path / "nonexistent")
    report = manifest.update([missing])
    assert report.errors == [(missing, os.strerror(2))]
    assert len(manifest.entries) == 3


def test_what_a_readable_root_shows_gone_is_still_pruned(tmp_path, monkeypatch):
    names = tree(tmp_path, monkeypatch)
    manifest = hashlab.Manifest("sha256", zip(names, hashlab.hash_files(names)), roots=["pr/mnt"])
    os.remove("pr/mnt/f1")
    os.remove("pr/mnt/sub/f3")
    os.rmdir("pr/mnt/sub")
    report = manifest.update(prune=True)
    assert sorted(report.removed) == ["pr/mnt/f1", "pr/mnt/sub/f3"] and not report.errors
    listed = hashlab.Manifest("sha256", [("pr/mnt/f2", hashlab.hash_file("pr/mnt/f2"))])
    os.remove("pr/mnt/f2")
    report = listed.update(prune=True)
    assert report.removed == ["pr/mnt/f2"] and not report.errors


def test_concurrent_updates_of_one_file_keep_every_addition(tmp_path, monkeypatch, hashlab_bin):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "base" / "a", b"a")
    hashlab.Manifest("sha256", [("base/a", hashlab.hash_file("base/a"))], roots=["base"]).write("m")
    n = 4
    for i in range(2 * n):
        write(tmp_path / f"d{i}" / "x", f"x{i}".encode())
    code = "import hashlab, sys; hashlab.Manifest.update_file('m', [sys.argv[1]])"
    runs = [subprocess.Popen([sys.executable, "-c", code, f"d{i}"], stderr=subprocess.PIPE) for i in range(n)]
    runs += [
        subprocess.Popen([hashlab_bin, "sum", "--update", "m", "-r", f"d{i}"], stderr=subprocess.PIPE)
        for i in range(n, 2 * n)
    ]
    for run in runs:
        _, err = run.communicate(timeout=120)
        assert run.returncode == 0, err.decode()
    listed = hashlab.Manifest.read("m").as_dict()
    assert sorted(listed) == ["base/a"] + sorted(f"d{i}/x" for i in range(2 * n))


def test_an_update_gives_up_when_another_holds_the_manifest(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "a", b"a")
    hashlab.Manifest("sha256", [("a", hashlab.hash_file("a"))]).write("m")
    before = (tmp_path / "m").read_bytes()
    with hashlab.Manifest.locked("m"):
        with pytest.raises(TimeoutError, match="another update of it is still running"):
            hashlab.Manifest.update_file("m", ["a"], timeout=0.3)
    assert (tmp_path / "m").read_bytes() == before
    _, report = hashlab.Manifest.update_file("m", ["a"], timeout=0.3)
    assert report.errors == []


def test_what_manifest_read_would_refuse_is_not_written(tmp_path):
    # Failed on b4b9c33: both were written, then refused by Manifest.read.
    good = "ab" * 32
    with pytest.raises(ValueError, match="not hex digits"):
        hashlab.Manifest("sha256", [("a", "zz" * 32)])
    with pytest.raises(ValueError, match="not hex digits"):
        hashlab.Manifest("sha256", [("a", " " + "ab" * 31 + "a")])
    with pytest.raises(ValueError, match="holding NUL"):
        hashlab.Manifest("sha256", [("a\0b", good)])
    with pytest.raises(ValueError, match="holding NUL"):
        hashlab.Manifest("sha256", [("", good)])
    m = hashlab.Manifest("sha256", [("a\nb", good.upper()), ("c", good)])
    m.write(tmp_path / "m.sha256")
    back = hashlab.Manifest.read(tmp_path / "m.sha256")
    assert back.entries == [("a\nb", good), ("c", good)]
    assert back.root == m.root
