"""hashlab.new and the hash objects: every algorithm against the oracles that
compute it (hashlib, hmac, pycryptodome, xxhash, blake3), every algorithm
against the CLI, buffers, the GIL, errors."""

import array
import hashlib
import hmac
import json
import mmap
import os
import random
import resource
import subprocess
import threading
import time

import numpy as np
import pytest
import xxhash
import blake3 as blake3_pypi
from Crypto.Hash import KMAC128, KMAC256, KangarooTwelve, TurboSHAKE128, TurboSHAKE256

import hashlab

# Lengths around block boundaries and around the 2 KiB GIL threshold.
LENGTHS = [0, 1, 63, 64, 65, 127, 128, 1000, 2047, 2048, 2049, 100_003, (1 << 20) + 5]


def message(length, seed=0):
    return random.Random(length * 7919 + seed).randbytes(length)


KEY32 = bytes(range(32))


def hashlib_hex(name, **kw):
    def compute(data):
        try:
            h = hashlib.new(name, data)
        except ValueError:
            if os.environ.get("HASHLAB_CI"):
                pytest.fail(f"HASHLAB_CI is set and this Python's hashlib has no {name}")
            pytest.skip(f"this Python's hashlib has no {name}")
        return h.hexdigest(**kw)

    return compute


# (hashlab name, hashlab.new keyword arguments, oracle: bytes -> hex)
ORACLES = [
    ("md5", {}, hashlib_hex("md5")),
    ("sha1", {}, hashlib_hex("sha1")),
    ("sha224", {}, hashlib_hex("sha224")),
    ("sha256", {}, hashlib_hex("sha256")),
    ("sha384", {}, hashlib_hex("sha384")),
    ("sha512", {}, hashlib_hex("sha512")),
    ("sha512-224", {}, hashlib_hex("sha512_224")),
    ("sha512-256", {}, hashlib_hex("sha512_256")),
    ("sha3-224", {}, hashlib_hex("sha3_224")),
    ("sha3-256", {}, hashlib_hex("sha3_256")),
    ("sha3-384", {}, hashlib_hex("sha3_384")),
    ("sha3-512", {}, hashlib_hex("sha3_512")),
    ("shake128", {}, lambda d: hashlib.shake_128(d).hexdigest(32)),
    ("shake128", {"length": 100}, lambda d: hashlib.shake_128(d).hexdigest(100)),
    ("shake256", {}, lambda d: hashlib.shake_256(d).hexdigest(64)),
    ("shake256", {"length": 7}, lambda d: hashlib.shake_256(d).hexdigest(7)),
    ("blake2b", {}, lambda d: hashlib.blake2b(d).hexdigest()),
    ("blake2b", {"length": 20, "key": b"secret"}, lambda d: hashlib.blake2b(d, digest_size=20, key=b"secret").hexdigest()),
    ("blake2s", {}, lambda d: hashlib.blake2s(d).hexdigest()),
    ("blake2s", {"length": 16, "key": KEY32}, lambda d: hashlib.blake2s(d, digest_size=16, key=KEY32).hexdigest()),
    ("blake3", {}, lambda d: blake3_pypi.blake3(d).hexdigest()),
    ("blake3", {"key": KEY32, "length": 131}, lambda d: blake3_pypi.blake3(d, key=KEY32).hexdigest(length=131)),
    ("k12", {}, lambda d: KangarooTwelve.new(data=d).read(32).hex()),
    ("k12", {"customization": b"ctx", "length": 70}, lambda d: KangarooTwelve.new(data=d, custom=b"ctx").read(70).hex()),
    ("turboshake128", {}, lambda d: TurboSHAKE128.new(data=d).read(32).hex()),
    ("turboshake256", {"length": 99}, lambda d: TurboSHAKE256.new(data=d).read(99).hex()),
    ("kmac128", {"key": b"k" * 40}, lambda d: KMAC128.new(key=b"k" * 40, data=d, mac_len=32).hexdigest()),
    (
        "kmac256",
        {"key": KEY32, "customization": b"app", "length": 48},
        lambda d: KMAC256.new(key=KEY32, data=d, mac_len=48, custom=b"app").hexdigest(),
    ),
    ("hmac-sha256", {"key": b"key"}, lambda d: hmac.new(b"key", d, "sha256").hexdigest()),
    ("hmac-sha256", {}, lambda d: hmac.new(bytes(32), d, "sha256").hexdigest()),
    ("hmac-sha512", {"key": b"k" * 200}, lambda d: hmac.new(b"k" * 200, d, "sha512").hexdigest()),
    ("xxh32", {}, lambda d: xxhash.xxh32(d).hexdigest()),
    ("xxh64", {}, lambda d: xxhash.xxh64(d).hexdigest()),
    ("xxh3-64", {}, lambda d: xxhash.xxh3_64(d).hexdigest()),
    ("xxh3-128", {}, lambda d: xxhash.xxh3_128(d).hexdigest()),
]


