#!/usr/bin/env python3
"""Pure-Python BLAKE3, written from the BLAKE3 specification.

Independent oracle for hashlab's test vectors. It deliberately does not use
PyPI's `blake3` package, which wraps the very Rust crate the vectors test.

Supported: the default `hash` mode, `keyed_hash` mode (32-byte key) and
`derive_key` mode (a context string, then the key material), each with an
extended (XOF) output of any length.

The structure follows the spec (sections 2.1-2.6 of "BLAKE3: one function,
fast everywhere"):
  * the compression function: 7 rounds of the ChaCha-like G function over a
    4x4 state of 32-bit words, the message words permuted between rounds;
  * the input is split into 1024-byte chunks, each chunk into 64-byte blocks
    chained through the compression function (flags CHUNK_START/CHUNK_END,
    the chunk counter as `t`);
  * chunk chaining values are merged in a binary tree whose left subtree holds
    the largest power-of-two number of chunks that leaves at least one byte
    for the right subtree; parent nodes use the PARENT flag and t = 0;
  * the root node is compressed again with the ROOT flag and an output block
    counter as `t`, each 64-byte output block being the full 16-word state.

Self-check: `python3 blake3_reference.py PATH/TO/test_vectors.json` compares
against the official BLAKE3 test vectors (hash and keyed_hash, full extended
output and the default 32 bytes). gen_vectors.py does the same check against
the committed published/blake3.vec before it uses this module.
"""

import struct
import sys

IV = (
    0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
    0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
)
MSG_PERMUTATION = (2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8)

CHUNK_START = 1 << 0
CHUNK_END = 1 << 1
PARENT = 1 << 2
ROOT = 1 << 3
KEYED_HASH = 1 << 4

BLOCK_LEN = 64
CHUNK_LEN = 1024
OUT_LEN = 32
KEY_LEN = 32
M32 = 0xFFFFFFFF

# Message word order for each of the 7 rounds (the permutation applied
# r times), precomputed so the round loop only indexes.
_SCHEDULE = []
_order = list(range(16))
for _r in range(7):
    _SCHEDULE.append(tuple(_order))
    _order = [_order[MSG_PERMUTATION[i]] for i in range(16)]
del _order, _r


