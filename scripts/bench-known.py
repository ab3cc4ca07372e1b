#!/usr/bin/env python3
"""Known-hash sets of `hashlab match` at NSRL's scale: N SHA-256 entries
(default 10 million), as a GNU manifest and as an NSRL RDS v3 database (its
published schema, rows in random order as a release's are), measured for

- load time and peak RSS (/usr/bin/time -v) of `hashlab match -k SET FILE`
  on one small file, without and with -w (the known names kept);
- lookups per second on one core, half of them hits, through the library
  (crates/hashlab-integrity/examples/known_lookups.rs);
- files per second of `hashlab match -k SET -r TREE`, its load time taken
  off, against `hashlab sum -r TREE` on a tree of small files: whether a
  lookup costs anything beside hashing a file.

    scripts/bench-known.py [--entries 10000000] [--files 200000] [--work target/bench-known]
    HASHLAB=path/to/hashlab scripts/bench-known.py    (another build)

The sets and the tree are kept in --work (about 5 GB at 10 million) and
reused while --entries and --files stay the same. Needs python3 and GNU time
(/usr/bin/time). Prints a Markdown table.
"""

import argparse
import hashlib
import os
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.environ.get("CARGO_TARGET_DIR") or os.path.join(REPO, "target")

# The FILE table of RDS v3 (RDS_YYYY.MM.R_modern_minimal.schema.sql); the
# other tables play no part in matching.
RDS_V3_FILE = """CREATE TABLE FILE (
 sha256     VARCHAR NOT NULL,
 sha1       VARCHAR NOT NULL,
 md5        VARCHAR NOT NULL,
 crc32      VARCHAR NOT NULL,
 file_name  VARCHAR NOT NULL,
 file_size  INTEGER NOT NULL,
 package_id INTEGER NOT NULL,
 CONSTRAINT PK_FILE__FILE PRIMARY KEY (sha256, sha1, md5, crc32, file_name, file_size, package_id)
);"""


def build():
    """hashlab (unless $HASHLAB names one) and the lookup example, release."""
    example = os.path.join(TARGET, "release", "examples", "known_lookups")
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "hashlab-integrity", "--example", "known_lookups"],
        cwd=REPO,
        check=True,
    )
    hashlab = os.environ.get("HASHLAB")
    if not hashlab:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "hashlab-cli"], cwd=REPO, check=True)
        hashlab = os.path.join(TARGET, "release", "hashlab")
    return hashlab, example


def make_tree(root, files, rng):
    """`files` files of 64 B to 4 KiB in 256 directories; their SHA-256s."""
    digests = []
    for i in range(files):
        d = os.path.join(root, f"d{i % 256:03d}")
        os.makedirs(d, exist_ok=True)
        data = rng.randbytes(rng.randrange(64, 4096))
        with open(os.path.join(d, f"f{i:07d}"), "wb") as f:
            f.write(data)
        digests.append(hashlib.sha256(data).hexdigest())
    return digests


def set_digests(entries, tree_digests, rng):
    """`entries` SHA-256 digests in random order: every other tree file's,
    the rest random."""
    out = tree_digests[::2]
    out += [rng.randbytes(32).hex() for _ in range(entries - len(out))]
    rng.shuffle(out)
    return out


def write_manifest(path, digests):
    with open(path, "w") as f:
        for start in range(0, len(digests), 100_000):
            f.write("".join(f"{d}  pkg/file{start + i:08d}.dll\n" for i, d in enumerate(digests[start : start + 100_000])))