@pytest.mark.parametrize("name,kwargs,oracle", ORACLES, ids=lambda v: v if isinstance(v, str) else None)
def test_algorithms_match_their_oracles(name, kwargs, oracle):
    for length in LENGTHS:
        data = message(length)
        assert hashlab.new(name, data, **kwargs).hexdigest() == oracle(data), (name, kwargs, length)


@pytest.mark.parametrize("name,kwargs,oracle", ORACLES[::4], ids=lambda v: v if isinstance(v, str) else None)
def test_every_backend_matches_the_oracle(name, kwargs, oracle):
    data = message(70_001)
    for backend, available in hashlab.algorithm_info(name)["backends"]:
        if not available:
            continue
        try:
            h = hashlab.new(name, data, backend=backend, **kwargs)
        except ValueError as e:
            # A backend may lack keys or output lengths; it must say so, not compute something else.
            assert backend in str(e) and "support" in str(e), e
            continue
        assert h.backend == backend
        assert h.hexdigest() == oracle(data), (name, backend)


def test_published_answers_for_algorithms_without_an_oracle_package():
    # CRC-32C check value (Castagnoli): the CRC catalogue's "check" over "123456789".
    assert hashlab.new("crc32c", b"123456789").hexdigest() == "e3069283"
    # SipHash-2-4 reference vectors (Aumasson & Bernstein, vectors.h): key
    # 00..0f, messages 00..(n-1); the output bytes as the paper lists them.
    key = bytes(range(16))
    assert hashlab.new("siphash-2-4", b"", key=key).hexdigest() == "310e0edd47db6f72"
    assert hashlab.new("siphash-2-4", bytes(range(15)), key=key).hexdigest() == "e545be4961ca29a1"


def test_every_algorithm_agrees_with_the_cli(tmp_path, hashlab_bin):
    """Same core, different plumbing: the module, hash_file and `hashlab sum`
    must agree for every algorithm the CLI lists (including those no package
    computes)."""
    data = message(300_007)
    path = tmp_path / "data.bin"
    path.write_bytes(data)
    listed = json.loads(
        subprocess.run([hashlab_bin, "list", "--json"], check=True, capture_output=True, text=True).stdout
    )
    assert {hashlab.algorithm_info(n)["name"] for n in hashlab.algorithms_available} == {a["name"] for a in listed}
    for entry in sorted(listed, key=lambda a: a["name"]):
        name = entry["name"]
        # --tag: every algorithm's digest in hex, whatever its usual line
        # (crc32-posix prints a decimal cksum line without it).
        run = subprocess.run([hashlab_bin, "sum", "--tag", "-a", name, str(path)], capture_output=True, text=True)
        streamed = hashlab.new(name)
        for start in range(0, len(data), 4099):
            streamed.update(data[start : start + 4099])
        if not entry["stable"]:
            # Measured, never written to a manifest: sum says why in one line.
            assert run.returncode == 2 and "not stable" in run.stderr and run.stderr.count("\n") == 1, run.stderr
            assert hashlab.new(name, data).hexdigest() == streamed.hexdigest(), name
            continue
        assert run.returncode == 0, run.stderr
        cli = run.stdout.strip().rsplit(" = ", 1)[1]
        assert hashlab.new(name, data).hexdigest() == cli, name
        assert streamed.hexdigest() == cli, name
        assert hashlab.hash_file(path, name) == cli, name


