"""hashlab: hash functions, benchmarks and file integrity on one Rust core.

    >>> import hashlab
    >>> hashlab.new("blake3", b"abc").hexdigest()
    '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85'

``new`` returns hashlib-style objects (``update``, ``digest``, ``hexdigest``,
``copy``, ``name``, ``digest_size``, ``block_size``) for every algorithm of
``algorithms_available``; any C-contiguous buffer is hashed in place, and
inputs of 2 KiB or more are hashed with the GIL released. ``hash_file`` and
``hash_files`` read files as ``hashlab sum`` does; ``bench`` measures as
``hashlab bench --json`` does. ``hashlab.dask`` checks trees on a Dask cluster.
"""

import os

from hashlab._hashlab import (
    Hash,
    __version__,
    algorithm_info,
    algorithms_available,
    bench,
    compare,
    new,
)
from hashlab import _hashlab
from hashlab._manifest import AuditReport, Manifest, Partition

__all__ = [
    "AuditReport",
    "Hash",
    "Manifest",
    "Partition",
    "__version__",
    "algorithm_info",
    "algorithms_available",
    "bench",
    "compare",
    "hash_file",
    "hash_files",
    "new",
]


def _file_error(path, errno_number, message):
    """The OSError a failed read becomes: the errno's subclass
    (FileNotFoundError, IsADirectoryError, ...) when the system gave one."""
    name = os.fsdecode(path)
    if errno_number is not None:
        return OSError(errno_number, message, name)
    error = OSError(f"{name}: {message}")
    error.filename = name
    return error


def hash_file(path, algorithm="sha256", *, key=None, length=None, backend=None, customization=None):
    """The hex digest of one file, read as ``hashlab sum`` reads it (large
    files on a second thread while this one hashes). Raises OSError naming
    the file, also when the file changed while it was read."""
    [(hex_digest, _size, errno_number, message)] = _hashlab.hash_paths(
        [os.fsencode(path)],
        algorithm,
        threads=1,
        key=key,
        length=length,
        backend=backend,
        customization=customization,
    )
    if hex_digest is None:
        raise _file_error(path, errno_number, message)
    return hex_digest


def hash_files(
    paths,
    algorithm="sha256",
    *,
    threads=None,
    errors="raise",
    key=None,
    length=None,
    backend=None,
    customization=None,
):
    """Hex digests of many files, in the order given, hashed on ``threads``
    threads (default: every core) with the GIL released.

    ``errors="raise"`` raises the OSError of the first file (in input order)
    that could not be read, after all were tried; ``errors="return"`` puts
    that OSError in the list in the file's place instead.
    """
    if errors not in ("raise", "return"):
        raise ValueError(f"errors: {errors!r} is neither 'raise' nor 'return'")
    paths = list(paths)
    outcomes = _hashlab.hash_paths(
        [os.fsencode(p) for p in paths],
        algorithm,
        threads=threads,
        key=key,
        length=length,
        backend=backend,
        customization=customization,
    )
    digests = []
    for path, (hex_digest, _size, errno_number, message) in zip(paths, outcomes):
        if hex_digest is not None:
            digests.append(hex_digest)
            continue
        error = _file_error(path, errno_number, message)
        if errors == "raise":
            raise error
        digests.append(error)
    return digests
