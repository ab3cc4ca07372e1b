"""Reading files from Python as ``hashlab sum`` reads them: a tree mounted
inside itself."""

import contextlib
import os
import subprocess

import pytest

from hashlab import _hashlab


def _skip(reason):
    """Skipped only outside CI, and visibly."""
    if os.environ.get("HASHLAB_CI"):
        pytest.fail(f"cannot skip under HASHLAB_CI: {reason}")
    pytest.skip(reason)


@contextlib.contextmanager
def _mounted_inside_itself(tree):
    sub = tree / "sub"
    sub.mkdir()
    done = subprocess.run(["mount", "--bind", str(tree), str(sub)], capture_output=True)
    if done.returncode != 0:
        _skip("cannot bind-mount here (needs root and CAP_SYS_ADMIN)")
    try:
        yield sub
    finally:
        # Before tmp_path is removed: a mount point cannot be.
        subprocess.run(["umount", "-l", str(sub)])


def test_a_tree_mounted_inside_itself_is_walked_once(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "f").write_bytes(b"f\n")
    with _mounted_inside_itself(tree) as sub:
        walked = _hashlab.walk([bytes(tree)])
        assert walked == [
            (bytes(tree / "f"), None, None),
            (
                bytes(sub),
                None,
                f"file system loop: the same directory as {tree}, which contains it",
            ),
        ]
