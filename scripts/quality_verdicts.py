#!/usr/bin/env python3
"""The verdict table of docs/quality.md: for every hash SMHasher3's published
results and hashlab both cover (crates/hashlab-quality/data/smhasher3.tsv),
the families each fails, side by side, from `hashlab quality --format json`.

    scripts/quality_verdicts.py RUNS_DIR [--hashlab PATH] [--quick]

RUNS_DIR holds ALGO.json, the output of `hashlab quality -a ALGO --format
json`; a missing one is made by running PATH (default target/release/hashlab).
The table replaces what stands between the `verdicts:begin` and
`verdicts:end` markers of docs/quality.md.
"""

import argparse
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TSV = ROOT / "crates/hashlab-quality/data/smhasher3.tsv"
DOC = ROOT / "docs/quality.md"
BEGIN, END = "<!-- verdicts:begin -->", "<!-- verdicts:end -->"

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


def report(runs, algorithm, hashlab, quick):
    path = runs / f"{algorithm}.json"
    if not path.exists():
        cmd = [hashlab, "quality", "-a", algorithm, "--format", "json", "--quiet"]
        if quick:
            cmd.append("--quick")
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode not in (0, 1):
            sys.exit(f"{' '.join(cmd)}: {done.stderr.strip()}")
        path.write_text(done.stdout)
    return json.loads(path.read_text())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", type=pathlib.Path)
    parser.add_argument("--hashlab", default=str(ROOT / "target/release/hashlab"))
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    args.runs.mkdir(parents=True, exist_ok=True)
    theirs, source = smhasher3()
    kinds_of = {}
    lines = [
        f"SMHasher3: {source[0]} ({source[1]}). hashlab: "
        + ("`--quick`" if args.quick else "default plan") + ", seed 1. "
        "A family is failed when any of its tests fails; `—` where hashlab "
        "does not run it. Regenerate with `scripts/quality_verdicts.py`.",
        "",
        "| algorithm | SMHasher3 | hashlab | failed in both | only SMHasher3 | only hashlab | SMHasher3 families not run here |",
        "|---|---|---|---|---|---|---|",
    ]
    agree = disagree = 0
    family_agree = {}
    for algorithm, entry in theirs.items():
        ours = report(args.runs, algorithm, args.hashlab, args.quick)
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
        mapped = set(FAMILY.values())
        only_ours = sorted(
            {k for k in failed if k not in mapped}
            | {FAMILY_BACK[k] for k in failed if k in FAMILY_BACK and FAMILY_BACK[k] not in entry["failed"]}
        )
        missing += [f for f in entry["failed"] if f not in FAMILY]
        lines.append(
            f"| {algorithm} | {entry['name']}: {entry['total'] - entry['passed']}/{entry['total']} failed "
            f"| {ours['failed']}/{len(ours['tests'])} failed "
            f"| {', '.join(both) or '—'} | {', '.join(only_theirs) or '—'} "
            f"| {', '.join(only_ours) or '—'} | {', '.join(missing) or '—'} |"
        )
    lines += [
        "",
        f"Agreement over the (hash, family) cases both run: {agree} agree, {disagree} differ.",
        "",
        "| family | agree | differ |",
        "|---|---|---|",
    ]
    for family, (a, d) in family_agree.items():
        lines.append(f"| {family} | {a} | {d} |")
    text = DOC.read_text()
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    DOC.write_text(text[:start] + "\n" + "\n".join(lines) + "\n" + text[end:])


FAMILY_BACK = {kind: family for family, kind in FAMILY.items()}

if __name__ == "__main__":
    main()
