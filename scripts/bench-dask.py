#!/usr/bin/env python3
"""hashlab.dask.sum against single-process `hashlab sum` on the same files:
throughput per worker (the efficiency of running the Rust core as Dask tasks)
and how the total scales from 1 to 4 workers. Files are in the page cache, so
this measures hashing and the Dask overhead, not a disk.

    cargo build --release -p hashlab-cli
    scripts/test-python -q          # the venv with the wheel and Dask
    target/python-venv/bin/python scripts/bench-dask.py [--gib 4] [--algorithm sha256]

Every Dask server binds 127.0.0.1. Prints a Markdown table (docs/scale.md).
"""

import argparse
import json
import os
import statistics
import subprocess
import time

from distributed import Client, LocalCluster

import hashlab
import hashlab.dask

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def make_data(root, total, file_size):
    """`total` bytes in files of `file_size`, written once and kept."""
    os.makedirs(root, exist_ok=True)
    count = total // file_size
    block = os.urandom(1 << 20)
    for i in range(count):
        path = os.path.join(root, f"d{i % 16:02d}", f"f{i:05d}.bin")
        if os.path.exists(path) and os.path.getsize(path) == file_size:
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            for j in range(file_size >> 20):
                # Different bytes in every MiB of every file.
                f.write(i.to_bytes(8, "little") + j.to_bytes(8, "little") + block[16:])
    return count * file_size


def timed(run, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=os.path.join(REPO, "target", "bench-dask-data"))
    parser.add_argument("--gib", type=float, default=4)
    parser.add_argument("--file-mib", type=int, default=16)
    parser.add_argument("--algorithm", default="sha256")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--workers", default="1,2,3,4")
    parser.add_argument("--hashlab", default=os.path.join(REPO, "target", "release", "hashlab"))
    parser.add_argument("--json")
    args = parser.parse_args()

    total = make_data(args.data, int(args.gib * (1 << 30)), args.file_mib << 20)
    gb = total / 1e9
    cli = [args.hashlab, "sum", "-r", "-a", args.algorithm, args.data]
    subprocess.run(cli, check=True, stdout=subprocess.DEVNULL)  # into the page cache
    results = {"bytes": total, "algorithm": args.algorithm, "file_mib": args.file_mib, "cli": {}, "dask": {}}
    print(f"{gb:.2f} GB in {total // (args.file_mib << 20)} files of {args.file_mib} MiB, {args.algorithm}, "
          f"{os.cpu_count()} cores, median of {args.repeats}\n")
    print("| run | seconds | GB/s | GB/s per worker | per worker vs `hashlab sum -j1` | inside the tasks, GB/s per task-second |")
    print("|---|---:|---:|---:|---:|---:|")
    reference = None
    for jobs in (1, 2):
        times = timed(lambda: subprocess.run(cli + ["-j", str(jobs)], check=True, stdout=subprocess.DEVNULL),
                      args.repeats)
        seconds = statistics.median(times)
        results["cli"][jobs] = times
        if jobs == 1:
            reference = gb / seconds
        print(f"| `hashlab sum -j{jobs}` (one process) | {seconds:.3f} | {gb / seconds:.2f} | "
              f"{gb / seconds / jobs:.2f} | {gb / seconds / jobs / reference:.0%} | |")
    expected = sorted(subprocess.run(cli, check=True, capture_output=True).stdout.splitlines())

    for workers in [int(w) for w in args.workers.split(",")]:
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address="127.0.0.1:0") as cluster, Client(cluster) as client:
            manifest = hashlab.dask.sum([args.data], args.algorithm, client)  # warm the workers
            assert sorted(manifest.lines().splitlines()) == expected, "Dask and the CLI disagree"
            task_seconds = []

            def run():
                m = hashlab.dask.sum([args.data], args.algorithm, client)
                task_seconds.append(sum(m.task_seconds.values()))

            times = timed(run, args.repeats)
        seconds = statistics.median(times)
        in_tasks = gb / statistics.median(task_seconds)
        results["dask"][workers] = {"times": times, "task_seconds": task_seconds}
        print(f"| hashlab.dask.sum, {workers} worker{'s' if workers > 1 else ''} | {seconds:.3f} | "
              f"{gb / seconds:.2f} | {gb / seconds / workers:.2f} | {gb / seconds / workers / reference:.0%} | "
              f"{in_tasks:.2f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
