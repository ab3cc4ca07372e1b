#!/usr/bin/env python3
"""Time `hashlab report` against the number of cells in a results file.

Results of any size are made from the committed real run
(fixtures/results/zen4-plain.json): its cells and scaling rows are copied
again and again, each copy's backends renamed (`sha256` by `rustcrypto~2`),
until the file holds N cells. A copy is what a run of many backends or many
runs merged would hold: more (algorithm, backend) pairs, each measured at
every size, which is what the page's charts and tables grow with.

    scripts/bench-report.py [--cells 1000,2000,4000,16000,60000] [--rounds 3]
    scripts/bench-report.py --hashlab OLD --hashlab NEW   (alternating runs)

The hashlab binary defaults to target/release/hashlab (`cargo build
--release` first). With several --hashlab, each round runs every binary in
turn on the same file, so a busy machine slows each alike. Prints a Markdown
table of the median wall time per binary and size; a run over --timeout
seconds is stopped and shown as "> T s". Files go to --work
(default target/bench-report).
"""

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR") or os.path.join(REPO, "target")
FIXTURE = os.path.join(REPO, "fixtures", "results", "zen4-plain.json")


def results_with(cells, base):
    """`base` grown (or cut) to `cells` cells, as described above."""
    out = copy.deepcopy(base)
    out["cells"], out["scaling"] = [], []
    k = 0
    while len(out["cells"]) < cells:
        rename = (lambda b: b) if k == 0 else (lambda b, k=k: f"{b}~{k}")
        taken = set()
        for c in base["cells"][: cells - len(out["cells"])]:
            c = dict(c, backend=rename(c["backend"]))
            taken.add((c["algorithm"], c["backend"], c["size"]))
            out["cells"].append(c)
        for s in base["scaling"]:
            s = dict(s, backend=rename(s["backend"]))
            if (s["algorithm"], s["backend"], s["size"]) in taken:
                out["scaling"].append(s)
        k += 1
    return out


def timed(hashlab, results, page, timeout):
    start = time.monotonic()
    try:
        subprocess.run(
            [hashlab, "report", "-q", results, "-o", page],
            check=True,
            timeout=timeout,
            stdout=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return None
    return time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cells", default="1000,2000,4000,16000,60000")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--hashlab", action="append")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--work", default=os.path.join(TARGET, "bench-report"))
    args = ap.parse_args()
    binaries = args.hashlab or [os.path.join(TARGET, "release", "hashlab")]
    for b in binaries:
        if not os.access(b, os.X_OK):
            sys.exit(f"bench-report: {b}: not an executable (cargo build --release)")
    os.makedirs(args.work, exist_ok=True)
    with open(FIXTURE) as f:
        base = json.load(f)

    rows = []
    for n in [int(c) for c in args.cells.split(",")]:
        results = os.path.join(args.work, f"cells-{n}.json")
        with open(results, "w") as f:
            json.dump(results_with(n, base), f)
        times = {b: [] for b in binaries}
        slow = set()
        for _ in range(args.rounds):
            for i, b in enumerate(binaries):
                if b in slow:
                    continue
                t = timed(b, results, os.path.join(args.work, f"cells-{n}-{i}.html"), args.timeout)
                if t is None:
                    slow.add(b)
                else:
                    times[b].append(t)
        cells = []
        for b in binaries:
            if b in slow:
                cells.append(f"> {args.timeout:.0f} s")
            else:
                cells.append(f"{statistics.median(times[b]):.2f} s")
        rows.append((n, cells))
        print(f"{n} cells: " + ", ".join(cells), file=sys.stderr)

    print("| cells | " + " | ".join(binaries) + " |")
    print("|---:|" + "---:|" * len(binaries))
    for n, cells in rows:
        print(f"| {n} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
