"""Manifest.update: a manifest refreshed by reading only what changed, its
stamps kept in the sidecar that `hashlab sum --update` reads and writes."""

import os
import subprocess

import pytest

import hashlab


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def touch_back(path, seconds):
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - seconds * 10**9))


def test_update_reads_only_what_moved_and_the_cli_agrees(tmp_path, monkeypatch, hashlab_bin):
    monkeypatch.chdir(tmp_path)
    for i in range(20):
        write(tmp_path / "lake" / f"f{i:02}", os.urandom(100 + i))
    write(tmp_path / "lake" / "odd" / "new\nline", b"newline in the name")
    names = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "lake").rglob("*") if p.is_file())
    manifest = hashlab.Manifest("sha256", zip(names, hashlab.hash_files(names)), roots=["lake"])
    # No stamps yet: the first update reads every file once and finds them unchanged.
    report = manifest.update()
    assert sorted(report.rehashed) == names and report.unchanged == 0
    assert not (report.added or report.changed or report.removed)
    again = manifest.update()
    assert again.unchanged == len(names) and not again.rehashed

    write(tmp_path / "lake" / "f03", b"changed")
    os.remove(tmp_path / "lake" / "f04")
    write(tmp_path / "lake" / "new", b"new file")
    touch_back(tmp_path / "lake" / "f05", 60)
    report = manifest.update()
    assert report.added == ["lake/new"]
    assert report.changed == ["lake/f03"]
    assert report.missing == ["lake/f04"] and report.removed == []
    assert report.rehashed == ["lake/f05"]
    report = manifest.update(prune=True)
    assert report.removed == ["lake/f04"] and report.unchanged == len(names)
    fresh = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "lake").rglob("*") if p.is_file())
    assert manifest.entries == sorted(zip(fresh, hashlab.hash_files(fresh)), key=lambda e: os.fsencode(e[0]))

    # Written with its sidecar, read back with its stamps: the CLI's update
    # reads the same sidecar and finds nothing to read.
    manifest.write("m.sha256")
    assert os.path.exists("m.sha256.hashlab-stat")
    read = hashlab.Manifest.read("m.sha256")
    assert read.stamps == manifest.stamps
    out = subprocess.run(
        [hashlab_bin, "sum", "--update", "m.sha256", "-r", "lake", "--json"],
        capture_output=True, check=True,
    )
    import json

    cli = json.loads(out.stdout)
    assert cli["unchanged"] == len(fresh) and not cli["written"], cli
    # And the CLI's update of a changed file leaves stamps Python reads.
    write(tmp_path / "lake" / "f06", b"changed by the CLI's run")
    subprocess.run([hashlab_bin, "sum", "--update", "m.sha256", "-r", "lake"], capture_output=True, check=True)
    # The CLI rewrites the header's root too, so Python reads the file back.
    write(tmp_path / "lake" / "added by the CLI", b"new")
    subprocess.run([hashlab_bin, "sum", "--update", "m.sha256", "-r", "lake"], capture_output=True, check=True)
    read = hashlab.Manifest.read("m.sha256")
    assert read.as_dict()["lake/f06"] == hashlab.hash_file("lake/f06")
    assert read.as_dict()["lake/added by the CLI"] == hashlab.hash_file("lake/added by the CLI")
    fresh = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "lake").rglob("*") if p.is_file())
    assert read == hashlab.Manifest("sha256", zip(fresh, hashlab.hash_files(fresh)))


def test_what_is_no_longer_a_file_is_kept_until_pruned(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "d" / "a", b"a")
    write(tmp_path / "d" / "b", b"b")
    manifest = hashlab.Manifest("sha256", [(n, hashlab.hash_file(n)) for n in ("d/a", "d/b")], roots=["d"])
    os.remove("d/a")
    os.mkdir("d/a")
    report = manifest.update()
    assert report.missing == ["d/a"] and "d/a" in manifest.as_dict()
    report = manifest.update(prune=True)
    assert report.removed == ["d/a"] and list(manifest.as_dict()) == ["d/b"]


def test_a_manifest_of_pieces_only_is_refused(tmp_path):
    piece = hashlab.hexdigest("sha256", b"x" * 1024)
    (tmp_path / "p.hd").write_bytes(
        b"%%%% HASHDEEP-1.0\n%%%% size,sha256,filename\n##\n"
        + f"1024,{piece},/x/a offset 0-1023\n1024,{piece},/x/a offset 1024-2047\n".encode()
    )
    with pytest.raises(ValueError, match="pieces only"):
        hashlab.Manifest.read(tmp_path / "p.hd")
