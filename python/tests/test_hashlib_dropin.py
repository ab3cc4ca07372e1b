"""`import hashlab as hashlib`: hashlib's public surface, checked against
hashlib itself (the oracle) where hashlib has the algorithm, and CPython's
own test_hashlib run with hashlab in hashlib's place."""

import hashlib
import inspect
import io
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import xxhash

import hashlab

DATA = bytes(range(256)) * 41 + b"tail"


def python_names():
    return [python for python, _ in hashlab._hashlab.python_names]


def hexdigest(h):
    """hashlib's shake objects need a length: the algorithm's default here."""
    if h.digest_size == 0:
        return h.hexdigest(hashlab.algorithm_info(h.name)["digest_size"])
    return h.hexdigest()


def test_every_algorithm_has_a_constructor_under_its_python_name():
    names = python_names()
    assert len(set(names)) == len(names), "two algorithms share a Python name"
    assert set(names) == set(hashlab.algorithms_available)
    for python, canonical in hashlab._hashlab.python_names:
        assert python.isidentifier() and "-" not in python, python
        constructor = getattr(hashlab, python)
        assert constructor.__name__ == python
        expected = hexdigest(hashlab.new(canonical, DATA))
        assert hexdigest(constructor(DATA)) == expected, python
        assert hexdigest(hashlab.new(python, DATA)) == expected, python
        assert hexdigest(hashlab.new(python.upper(), DATA)) == expected, python
        assert constructor().name == python == hashlab.new(canonical).name
        assert hashlab.algorithm_info(python)["name"] == canonical
        assert python in hashlab.__all__


def test_sha3_objects_show_their_sponge_as_cpythons_own_do():
    """_capacity_bits, _rate_bits and _suffix, against CPython's _sha3
    objects (OpenSSL-backed hashlib objects have none, so the oracle is the
    built-in module), and absent from objects of other algorithms."""
    import _sha3  # CPython's own SHA-3 module, built into every CPython 3.11+
    names = ("sha3_224", "sha3_256", "sha3_384", "sha3_512", "shake_128", "shake_256")
    for name in names:
        theirs = getattr(_sha3, name)()
        for ours in (getattr(hashlab, name)(b"x"), hashlab.new(name), hashlab.new(name).copy()):
            for attribute in ("_capacity_bits", "_rate_bits", "_suffix"):
                assert getattr(ours, attribute) == getattr(theirs, attribute), (name, attribute)
            assert ours._rate_bits == 8 * ours.block_size
    for name in ("sha256", "blake2b", "xxh3_64", "turboshake128", "k12", "cshake128"):
        if name not in hashlab.algorithms_available:
            continue
        for attribute in ("_capacity_bits", "_rate_bits", "_suffix"):
            assert not hasattr(hashlab.new(name), attribute), (name, attribute)
        with pytest.raises(AttributeError, match="only SHA-3 and SHAKE"):
            hashlab.new(name)._suffix


def test_hashlibs_names_and_objects_are_hashlibs():
    assert hashlab.algorithms_guaranteed == hashlib.algorithms_guaranteed
    assert isinstance(hashlab.algorithms_guaranteed, frozenset)
    assert {"sha3_512", "shake_128", "blake2b", "xxh3_64", "blake3"} <= hashlab.algorithms_available
    assert not {"sha3-512", "blake2b512", "shake128"} & hashlab.algorithms_available
    for name in sorted(hashlib.algorithms_guaranteed):
        ours, theirs = getattr(hashlab, name)(DATA), getattr(hashlib, name)(DATA)
        assert (ours.name, ours.digest_size, ours.block_size) == (theirs.name, theirs.digest_size, theirs.block_size)
        args = (100,) if name.startswith("shake") else ()
        assert ours.digest(*args) == theirs.digest(*args), name
        assert ours.hexdigest(*args) == theirs.hexdigest(*args), name
        copy = ours.copy()
        copy.update(b"more")
        theirs.update(b"more")
        assert copy.digest(*args) == theirs.digest(*args), name
        assert hashlab.new(name, DATA, usedforsecurity=False).digest(*args) == ours.digest(*args)
        assert hashlab.new(name.upper()).name == name


