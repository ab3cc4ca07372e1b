#!/usr/bin/env python3
"""Makes the inputs of docs/reproducing-the-seeds.md's `bench --like` cases
that no test makes.

  scripts/like-cases.py backups DIR [--files N] [--total BYTES] [--seed S]
      A tree shaped like a machine's backups (the blog post of seed 004
      asked how long 150 GB take): N files (default 1,000,000) in
      directories of 1,000, 99 % of them small (log-uniform over 1-64 KiB)
      and 1 % large (log-uniform over 1-64 MiB), scaled so that the whole
      is BYTES (default 150 GB). The files are sparse (no data block is
      written), so the tree costs inodes only; every byte reads as zero.
      With a million files the shape step samples (it stats for 2 s).

  scripts/like-cases.py linux-repo DIR
      A git repository of two public source trees: Debian's linux-source-6.1
      and linux-source-6.12 packages (fetched with `apt-get download`, an
      explicit network request), committed one after the other and packed
      by `git gc`, so that its objects are stored as a real repository's are
      (deltas against each other, in one pack).

Both refuse a DIR that exists.
"""

import argparse
import glob
import math
import os
import random
import subprocess
import sys
import tempfile


def backups(root, files, total, seed):
    rng = random.Random(seed)
    sizes = []
    for _ in range(files):
        if rng.random() < 0.01:
            low, high = 1 << 20, 64 << 20
        else:
            low, high = 1 << 10, 64 << 10
        sizes.append(math.exp(rng.uniform(math.log(low), math.log(high))))
    scale = total / sum(sizes)
    os.mkdir(root)
    written = 0
    for i, size in enumerate(sizes):
        if i % 1000 == 0:
            directory = os.path.join(root, f"d{i // 1000:05}")
            os.mkdir(directory)
        n = max(1, int(size * scale))
        with open(os.path.join(directory, f"f{i % 1000:03}"), "wb") as f:
            f.truncate(n)
        written += n
    print(f"{root}: {files} sparse files, {written} bytes ({written / 1e9:.1f} GB)")


def run(args, cwd=None):
    subprocess.run(args, cwd=cwd, check=True)


def linux_repo(root):
    os.mkdir(root)
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(root))) as work:
        run(["apt-get", "download", "linux-source-6.1", "linux-source-6.12"], cwd=work)
        run(["git", "init", "-q", root])
        for version in ["6.1", "6.12"]:
            deb = glob.glob(os.path.join(work, f"linux-source-{version}_*.deb"))[0]
            tree = os.path.join(work, version)
            os.mkdir(tree)
            # The package holds the source as one tarball under /usr/src.
            run(["sh", "-c", f"dpkg-deb --fsys-tarfile '{deb}' | tar -x -C '{tree}'"])
            tarball = os.path.join(tree, "usr", "src", f"linux-source-{version}.tar.xz")
            # The repository's work tree is replaced by this version's files.
            run(["git", "rm", "-rq", "--ignore-unmatch", "."], cwd=root)
            run(["tar", "-xf", tarball, "--strip-components=1", "-C", root])
            # -f: the packaged tree ignores itself (its .gitignore ends with `/*`).
            run(["git", "add", "-A", "-f"], cwd=root)
            # No automatic gc in the background: the one below would meet it.
            run(["git", "-c", "gc.auto=0", "-c", "user.name=hashlab",
                 "-c", "user.email=hashlab@localhost",
                 "commit", "-qm", f"linux-source-{version} (Debian)"], cwd=root)
        run(["git", "gc", "-q"], cwd=root)
    print(f"{root}: a repository of two linux-source trees, packed")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="case", required=True)
    b = sub.add_parser("backups")
    b.add_argument("dir")
    b.add_argument("--files", type=int, default=1_000_000)
    b.add_argument("--total", type=float, default=150e9)
    b.add_argument("--seed", type=int, default=4)
    r = sub.add_parser("linux-repo")
    r.add_argument("dir")
    args = parser.parse_args()
    if os.path.lexists(args.dir):
        sys.exit(f"like-cases.py: {args.dir}: exists; give a new directory")
    if args.case == "backups":
        backups(args.dir, args.files, int(args.total), args.seed)
    else:
        linux_repo(args.dir)


if __name__ == "__main__":
    main()