class Subclass(bytes):
    pass


def test_one_shot_functions_equal_the_objects_for_every_algorithm():
    """hashlab.digest/hexdigest and the per-algorithm one-shot functions give
    new(name, data).digest() for every algorithm, short and long, and the
    integer form where the digest is a number (xxhash's intdigest)."""
    for python_name in sorted(hashlab.algorithms_available):
        # 70,000 bytes: past the size hashed with the GIL released.
        for data in (b"", b"abc", message(255), message(257), message(5000), message(70_000)):
            if python_name in ("shake_128", "shake_256"):
                # hashlib's names: the length is required, as by digest().
                with pytest.raises(TypeError, match="length"):
                    hashlab.digest(python_name, data)
                assert hashlab.digest(python_name, data, length=7) == hashlab.new(python_name, data).digest(7)
                continue
            expected = hashlab.new(python_name, data).digest()
            assert hashlab.digest(python_name, data) == expected, python_name
            assert hashlab.hexdigest(python_name, data) == expected.hex(), python_name
            assert getattr(hashlab, f"{python_name}_digest")(data) == expected, python_name
            # An exact bytes object takes a quick path; a memoryview or a
            # subclass of bytes, the general one: the same answer.
            hexdigest = getattr(hashlab, f"{python_name}_hexdigest")
            assert hexdigest(data) == hexdigest(memoryview(data)) == expected.hex(), python_name
            assert getattr(hashlab, f"{python_name}_digest")(Subclass(data)) == expected
            intdigest = getattr(hashlab, f"{python_name}_intdigest", None)
            if intdigest is not None:
                assert intdigest(data) == int.from_bytes(expected, "big"), python_name
                assert intdigest(bytearray(data)) == int.from_bytes(expected, "big"), python_name
    # The digests that are numbers (xxHash's canonical form, the CRCs) have one.
    for python_name in ("xxh32", "xxh64", "xxh3_64", "xxh3_128", "crc32", "crc32c", "crc64nvme"):
        assert callable(getattr(hashlab, f"{python_name}_intdigest")), python_name
    assert not hasattr(hashlab, "sha256_intdigest")
    data = message(1000)
    for seed in (0, 1, 2**64 - 1):
        assert hashlab.xxh3_64_intdigest(data, seed=seed) == xxhash.xxh3_64_intdigest(data, seed=seed)
        assert hashlab.xxh3_128_intdigest(data, seed=seed) == xxhash.xxh3_128_intdigest(data, seed=seed)
        assert hashlab.xxh64_hexdigest(data, seed=seed) == xxhash.xxh64_hexdigest(data, seed=seed)
        assert hashlab.xxh32_intdigest(data, seed=seed % 2**32) == xxhash.xxh32_intdigest(data, seed=seed % 2**32)
    assert hashlab.sha256_digest(data) == hashlib.sha256(data).digest()
    assert hashlab.digest("blake2b", data, length=20) == hashlib.blake2b(data, digest_size=20).digest()
    with pytest.raises(TypeError, match="exactly 1 positional"):
        hashlab.sha256_digest()
    with pytest.raises(TypeError):
        hashlab.sha256_digest("text")
    with pytest.raises(ValueError, match="unsupported hash type nope"):
        hashlab.digest("nope", b"")
    with pytest.raises(TypeError, match="unexpected keyword argument 'nonesuch'"):
        hashlab.digest("sha256", b"", nonesuch=1)


