#!/usr/bin/env python3
"""Times commands round by round, each round running every command once (in
turn, the order reversed every other round), so a machine whose speed drifts
during the run slows them alike: sequential runs (hyperfine's) put one
command in a fast minute and its rival in a slow one. Writes hyperfine's JSON
shape (results: command, mean, stddev, median, times) plus the quartiles.

    scripts/interleave.py OUT.json ROUNDS [--drop-caches [--keep-cached FILE]...]
                          [--cwd DIR] COMMAND...

--drop-caches empties the page cache before every run (root only);
--keep-cached FILE then reads FILE back into it, untimed (the programs
themselves, to time the reading of an uncached file without the loading of
an uncached executable).
Every command runs once untimed first (unless --drop-caches), to warm the
cache and catch a failing command before the rounds.
"""

import json
import os
import shlex
import statistics
import subprocess
import sys
import time


def main():
    args = sys.argv[1:]
    if len(args) < 3:
        sys.exit(__doc__)
    out, rounds, rest = args[0], int(args[1]), args[2:]
    drop, cwd, keep = False, None, []
    while rest and rest[0].startswith("--"):
        if rest[0] == "--drop-caches":
            drop, rest = True, rest[1:]
        elif rest[0] == "--keep-cached" and len(rest) > 1:
            keep, rest = keep + [rest[1]], rest[2:]
        elif rest[0] == "--cwd" and len(rest) > 1:
            cwd, rest = rest[1], rest[2:]
        else:
            sys.exit(f"interleave.py: unknown option {rest[0]}")
    if rounds < 1 or not rest:
        sys.exit("interleave.py: give a number of rounds and at least one command")
    if keep and not drop:
        sys.exit("interleave.py: --keep-cached goes with --drop-caches")
    for path in keep:
        if not os.path.isfile(path):
            sys.exit(f"interleave.py: {path}: not a file to keep cached")
    commands = rest

    def run(command):
        if drop:
            subprocess.run("sync; echo 3 > /proc/sys/vm/drop_caches", shell=True, check=True)
            for path in keep:
                with open(path, "rb") as f:
                    while f.read(1 << 20):
                        pass
        start = time.perf_counter()
        subprocess.run(shlex.split(command), check=True, cwd=cwd, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start

    if not drop:
        for command in commands:
            run(command)
    times = {c: [] for c in commands}
    for r in range(rounds):
        for command in commands if r % 2 == 0 else commands[::-1]:
            times[command].append(run(command))

    def summary(command, seconds):
        quartiles = statistics.quantiles(seconds, n=4) if len(seconds) > 1 else seconds * 3
        return {
            "command": command,
            "mean": statistics.mean(seconds),
            "stddev": statistics.stdev(seconds) if len(seconds) > 1 else 0.0,
            "median": statistics.median(seconds),
            "q1": quartiles[0],
            "q3": quartiles[2],
            "times": seconds,
        }

    results = [summary(c, s) for c, s in times.items()]
    with open(out + ".partial", "w") as f:
        json.dump({"results": results, "rounds": rounds, "interleaved": True}, f)
    os.replace(out + ".partial", out)


if __name__ == "__main__":
    main()
