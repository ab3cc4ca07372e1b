"""The parts of hashlib's interface that are plain Python over hashlab's
hashes: BLAKE2's constructors and parameters, ``file_digest`` and
``pbkdf2_hmac``. Nothing here imports hashlib: every byte is hashed by
hashlab's core."""

import struct

from hashlab._hashlab import algorithm_info, new, parameterized_type

# hashlib's BLAKE2 parameter block: salt and personalization sizes in bytes
# and the width of node_offset in bits (hashlib.blake2b.SALT_SIZE, ...).
_BLAKE2_LAYOUT = {"blake2b": (16, 16, 64), "blake2s": (8, 8, 48)}


def _in_range(name, value, low, high, *, overflow=False):
    """hashlib's checks of an int parameter: ValueError out of range, or
    OverflowError above it where hashlib's C type overflows."""
    if not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < low:
        raise ValueError(f"{name} must be at least {low}")
    if value > high:
        error = OverflowError if overflow else ValueError
        raise error(f"{name} must be at most {high}")
    return value


def _bytes_param(name, value, limit):
    size = memoryview(value).nbytes
    if size > limit:
        raise ValueError(f"maximum {name} length is {limit} bytes")
    return bytes(value)


def blake2_constructor(python_name, canonical):
    """hashlib's ``blake2b``/``blake2s``: the full signature, its checks and
    its errors. Salt, personalization and tree parameters go to the backend
    that takes them (blake2-simd); all-zero ones and the sequential tree are
    the plain hash, which every backend computes."""
    info = algorithm_info(canonical)
    max_digest = info["length_range"][1]
    max_key = info["key"][2]
    salt_size, person_size, offset_bits = _BLAKE2_LAYOUT[python_name]

    def construct(
        data=b"",
        /,
        *,
        digest_size=max_digest,
        key=b"",
        salt=b"",
        person=b"",
        fanout=1,
        depth=1,
        leaf_size=0,
        node_offset=0,
        node_depth=0,
        inner_size=0,
        last_node=False,
        usedforsecurity=True,
        backend=None,
    ):
        _in_range("digest_size", digest_size, 1, max_digest)
        key = _bytes_param("key", key, max_key)
        salt = _bytes_param("salt", salt, salt_size)
        person = _bytes_param("person", person, person_size)
        tree = {
            "fanout": (_in_range("fanout", fanout, 0, 255), 1),
            "depth": (_in_range("depth", depth, 1, 255), 1),
            "leaf_size": (_in_range("leaf_size", leaf_size, 0, (1 << 32) - 1, overflow=True), 0),
            "node_offset": (
                _in_range("node_offset", node_offset, 0, (1 << offset_bits) - 1, overflow=True),
                0,
            ),
            "node_depth": (_in_range("node_depth", node_depth, 0, 255), 0),
            "inner_size": (_in_range("inner_size", inner_size, 0, max_digest), 0),
            "last_node": (bool(last_node), False),
        }
        sequential = all(v == default for v, default in tree.values())
        # Only what differs from the plain hash is passed: new() called with
        # nothing but a length goes to an object made once per length, and
        # with nothing at all to the algorithm's default, where any other
        # parameter resolves the algorithm again. Zeros are what BLAKE2 pads
        # a shorter salt or personalization with: an all-zero one is the
        # plain hash, which every backend computes.
        parameters = {
            "key": key or None,
            "length": digest_size if digest_size != max_digest else None,
            "backend": backend,
            "salt": salt if any(salt) else None,
            "personal": person if any(person) else None,
            "tree": None if sequential else tuple(v for v, _ in tree.values()),
        }
        return new(canonical, data, **{k: v for k, v in parameters.items() if v is not None})

    construct.__name__ = construct.__qualname__ = python_name
    doc = (
        f"{python_name}(data=b'', /, *, digest_size={max_digest}, key=b'', salt=b'', person=b'', "
        "fanout=1, depth=1, leaf_size=0, node_offset=0, node_depth=0, inner_size=0, "
        "last_node=False, usedforsecurity=True, backend=None)\n--\n\n"
        f"A new {python_name} hash object with hashlib's parameters (hashlab's {canonical!r})."
    )
    # A type, as hashlib's blake2b is: it carries the class attributes, and
    # a call with the data alone is hashed without this Python function.
    attributes = {
        "SALT_SIZE": salt_size,
        "PERSON_SIZE": person_size,
        "MAX_KEY_SIZE": max_key,
        "MAX_DIGEST_SIZE": max_digest,
    }
    return parameterized_type(python_name, construct, attributes, doc)


