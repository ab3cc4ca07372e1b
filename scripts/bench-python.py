#!/usr/bin/env python3
"""hashlab from Python against hashlib (md5, sha1, sha256, sha512, sha3_256,
blake2b, blake2s) and PyPI's blake3 and xxhash (objects and one-shot
functions): time per call of a whole hash at 64 B, 8 KiB and 1 MiB, every
pair measured in the same run, interleaved round by round, and compared with the project's significance test (hashlab.compare,
the bootstrap of hashlab_bench::stats). Then two threads against one on
large inputs (the GIL is released from 2 KiB).

    scripts/test-python -q                       # builds the venv and the wheel
    target/python-venv/bin/python scripts/bench-python.py [--rounds 21] [--json out.json]

Prints a Markdown table (docs/python.md keeps one).
"""

import argparse
import hashlib
import json
import os
import platform
import statistics
import threading
import time
from importlib.metadata import version

import blake3
import xxhash

import hashlab
from quiet_machine import wait_for_quiet  # scripts/ is on sys.path

SIZES = [64, 8 << 10, 1 << 20]
SAMPLE_SECONDS = 0.01


def cases(data):
    """(algorithm, competitor name, hashlab call, competitor call): each
    rival's own idiom beside hashlab's of the same shape."""
    pairs = [
        (name, "hashlib", (lambda n: lambda: hashlab.new(n, data).digest())(name),
         (lambda n: lambda: hashlib.new(n, data).digest())(name))
        for name in ("md5", "sha1", "sha256", "sha512", "sha3_256", "blake2b", "blake2s")
    ]
    return pairs + [
        ("blake3", "blake3 (PyPI)", lambda: hashlab.new("blake3", data).digest(), lambda: blake3.blake3(data).digest()),
        (
            "xxh3-64",
            "xxhash (PyPI) object",
            lambda: hashlab.xxh3_64(data).digest(),
            lambda: xxhash.xxh3_64(data).digest(),
        ),
        (
            "xxh3-64",
            "xxhash one-shot xxh3_64_digest",
            lambda: hashlab.xxh3_64_digest(data),
            lambda: xxhash.xxh3_64_digest(data),
        ),
        (
            "xxh3-64",
            "xxhash one-shot xxh3_64_intdigest",
            lambda: hashlab.xxh3_64_intdigest(data),
            lambda: xxhash.xxh3_64_intdigest(data),
        ),
        ("xxh64", "xxhash (PyPI) object", lambda: hashlab.xxh64(data).digest(), lambda: xxhash.xxh64(data).digest()),
    ]


def calls_per_sample(call):
    n = 1
    while True:
        start = time.perf_counter()
        for _ in range(n):
            call()
        if time.perf_counter() - start >= SAMPLE_SECONDS / 4:
            elapsed = time.perf_counter() - start
            return max(1, int(n * SAMPLE_SECONDS / elapsed))
        n *= 4


def sample(call, n):
    start = time.perf_counter()
    for _ in range(n):
        call()
    return (time.perf_counter() - start) / n


def measure_pair(ours, theirs, rounds):
    n_ours, n_theirs = calls_per_sample(ours), calls_per_sample(theirs)
    a, b = [], []
    for r in range(rounds):
        # Alternate which goes first, so drift and cache warmth fall on both.
        if r % 2:
            b.append(sample(theirs, n_theirs))
            a.append(sample(ours, n_ours))
        else:
            a.append(sample(ours, n_ours))
            b.append(sample(theirs, n_theirs))
    return a, b


def size_label(n):
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB" if n >= 1 << 10 else f"{n} B"


def threads_speedup(make, size, repeats):
    """Best-of-`repeats` wall time for two inputs hashed one after the other
    in one thread, and in two threads at once."""
    inputs = [os.urandom(size), os.urandom(size)]

    def one(data):
        make(data)

    sequential, parallel = [], []
    for _ in range(repeats):
        wait_for_quiet()
        start = time.perf_counter()
        for data in inputs:
            one(data)
        sequential.append(time.perf_counter() - start)
        workers = [threading.Thread(target=one, args=(data,)) for data in inputs]
        start = time.perf_counter()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        parallel.append(time.perf_counter() - start)
    return min(sequential), min(parallel)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--json", help="also write the raw samples here")
    args = parser.parse_args()

    env = {
        "cpu": next(
            (l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine()
        ),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "hashlab": hashlab.__version__,
        "blake3": version("blake3"),
        "xxhash": version("xxhash"),
        "openssl (hashlib)": __import__("ssl").OPENSSL_VERSION,
    }
    print("| " + " | ".join(f"{k}: {v}" for k, v in env.items()) + " |\n")
    print("| algorithm | size | hashlab backend | hashlab ns/call | vs | their ns/call | hashlab speed-up (95 % CI) |")
    print("|---|---|---|---:|---|---:|---|")
    rows = []
    for size in SIZES:
        data = os.urandom(size)
        for algorithm, rival, ours, theirs in cases(data):
            assert ours() == theirs(), (algorithm, rival)
            a, b = measure_pair(ours, theirs, args.rounds)
            c = hashlab.compare(a, b)
            verdict = "" if c["significant"] else ", not significant"
            backend = hashlab.new(algorithm).backend
            print(
                f"| {algorithm} | {size_label(size)} | {backend} | {statistics.median(a) * 1e9:,.0f} | {rival} | "
                f"{statistics.median(b) * 1e9:,.0f} | {c['ratio']:.2f}x ({c['low']:.2f}-{c['high']:.2f}{verdict}) |"
            )
            rows.append(
                {"algorithm": algorithm, "size": size, "rival": rival, "backend": backend, "hashlab": a, "rival_samples": b, **c}
            )

    print("\nTwo threads against one (best of 5, each started when the machine was at least 90 % idle;"
          " two inputs of 64 MiB each):\n")
    print("| hash | one thread, both inputs (s) | two threads (s) | speed-up |")
    print("|---|---:|---:|---:|")
    threads = []
    for label, make in [
        ("hashlab sha256", lambda d: hashlab.new("sha256", d).digest()),
        ("hashlab blake3", lambda d: hashlab.new("blake3", d).digest()),
        ("hashlib sha256", lambda d: hashlib.sha256(d).digest()),
    ]:
        one, two = threads_speedup(make, 64 << 20, 5)
        print(f"| {label} | {one:.3f} | {two:.3f} | {one / two:.2f}x |")
        threads.append({"hash": label, "one_thread": one, "two_threads": two})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": env, "pairs": rows, "threads": threads}, f, indent=1)


if __name__ == "__main__":
    main()