def compress(cv, block_words, counter, block_len, flags):
    """The BLAKE3 compression function. Returns all 16 output words."""
    s0, s1, s2, s3, s4, s5, s6, s7 = cv
    s8, s9, s10, s11 = IV[0], IV[1], IV[2], IV[3]
    s12 = counter & M32
    s13 = (counter >> 32) & M32
    s14 = block_len
    s15 = flags
    m = block_words
    for sched in _SCHEDULE:
        # Columns.
        # G(0, 4, 8, 12, m[s0], m[s1])
        s0 = (s0 + s4 + m[sched[0]]) & M32; s12 ^= s0; s12 = ((s12 >> 16) | (s12 << 16)) & M32
        s8 = (s8 + s12) & M32; s4 ^= s8; s4 = ((s4 >> 12) | (s4 << 20)) & M32
        s0 = (s0 + s4 + m[sched[1]]) & M32; s12 ^= s0; s12 = ((s12 >> 8) | (s12 << 24)) & M32
        s8 = (s8 + s12) & M32; s4 ^= s8; s4 = ((s4 >> 7) | (s4 << 25)) & M32
        # G(1, 5, 9, 13)
        s1 = (s1 + s5 + m[sched[2]]) & M32; s13 ^= s1; s13 = ((s13 >> 16) | (s13 << 16)) & M32
        s9 = (s9 + s13) & M32; s5 ^= s9; s5 = ((s5 >> 12) | (s5 << 20)) & M32
        s1 = (s1 + s5 + m[sched[3]]) & M32; s13 ^= s1; s13 = ((s13 >> 8) | (s13 << 24)) & M32
        s9 = (s9 + s13) & M32; s5 ^= s9; s5 = ((s5 >> 7) | (s5 << 25)) & M32
        # G(2, 6, 10, 14)
        s2 = (s2 + s6 + m[sched[4]]) & M32; s14 ^= s2; s14 = ((s14 >> 16) | (s14 << 16)) & M32
        s10 = (s10 + s14) & M32; s6 ^= s10; s6 = ((s6 >> 12) | (s6 << 20)) & M32
        s2 = (s2 + s6 + m[sched[5]]) & M32; s14 ^= s2; s14 = ((s14 >> 8) | (s14 << 24)) & M32
        s10 = (s10 + s14) & M32; s6 ^= s10; s6 = ((s6 >> 7) | (s6 << 25)) & M32
        # G(3, 7, 11, 15)
        s3 = (s3 + s7 + m[sched[6]]) & M32; s15 ^= s3; s15 = ((s15 >> 16) | (s15 << 16)) & M32
        s11 = (s11 + s15) & M32; s7 ^= s11; s7 = ((s7 >> 12) | (s7 << 20)) & M32
        s3 = (s3 + s7 + m[sched[7]]) & M32; s15 ^= s3; s15 = ((s15 >> 8) | (s15 << 24)) & M32
        s11 = (s11 + s15) & M32; s7 ^= s11; s7 = ((s7 >> 7) | (s7 << 25)) & M32
        # Diagonals.
        # G(0, 5, 10, 15)
        s0 = (s0 + s5 + m[sched[8]]) & M32; s15 ^= s0; s15 = ((s15 >> 16) | (s15 << 16)) & M32
        s10 = (s10 + s15) & M32; s5 ^= s10; s5 = ((s5 >> 12) | (s5 << 20)) & M32
        s0 = (s0 + s5 + m[sched[9]]) & M32; s15 ^= s0; s15 = ((s15 >> 8) | (s15 << 24)) & M32
        s10 = (s10 + s15) & M32; s5 ^= s10; s5 = ((s5 >> 7) | (s5 << 25)) & M32
        # G(1, 6, 11, 12)
        s1 = (s1 + s6 + m[sched[10]]) & M32; s12 ^= s1; s12 = ((s12 >> 16) | (s12 << 16)) & M32
        s11 = (s11 + s12) & M32; s6 ^= s11; s6 = ((s6 >> 12) | (s6 << 20)) & M32
        s1 = (s1 + s6 + m[sched[11]]) & M32; s12 ^= s1; s12 = ((s12 >> 8) | (s12 << 24)) & M32
        s11 = (s11 + s12) & M32; s6 ^= s11; s6 = ((s6 >> 7) | (s6 << 25)) & M32
        # G(2, 7, 8, 13)
        s2 = (s2 + s7 + m[sched[12]]) & M32; s13 ^= s2; s13 = ((s13 >> 16) | (s13 << 16)) & M32
        s8 = (s8 + s13) & M32; s7 ^= s8; s7 = ((s7 >> 12) | (s7 << 20)) & M32
        s2 = (s2 + s7 + m[sched[13]]) & M32; s13 ^= s2; s13 = ((s13 >> 8) | (s13 << 24)) & M32
        s8 = (s8 + s13) & M32; s7 ^= s8; s7 = ((s7 >> 7) | (s7 << 25)) & M32
        # G(3, 4, 9, 14)
        s3 = (s3 + s4 + m[sched[14]]) & M32; s14 ^= s3; s14 = ((s14 >> 16) | (s14 << 16)) & M32
        s9 = (s9 + s14) & M32; s4 ^= s9; s4 = ((s4 >> 12) | (s4 << 20)) & M32
        s3 = (s3 + s4 + m[sched[15]]) & M32; s14 ^= s3; s14 = ((s14 >> 8) | (s14 << 24)) & M32
        s9 = (s9 + s14) & M32; s4 ^= s9; s4 = ((s4 >> 7) | (s4 << 25)) & M32
    return (
        s0 ^ s8, s1 ^ s9, s2 ^ s10, s3 ^ s11,
        s4 ^ s12, s5 ^ s13, s6 ^ s14, s7 ^ s15,
        s8 ^ cv[0], s9 ^ cv[1], s10 ^ cv[2], s11 ^ cv[3],
        s12 ^ cv[4], s13 ^ cv[5], s14 ^ cv[6], s15 ^ cv[7],
    )


_BLOCK_STRUCT = struct.Struct("<16I")


def _block_words(block):
    """A block of at most 64 bytes, zero-padded, as 16 little-endian words."""
    if len(block) < BLOCK_LEN:
        block = bytes(block) + bytes(BLOCK_LEN - len(block))
    return _BLOCK_STRUCT.unpack(block)