def test_a_name_asked_for_again_is_the_same_algorithm_whatever_came_between():
    # new() remembers what a name without parameters resolved to: a
    # parameterized call or another spelling of the same algorithm must not
    # change what the plain name gives.
    for _ in range(2):
        assert hashlab.new("shake_128").digest_size == 0
        assert hashlab.new("SHAKE_128").digest_size == 0
        assert hashlab.new("shake128").digest_size == 32
        assert hashlab.new("shake_128", length=8).digest_size == 8
        assert hashlab.new("xxh3_64", seed=7).digest() != hashlab.new("xxh3_64").digest()
        assert hashlab.new("xxh3_64").digest() == xxhash.xxh3_64(b"").digest()
        assert hashlab.new("sha256", backend="rustcrypto").backend == "rustcrypto"
        assert hashlab.new("sha256").backend == hashlab.algorithm_info("sha256")["default_backend"]
        assert hashlab.new("blake2b", digest_size=20).digest_size == 20
        assert hashlab.new("blake2b").digest_size == 64


def test_data_may_be_given_as_string_as_in_older_hashlib():
    assert hashlab.sha256(string=b"abc").digest() == hashlib.sha256(b"abc").digest()
    assert hashlab.new("md5", string=b"abc").digest() == hashlib.md5(b"abc").digest()
    with pytest.raises(TypeError):
        hashlab.sha256(b"a", string=b"b")
    with pytest.raises(TypeError, match="encoded"):
        hashlab.sha256("text")


@pytest.mark.parametrize("name", ["shake_128", "shake_256"])
def test_shake_objects_read_any_length_as_hashlibs(name):
    ours, theirs = getattr(hashlab, name)(DATA), getattr(hashlib, name)(DATA)
    assert ours.digest_size == theirs.digest_size == 0
    for length in (0, 1, 16, 31, 32, 33, 64, 65, 167, 168, 169, 1000, 5000):
        assert ours.digest(length) == theirs.digest(length), length
        assert ours.hexdigest(length=length) == theirs.hexdigest(length), length
    for method in ("digest", "hexdigest"):
        with pytest.raises(TypeError, match="length"):
            getattr(ours, method)()
        with pytest.raises(ValueError):
            getattr(ours, method)(-10)
        for huge in (2**29, 2**64 + 10):
            with pytest.raises((ValueError, OverflowError)):
                getattr(ours, method)(huge)
    # By hashlab's name it is hashlab's object: its default length, as `hashlab sum`.
    canonical = hashlab.algorithm_info(name)["name"]
    assert canonical != name
    by_hashlab_name = hashlab.new(canonical, DATA)
    assert by_hashlab_name.digest() == theirs.digest(by_hashlab_name.digest_size) and by_hashlab_name.digest_size > 0
    assert by_hashlab_name.name == name
        # hashlab's length= makes it a fixed-length object, whose digest() needs none.
    sized = getattr(hashlab, name)(DATA, length=40)
    assert sized.digest_size == 40 and sized.digest() == theirs.digest(40)


def test_every_backend_of_every_xof_reads_any_length_or_says_why_not():
    for python, canonical in hashlab._hashlab.python_names:
        info = hashlab.algorithm_info(canonical)
        if not info["xof"]:
            with pytest.raises(TypeError, match="takes no length"):
                hashlab.new(canonical).digest(info["digest_size"])
            continue
        for backend, available in info["backends"]:
            if not available:
                continue
            h = hashlab.new(canonical, DATA, backend=backend)
            for length in (1, info["digest_size"] + 1, 300):
                expected = hashlab.new(canonical, DATA, backend=backend, length=length).digest()
                try:
                    got = h.digest(length)
                except ValueError as error:
                    # KMAC encodes the length into the hash: refused, never a wrong answer.
                    assert "encodes its output length" in str(error), (python, backend)
                    assert expected != hashlab.new(canonical, DATA, backend=backend).digest()[:length]
                    continue
                assert got == expected, (python, backend, length)
                assert h.hexdigest(length) == expected.hex()
            default = hashlab.new(canonical, DATA, backend=backend, length=info["digest_size"]).digest()
            assert h.digest(info["digest_size"]) == default


