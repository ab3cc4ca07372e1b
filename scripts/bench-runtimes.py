#!/usr/bin/env python3
"""`hashlab bench --runtime` held to each language's own benchmark tool.

    scripts/bench-runtimes.py [--rounds N] [HASHLAB]

For Go's and Python's sha256 at 64 B, 16 KiB and 1 MiB, measures in turns,
size by size (N rounds, default 10, medians reported), so that the drift of a
shared machine reaches the three alike:
- `hashlab bench --runtime go,python -a sha256 --sizes SIZE` (the rows
  `go crypto/sha256` and `python hashlib`, and the runtimes' null rows),
- Go's `testing.B` (`go test -bench`) on `sha256.Sum256` over the same bytes,
- Python's `timeit` on `hashlib.sha256(m).digest()` over the same bytes,
and prints a Markdown table of ns per message with the ratio of hashlab's
figure to the language's own. Then, once, the whole table of
`bench --runtime all -a sha256,sha512,sha3-256,blake2b,blake3,md5
--sizes 64,16K,1M` with its wall time.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZES = [64, 16 << 10, 1 << 20]

GO_TEST = r'''
package bench

import (
	"crypto/sha256"
	"strconv"
	"testing"
)

var sink byte

func message(n int) []byte {
	m := make([]byte, n)
	for i := range m {
		m[i] = byte(i*7 + 1)
	}
	return m
}

func BenchmarkSum256(b *testing.B) {
	for _, n := range []int{64, 16 << 10, 1 << 20} {
		m := message(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for i := 0; i < b.N; i++ {
				d := sha256.Sum256(m)
				sink ^= d[0]
			}
		})
	}
}
'''


def hashlab_round(hashlab, size):
    out = subprocess.run(
        [hashlab, "bench", "--runtime", "go,python", "-a", "sha256",
         "--sizes", str(size), "--max-time", "2", "--quiet", "--json"],
        check=True, capture_output=True,
    )
    report = json.loads(out.stdout)
    found = {}
    for cell in report["cells"]:
        if cell["mode"]["kind"] != "streams" or not cell.get("throughput"):
            continue
        found[(cell["algorithm"], cell["backend"], cell["size"])] = cell["throughput"]["ns_per_message"]
    return found


def go_round(workdir, size):
    out = subprocess.run(
        ["go", "test", "-run", "^$", "-bench", f"Sum256/^{size}$", "-benchtime", "0.3s", "-count", "1"],
        cwd=workdir, check=True, capture_output=True, text=True,
    )
    found = {}
    for line in out.stdout.splitlines():
        if line.startswith("BenchmarkSum256/"):
            parts = line.split()
            size = int(parts[0].split("/")[1].split("-")[0])
            found[size] = float(parts[2])
    return found


def python_round(n):
    import hashlib
    m = bytes((i * 7 + 1) & 0xFF for i in range(n))
    f = hashlib.sha256
    timer = timeit.Timer(lambda: f(m).digest())
    number, _ = timer.autorange()
    # The median of the repeats, as hashlab's figure is a median.
    return statistics.median(timer.repeat(repeat=7, number=number)) / number * 1e9


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("hashlab", nargs="?", default=str(ROOT / "target" / "release" / "hashlab"))
    args = ap.parse_args()
    if not shutil.which("go"):
        sys.exit("bench-runtimes: go is missing")
    workdir = Path(tempfile.mkdtemp(prefix="hashlab-bench-runtimes-"))
    (workdir / "go.mod").write_text("module bench\n\ngo 1.22\n")
    (workdir / "sum_test.go").write_text(GO_TEST)
    ours = {}
    go = {}
    py = {}
    try:
        subprocess.run(["go", "test", "-c", "-o", os.devnull], cwd=workdir, check=True, capture_output=True)
        for _ in range(args.rounds):
            for n in SIZES:
                for key, v in hashlab_round(args.hashlab, n).items():
                    ours.setdefault(key, []).append(v)
                for size, v in go_round(workdir, n).items():
                    go.setdefault(size, []).append(v)
                py.setdefault(n, []).append(python_round(n))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    med = statistics.median
    print(f"sha256, ns per message, medians of {args.rounds} rounds taken in turns\n")
    print("| runtime | size | hashlab bench --runtime | the language's own tool | hashlab / own | runtime's null row |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, backend, own, tool in [("go", "go crypto/sha256", go, "testing.B"),
                                     ("python", "python hashlib", py, "timeit")]:
        for n in SIZES:
            h = med(ours[("sha256", backend, n)])
            o = med(own[n])
            null = med(ours.get(("null", f"{name} harness", n), [float("nan")]))
            print(f"| {name} | {n} | {h:,.1f} | {o:,.1f} ({tool}) | {h / o:.3f} | {null:,.1f} |")
    print()
    start = time.perf_counter()
    out = subprocess.run(
        [args.hashlab, "bench", "--runtime", "all", "-a", "sha256,sha512,sha3-256,blake2b,blake3,md5",
         "--sizes", "64,16K,1M", "--quiet"],
        check=True, capture_output=True, text=True,
    )
    took = time.perf_counter() - start
    print(out.stdout)
    print(f"(bench --runtime all: {took:.1f} s wall, harness builds cached)")


if __name__ == "__main__":
    main()
