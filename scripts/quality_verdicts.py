#!/usr/bin/env python3
"""The verdict table of docs/quality.md: for every hash SMHasher3's published
results and hashlab both cover (crates/hashlab-quality/data/smhasher3.tsv),
the families each fails, side by side, from `hashlab quality --format json`.

    scripts/quality_verdicts.py RUNS_DIR [--hashlab PATH] [--quick] [--commit C]
                                [--keep-stored] [--skip-missing]

RUNS_DIR holds ALGO.json, the output of `hashlab quality -a ALGO --format
json`; a missing one is made by running PATH (default target/release/hashlab).
The table replaces what stands between the `verdicts:begin` and
`verdicts:end` markers of docs/quality.md (`verdicts-quick:` markers with
--quick). From full runs it also writes
crates/hashlab-quality/data/hashlab_verdicts.tsv, every test of every run,
which `hashlab info ALGO` shows beside SMHasher3's verdict. With
--keep-stored, a hash RUNS_DIR has no run of keeps the rows (and the commit)
hashlab_verdicts.tsv already holds for it, in the table and in the file;
with --skip-missing, a hash with neither is marked "not run" instead of run.
"""

import argparse
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TSV = ROOT / "crates/hashlab-quality/data/smhasher3.tsv"
STORED = ROOT / "crates/hashlab-quality/data/hashlab_verdicts.tsv"
DOC = ROOT / "docs/quality.md"
BEGIN, END = "<!-- verdicts:begin -->", "<!-- verdicts:end -->"
QBEGIN, QEND = "<!-- verdicts-quick:begin -->", "<!-- verdicts-quick:end -->"

# SMHasher3's family -> hashlab's test kind measuring the same thing on
# keysets built as its source describes them.
FAMILY = {
    "Avalanche": "avalanche",
    "BIC": "bit-independence",
    "Sparse": "sparse-keys",
    "Cyclic": "cyclic-keys",
    "Bitflip": "differential",
    "Zeroes": "zeroes",
    "TwoBytes": "two-bytes",
    "Text": "text",
    "Permutation": "permutation",
    "SeedAvalanche": "seed-avalanche",
    "SeedBIC": "seed-bit-independence",
    "SeedZeroes": "seed-zeroes",
    "SeedBlockLen": "seed-block-length",
    "SeedBlockOffset": "seed-block-offset",
    "PerlinNoise": "perlin-noise",
    "SeedSparse": "seed-sparse",
    "Seed": "seed-grid",
    "SeedBitflip": "seed-bitflip",
}


def smhasher3():
    rows = {}
    source = []
    for line in TSV.read_text().splitlines():
        if line.startswith("#"):
            source.append(line.lstrip("# "))
            continue
        fields = line.split("\t")
        if fields[0] == "algorithm":
            continue
        algorithm, name, passed, total, family, cases = fields
        entry = rows.setdefault(algorithm, {"name": name, "passed": int(passed),
                                            "total": int(total), "failed": {}})
        if family != "-":
            entry["failed"][family] = cases
    return rows, source[:2]


def report(runs, algorithm, hashlab, quick, skip_missing):
    path = runs / f"{algorithm}.json"
    if skip_missing and (not path.exists() or path.stat().st_size == 0):
        return None
    if not path.exists():
        cmd = [hashlab, "quality", "-a", algorithm, "--format", "json", "--quiet"]
        if quick:
            cmd.append("--quick")
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode not in (0, 1):
            sys.exit(f"{' '.join(cmd)}: {done.stderr.strip()}")
        path.write_text(done.stdout)
    return json.loads(path.read_text())


def stored_runs():
    """The runs hashlab_verdicts.tsv holds, in the shape of `--format json`,
    each with the commit it was made with."""
    header = {}
    runs = {}
    for line in STORED.read_text().splitlines():
        if line.startswith("#"):
            key, _, value = line.lstrip("# ").partition(": ")
            header[key] = value
            continue
        fields = line.split("\t")
        if fields[0] == "algorithm":
            continue
        algorithm, _, test, case, hashes, statistics, p, verdict, statistic = fields
        source = header.get(f"source {algorithm}", header["source"])
        run = runs.setdefault(algorithm, {
            "plan": source.split("plan ")[1].split(",")[0],
            "seed": int(source.split("seed ")[1].split(",")[0]),
            "alpha": float(header["alpha"]),
            "commit": source.split("commit ")[1],
            "failed": 0,
            "tests": [],
        })
        run["failed"] += verdict == "fail"
        run["tests"].append({
            "test": test, "case": case, "hashes": int(hashes),
            "statistics": int(statistics), "worst": {"p_value": float(p)},
            "passed": verdict == "pass", "statistic": statistic,
        })
    return runs


def clean(text):
    return text.replace("\t", " ").replace("\n", " ")