def test_blake3_digest_takes_a_length_as_the_blake3_package():
    blake3 = pytest.importorskip("blake3")
    ours, theirs = hashlab.blake3(DATA), blake3.blake3(DATA)
    assert ours.digest_size == 32 and ours.digest() == theirs.digest()
    for length in (1, 32, 100, 4096):
        assert ours.digest(length=length) == theirs.digest(length=length)
        assert ours.hexdigest(length) == theirs.hexdigest(length)


@pytest.mark.parametrize("name", ["blake2b", "blake2s"])
def test_blake2_constructors_take_hashlibs_arguments(name):
    ours, theirs = getattr(hashlab, name), getattr(hashlib, name)
    for attribute in ("SALT_SIZE", "PERSON_SIZE", "MAX_KEY_SIZE", "MAX_DIGEST_SIZE"):
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute
    for digest_size in (1, 16, 20, ours.MAX_DIGEST_SIZE):
        for key in (b"", b"k", b"K" * ours.MAX_KEY_SIZE):
            kwargs = {"digest_size": digest_size, "key": key}
            assert ours(DATA, **kwargs).digest() == theirs(DATA, **kwargs).digest(), kwargs
            assert ours(DATA, **kwargs).digest_size == digest_size
    # Zero salt and personalization and the default tree are the plain hash.
    plain = {
        "salt": bytes(ours.SALT_SIZE),
        "person": b"\0",
        "fanout": 1,
        "depth": 1,
        "leaf_size": 0,
        "node_offset": 0,
        "node_depth": 0,
        "inner_size": 0,
        "last_node": False,
        "usedforsecurity": False,
    }
    assert ours(DATA, **plain).digest() == theirs(DATA, **plain).digest()
    # What hashlib refuses, refused the same way.
    for kwargs in (
        {"digest_size": 0},
        {"digest_size": ours.MAX_DIGEST_SIZE + 1},
        {"key": b"k" * (ours.MAX_KEY_SIZE + 1)},
        {"salt": b"s" * (ours.SALT_SIZE + 1)},
        {"person": b"p" * (ours.PERSON_SIZE + 1)},
        {"fanout": 256},
        {"depth": 0},
        {"node_depth": -1},
        {"inner_size": ours.MAX_DIGEST_SIZE + 1},
        {"leaf_size": -1},
        {"node_offset": -1},
    ):
        with pytest.raises(ValueError):
            theirs(**kwargs)
        with pytest.raises(ValueError):
            ours(**kwargs)
    for kwargs in ({"leaf_size": 1 << 32}, {"node_offset": 1 << (64 if name == "blake2b" else 48)}):
        with pytest.raises(OverflowError):
            theirs(**kwargs)
        with pytest.raises(OverflowError):
            ours(**kwargs)
    for bad in ({"data": b""}, {"string": b""}):
        with pytest.raises(TypeError):
            ours(**bad)
    with pytest.raises(TypeError):
        ours("")
    # Salt, personalization and every tree parameter, alone and together, as
    # CPython's own BLAKE2 computes them.
    for kwargs in (
        {"salt": b"salt"},
        {"person": b"me"},
        {"salt": b"\x01" * ours.SALT_SIZE, "person": b"\xff" * ours.PERSON_SIZE, "key": b"k"},
        {"fanout": 2},
        {"fanout": 0, "depth": 255},
        {"last_node": True},
        {"inner_size": 7},
        {"leaf_size": 4096, "node_offset": 5, "node_depth": 1, "depth": 3},
        {"node_offset": (1 << (64 if name == "blake2b" else 48)) - 1},
        {"fanout": 4, "depth": 2, "inner_size": ours.MAX_DIGEST_SIZE, "last_node": True,
         "digest_size": 17, "salt": b"s", "person": b"p"},
    ):
        for data in (b"", DATA, DATA * 200):
            assert ours(data, **kwargs).hexdigest() == theirs(data, **kwargs).hexdigest(), kwargs


