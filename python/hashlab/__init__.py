"""hashlab: hash functions, benchmarks and file integrity on one Rust core.

    >>> import hashlab
    >>> hashlab.new("blake3", b"abc").hexdigest()
    '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85'

A drop-in for hashlib (``import hashlab as hashlib``): ``new``, a constructor
per algorithm under its hashlib name (``sha256()``, ``sha3_256()``,
``shake_128()``, ``blake2b(digest_size=, key=)``, and for those hashlib lacks
the name with ``-`` as ``_``: ``blake3()``, ``xxh3_64()``),
``algorithms_guaranteed``, ``algorithms_available``, ``file_digest``,
``pbkdf2_hmac`` and ``scrypt``. The objects have ``update``, ``digest``,
``hexdigest`` (a length for extendable outputs), ``copy``, ``name``,
``digest_size`` and ``block_size``; any C-contiguous buffer is hashed in
place, and inputs of 2 KiB or more are hashed with the GIL released.
hashlab's own keywords stay: ``key=``, ``length=``, ``backend=``,
``customization=``. One-shot functions skip the object, as xxhash's do:
``digest(name, data)``, ``hexdigest(name, data)`` and per algorithm
``sha256_digest(data)``, ``xxh3_64_hexdigest(data)``, ``xxh3_64_intdigest(data)``
(where the digest is a number). ``hash_file`` and ``hash_files`` read files as ``hashlab
sum`` does; ``bench`` measures as ``hashlab bench --json`` does, and
``bench(like=PATH)`` as ``hashlab bench --like PATH --format json``.
``compare_store(directory, "s3://bucket/prefix")`` checks a tree against the
checksums its store recorded, as ``hashlab audit DIR URL`` does.
``hashlab.dask`` checks trees on a Dask cluster.
"""

import os

from hashlab._hashlab import (
    Hash,
    __version__,
    algorithm_info,
    algorithms_available,
    algorithms_guaranteed,
    bench,
    compare,
    digest,
    hexdigest,
    new,
    scrypt,
)
from hashlab import _hashlab
from hashlab._compat import (
    blake2_constructor as _blake2_constructor,
    file_digest,
    get_builtin_constructor as _get_builtin_constructor,
    pbkdf2_hmac,
)
from hashlab._manifest import AuditReport, Manifest, Partition, Stamp, UpdateReport
from hashlab._store import StoreComparison, compare_store

__all__ = [
    "AuditReport",
    "Hash",
    "Manifest",
    "Partition",
    "Stamp",
    "StoreComparison",
    "UpdateReport",
    "__version__",
    "algorithm_info",
    "algorithms_available",
    "algorithms_guaranteed",
    "bench",
    "compare",
    "compare_store",
    "digest",
    "file_digest",
    "hash_file",
    "hash_files",
    "hexdigest",
    "new",
    "pbkdf2_hmac",
    "scrypt",
]

_PARAMETERIZED = {}


def _new_with_hashlib_keywords(name, data, unexpected, kwargs):
    """``new()`` given ``unexpected``, a keyword hashlab's core does not
    read: hashlib's BLAKE2 keywords (``digest_size``, ``person``, ...), which
    hashlib.new passes on to ``blake2b()``/``blake2s()``, or a mistake."""
    special = _PARAMETERIZED.get(algorithm_info(name)["python_name"]) if isinstance(name, str) else None
    if special is None:
        raise TypeError(f"new() got an unexpected keyword argument {unexpected!r}")
    return special(b"" if data is None else data, **kwargs)


# One constructor and one-shot functions per algorithm of the registry, made
# from its list, so an algorithm added to the catalog gets them with no edit
# of this package. They are the extension's, so a call costs no Python frame.
for _name, _function in _hashlab.named_functions():
    globals()[_name] = _function
    __all__.append(_name)
for _python_name, _canonical in _hashlab.python_names:
    if _python_name not in globals():
        # Those with a salt (BLAKE2): hashlib's signature, digest_size, key,
        # salt, person and the tree parameters.
        globals()[_python_name] = _PARAMETERIZED[_python_name] = _blake2_constructor(_python_name, _canonical)
        __all__.append(_python_name)
del _name, _function, _python_name, _canonical

# hashlib's private lookup of its non-OpenSSL constructors, which code and
# CPython's test_hashlib reach for: here every constructor is hashlab's.
globals()["__builtin_constructor_cache"] = {}
globals()["__get_builtin_constructor"] = _get_builtin_constructor(globals())


class _ReadError(OSError):
    """A failure the system gave no errno for (the file changed while it
    was read). OSError prints ``[Errno None] None: 'name'`` for an error with
    a file name and no errno; this one prints the name and what happened."""

    def __str__(self):
        return f"{self.filename}: {self.strerror}"


def _file_error(path, errno_number, message):
    """The OSError a failed read becomes: the errno's subclass
    (FileNotFoundError, IsADirectoryError, ...) when the system gave one."""
    name = os.fsdecode(path)
    if errno_number is not None:
        return OSError(errno_number, message, name)
    error = _ReadError(f"{name}: {message}")
    error.strerror = message
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