def write_nsrl(path, digests):
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-4000000;")
    db.executescript(RDS_V3_FILE)
    rows = (
        (d.upper(), d[:40].upper(), d[:32].upper(), d[:8].upper(), f"file{i:08d}.dll", 1000 + i % 5000, i % 977)
        for i, d in enumerate(digests)
    )
    db.executemany("INSERT INTO FILE VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    db.commit()
    db.close()


def timed(argv):
    """Wall seconds and peak RSS (MiB) of one run, by GNU time."""
    o = subprocess.run(["/usr/bin/time", "-v", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if o.returncode not in (0, 1, 2, 3):
        sys.exit(f"bench-known: {' '.join(argv)} exited {o.returncode}: {o.stderr[-2000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", o.stderr).group(1)) / 1024
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", o.stderr)
    seconds = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    return seconds, rss


def median_run(argv, runs):
    results = [timed(argv) for _ in range(runs)]
    return statistics.median(r[0] for r in results), max(r[1] for r in results)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", type=int, default=10_000_000)
    ap.add_argument("--files", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--work", default=os.path.join(REPO, "target", "bench-known"))
    args = ap.parse_args()
    hashlab, example = build()
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    stamp = os.path.join(work, "made")
    made = f"{args.entries} {args.files}\n"
    tree = os.path.join(work, "tree")
    manifest = os.path.join(work, "set.sha256")
    nsrl = os.path.join(work, "set.db")
    one = os.path.join(work, "one.txt")
    if not os.path.exists(stamp) or open(stamp).read() != made:
        rng = random.Random(20240)
        subprocess.run(["rm", "-rf", tree], check=True)
        print(f"making {args.files} files and sets of {args.entries} digests in {work}...", file=sys.stderr)
        t = time.time()
        digests = set_digests(args.entries, make_tree(tree, args.files, rng), rng)
        write_manifest(manifest, digests)
        write_nsrl(nsrl, digests)
        with open(one, "w") as f:
            f.write("in no set\n")
        with open(stamp, "w") as f:
            f.write(made)
        print(f"made in {time.time() - t:.0f} s", file=sys.stderr)
    tree_bytes = sum(e.stat().st_size for d in os.scandir(tree) for e in os.scandir(d.path))

    rows = []
    for name, path in [("GNU manifest", manifest), ("NSRL RDS v3", nsrl)]:
        size = os.path.getsize(path) / 2**20
        for which in [False, True]:
            argv = [hashlab, "match", "-k", path, *(["-w"] if which else []), one]
            seconds, rss = median_run(argv, args.runs)
            rows.append((f"{name} ({size:,.0f} MiB){' -w' if which else ''}", f"{seconds:.2f} s", f"{rss:,.0f} MiB"))
    print(f"\n{args.entries:,} SHA-256 entries; `hashlab match -k SET FILE` (median of {args.runs}, warm cache)\n")
    print("| set | load + one file | peak RSS |\n|---|---|---|")
    for row in rows:
        print(f"| {' | '.join(row)} |")

    o = subprocess.run([example, "--probes", "4000000", manifest], capture_output=True, text=True, check=True)
    print(f"\nlibrary, one core: {o.stdout.strip()}")

    # Each match over the tree is paired with a load of the set alone just
    # before it, and the difference is the tree's share: on a busy machine
    # the load time alone varies by more than the tree takes.
    def tree_seconds(jobs):
        extra = ["-j", jobs] if jobs else []
        diffs = []
        for _ in range(args.runs):
            alone, _ = timed([hashlab, "match", *extra, "-k", nsrl, one])
            whole, _ = timed([hashlab, "match", *extra, "-k", nsrl, "-r", tree])
            diffs.append(whole - alone)
        return statistics.median(diffs)

    sum_s, _ = median_run([hashlab, "sum", "-r", tree], args.runs)
    sum1_s, _ = median_run([hashlab, "sum", "-j", "1", "-r", tree], args.runs)
    match_s, match1_s = tree_seconds(None), tree_seconds("1")
    n = args.files
    print(f"\n{n:,} files, {tree_bytes / 2**20:,.0f} MiB (64 B to 4 KiB each), warm cache; median of {args.runs}\n")
    print("| command | every core | one core (-j 1) |\n|---|---|---|")
    print(f"| hashlab sum -r | {n / sum_s:,.0f} files/s | {n / sum1_s:,.0f} files/s |")
    print(
        f"| hashlab match -k set.db -r (its load taken off) | {n / max(match_s, 1e-9):,.0f} files/s | {n / max(match1_s, 1e-9):,.0f} files/s |"
    )

if __name__ == "__main__":
    main()