@pytest.mark.parametrize("name", ["blake2b", "blake2s"])
def test_blake2_constructors_are_types_whose_plain_call_is_the_default(name):
    """A call with the data alone (or usedforsecurity=) skips the Python
    constructor; every input form it takes still hashes as hashlib's."""
    ours, theirs = getattr(hashlab, name), getattr(hashlib, name)
    assert isinstance(ours, type) and ours.__name__ == name and ours.__module__ == "hashlab"
    assert str(inspect.signature(ours)).startswith("(data=b'', /, *, digest_size=")
    short, long = DATA[:64], DATA
    for data in (short, long, bytearray(short), memoryview(long), b""):
        assert ours(data).digest() == theirs(data).digest()
        assert ours(data, usedforsecurity=False).digest() == theirs(data).digest()
    assert ours().digest() == theirs().digest()
    assert ours(usedforsecurity=False).hexdigest() == theirs().hexdigest()
    assert type(ours(short)) is hashlab.Hash
    with pytest.raises(TypeError, match="encoded"):
        ours("text")
    with pytest.raises(TypeError):
        ours(b"a", b"b")
    with pytest.raises(TypeError):
        ours(b"a", data=b"b")
    # hashlib.new passes BLAKE2's keywords on; so does hashlab.new.
    assert hashlab.new(name, short, digest_size=9).digest() == theirs(short, digest_size=9).digest()


@pytest.mark.parametrize("name", ["blake2b", "blake2s"])
def test_lengths_asked_for_are_remembered_apart(name):
    """An object made once per length (new(name, length=n), and blake2b's
    digest_size=n through it): every length, asked for twice in turn, is
    its own hash."""
    theirs = getattr(hashlib, name)
    ours = getattr(hashlab, name)
    for _ in range(2):
        for size in range(1, ours.MAX_DIGEST_SIZE + 1):
            expected = theirs(DATA, digest_size=size).digest()
            assert hashlab.new(name, DATA, length=size).digest() == expected, size
            assert ours(DATA, digest_size=size).digest() == expected, size
    shake = hashlab.new("shake_128", DATA, length=20).digest()
    assert shake == hashlib.shake_128(DATA).digest(20)
    assert hashlab.new("shake_128", DATA, length=21).digest() == hashlib.shake_128(DATA).digest(21)


