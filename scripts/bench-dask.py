#!/usr/bin/env python3
"""hashlab.dask.sum against single-process `hashlab sum` on the same files:
throughput per worker (the efficiency of running the Rust core as Dask tasks)
and how the total scales from 1 to 4 workers. Files are in the page cache, so
this measures hashing and the Dask overhead, not a disk. Each Dask job is
also run beside a `sum -j1`, round by round, for a per-worker efficiency that
the machine's drift over the minutes does not move.

    cargo build --release -p hashlab-cli
    scripts/test-python -q          # the venv with the wheel and Dask
    target/python-venv/bin/python scripts/bench-dask.py [--gib 4] [--algorithm sha256]

Every Dask server binds 127.0.0.1. Prints a Markdown table (docs/scale.md).
On a shared machine wall-clock times move with the other load, so CPU time
is measured too (the workers', and this process's, which holds the client
and the scheduler): bytes per CPU-second is the efficiency that does not
depend on what else runs.
"""

import argparse
import json
import logging
import os
import resource
import statistics
import subprocess
import time

import psutil
from distributed import Client, LocalCluster

import hashlab
import hashlab.dask
from quiet_machine import wait_for_quiet  # scripts/ is on sys.path

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def make_data(root, total, file_size):
    """`total` bytes in files of `file_size`, written once and kept."""
    os.makedirs(root, exist_ok=True)
    count = total // file_size
    block = os.urandom(1 << 20)
    for i in range(count):
        path = os.path.join(root, f"d{i % 16:02d}", f"f{i:06d}.bin")
        if os.path.exists(path) and os.path.getsize(path) == file_size:
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            for j in range(0, file_size, len(block)):
                # Different bytes in every MiB of every file.
                piece = i.to_bytes(8, "little") + j.to_bytes(8, "little") + block[16:]
                f.write(piece[: file_size - j])
    return count * file_size


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def own_cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def worker_cpu(client):
    def cpu():
        t = psutil.Process().cpu_times()
        return t.user + t.system

    return sum(client.run(cpu).values())


def measured(run, cpu):
    """(wall seconds, CPU seconds) of one run."""
    cpu_before = cpu()
    start = time.perf_counter()
    run()
    wall = time.perf_counter() - start
    return wall, cpu() - cpu_before


def timed(run, repeats, cpu):
    """(wall seconds, CPU seconds) of each of `repeats` runs, each started
    on a quiet machine."""
    times = []
    for _ in range(repeats):
        wait_for_quiet()
        times.append(measured(run, cpu))
    return times


def beside(run, reference, repeats, workers, cpu):
    """`run` (the Dask job) timed as `timed` does, each round beside
    `reference` (`sum -j1`), the two in turn first, so a machine whose speed
    drifts over the minutes slows both alike. Gives `run`'s (wall seconds,
    CPU seconds) and each round's j1 time / (Dask time x workers)."""
    times, ratios = [], []
    for r in range(repeats):
        # One wait per round: the pair runs back to back.
        wait_for_quiet()
        if r % 2:
            j1, _ = measured(reference, lambda: 0)
            times.append(measured(run, cpu))
        else:
            times.append(measured(run, cpu))
            j1, _ = measured(reference, lambda: 0)
        ratios.append(j1 / (times[-1][0] * workers))
    return times, ratios


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=os.path.join(REPO, "target", "bench-dask-data"))
    parser.add_argument("--gib", type=float, default=4)
    parser.add_argument("--file-kib", type=int, default=16 << 10)
    parser.add_argument("--algorithm", default="sha256")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--workers", default="1,2,3,4")
    parser.add_argument("--hashlab", default=os.path.join(REPO, "target", "release", "hashlab"))
    parser.add_argument("--json")
    args = parser.parse_args()

    file_size = args.file_kib << 10
    data = os.path.join(args.data, f"{args.file_kib}k")
    total = make_data(data, int(args.gib * (1 << 30)), file_size)
    gb = total / 1e9
    cli = [args.hashlab, "sum", "-r", "-a", args.algorithm, data]
    subprocess.run(cli, check=True, stdout=subprocess.DEVNULL)  # into the page cache
    files = total // file_size
    results = {"bytes": total, "files": files, "algorithm": args.algorithm, "cli": {}, "dask": {}}
    print(f"{gb:.2f} GB in {files} files of {args.file_kib} KiB, {args.algorithm}, "
          f"{os.cpu_count()} cores, median of {args.repeats}\n")
    print("| run | seconds | GB/s | GB/s per worker | per worker vs `hashlab sum -j1` | CPU s | GB per CPU-s | vs `-j1` |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    reference = reference_cpu = None

    def row(label, times, workers):
        seconds = statistics.median(t[0] for t in times)
        cpu = statistics.median(t[1] for t in times)
        print(f"| {label} | {seconds:.3f} | {gb / seconds:.2f} | {gb / seconds / workers:.2f} | "
              f"{gb / seconds / workers / reference:.0%} | {cpu:.2f} | {gb / cpu:.2f} | {gb / cpu / reference_cpu:.0%} |")

    for jobs in (1, 2):
        times = timed(lambda: subprocess.run(cli + ["-j", str(jobs)], check=True, stdout=subprocess.DEVNULL),
                      args.repeats, children_cpu)
        results["cli"][jobs] = times
        if jobs == 1:
            reference = gb / statistics.median(t[0] for t in times)
            reference_cpu = gb / statistics.median(t[1] for t in times)
        row(f"`hashlab sum -j{jobs}` (one process)", times, jobs)
    expected = sorted(subprocess.run(cli, check=True, capture_output=True).stdout.splitlines())

    for workers in [int(w) for w in args.workers.split(",")]:
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address="127.0.0.1:0", silence_logs=logging.CRITICAL) as cluster, \
                Client(cluster) as client:
            manifest = hashlab.dask.sum([data], args.algorithm, client)  # warm the workers
            assert sorted(manifest.lines().splitlines()) == expected, "Dask and the CLI disagree"
            times, ratios = beside(
                lambda: hashlab.dask.sum([data], args.algorithm, client),
                lambda: subprocess.run(cli + ["-j1"], check=True, stdout=subprocess.DEVNULL),
                args.repeats,
                workers,
                lambda: worker_cpu(client) + own_cpu(),
            )
        results["dask"][workers] = times
        results.setdefault("beside_j1", {})[workers] = ratios
        row(f"`hashlab.dask.sum`, {workers} worker{'s' if workers > 1 else ''}", times, workers)
    print("\nPer worker against `sum -j1` run beside it, round by round (median, quartiles):")
    for workers, ratios in results["beside_j1"].items():
        q1, median, q3 = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else (ratios[0],) * 3
        print(f"{workers} worker{'s' if workers > 1 else ''}: {median:.0%} ({q1:.0%}-{q3:.0%}) over {len(ratios)} rounds")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
