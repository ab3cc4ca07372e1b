#!/usr/bin/env python3
"""hashlab's Python harness: speaks PROTOCOL.md (beside this directory) on
stdin/stdout. Standard library only; `blake3` and `xxhash` are used when they
import.

Every answer is one line on stdout, flushed at once; nothing else goes to
stdout. A request that cannot be served answers `error\t<message>` and the
harness keeps going. It exits 0 on EOF or `quit`.

What is timed is the usual idiom, one complete one-shot digest per message:
`hashlib.sha256(m).digest()` (the named constructor, looked up once per cell),
`zlib.crc32(m)`, `blake3.blake3(m).digest()`, `xxhash.xxh3_64_digest(m)`.
"""

import sys
import time
import zlib
import hashlib
import platform
from functools import partial

# ---------------------------------------------------------------------------
# Libraries and their algorithms.
#
# Each entry maps a hashlab algorithm name to (kind, function):
#   "obj"   f(m).digest() is the digest (hashlib, blake3, xxhash objects)
#   "bytes" f(m) is the digest (xxhash's one-shot *_digest functions)
#   "crc"   f(m) is an unsigned 32-bit int; its digest is the big-endian 4 bytes
# ---------------------------------------------------------------------------

LIB_HASHLIB = b"python hashlib"
LIB_ZLIB = b"python zlib"
LIB_BLAKE3 = b"python blake3"
LIB_XXHASH = b"python xxhash"
LIB_HARNESS = b"python harness"

# Probe every function on an empty message once: a constructor that exists
# but is refused (FIPS mode, a missing OpenSSL digest) is not offered.
def _works(kind, f):
    try:
        if kind == "obj":
            f(b"").digest()
        else:
            f(b"")
        return True
    except Exception:  # noqa: BLE001 - anything refused is simply not offered
        return False


def _hashlib_table():
    table = {}
    named = [
        ("md5", "md5"),
        ("sha1", "sha1"),
        ("sha224", "sha224"),
        ("sha256", "sha256"),
        ("sha384", "sha384"),
        ("sha512", "sha512"),
        ("sha3-224", "sha3_224"),
        ("sha3-256", "sha3_256"),
        ("sha3-384", "sha3_384"),
        ("sha3-512", "sha3_512"),
        ("blake2b", "blake2b"),  # default digest_size 64: BLAKE2b-512
        ("blake2s", "blake2s"),  # default digest_size 32: BLAKE2s-256
    ]
    for algorithm, attr in named:
        f = getattr(hashlib, attr, None)
        if f is not None and _works("obj", f):
            table[algorithm] = ("obj", f)
    # SHA-512/224 and SHA-512/256 have no named constructor: hashlib.new is
    # the idiom there (bound to its name once, so the loop is still f(m)).
    for algorithm, name in (("sha512-224", "sha512_224"), ("sha512-256", "sha512_256")):
        f = partial(hashlib.new, name)
        if _works("obj", f):
            table[algorithm] = ("obj", f)
    return table


LIBRARIES = {}  # label -> {algorithm: (kind, f)}
ABSENT = []  # (label, reason)
VERSIONS = []  # extra "name version" strings for hello

LIBRARIES[LIB_HASHLIB] = _hashlib_table()
LIBRARIES[LIB_ZLIB] = {"crc32": ("crc", zlib.crc32)}

try:
    import blake3 as _blake3

    _t = {}
    if _works("obj", _blake3.blake3):
        _t["blake3"] = ("obj", _blake3.blake3)
    LIBRARIES[LIB_BLAKE3] = _t
    VERSIONS.append("blake3 " + str(getattr(_blake3, "__version__", "unknown")))
except Exception as e:  # noqa: BLE001 - ImportError, or a broken install
    ABSENT.append((LIB_BLAKE3, str(e)))