def test_one_shot_functions_take_arguments_as_python_functions_do():
    """The one-shot functions are C functions called with the arguments in
    an array: every way Python passes them (keywords, None as absent, a
    partial, map, a bound call through an object) gives the same answer, and
    a wrong call is the TypeError of a Python function."""
    import functools

    data = message(300)
    expected = xxhash.xxh3_64_intdigest(data, seed=7)
    f = hashlab.xxh3_64_intdigest
    assert f.__name__ == "xxh3_64_intdigest"
    assert f(data, seed=7) == expected
    assert f(data, seed=None) == f(data) == xxhash.xxh3_64_intdigest(data)
    assert functools.partial(f, seed=7)(data) == expected
    assert list(map(f, [data, b""])) == [f(data), xxhash.xxh3_64_intdigest(b"")]
    assert f(bytearray(data)) == f(memoryview(data)) == f(data)

    class Holder:
        run = staticmethod(f)

    assert Holder().run(data) == f(data)
    # The function's state is an object of its own type, made only here.
    with pytest.raises(TypeError, match="cannot create 'hashlab.FunctionState' instances"):
        type(f.__self__)()
    with pytest.raises(TypeError, match=r"exactly 1 positional argument, data \(2 given\)"):
        f(data, data)
    with pytest.raises(TypeError, match=r"\(0 given\)"):
        f(data=data)
    with pytest.raises(TypeError, match="unexpected keyword argument 'sead'"):
        f(data, sead=1)
    with pytest.raises(TypeError, match="encoded before hashing"):
        f("text")
    with pytest.raises(TypeError, match="bytes-like"):
        f(5)


def test_short_and_streaming_objects_agree_and_recycled_states_start_clean():
    """Objects hold up to 256 bytes before building a streaming state, and
    dropped objects leave theirs for the next: every way across that line,
    copies on either side of it, and states reused after any history give
    hashlib's digests."""
    data = message(2000)
    for name in ("sha256", "md5", "sha3_256", "blake2s", "shake_128"):
        reference = hashlib.new(name)
        ours = hashlab.new(name)
        pieces = [0, 1, 200, 55, 1, 300, 0, 700, 743]
        at = 0
        for n in pieces:
            ours.update(data[at : at + n])
            reference.update(data[at : at + n])
            at += n
            args = (9,) if name.startswith("shake") else ()
            assert ours.digest(*args) == reference.digest(*args), (name, at)
            twin = ours.copy()
            twin.update(b"x")
            assert ours.digest(*args) == reference.digest(*args), "a copy is independent"
        del ours, twin
        # The states left behind (mid-message when dropped) start clean.
        for size in (0, 3, 256, 257, 5000):
            objects = [hashlab.new(name) for _ in range(6)]
            for h in objects:
                h.update(data[:size])
            args = (9,) if name.startswith("shake") else ()
            for h in objects:
                assert h.digest(*args) == hashlib.new(name, data[:size]).digest(*args), (name, size)
            del objects


def test_named_constructors_take_hashlibs_arguments():
    assert hashlab.sha256(b"abc").digest() == hashlib.sha256(b"abc").digest()
    assert hashlab.sha256(data=b"abc").digest() == hashlib.sha256(b"abc").digest()
    assert hashlab.sha256(string=b"abc").digest() == hashlib.sha256(b"abc").digest()
    assert hashlab.sha256(b"abc", usedforsecurity=False).digest() == hashlib.sha256(b"abc").digest()
    assert hashlab.shake_128(b"abc").digest(5) == hashlib.shake_128(b"abc").digest(5)
    assert hashlab.sha256.__name__ == "sha256" and "hash object" in hashlab.sha256.__doc__
    assert hashlab.xxh3_64(b"abc", seed=3).digest() == xxhash.xxh3_64(b"abc", seed=3).digest()
    with pytest.raises(TypeError, match="at most 1 positional"):
        hashlab.sha256(b"a", b"b")
    with pytest.raises(TypeError, match="by name"):
        hashlab.sha256(b"a", data=b"b")
    with pytest.raises(TypeError, match="unexpected keyword argument 'nonesuch'"):
        hashlab.sha256(nonesuch=1)


