"""Ascon-Hash256, Ascon-XOF128 and Ascon-CXOF128 in pure Python, written from
NIST SP 800-232 (August 2025): the differential oracle of scripts/gen_vectors.py.
No Python package implements the final standard (PyPI `ascon` 0.0.9 is the
pre-standard v1.2, whose byte order differs). gen_vectors.py holds it to the
ascon-c known answers on every run.
"""

M64 = (1 << 64) - 1


def _rotr(x, n):
    return ((x >> n) | (x << (64 - n))) & M64


def ascon_p12(s):
    """Ascon-p[12] (SP 800-232 section 3) on five 64-bit words, in place."""
    x0, x1, x2, x3, x4 = s
    for i in range(12):
        x2 ^= 0xF0 - 0x10 * i + i
        x0 ^= x4; x4 ^= x3; x2 ^= x1
        t0 = ~x0 & x1; t1 = ~x1 & x2; t2 = ~x2 & x3; t3 = ~x3 & x4; t4 = ~x4 & x0
        x0 ^= t1; x1 ^= t2; x2 ^= t3; x3 ^= t4; x4 ^= t0
        x1 ^= x0; x0 ^= x4; x3 ^= x2; x2 = ~x2
        x0 &= M64; x1 &= M64; x2 &= M64; x3 &= M64; x4 &= M64
        x0 ^= _rotr(x0, 19) ^ _rotr(x0, 28)
        x1 ^= _rotr(x1, 61) ^ _rotr(x1, 39)
        x2 ^= _rotr(x2, 1) ^ _rotr(x2, 6)
        x3 ^= _rotr(x3, 10) ^ _rotr(x3, 17)
        x4 ^= _rotr(x4, 7) ^ _rotr(x4, 41)
    s[:] = [x0, x1, x2, x3, x4]


def _absorb(s, data):
    """Rate-64 absorption with SP 800-232's padding: 0x01 after the last
    byte (little-endian words), a permutation after every block."""
    data = bytes(data)
    full = len(data) - len(data) % 8
    for i in range(0, full, 8):
        s[0] ^= int.from_bytes(data[i:i + 8], "little")
        ascon_p12(s)
    last = data[full:]
    s[0] ^= int.from_bytes(last, "little") ^ (1 << (8 * len(last)))
    ascon_p12(s)


def _squeeze(s, n):
    out = bytearray()
    while True:
        out += s[0].to_bytes(8, "little")
        if len(out) >= n:
            return bytes(out[:n])
        ascon_p12(s)


def _start(iv):
    s = [iv, 0, 0, 0, 0]
    ascon_p12(s)
    return s


def ascon_hash256(msg):
    s = _start(0x0000080100CC0002)
    _absorb(s, msg)
    return _squeeze(s, 32)


def ascon_xof128(msg, n):
    s = _start(0x0000080000CC0003)
    _absorb(s, msg)
    return _squeeze(s, n)


def ascon_cxof128(msg, n, z=b""):
    """Z (at most 256 bytes) is absorbed first: its length in bits as one
    little-endian 64-bit block, then Z itself padded as a message."""
    if len(z) > 256:
        raise ValueError("Ascon-CXOF128 customization strings are at most 2048 bits")
    s = _start(0x0000080000CC0004)
    s[0] ^= 8 * len(z)
    ascon_p12(s)
    _absorb(s, z)
    _absorb(s, msg)
    return _squeeze(s, n)