def test_short_digests_from_threads_are_each_their_own():
    """The hasher of short messages is guarded by the GIL, not a lock:
    threads hashing at once still get each message's own digest."""
    messages = [bytes([i]) * (i % 200) for i in range(64)]
    expected = {name: [getattr(hashlib, name)(m).digest() for m in messages] for name in ("blake2b", "sha256")}
    failures = []

    def work():
        for _ in range(200):
            for name, digests in expected.items():
                for m, digest in zip(messages, digests):
                    if getattr(hashlab, name)(m).digest() != digest or hashlab.digest(name, m) != digest:
                        failures.append((name, m))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def test_file_digest_is_311s(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(DATA * 30)
    for digest in ("sha256", hashlab.sha3_256, hashlab.blake3, "xxh3_64", lambda: hashlab.new("md5")):
        with open(path, "rb") as f:
            ours = hashlab.file_digest(f, digest, _bufsize=1000)
        assert ours.digest() == hashlab.new(ours.name, DATA * 30).digest()
        assert hashlab.file_digest(io.BytesIO(DATA * 30), digest).digest() == ours.digest()
    with open(path, "rb") as f:
        assert hashlab.file_digest(f, "sha256").digest() == hashlib.sha256(DATA * 30).digest()
    with pytest.raises(ValueError):
        hashlab.file_digest(None, "sha256")
    with open(path, "r") as f, pytest.raises(ValueError):
        hashlab.file_digest(f, "sha256")
    with open(tmp_path / "w", "wb") as f, pytest.raises(ValueError):
        hashlab.file_digest(f, "sha256")


def test_pbkdf2_hmac_agrees_with_hashlib():
    for name in ("sha1", "sha256", "sha512", "md5", "sha3_256", "blake2b", "sha512_256"):
        for password, salt, iterations, dklen in (
            (b"password", b"salt", 1, None),
            (b"password", b"salt", 2, 20),
            (b"pass\0word", b"sa\0lt", 100, 77),
            (b"p" * 300, b"", 3, 1),
        ):
            expected = hashlib.pbkdf2_hmac(name, password, salt, iterations, dklen)
            got = hashlab.pbkdf2_hmac(name, memoryview(password), bytearray(salt), iterations, dklen)
            assert got == expected, (name, password, iterations, dklen)
    assert hashlab.pbkdf2_hmac(hash_name="sha1", password=b"password", salt=b"salt", iterations=1) == bytes.fromhex(
        "0c60c80f961f0e71f3a9b524af6012062fe037a6"
    )
    for name in ("unknown", "shake_128", "hmac_sha256", "xxh3_64", "blake3"):
        with pytest.raises(ValueError, match="unsupported"):
            hashlab.pbkdf2_hmac(name, b"p", b"s", 1)
    for bad in ((b"sha1", b"p", b"s", 1), ("sha1", "p", "s", 1)):
        with pytest.raises(TypeError):
            hashlab.pbkdf2_hmac(*bad)
    for bad in (("sha1", b"p", b"s", 0), ("sha1", b"p", b"s", 1, 0), ("sha1", b"p", b"s", 1, -1)):
        with pytest.raises(ValueError):
            hashlab.pbkdf2_hmac(*bad)


def test_scrypt_agrees_with_hashlib():
    for password, salt, n, r, p, dklen in (
        (b"", b"", 16, 1, 1, 64),
        (b"password", b"NaCl", 1024, 8, 16, 64),
        (b"pw", b"salt", 2, 8, 1, 1),
        (b"pw", b"salt", 4096, 3, 2, 100),
    ):
        expected = hashlib.scrypt(password, salt=salt, n=n, r=r, p=p, dklen=dklen)
        assert hashlab.scrypt(password, salt=salt, n=n, r=r, p=p, dklen=dklen) == expected
    # Refused where hashlib refuses, memory limit included.
    for kwargs in (
        {"n": 3},
        {"n": 1},
        {"r": 0},
        {"p": 0},
        {"maxmem": -1},
        {"dklen": 0},
        {"n": 2**20, "r": 8},
        {"n": 1024, "r": 8, "maxmem": 1024 * 1024},
    ):
        full = {"salt": b"s", "n": 2, "r": 8, "p": 1, **kwargs}
        with pytest.raises(ValueError):
            hashlib.scrypt(b"pw", **full)
        with pytest.raises(ValueError):
            hashlab.scrypt(b"pw", **full)
    assert hashlab.scrypt(b"pw", salt=b"s", n=1024, r=8, p=1, maxmem=2 * 1024 * 1024) == hashlib.scrypt(
        b"pw", salt=b"s", n=1024, r=8, p=1, maxmem=2 * 1024 * 1024
    )
    for bad in ({"salt": "s"}, {"salt": b"s", "n": None}):
        with pytest.raises(TypeError):
            hashlab.scrypt(b"pw", **{"n": 2, "r": 8, "p": 1, **bad})
    with pytest.raises(TypeError):
        hashlab.scrypt(b"pw", b"salt")


def test_hash_objects_come_from_constructors_only():
    with pytest.raises(TypeError, match="cannot create 'hashlab.Hash' instances"):
        type(hashlab.sha256())()


def test_the_hash_type_is_immutable_and_final_as_hashlibs():
    hash_type = type(hashlab.sha256())
    assert hash_type is hashlab.Hash and hash_type.__module__ == "hashlab"
    with pytest.raises(TypeError, match="immutable type"):
        hash_type.value = False
    with pytest.raises(TypeError):
        type("Sub", (hash_type,), {})


def test_digest_arguments_are_checked_as_hashlibs():
    shake = hashlab.shake_128(b"abc")
    assert shake.digest(length=20) == shake.digest(20) == hashlib.shake_128(b"abc").digest(20)
    assert shake.hexdigest(length=5) == hashlib.shake_128(b"abc").hexdigest(5)
    with pytest.raises(TypeError, match="takes at most 1 argument"):
        shake.digest(1, 2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'size'"):
        shake.hexdigest(size=3)
    with pytest.raises(TypeError, match="given by name"):
        shake.digest(3, length=3)
    with pytest.raises(TypeError, match="missing required argument 'length'"):
        shake.digest()
    with pytest.raises(TypeError, match="takes no length"):
        hashlab.sha256().digest(4)
    with pytest.raises(TypeError):
        hashlab.sha256().update()
    with pytest.raises(TypeError, match="strings must be encoded"):
        hashlab.sha256().update("text")


def test_objects_do_xxhashs_intdigest_and_reset():
    data = bytes(range(256)) * 40
    ours = hashlab.xxh3_64(data[:100])
    theirs = xxhash.xxh3_64(data[:100])
    assert ours.intdigest() == theirs.intdigest()
    ours.update(data)  # past the short buffer: the streaming state
    theirs.update(data)
    copy = ours.copy()
    assert ours.intdigest() == theirs.intdigest() == copy.intdigest()
    assert hashlab.xxh3_128(data).intdigest() == xxhash.xxh3_128(data).intdigest()
    ours.reset()
    theirs.reset()
    assert ours.digest() == theirs.digest() == hashlab.xxh3_64().digest()
    seeded = hashlab.xxh3_64(data, seed=7)
    seeded.reset()
    assert seeded.digest() == xxhash.xxh3_64(b"", seed=7).digest()
    copy.update(b"x")
    assert copy.digest() != ours.digest()
    with pytest.raises(ValueError, match="not a number"):
        hashlab.sha256(b"abc").intdigest()


def test_a_bytes_object_given_whole_is_held_not_copied_and_given_back():
    """Objects made from one `bytes` object of 257 B to the GIL-release size
    reference it and hash it in one call at digest(); every path away from
    that state (update, copy, reset, digest(length), drop) must give the
    reference back and hash as hashlib and xxhash do."""
    data = bytes(range(256)) * 16 + b"tail"  # 4,100 bytes
    more = b"more" * 30_000  # past every GIL-release size: the streaming path
    for name, theirs in (("sha256", hashlib.sha256), ("xxh3_64", xxhash.xxh3_64), ("md5", hashlib.md5)):
        before = sys.getrefcount(data)
        ours = getattr(hashlab, name)(data)
        assert ours.digest() == theirs(data).digest() and ours.hexdigest() == theirs(data).hexdigest()
        copy = ours.copy()
        ours.update(b"x")
        assert sys.getrefcount(data) <= before + 1  # only the copy holds it now
        assert ours.digest() == theirs(data + b"x").digest()
        assert copy.digest() == theirs(data).digest()
        copy.update(more)
        assert copy.digest() == theirs(data + more).digest()
        assert sys.getrefcount(data) == before
        held = getattr(hashlab, name)(data)
        held.reset()
        assert sys.getrefcount(data) == before and held.digest() == theirs(b"").digest()
        held = getattr(hashlab, name)(data)
        del held
        assert sys.getrefcount(data) == before, name

    class Subclass(bytes):
        pass

    assert hashlab.xxh3_64(Subclass(data)).digest() == xxhash.xxh3_64(data).digest()
    shake = hashlab.shake_128(data)
    assert shake.digest(40) == hashlib.shake_128(data).digest(40)
    assert shake.hexdigest(length=8) == hashlib.shake_128(data).hexdigest(8)
    # Two objects from the same bytes, one grown from a bytearray view.
    grown = hashlab.sha256(bytearray(data))
    grown.update(memoryview(data))
    assert grown.digest() == hashlib.sha256(data + data).digest()


def test_the_builtin_constructor_lookup_is_hashlabs():
    get = getattr(hashlab, "__get_builtin_constructor")
    assert get("sha256") is hashlab.sha256
    assert get("SHA3_256") is hashlab.sha3_256
    assert get("blake2b") is hashlab.blake2b
    with pytest.raises(ValueError, match="unsupported hash type"):
        get("test")
    with pytest.raises(TypeError):
        get(3)


def test_unknown_names_raise_hashlibs_error():
    with pytest.raises(ValueError, match="unsupported hash type spam"):
        hashlab.new("spam")
    with pytest.raises(TypeError):
        hashlab.new(1)


RUNNER = Path(__file__).with_name("cpython_test_hashlib.py")


def test_cpythons_test_hashlib_passes_with_hashlab_as_hashlib():
    """The runner exits 0 when every test passes but the listed private and
    known-gap ones; 3 when this Python has no test_hashlib.py."""
    run = subprocess.run([sys.executable, str(RUNNER)], capture_output=True, text=True, timeout=600)
    summary = run.stdout[run.stdout.rfind("\n== CPython") :]
    print(summary)
    if run.returncode == 3:
        if os.environ.get("HASHLAB_CI"):
            pytest.fail(f"HASHLAB_CI: {run.stderr.strip()}")
        pytest.skip(run.stderr.strip())
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert "unexpected 0" in summary


def test_parameters_of_new_match_their_oracles():
    # xxhash seeds, TurboSHAKE domains and BLAKE3 derive_key, against the
    # packages that implement them where installed (hashlib has none of them).
    # (xxhash and blake3 are pinned test requirements: always installed.)
    import blake3
    import xxhash

    want = hashlib.blake2b(DATA, salt=b"NaCl", person=b"me").digest()
    assert hashlab.new("blake2b", DATA, salt=b"NaCl", personal=b"me").digest() == want
    for seed in (0, 1, 42, 2**64 - 1):
        assert hashlab.new("xxh64", DATA, seed=seed).hexdigest() == xxhash.xxh64(DATA, seed=seed).hexdigest()
        assert hashlab.new("xxh3_128", DATA, seed=seed).hexdigest() == xxhash.xxh3_128(DATA, seed=seed).hexdigest()
    for context in ("", "hashlab test context"):
        want = blake3.blake3(DATA, derive_key_context=context).digest(length=40)
        assert hashlab.new("blake3", DATA, derive_key=context, length=40).digest() == want
    with pytest.raises(ValueError, match="seed"):
        hashlab.new("xxh32", seed=2**32)
    with pytest.raises(ValueError, match="domain"):
        hashlab.new("turboshake128", domain=0x80)
    assert hashlab.new("turboshake128", DATA, domain=0x1F).digest() == hashlab.new("turboshake128", DATA).digest()
    assert hashlab.new("turboshake128", DATA, domain=0x06).digest() != hashlab.new("turboshake128", DATA).digest()


def test_pbkdf2_hmac_refuses_lengths_and_counts_as_hashlib_does():
    # hashlib reads both as a C long and refuses past a C int; hashlab ran
    # for ever on dklen=2**62.
    for args in (
        ("sha256", b"p", b"s", 1, 2**62),
        ("sha256", b"p", b"s", 1, 2**31),
        ("sha256", b"p", b"s", 1, 2**64),
        ("sha256", b"p", b"s", 1, -(2**64)),
        ("sha256", b"p", b"s", 2**31, 1),
        ("sha256", b"p", b"s", 2**62, 1),
        ("sha256", b"p", b"s", 2**64, 1),
    ):
        with pytest.raises(Exception) as expected:
            hashlib.pbkdf2_hmac(*args)
        with pytest.raises(expected.type) as got:
            hashlab.pbkdf2_hmac(*args)
        assert str(got.value) == str(expected.value), args