def test_hash_objects_behave_like_hashlibs():
    h = hashlab.new("SHA-256")
    assert (h.name, h.digest_size, h.block_size) == ("sha256", 32, 64)
    assert hashlab.new("blake2b", length=20).digest_size == 20
    assert hashlab.new("sha3-256").block_size == hashlib.sha3_256().block_size
    h.update(b"ab")
    first = h.digest()
    assert h.digest() == first, "digest() must not end the hash"
    twin = h.copy()
    h.update(b"c")
    assert twin.hexdigest() == hashlib.sha256(b"ab").hexdigest()
    assert h.hexdigest() == hashlib.sha256(b"abc").hexdigest()
    assert isinstance(h.digest(), bytes) and h.digest().hex() == h.hexdigest()
    assert "sha256" in repr(h)
    assert hashlab.algorithms_available >= {"sha256", "blake3", "xxh3_64", "crc32c", "kmac256"}
    assert isinstance(hashlab.algorithms_available, frozenset)


def test_any_contiguous_buffer_is_hashed_as_its_bytes(tmp_path):
    raw = message(10_000)
    expect = hashlib.sha256(raw).hexdigest()
    floats = np.arange(1000, dtype=np.float64).reshape(10, 100)
    path = tmp_path / "m"
    path.write_bytes(raw)
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        assert hashlab.new("sha256", mapped).hexdigest() == expect
    for buffer in [
        raw,
        bytearray(raw),
        memoryview(raw),
        memoryview(bytearray(raw)),
        np.frombuffer(raw, dtype=np.uint8),
        np.frombuffer(raw, dtype=np.uint32),
        array.array("B", raw),
    ]:
        assert hashlab.new("sha256", buffer).hexdigest() == expect, type(buffer)
    # A contiguous slice of a view is its bytes; multi-dimensional C-ordered arrays too.
    assert hashlab.new("sha256", memoryview(raw)[100:200]).hexdigest() == hashlib.sha256(raw[100:200]).hexdigest()
    assert hashlab.new("sha256", floats).hexdigest() == hashlib.sha256(floats.tobytes()).hexdigest()
    assert hashlab.new("sha256", floats[2:5]).hexdigest() == hashlib.sha256(floats[2:5].tobytes()).hexdigest()
    assert hashlab.new("sha256", b"").hexdigest() == hashlib.sha256().hexdigest()
    assert hashlab.new("sha256", np.zeros(0)).hexdigest() == hashlib.sha256().hexdigest()


def test_strided_buffers_are_refused_not_hashed_in_memory_order():
    floats = np.arange(1000, dtype=np.float64).reshape(10, 100)
    for strided in [floats[:, ::2], np.asfortranarray(floats), memoryview(b"abcdef")[::2], floats.T]:
        with pytest.raises(ValueError, match="not C-contiguous"):
            hashlab.new("sha256", strided)
        with pytest.raises(ValueError, match="not C-contiguous"):
            hashlab.new("sha256").update(strided)


def test_large_buffers_are_not_copied():
    size = 256 << 20
    data = np.full(size, 7, dtype=np.uint8)  # every page written, so resident
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB, the peak so far
    hashlab.new("xxh3-64", data).digest()
    hashlab.new("sha256", memoryview(data)).digest()
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown < (32 << 10), f"peak memory grew by {grown} KiB hashing {size >> 20} MiB: a copy?"


def _while_hashing_in_a_thread(action, size=128 << 20, kind=bytearray):
    """Starts hashing `size` bytes with sha3-512 (about half a second) in a thread,
    runs `action` in this thread meanwhile, and returns action's result, how
    long before the other thread's update() returned the action finished, and
    the thread's digest."""
    data = kind(size)
    h = hashlab.new("sha3-512")
    stamps = {}

    def work():
        h.update(data)
        stamps["updated"] = time.perf_counter()

    worker = threading.Thread(target=work)
    worker.start()
    time.sleep(0.05)  # lets the worker reach update()
    result = action(data)
    acted = time.perf_counter()
    worker.join()
    return result, stamps["updated"] - acted, h.hexdigest(), data