class _Output:
    """A node whose compression is not yet done: either the root (compressed
    with ROOT and an output counter) or an inner node (its chaining value)."""

    __slots__ = ("cv", "block_words", "counter", "block_len", "flags")

    def __init__(self, cv, block_words, counter, block_len, flags):
        self.cv = cv
        self.block_words = block_words
        self.counter = counter
        self.block_len = block_len
        self.flags = flags

    def chaining_value(self):
        return compress(self.cv, self.block_words, self.counter,
                        self.block_len, self.flags)[:8]

    def root_bytes(self, length):
        out = bytearray()
        block_counter = 0
        while len(out) < length:
            words = compress(self.cv, self.block_words, block_counter,
                             self.block_len, self.flags | ROOT)
            out += _BLOCK_STRUCT.pack(*words)
            block_counter += 1
        return bytes(out[:length])


def _chunk_output(key_words, chunk, chunk_counter, flags):
    """Chain the blocks of one chunk (1..1024 bytes, or the empty input)."""
    cv = key_words
    nblocks = max(1, (len(chunk) + BLOCK_LEN - 1) // BLOCK_LEN)
    for i in range(nblocks):
        block = chunk[i * BLOCK_LEN:(i + 1) * BLOCK_LEN]
        block_flags = flags
        if i == 0:
            block_flags |= CHUNK_START
        if i == nblocks - 1:
            block_flags |= CHUNK_END
            return _Output(cv, _block_words(block), chunk_counter,
                           len(block), block_flags)
        cv = compress(cv, _block_words(block), chunk_counter,
                      BLOCK_LEN, block_flags)[:8]
    raise AssertionError("unreachable")


def _subtree_output(key_words, data, chunk_counter, flags):
    """Output node of the subtree over `data`, whose first chunk has the
    given chunk counter."""
    if len(data) <= CHUNK_LEN:
        return _chunk_output(key_words, data, chunk_counter, flags)
    # Left subtree: the largest power-of-two number of whole chunks that
    # leaves at least one byte for the right subtree.
    left_chunks = 1
    while (left_chunks * 2) * CHUNK_LEN < len(data):
        left_chunks *= 2
    left_len = left_chunks * CHUNK_LEN
    left = _subtree_output(key_words, data[:left_len], chunk_counter, flags)
    right = _subtree_output(key_words, data[left_len:],
                            chunk_counter + left_chunks, flags)
    return _Output(key_words, left.chaining_value() + right.chaining_value(),
                   0, BLOCK_LEN, flags | PARENT)


def blake3(data, length=OUT_LEN, key=None):
    """BLAKE3 of `data`: `hash` mode, or `keyed_hash` mode when a 32-byte key
    is given; `length` output bytes (any length >= 0)."""
    if key is None:
        key_words, flags = IV, 0
    else:
        if len(key) != KEY_LEN:
            raise ValueError("BLAKE3 keyed_hash needs a 32-byte key")
        key_words, flags = struct.unpack("<8I", key), KEYED_HASH
    data = memoryview(bytes(data))
    return _subtree_output(key_words, data, 0, flags).root_bytes(length)


DERIVE_KEY_CONTEXT = 1 << 5
DERIVE_KEY_MATERIAL = 1 << 6


def derive_key(context, material, length=OUT_LEN):
    """BLAKE3's derive_key mode (spec section 2.6): the context string hashed
    with DERIVE_KEY_CONTEXT gives a key, under which the material is hashed
    with DERIVE_KEY_MATERIAL."""
    context_key = _subtree_output(IV, memoryview(bytes(context)), 0,
                                  DERIVE_KEY_CONTEXT).root_bytes(KEY_LEN)
    key_words = struct.unpack("<8I", context_key)
    return _subtree_output(key_words, memoryview(bytes(material)), 0,
                           DERIVE_KEY_MATERIAL).root_bytes(length)


def _self_test(json_path):
    import json
    with open(json_path) as f:
        tv = json.load(f)
    key = tv["key"].encode()
    n = 0
    for case in tv["cases"]:
        data = bytes(i % 251 for i in range(case["input_len"]))
        for mode, k in (("hash", None), ("keyed_hash", key)):
            expected = bytes.fromhex(case[mode])
            got = blake3(data, len(expected), k)
            assert got == expected, (mode, case["input_len"])
            assert blake3(data, key=k) == expected[:OUT_LEN], (mode, case["input_len"])
            n += 1
        expected = bytes.fromhex(case["derive_key"])
        got = derive_key(tv["context_string"].encode(), data, len(expected))
        assert got == expected, ("derive_key", case["input_len"])
        n += 1
    print("blake3_reference: %d official test vectors OK" % n)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: blake3_reference.py PATH/TO/test_vectors.json")
    _self_test(sys.argv[1])
