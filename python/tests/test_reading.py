"""Reading files from Python as ``hashlab sum`` reads them: Ctrl-C in the
middle of a large file, files whose size is not their length, and a tree
mounted inside itself."""

import contextlib
import hashlib
import os
import signal
import subprocess
import sys
import time

import pytest

import hashlab
from hashlab import _hashlab


def _skip(reason):
    """Skipped only outside CI, and visibly."""
    if os.environ.get("HASHLAB_CI"):
        pytest.fail(f"cannot skip under HASHLAB_CI: {reason}")
    pytest.skip(reason)


# Hashing 200 GiB of zeros takes minutes; an interrupted call must end in seconds.
INTERRUPTED_WITHIN = 20


@pytest.mark.parametrize(
    "call",
    [
        "hashlab.hash_file(BIG, 'sha256')",
        "hashlab.hash_file(BIG, 'blake3')",
        "hashlab.hash_files([BIG, BIG], 'sha256', threads=2)",
    ],
)
def test_ctrl_c_raises_keyboard_interrupt_in_the_middle_of_a_large_file(tmp_path, call):
    big = tmp_path / "huge"
    with open(big, "wb") as f:
        f.truncate(200 << 30)  # sparse: zeros read at memory speed, no disk space
    # Python keeps SIGINT ignored when it starts so (a test run launched in
    # the background without job control): install the handler Python
    # installs when it starts with SIGINT at its default action.
    script = (
        "import signal\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
        f"import hashlab\nBIG = {str(big)!r}\nprint('started', flush=True)\n{call}\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout.readline() == b"started\n"
    time.sleep(1.5)
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=INTERRUPTED_WITHIN)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"{call}: still hashing {INTERRUPTED_WITHIN} s after Ctrl-C")
    assert b"KeyboardInterrupt" in err, err.decode(errors="replace")


def test_files_whose_size_is_not_their_length_are_read_to_their_end():
    files = ["/proc/version", "/sys/kernel/mm/transparent_hugepage/enabled"]
    present = [f for f in files if os.path.exists(f)]
    if len(present) < len(files):
        _skip("/proc/version or /sys/kernel/mm/transparent_hugepage/enabled is missing")
    expect = [hashlib.sha256(open(f, "rb").read()).hexdigest() for f in present]
    assert hashlab.hash_files(present) == expect
    assert [hashlab.hash_file(f) for f in present] == expect


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
