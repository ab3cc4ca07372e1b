"""wyhash final4, rapidhash v3 and komihash 5 in plain Python, written from
the authors' C headers (wyhash.h, rapidhash.h, komihash.h) as a slow,
readable oracle for scripts/gen_vectors.py. gen_vectors.py holds every
function here to the authors' own C outputs in
crates/hashlab/tests/vectors/external/fasthash-ref.json (and to the values their READMEs
publish) before using it. Values are returned as integers; hashlab prints
them big-endian."""

M64 = (1 << 64) - 1


def _mum(a, b):
    r = a * b
    return r & M64, r >> 64


def _mix(a, b):
    lo, hi = _mum(a, b)
    return lo ^ hi


def _r8(p, i):
    return int.from_bytes(p[i:i + 8], "little")


def _r4(p, i):
    return int.from_bytes(p[i:i + 4], "little")


WYP = (0xa0761d6478bd642f, 0xe7037ed1a0b428db, 0x8ebc6af09c88c6e3, 0x589965cc75374cc3)


def wyhash(data, seed=0):
    """wyhash(key, len, seed, _wyp), final version 4."""
    s = WYP
    p, n = bytes(data), len(data)
    seed ^= _mix(seed ^ s[0], s[1])
    if n <= 16:
        if n >= 4:
            q = (n >> 3) << 2
            a = (_r4(p, 0) << 32) | _r4(p, q)
            b = (_r4(p, n - 4) << 32) | _r4(p, n - 4 - q)
        elif n > 0:
            a = (p[0] << 16) | (p[n >> 1] << 8) | p[n - 1]
            b = 0
        else:
            a = b = 0
    else:
        i, at = n, 0
        if i > 48:
            see1 = see2 = seed
            while True:
                seed = _mix(_r8(p, at) ^ s[1], _r8(p, at + 8) ^ seed)
                see1 = _mix(_r8(p, at + 16) ^ s[2], _r8(p, at + 24) ^ see1)
                see2 = _mix(_r8(p, at + 32) ^ s[3], _r8(p, at + 40) ^ see2)
                at += 48
                i -= 48
                if i <= 48:
                    break
            seed ^= see1 ^ see2
        while i > 16:
            seed = _mix(_r8(p, at) ^ s[1], _r8(p, at + 8) ^ seed)
            i -= 16
            at += 16
        a = _r8(p, at + i - 16)
        b = _r8(p, at + i - 8)
    a ^= s[1]
    b ^= seed
    a, b = _mum(a, b)
    return _mix(a ^ s[0] ^ n, b ^ s[1])


RAPID_SECRET = (0x2d358dccaa6c78a5, 0x8bb84b93962eacc9, 0x4b33a62ed433d4a3,
                0x4d5a2da51de1aa47, 0xa0761d6478bd642f, 0xe7037ed1a0b428db,
                0x90ed1765281c388c)


def rapidhash(data, seed=0):
    """rapidhash_withSeed(key, len, seed) of rapidhash.h v3 (rapidhash(key,
    len) is seed 0), default secrets."""
    s = RAPID_SECRET
    p, n = bytes(data), len(data)
    seed ^= _mix(seed ^ s[2], s[1])
    a = b = 0
    i, at = n, 0
    if n <= 16:
        if n >= 4:
            seed ^= n
            if n >= 8:
                a, b = _r8(p, 0), _r8(p, n - 8)
            else:
                a, b = _r4(p, 0), _r4(p, n - 4)
        elif n > 0:
            a = (p[0] << 45) | p[n - 1]
            b = p[n >> 1]
    else:
        if i > 112:
            see = [seed] * 7
            while i > 112:
                see = [_mix(_r8(p, at + 16 * k) ^ s[k], _r8(p, at + 16 * k + 8) ^ see[k])
                       for k in range(7)]
                at += 112
                i -= 112
            seed = 0
            for v in see:
                seed ^= v
        for k, secret in enumerate((2, 2, 1, 1, 2, 1)):
            if i <= 16 * (k + 1):
                break
            seed = _mix(_r8(p, at + 16 * k) ^ s[secret], _r8(p, at + 16 * k + 8) ^ seed)
        a = _r8(p, n - 16) ^ i
        b = _r8(p, n - 8)
    a ^= s[1]
    b ^= seed
    a, b = _mum(a, b)
    return _mix(a ^ 0xaaaaaaaaaaaaaaaa, b ^ s[1] ^ i)


def komihash(data, seed=0):
    """komihash(msg, len, seed), version 5."""
    p, n = bytes(data), len(data)
    s1 = 0x243F6A8885A308D3 ^ (seed & 0x5555555555555555)
    s5 = 0x452821E638D01377 ^ (seed & 0xAAAAAAAAAAAAAAAA)

    def round_(s1, s5, a, b):
        lo, hi = _mum(a ^ s1, b ^ s5)
        s5 = (s5 + hi) & M64
        return s5 ^ lo, s5

    s1, s5 = round_(s1, s5, 0, 0)
    if n == 0:
        s1, s5 = round_(s1, s5, 0, 0)
        s1, s5 = round_(s1, s5, 0, 0)
        return s1
    at = 0
    if n >= 64:
        s = [s1, 0x13198A2E03707344 ^ s1, 0xA4093822299F31D0 ^ s1, 0x082EFA98EC4E6C89 ^ s1,
             s5, 0xBE5466CF34E90C6C ^ s5, 0xC0AC29B7C97C50DD ^ s5, 0x3F84D5B5B5470917 ^ s5]
        while n - at >= 64:
            w = [_r8(p, at + 8 * k) for k in range(8)]
            r = [_mum(w[k] ^ s[k], w[k + 4] ^ s[k + 4]) for k in range(4)]
            for k in range(4):
                s[k + 4] = (s[k + 4] + r[k][1]) & M64
            s[1], s[2], s[3], s[0] = s[4] ^ r[1][0], s[5] ^ r[2][0], s[6] ^ r[3][0], s[7] ^ r[0][0]
            at += 64
        s5 = s[4] ^ s[5] ^ s[6] ^ s[7]
        s1 = s[0] ^ s[1] ^ s[2] ^ s[3]
    while n - at >= 16:
        s1, s5 = round_(s1, s5, _r8(p, at), _r8(p, at + 8))
        at += 16
    r2l, r2h = s1, s5
    if n - at >= 8:
        r2l, r2h = r2h, r2l ^ _r8(p, at)
        at += 8
    rest = p[at:]
    r2l ^= int.from_bytes(rest, "little") | (1 << (8 * len(rest)))
    lo, hi = _mum(r2l, r2h)
    s5 = (s5 + hi) & M64
    s1 = s5 ^ lo
    s1, s5 = round_(s1, s5, 0, 0)
    return s1


FUNCTIONS = {"wyhash": wyhash, "rapidhash": rapidhash, "komihash": komihash}