@pytest.mark.parametrize("kind", [bytes, bytearray, lambda n: np.zeros(n, dtype=np.uint8)])
def test_the_gil_is_released_so_two_threads_hash_at_once(kind):
    """While one thread hashes 128 MiB, another thread's own hash of 8 MiB
    finishes well before the first one's update() returns. Holding the GIL,
    the second could not run until the first returned. Deterministic: it
    needs no speed-up, only that both ran at the same time; the speed-up is
    measured by scripts/bench-python.py (docs/python.md)."""
    small = message(8 << 20)
    other = hashlab.new("sha3-512")

    def hash_small(_):
        other.update(small)
        return other.hexdigest()

    digest, margin, big_digest, data = _while_hashing_in_a_thread(hash_small, kind=kind)
    assert digest == hashlib.sha3_512(small).hexdigest()
    assert big_digest == hashlib.sha3_512(data).hexdigest()
    assert margin > 0.05, f"the second hash ended only {margin * 1000:.1f} ms before the first: GIL held?"


def test_a_buffer_being_hashed_cannot_be_resized():
    def resize(data):
        with pytest.raises(BufferError):
            data.append(1)
        return True

    resized_refused, margin, digest, data = _while_hashing_in_a_thread(resize)
    assert resized_refused and margin > 0.05
    assert digest == hashlib.sha3_512(data).hexdigest()