try:
    import xxhash as _xxhash

    _t = {}
    for algorithm, oneshot, cls in (
        ("xxh32", "xxh32_digest", "xxh32"),
        ("xxh64", "xxh64_digest", "xxh64"),
        ("xxh3-64", "xxh3_64_digest", "xxh3_64"),
        ("xxh3-128", "xxh3_128_digest", "xxh3_128"),
    ):
        # The one-shot *_digest functions (xxhash >= 2) give the canonical
        # big-endian bytes; older releases only have the objects.
        f = getattr(_xxhash, oneshot, None)
        if f is not None and _works("bytes", f):
            _t[algorithm] = ("bytes", f)
            continue
        f = getattr(_xxhash, cls, None)
        if f is not None and _works("obj", f):
            _t[algorithm] = ("obj", f)
    LIBRARIES[LIB_XXHASH] = _t
    _v = "xxhash " + str(getattr(_xxhash, "VERSION", getattr(_xxhash, "__version__", "unknown")))
    if getattr(_xxhash, "XXHASH_VERSION", None):
        _v += " (libxxhash %s)" % _xxhash.XXHASH_VERSION
    VERSIONS.append(_v)
except Exception as e:  # noqa: BLE001
    ABSENT.append((LIB_XXHASH, str(e)))


def _hashlib_backend():
    try:
        import _hashlib  # noqa: F401 - hashlib's OpenSSL binding
    except Exception:  # noqa: BLE001
        return "hashlib builtin"
    try:
        import ssl

        return "hashlib " + ssl.OPENSSL_VERSION
    except Exception:  # noqa: BLE001
        return "hashlib OpenSSL"


def version():
    impl = platform.python_implementation()
    name = "Python" if impl == "CPython" else impl + " Python"
    parts = [_hashlib_backend()] + VERSIONS
    return "%s %s (%s)" % (name, platform.python_version(), "; ".join(parts))


# ---------------------------------------------------------------------------
# Hashing and timing.
# ---------------------------------------------------------------------------

def one_digest(kind, f, m):
    if kind == "obj":
        return f(m).digest()
    if kind == "bytes":
        return f(m)
    if kind == "crc":
        return f(m).to_bytes(4, "big")
    if kind == "null":
        return b""
    raise ValueError("unknown kind")


# CPython removes no call whose result is unused, so the loops keep no
# running sink (an XOR per message costs ~100 ns here, as much as a 64-byte
# hash): every message is the same, so the XOR of the first bytes of `batch`
# equal digests is the last digest's first byte when `batch` is odd, else 0.

def _sink(first, batch):
    return first if batch & 1 else 0


def time_obj(f, m, batch):
    r = range(batch)
    d = b"\0"
    t0 = time.perf_counter_ns()
    for _ in r:
        d = f(m).digest()
    t1 = time.perf_counter_ns()
    return t1 - t0, _sink(d[0], batch)


def time_bytes(f, m, batch):
    r = range(batch)
    d = b"\0"
    t0 = time.perf_counter_ns()
    for _ in r:
        d = f(m)
    t1 = time.perf_counter_ns()
    return t1 - t0, _sink(d[0], batch)


def time_crc(f, m, batch):
    # The first byte of the big-endian digest is the top byte of the value.
    r = range(batch)
    v = 0
    t0 = time.perf_counter_ns()
    for _ in r:
        v = f(m)
    t1 = time.perf_counter_ns()
    return t1 - t0, _sink(v >> 24, batch)


def time_null(f, m, batch):
    # What the loop costs without a hash: one call of a builtin on the
    # message (its length), as each hash row makes one call per message.
    r = range(batch)
    n = 0
    t0 = time.perf_counter_ns()
    for _ in r:
        n = len(m)
    t1 = time.perf_counter_ns()
    first = (m[0] ^ m[-1]) if n else 0
    return t1 - t0, _sink(first, batch)


TIMERS = {"obj": time_obj, "bytes": time_bytes, "crc": time_crc, "null": time_null}

# One period of the message pattern: byte i = (i * 7 + 1) & 0xff repeats every 256.
_PERIOD = bytes(((i * 7 + 1) & 0xFF) for i in range(256))


def message(size):
    reps = size // 256 + 1
    return (_PERIOD * reps)[:size]


def lookup(algorithm, library):
    """(kind, f) for an offered pair, or raises ValueError."""
    if library == LIB_HARNESS:
        if algorithm == "null":
            return ("null", None)
        raise ValueError("python harness offers only null, not %s" % algorithm)
    table = LIBRARIES.get(library)
    if table is None:
        for label, reason in ABSENT:
            if label == library:
                raise ValueError("%s is absent: %s" % (library.decode("utf-8", "replace"), reason))
        raise ValueError("unknown library %s" % library.decode("utf-8", "replace"))
    entry = table.get(algorithm)
    if entry is None:
        raise ValueError("%s does not offer %s" % (library.decode("utf-8", "replace"), algorithm))
    return entry