def store(reports, commit):
    """Every test of the full runs, as hashlab_verdicts.tsv holds them; a
    run kept from an older commit gets its own `source ALGO:` line."""
    first = next(iter(reports.values()))
    source = f"hashlab quality, plan {first['plan']}, seed {first['seed']}, commit"
    lines = [f"# source: {source} {commit}"]
    lines += [f"# source {algorithm}: {source} {ours['commit']}"
              for algorithm, ours in reports.items() if ours.get("commit", commit) != commit]
    lines += [
        f"# alpha: {first['alpha']!r}",
        "# generated by scripts/quality_verdicts.py from `hashlab quality --format json`; tab-separated;",
        "# p is the worst statistic's p-value before the Bonferroni correction over tests_in_run tests",
        "algorithm\ttests_in_run\ttest\tcase\thashes\tstatistics\tp\tverdict\tstatistic",
    ]
    for algorithm, ours in reports.items():
        for t in ours["tests"]:
            lines.append("\t".join([
                algorithm, str(len(ours["tests"])), t["test"], clean(t["case"]),
                str(t["hashes"]), str(t["statistics"]), repr(float(t["worst"]["p_value"])),
                "pass" if t["passed"] else "fail", clean(t["statistic"]),
            ]))
    STORED.write_text("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", type=pathlib.Path)
    parser.add_argument("--hashlab", default=str(ROOT / "target/release/hashlab"))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--skip-missing", action="store_true",
                        help="leave out the hashes RUNS_DIR has no run of instead of running them")
    parser.add_argument("--keep-stored", action="store_true",
                        help="for a hash RUNS_DIR has no run of, keep the run hashlab_verdicts.tsv holds")
    parser.add_argument("--commit", default="unrecorded",
                        help="the hashlab commit the runs were made with, for the stored data")
    args = parser.parse_args()
    if args.keep_stored and args.quick:
        parser.error("--keep-stored: the stored runs are full runs, not --quick ones")
    args.runs.mkdir(parents=True, exist_ok=True)
    theirs, source = smhasher3()
    kept = stored_runs() if args.keep_stored else {}
    kinds_of = {}
    lines = [
        f"SMHasher3: {source[0]} ({source[1]}). hashlab: "
        + ("`--quick`" if args.quick else "default plan") + ", seed 1"
        + ("" if args.commit == "unrecorded" else f", commit {args.commit}") + ". "
        "A family is failed when any of its tests fails; `—` where hashlab "
        "does not run it. Regenerate with `scripts/quality_verdicts.py`.",
        "",
        "| algorithm | SMHasher3 | hashlab | failed in both | only SMHasher3 | only hashlab | failed hashlab tests SMHasher3 has no family for | SMHasher3 families not run here |",
        "|---|---|---|---|---|---|---|---|",
    ]
    agree = disagree = 0
    tally = {(True, True): 0, (False, False): 0, (True, False): 0, (False, True): 0}
    family_agree = {}
    reports = {}
    for algorithm, entry in theirs.items():
        ours = report(args.runs, algorithm, args.hashlab, args.quick,
                      args.skip_missing or algorithm in kept)
        if ours is None and algorithm in kept:
            ours = kept[algorithm]
        if ours is None:
            lines.append(f"| {algorithm} | {entry['name']}: {entry['total'] - entry['passed']}/{entry['total']} failed "
                         "| not run | | | | | |")
            continue
        reports[algorithm] = ours
        ran = {t["test"] for t in ours["tests"]}
        failed = {t["test"] for t in ours["tests"] if not t["passed"]}
        kinds_of[algorithm] = failed
        both, only_theirs, missing = [], [], []
        for family, kind in FAMILY.items():
            if kind not in ran:
                if family in entry["failed"]:
                    missing.append(family)
                continue
            theirs_fails = family in entry["failed"]
            ours_fails = kind in failed
            tally[(theirs_fails, ours_fails)] += 1
            counts = family_agree.setdefault(family, [0, 0])
            if theirs_fails == ours_fails:
                agree += 1
                counts[0] += 1
                if theirs_fails:
                    both.append(family)
            else:
                disagree += 1
                counts[1] += 1
                if theirs_fails:
                    only_theirs.append(family)
        # A failed test of a family SMHasher3 runs and passes is a
        # disagreement; a failed test SMHasher3 has no family for (bad seeds,
        # seed collisions, hash-table buckets, key tests) is not, so the two
        # get their own columns.
        only_ours = sorted(FAMILY_BACK[k] for k in failed
                           if k in FAMILY_BACK and FAMILY_BACK[k] not in entry["failed"])
        unmatched = sorted(k for k in failed if k not in FAMILY_BACK and k not in RURBAN)
        missing += [f for f in entry["failed"] if f not in FAMILY]
        lines.append(
            f"| {algorithm} | {entry['name']}: {entry['total'] - entry['passed']}/{entry['total']} failed "
            f"| {ours['failed']}/{len(ours['tests'])} failed"
            + (f" (stored run of {ours['commit']})" if ours.get("commit", args.commit) != args.commit else "")
            + " "
            f"| {', '.join(both) or '—'} | {', '.join(only_theirs) or '—'} "
            f"| {', '.join(only_ours) or '—'} | {', '.join(unmatched) or '—'} | {', '.join(missing) or '—'} |"
        )
    lines += [
        "",
        f"Agreement by case, over the (hash, family) cases both run: {agree} agree "
        f"({tally[(True, True)]} fail in both, {tally[(False, False)]} pass in both), {disagree} differ "
        f"({tally[(True, False)]} fail only in SMHasher3, {tally[(False, True)]} only in hashlab). By family:",
        "",
        "| family | agree | differ |",
        "|---|---|---|",
    ]
    for family, (a, d) in family_agree.items():
        lines.append(f"| {family} | {a} | {d} |")
    if not args.quick:
        store(reports, args.commit)
    text = DOC.read_text()
    begin, end_marker = (BEGIN, END) if not args.quick else (QBEGIN, QEND)
    start, end = text.index(begin) + len(begin), text.index(end_marker)
    DOC.write_text(text[:start] + "\n" + "\n".join(lines) + "\n" + text[end:])


FAMILY_BACK = {kind: family for family, kind in FAMILY.items()}
# rurban's SMHasher families, which SMHasher3 does not run: compared with
# rurban's published verdicts by scripts/rurban_verdicts.py instead.
RURBAN = {"window", "moment-chi2", "prng", "long-neighbors"}

if __name__ == "__main__":
    main()