def test_one_object_updated_from_two_threads_takes_turns():
    h = hashlab.new("sha256")
    chunk = bytes(4 << 20)
    threads = [threading.Thread(target=lambda: [h.update(chunk) for _ in range(8)]) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert h.hexdigest() == hashlib.sha256(chunk * 16).hexdigest()


@pytest.mark.parametrize("name", ["sha256", "xxh3_64"])
def test_small_calls_wait_for_an_update_hashing_without_the_gil(name):
    """Two threads feed one object large chunks (hashed without the GIL)
    while a third feeds it small ones and asks for digests and copies: each
    call must wait its turn, so the result is the hash of all the input.
    Every piece is zeros, so any interleaving gives the same message."""
    h = hashlab.new(name)
    big, small = bytes(4 << 20), bytes(300)
    seen = []

    def small_calls():
        for _ in range(400):
            h.update(small)
            seen.append(h.copy().digest() == h.digest())

    threads = [threading.Thread(target=lambda: [h.update(big) for _ in range(6)]) for _ in range(2)]
    threads.append(threading.Thread(target=small_calls))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    expected = hashlab.new(name, bytes(12 * len(big) + 400 * len(small))).digest()
    assert h.digest() == expected and all(seen) and len(seen) == 400


def test_errors_are_python_exceptions():
    cases = [
        (ValueError, "unknown algorithm", lambda: hashlab.new("sha-257")),
        (ValueError, "did you mean", lambda: hashlab.new("blake")),
        (TypeError, "strings must be encoded", lambda: hashlab.new("sha256", "text")),
        (TypeError, "bytes-like object is required", lambda: hashlab.new("sha256", 12)),
        (TypeError, "bytes-like object is required", lambda: hashlab.new("sha256").update(None)),
        (TypeError, "bytes-like object is required", lambda: hashlab.new("blake3", key=42)),
        (TypeError, "an int is required", lambda: hashlab.new("blake3", length="32")),
        (ValueError, "not a number of bytes", lambda: hashlab.new("blake3", length=-1)),
        (ValueError, "not a number of bytes", lambda: hashlab.new("blake3", length=1 << 70)),
        (ValueError, "length= is not accepted", lambda: hashlab.new("sha256", length=16)),
        (ValueError, "takes no key", lambda: hashlab.new("sha256", key=b"k")),
        (ValueError, "key", lambda: hashlab.new("blake3", key=b"short")),
        (ValueError, "output", lambda: hashlab.new("blake2b", length=65)),
        (ValueError, "customization", lambda: hashlab.new("sha256", customization=b"c")),
        (ValueError, "backend", lambda: hashlab.new("sha256", backend="nonesuch")),
        (ValueError, "NUL", lambda: hashlab.new("sha256\0openssl")),
        (TypeError, "name", lambda: hashlab.new(b"sha256")),
        (TypeError, "missing 1 required", lambda: hashlab.new()),
        (TypeError, "unexpected keyword argument 'nonesuch'", lambda: hashlab.new("sha256", nonesuch=None)),
        (TypeError, "unexpected keyword argument 'digest_size'", lambda: hashlab.new("sha256", digest_size=16)),
        (TypeError, "argument 'seed': 'str' object", lambda: hashlab.new("xxh3-64", seed="1")),
        (TypeError, "argument 'backend'", lambda: hashlab.new("sha256", backend=1)),
        (ValueError, "threads", lambda: hashlab.hash_files([__file__], threads=0)),
        (ValueError, "limit of 1024", lambda: hashlab.hash_files([__file__], threads=10**6)),
        (ValueError, "errors", lambda: hashlab.hash_files([__file__], errors="ignore")),
        (ValueError, "unknown algorithm", lambda: hashlab.hash_file(__file__, "nope")),
        (ValueError, "unknown algorithm", lambda: hashlab.algorithm_info("nope")),
    ]
    for kind, text, call in cases:
        with pytest.raises(kind, match=text):
            call()


def test_hash_file_and_hash_files(tmp_path):
    paths = []
    for i, size in enumerate([0, 1, 5000, 3 << 20, 5 << 20, 100]):
        p = tmp_path / f"f{i}"
        p.write_bytes(message(size, seed=i))
        paths.append(p)
    expect = [hashlib.sha256(p.read_bytes()).hexdigest() for p in paths]
    assert [hashlab.hash_file(p) for p in paths] == expect
    assert hashlab.hash_files(paths) == expect
    assert hashlab.hash_files([str(p) for p in paths], "sha256", threads=3) == expect
    assert hashlab.hash_files([bytes(p) for p in paths], threads=1) == expect
    assert hashlab.hash_files([]) == []
    for read_ahead in (True, False, None):
        outcomes = hashlab._hashlab.hash_paths([bytes(p) for p in paths], "sha256", threads=1, read_ahead=read_ahead)
        assert [o[0] for o in outcomes] == expect and [o[1] for o in outcomes] == [p.stat().st_size for p in paths]
    assert hashlab.hash_file(paths[2], "blake2b", length=16, key=b"k") == hashlib.blake2b(
        paths[2].read_bytes(), digest_size=16, key=b"k"
    ).hexdigest()
    # Errors name the file and keep the errno's subclass; order is kept.
    missing = tmp_path / "missing"
    with pytest.raises(FileNotFoundError) as caught:
        hashlab.hash_file(missing)
    assert caught.value.filename == str(missing)
    with pytest.raises(IsADirectoryError):
        hashlab.hash_file(tmp_path)
    with pytest.raises(FileNotFoundError):
        hashlab.hash_files([paths[0], missing, paths[1]])
    mixed = hashlab.hash_files([paths[0], missing, tmp_path, paths[1]], threads=2, errors="return")
    assert mixed[0] == expect[0] and mixed[3] == expect[1]
    assert isinstance(mixed[1], FileNotFoundError) and isinstance(mixed[2], IsADirectoryError)


def test_non_utf8_file_names(tmp_path):
    name = bytes(tmp_path) + b"/caf\xe9"
    with open(name, "wb") as f:
        f.write(b"latin-1 name")
    assert hashlab.hash_file(name) == hashlib.sha256(b"latin-1 name").hexdigest()
    assert hashlab.hash_files([name.decode(errors="surrogateescape")]) == [hashlib.sha256(b"latin-1 name").hexdigest()]


def test_a_read_error_without_errno_says_what_happened():
    # A file truncated while read fails with no errno; OSError printed it
    # as "[Errno None] None: 'v.bin'".
    error = hashlab._file_error(b"v.bin", None, "changed while it was being read: it shrank")
    assert isinstance(error, OSError)
    assert error.errno is None
    assert error.filename == "v.bin"
    assert error.strerror == "changed while it was being read: it shrank"
    assert str(error) == "v.bin: changed while it was being read: it shrank"
    with_errno = hashlab._file_error(b"v.bin", 2, "No such file or directory")
    assert isinstance(with_errno, FileNotFoundError)
    assert str(with_errno) == "[Errno 2] No such file or directory: 'v.bin'"