def parse_int(field, what, minimum=0):
    try:
        text = field.decode("ascii")
        if not text or not (text.isdigit() or (text[0] == "-" and text[1:].isdigit())):
            raise ValueError
        value = int(text)
    except (ValueError, UnicodeDecodeError):
        raise ValueError("bad %s: %r" % (what, field.decode("utf-8", "replace")))
    if value < minimum:
        raise ValueError("bad %s: %d" % (what, value))
    return value


def parse_hex(field):
    try:
        return bytes.fromhex(field.decode("ascii"))
    except (ValueError, UnicodeDecodeError):
        raise ValueError("bad hex message")


# ---------------------------------------------------------------------------
# The request loop.
# ---------------------------------------------------------------------------

def clean(text):
    """A message fit for one TAB-separated field of one line."""
    return " ".join(str(text).replace("\t", " ").split())


def offers_lines():
    lines = []
    for label, table in LIBRARIES.items():
        for algorithm in table:
            lines.append(b"offer\t" + algorithm.encode() + b"\t" + label)
    lines.append(b"offer\tnull\t" + LIB_HARNESS)
    for label, reason in ABSENT:
        lines.append(b"absent\t" + label + b"\t" + clean(reason).encode("utf-8", "replace"))
    lines.append(b"end")
    return b"\n".join(lines)


def handle(fields, cells):
    """The answer line (bytes, without newline) to one request."""
    request = fields[0]
    if request == b"hello":
        return b"hello\t" + clean(version()).encode("utf-8", "replace")
    if request == b"offers":
        return offers_lines()
    if request == b"digest":
        if len(fields) != 4:
            raise ValueError("digest wants: digest<TAB>algorithm<TAB>library<TAB>hex")
        algorithm = fields[1].decode("utf-8", "replace")
        kind, f = lookup(algorithm, fields[2])
        m = parse_hex(fields[3])
        if kind == "null":
            raise ValueError("null has no digest")
        return b"digest\t" + one_digest(kind, f, m).hex().encode()
    if request == b"prepare":
        if len(fields) != 5:
            raise ValueError("prepare wants: prepare<TAB>cell<TAB>algorithm<TAB>library<TAB>size")
        cell = parse_int(fields[1], "cell")
        algorithm = fields[2].decode("utf-8", "replace")
        kind, f = lookup(algorithm, fields[3])
        size = parse_int(fields[4], "size")
        cells.pop(cell, None)  # free the old message before allocating the new
        cells[cell] = (TIMERS[kind], f, message(size))
        return b"ok"
    if request == b"time":
        if len(fields) != 3:
            raise ValueError("time wants: time<TAB>cell<TAB>batch")
        cell = parse_int(fields[1], "cell")
        batch = parse_int(fields[2], "batch")
        entry = cells.get(cell)
        if entry is None:
            raise ValueError("cell %d is not prepared" % cell)
        timer, f, m = entry
        elapsed, sink = timer(f, m, batch)
        return b"ns\t%d\t%d" % (elapsed, sink)
    return b"error\tunknown request"


def write_all(out, data):
    # Under `python -u` (or PYTHONUNBUFFERED) stdout.buffer is the raw FileIO,
    # whose write may take only part of a large answer.
    view = memoryview(data)
    while view:
        n = out.write(view)
        view = view[n or 0:]
    out.flush()


def main():
    readline = sys.stdin.buffer.readline
    out = sys.stdout.buffer
    cells = {}
    while True:
        line = readline()
        if not line:
            break
        line = line.rstrip(b"\r\n")
        fields = line.split(b"\t")
        if fields[0] == b"quit":
            break
        try:
            answer = handle(fields, cells)
        except MemoryError:
            answer = b"error\tout of memory"
        except Exception as e:  # noqa: BLE001 - never crash on a request
            answer = b"error\t" + (clean(e) or type(e).__name__).encode("utf-8", "replace")
        try:
            write_all(out, answer + b"\n")
        except BrokenPipeError:
            break
    return 0


if __name__ == "__main__":
    try:
        code = main()
    except KeyboardInterrupt:
        code = 130
    try:
        sys.stdout.flush()
    except Exception:  # noqa: BLE001 - a closed pipe at exit is not our failure
        pass
    sys.exit(code)
