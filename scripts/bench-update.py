#!/usr/bin/env python3
"""`hashlab sum --update` on a tree of 100,000 files where 1 % changed,
against a full `hashlab sum -r` and `rhash -u -r` in the same run.

    scripts/bench-update.py [--files N] [--rounds R] [--cold] [WORKDIR]
                            (default: 100000 files, 3 rounds, target/bench-update)

Each round changes 1 % of the files (half rewritten with new content, a
quarter deleted, a quarter of that count added as new files), restores
each tool's manifest to the one it wrote for the tree before the change,
and times, with the page cache warm (with --cold, as root: dropped before
each command, as a tree on disk that nothing has read lately):
- `hashlab sum --update M --prune -r tree` (reads what moved; the sidecar
  from the previous update says what did not),
- `rhash --sha256 -u M -r tree` (adds new files; re-reads none, drops none),
- `hashlab sum -r tree` and `rhash --sha256 -r tree` (everything again).
Prints a Markdown table of medians and checks hashlab's result against the
fresh full listing.
"""

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


COLD = False


def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def timed(cmd, cwd, stdout=subprocess.DEVNULL):
    if COLD:
        drop_caches()
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, stdout=stdout, stderr=subprocess.PIPE)
    took = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"bench-update: {' '.join(cmd)} failed: {done.stderr.decode(errors='replace')}")
    return took, done


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cold", action="store_true", help="drop the page cache before each command (root)")
    ap.add_argument("workdir", nargs="?", default=str(ROOT / "target" / "bench-update"))
    args = ap.parse_args()
    global COLD
    for tool in ("rhash",):
        if shutil.which(tool) is None:
            sys.exit(f"bench-update: {tool} is missing (run scripts/setup)")
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "hashlab-cli"], cwd=ROOT, check=True)
    hashlab = str(ROOT / "target" / "release" / "hashlab")
    work = Path(args.workdir)
    tree = work / "tree"
    rng = random.Random(25)
    if not (work / f"made-{args.files}").exists():
        shutil.rmtree(work, ignore_errors=True)
        for n in range(args.files):
            d = tree / f"d{n // 1000:03}"
            d.mkdir(parents=True, exist_ok=True)
            (d / f"f{n:06}").write_bytes(rng.randbytes(rng.randint(1024, 16384)))
        (work / f"made-{args.files}").touch()
    os.sync()
    # Baselines: each tool's manifest of the tree as it is, and hashlab's sidecar.
    timed([hashlab, "sum", "-r", "tree", "-o", "h.sha256"], work)
    (work / "h.sha256.hashlab-stat").unlink(missing_ok=True)
    first, _ = timed([hashlab, "sum", "--update", "h.sha256", "-r", "tree"], work)
    _, r = timed(["rhash", "--sha256", "-r", "tree"], work, stdout=subprocess.PIPE)
    (work / "r.sha256").write_bytes(r.stdout)
    COLD = args.cold
    rows = {k: [] for k in ("update", "rhash_u", "full", "rhash_full")}
    files = sorted(p for p in tree.rglob("*") if p.is_file())
    for round_ in range(args.rounds):
        shutil.copy(work / "h.sha256", work / "hu.sha256")
        shutil.copy(work / "h.sha256.hashlab-stat", work / "hu.sha256.hashlab-stat")
        shutil.copy(work / "r.sha256", work / "ru.sha256")
        changed = rng.sample(files, len(files) // 100)
        half, quarter = len(changed) // 2, len(changed) // 4
        for p in changed[:half]:
            p.write_bytes(rng.randbytes(rng.randint(1024, 16384)))
        for p in changed[half:half + quarter]:
            p.unlink()
        added = [tree / "new" / f"r{round_}-{n:05}" for n in range(quarter)]
        added[0].parent.mkdir(exist_ok=True)
        for p in added:
            p.write_bytes(rng.randbytes(rng.randint(1024, 16384)))
        t, out = timed([hashlab, "sum", "--update", "hu.sha256", "--prune", "-r", "tree", "--json"],
                       work, stdout=subprocess.PIPE)
        rows["update"].append(t)
        t, _ = timed(["rhash", "--sha256", "-u", "ru.sha256", "-r", "tree"], work)
        rows["rhash_u"].append(t)
        t, full = timed([hashlab, "sum", "-r", "tree"], work, stdout=subprocess.PIPE)
        rows["full"].append(t)
        t, _ = timed(["rhash", "--sha256", "-r", "tree"], work)
        rows["rhash_full"].append(t)
        updated = set((work / "hu.sha256").read_bytes().splitlines())
        if updated != set(full.stdout.splitlines()):
            sys.exit("bench-update: the updated manifest differs from a full sum")
        import json
        report = json.loads(out.stdout)
        counts = {k: len(report[k]) for k in ("added", "changed", "removed")}
        # The tree as it now is becomes the next round's baseline.
        files = sorted(p for p in tree.rglob("*") if p.is_file())
        shutil.copy(work / "hu.sha256", work / "h.sha256")
        shutil.copy(work / "hu.sha256.hashlab-stat", work / "h.sha256.hashlab-stat")
        (work / "r.sha256").write_bytes(subprocess.run(["rhash", "--sha256", "-r", "tree"], cwd=work,
                                                       stdout=subprocess.PIPE, check=True).stdout)
    med = {k: statistics.median(v) for k, v in rows.items()}
    print(f"{len(files):,} files, 1 % changed per round ({counts['changed']} rewritten, "
          f"{counts['removed']} deleted, {counts['added']} added), sha256, "
          f"{'page cache dropped before each command' if COLD else 'page cache warm'}, "
          f"{os.cpu_count()} cores, median of {args.rounds} rounds; the first update of a "
          f"manifest (no sidecar yet, every file read): {first:.2f} s\n")
    print("| command | seconds | vs hashlab sum --update |")
    print("|---|---:|---:|")
    names = {
        "update": "hashlab sum --update --prune -r",
        "rhash_u": "rhash -u -r (adds only)",
        "full": "hashlab sum -r (full)",
        "rhash_full": "rhash -r (full)",
    }
    for k, name in names.items():
        print(f"| {name} | {med[k]:.3f} | {med[k] / med['update']:.2f}x |")


if __name__ == "__main__":
    main()