def get_builtin_constructor(module_globals):
    """hashlib's ``__get_builtin_constructor(name)``: the constructor of a
    name, cached in ``__builtin_constructor_cache`` as hashlib caches it."""
    cache = module_globals["__builtin_constructor_cache"]

    def get(name):
        if not isinstance(name, str):
            raise TypeError(f"name must be a str, not {type(name).__name__}")
        found = cache.get(name)
        if found is not None:
            return found
        found = module_globals.get(name) or module_globals.get(name.lower())
        if not callable(found) or name.lower() not in module_globals["algorithms_available"]:
            raise ValueError("unsupported hash type " + name)
        cache[name] = cache[name.lower()] = found
        return found

    get.__name__ = "__get_builtin_constructor"
    return get


def file_digest(fileobj, digest, /, *, _bufsize=2**18):
    """Python 3.11's ``hashlib.file_digest``: the hash object of a file
    object's content (a BytesIO's buffer, else read in binary mode).
    ``digest`` is a name or a constructor."""
    digestobj = new(digest) if isinstance(digest, str) else digest()
    if hasattr(fileobj, "getbuffer"):
        digestobj.update(fileobj.getbuffer())
        return digestobj
    if not (hasattr(fileobj, "readinto") and hasattr(fileobj, "readable") and fileobj.readable()):
        raise ValueError(f"'{fileobj!r}' is not a file-like object in binary reading mode.")
    buffer = bytearray(_bufsize)
    view = memoryview(buffer)
    while True:
        size = fileobj.readinto(buffer)
        if size == 0:
            return digestobj
        digestobj.update(view[:size])


# hashlib reads iterations and dklen as a C long and refuses past a C int
# (OverflowError); so does this, rather than run for ever on 2**62.
_LONG_MAX = 2 ** (8 * struct.calcsize("l") - 1) - 1
_INT_MAX = 2**31 - 1


def _as_c_long(value):
    if not -_LONG_MAX - 1 <= value <= _LONG_MAX:
        raise OverflowError("Python int too large to convert to C long")
    return value


def pbkdf2_hmac(hash_name, password, salt, iterations, dklen=None):
    """PBKDF2 (RFC 8018) with HMAC (RFC 2104) over hashlab's ``hash_name``,
    as ``hashlib.pbkdf2_hmac``. Written here over hashlab's hash objects:
    hashlab's own HMAC entries cover only some hashes, and this reuses the
    keyed inner and outer states for every iteration, as hashlib does."""
    if not isinstance(hash_name, str):
        raise TypeError(f"hash_name must be a str, not {type(hash_name).__name__}")
    password = bytes(memoryview(password))
    salt = bytes(memoryview(salt))
    try:
        info = algorithm_info(hash_name)
    except ValueError:
        info = None
    if info is not None:
        hash_name = info["name"]
    # Keyed hashes (a default key) and extendable outputs have no HMAC;
    # BLAKE2's optional key stays unused, as in hashlib.
    keyed = info is not None and info["key"] is not None and info["key"][0] != "optional"
    if info is None or keyed or info["xof"] or info["class"] != "cryptographic":
        raise ValueError(
            f"unsupported hash type {hash_name}: PBKDF2-HMAC needs an unkeyed "
            "cryptographic hash of fixed output"
        )
    if len(password) > _INT_MAX:
        raise OverflowError("password is too long.")
    if len(salt) > _INT_MAX:
        raise OverflowError("salt is too long.")
    if not isinstance(iterations, int):
        raise TypeError(f"iterations must be an int, not {type(iterations).__name__}")
    if _as_c_long(iterations) < 1:
        raise ValueError("iteration value must be greater than 0.")
    if iterations > _INT_MAX:
        raise OverflowError("iteration value is too great.")
    inner, outer = new(hash_name), new(hash_name)
    block_size = inner.block_size
    if len(password) > block_size:
        password = new(hash_name, password).digest()
    password = password.ljust(block_size, b"\0")
    inner.update(bytes(b ^ 0x36 for b in password))
    outer.update(bytes(b ^ 0x5C for b in password))
    if dklen is None:
        dklen = outer.digest_size
    if not isinstance(dklen, int):
        raise TypeError(f"dklen must be an int, not {type(dklen).__name__}")
    if _as_c_long(dklen) < 1:
        raise ValueError("key length must be greater than 0.")
    if dklen > _INT_MAX:
        raise OverflowError("key length is too great.")

    def prf(message):
        inner_copy, outer_copy = inner.copy(), outer.copy()
        inner_copy.update(message)
        outer_copy.update(inner_copy.digest())
        return outer_copy.digest()

    key = bytearray()
    block = 1
    while len(key) < dklen:
        u = prf(salt + block.to_bytes(4, "big"))
        t = int.from_bytes(u, "big")
        for _ in range(iterations - 1):
            u = prf(u)
            t ^= int.from_bytes(u, "big")
        key += t.to_bytes(len(u), "big")
        block += 1
    return bytes(key[:dklen])
