#!/usr/bin/env python3
"""rurban's SMHasher verdicts in the four families SMHasher3 does not have
(Window, MomentChi2, Prng, LongNeighbors), beside hashlab's.

    scripts/rurban_verdicts.py facts RURBAN_GIT_DIR [COMMIT] > crates/hashlab-quality/data/rurban.tsv
    scripts/rurban_verdicts.py table RUNS_DIR

`facts` reads the per-hash result files `doc/NAME.txt` of a clone of
github.com/rurban/smhasher at a pinned commit (and README.md, whose
"Quality problems" column is the only place LongNeighbors results are
published: main.cpp has the test compiled out) and writes one row per
(hash, family): the hashlab name, rurban's name, the family, pass / fail /
skipped / none, and the numbers behind it, quoted from his file.

`table` reads RUNS_DIR/ALGO.json, any `hashlab quality --format json`
output holding the four families (a full run, or the
`cargo run --release -p hashlab-quality --example family -- ALGO FAMILY
--json` runs of one family each, several JSON documents in one file), and
writes the comparison between the `rurban:begin` and `rurban:end` markers
of docs/quality.md. scripts/quality_verdicts.py keeps to SMHasher3's table,
which needs full runs of every hash.
"""

import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
TSV = ROOT / "crates/hashlab-quality/data/rurban.tsv"
DOC = ROOT / "docs/quality.md"
BEGIN, END = "<!-- rurban:begin -->", "<!-- rurban:end -->"

# hashlab's catalog name -> rurban's doc/ file (the same function; rurban
# hashes with seed 0, and keyed hashes under his default key).
SAME = {
    "md5": "md5-128",
    "sha1": "sha1-160",
    "sha224": "sha2-224",
    "sha256": "sha2-256",
    "sha3-256": "sha3-256",
    "blake3": "blake3_c",
    "blake2s": "blake2s-256",
    "ripemd160": "rmd160",
    "siphash-2-4": "SipHash",
    "siphash-1-3": "SipHash13",
    "highwayhash-64": "HighwayHash64",
    "xxh32": "xxHash32",
    "xxh64": "xxHash64",
    "xxh3-64": "xxh3",
    "xxh3-128": "xxh128",
    "crc32c": "crc32_hw",
    "crc32": "crc32",
    "fnv1a-32": "FNV1a",
    "fnv1a-64": "FNV64",
    "murmur3-32": "Murmur3A",
    "murmur3-128": "Murmur3F",
    "wyhash": "wyhash",
    "rapidhash": "rapidhash",
    "komihash": "komihash",
}

# rurban's family -> hashlab's test kind, as `--format json` names it.
FAMILY = {
    "Window": "window",
    "MomentChi2": "moment-chi2",
    "Prng": "prng",
    "LongNeighbors": "long-neighbors",
}


def show(git_dir, commit, path):
    return subprocess.run(
        ["git", "--git-dir", git_dir, "show", f"{commit}:{path}"],
        check=True, capture_output=True, text=True,
    ).stdout


def sections(text):
    """The lines of each '[[[ ... ]]]' section, by family."""
    found, current = {}, None
    for line in text.splitlines():
        if line.startswith("[[["):
            current = next((f for f, key in [("Window", "'Window'"), ("MomentChi2", "MomentChi2"),
                                              ("Prng", "Prng")] if key in line), None)
            if current:
                found[current] = []
            continue
        if current:
            found[current].append(line)
    return found


def window(lines):
    tests = [l for l in lines if l.startswith("Window at")]
    failed = [l for l in tests if "!!!" in l]
    head = next((l for l in lines if l.startswith("Keyset 'Window'")), "")
    setup = re.sub(r"^Keyset 'Window' -\s*", "", head).replace("  ", " ")
    if failed:
        worst = re.sub(r"\s+", " ", failed[0].strip())
        return "fail", f"{setup}; {len(failed)} of {len(tests)} positions fail, first: {worst}"
    return "pass", f"{setup}; no position fails"


def moment(lines):
    verdict = next((l.strip() for l in lines if l.strip() in ("FAIL !!!!", "pass", "Good", "Great")), None)
    values = [(m.group(1), float(m.group(2))) for l in lines
              if (m := re.match(r"MomentChi2 for (.+?) :\s+(\S+)", l))]
    step = next((m.group(1) for l in lines if (m := re.search(r"using a step of (\d+)", l))), "?")
    if verdict is None or not values:
        return "none", "no MomentChi2 result in the file"
    name, worst = max(values, key=lambda v: v[1])
    detail = f"4-byte keys, step {step}: worst {name} {worst:g} (fails above 500); rurban's rank {verdict}"
    return ("fail" if verdict.startswith("FAIL") else "pass"), detail


def prng(lines):
    if any("designed for hashes >= 64" in l or "Skipping PRNG" in l for l in lines):
        return "skipped", "skipped: hashes narrower than 64 bits"
    tests = [l for l in lines if l.startswith("Testing collisions")]
    failed = [l for l in tests if "!!!" in l]
    if not tests:
        return "none", "no Prng result in the file"
    if failed:
        return "fail", f"{len(failed)} of {len(tests)} collision counts fail: {re.sub(r' +', ' ', failed[0])}"
    return "pass", f"{len(tests)} collision counts of 2^25 outputs pass"


def facts(git_dir, commit):
    readme = show(git_dir, commit, "README.md")
    print(f"# rurban/smhasher doc/*.txt and README.md, github.com/rurban/smhasher commit {commit}")
    print("# generated by scripts/rurban_verdicts.py; columns are tab-separated")
    print("algorithm\trurban\tfamily\tverdict\tdetail")
    for algorithm, name in SAME.items():
        text = show(git_dir, commit, f"doc/{name}.txt")
        found = sections(text)
        for family, judge in [("Window", window), ("MomentChi2", moment), ("Prng", prng)]:
            verdict, detail = judge(found[family]) if family in found else ("none", "not in the file")
            print(f"{algorithm}\t{name}\t{family}\t{verdict}\t{detail}")
        row = next((l for l in readme.splitlines() if l.startswith(f"| [{name}](doc/{name}.txt)")), None)
        # | name | MiB/sec | cycl./hash | cycl./map | size | Quality problems |
        problems = row.split("|")[6].strip() if row else ""
        if "LongNeighbors" in problems:
            verdict, detail = "fail", f"README.md's quality problems: \"{problems}\""
        else:
            verdict, detail = "none", ("README.md does not name LongNeighbors for it"
                                       + (f" (\"{problems}\")" if problems else ""))
        print(f"{algorithm}\t{name}\tLongNeighbors\t{verdict}\t{detail}")


def rurban_rows():
    rows, source = {}, ""
    for line in TSV.read_text().splitlines():
        if line.startswith("#"):
            source = source or line.lstrip("# ")
            continue
        algorithm, name, family, verdict, detail = line.split("\t")
        if algorithm == "algorithm":
            continue
        rows.setdefault(algorithm, {"name": name})[family] = (verdict, detail)
    return rows, source


def tests_of(path):
    """Every test of the JSON reports in `path` (one or several documents)."""
    text, tests, decoder, at = path.read_text(), [], json.JSONDecoder(), 0
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        report, at = decoder.raw_decode(text, at)
        tests += report["tests"]
    return tests


def ours_of(tests, kind):
    """hashlab's verdict on a family (None: not run) and its worst test."""
    mine = [t for t in tests if t["test"] == kind]
    if not mine:
        return None, None
    worst = min(mine, key=lambda t: t["corrected_p"])
    return any(not t["passed"] for t in mine), worst


def table(runs):
    theirs, source = rurban_rows()
    lines = [
        f"rurban: {source}. hashlab: the default plan's four families, seed 1 "
        "(`--example family -- ALGO FAMILY --json`). Cells read rurban / hashlab; "
        "`—` where one has no verdict (rurban skips Prng below 64 bits as hashlab "
        "does, and publishes LongNeighbors verdicts only in README.md's remarks). "
        "Regenerate with `scripts/rurban_verdicts.py table RUNS_DIR`.",
        "",
        "| algorithm (rurban's name) | " + " | ".join(FAMILY) + " |",
        "|---|" + "---|" * len(FAMILY),
    ]
    agree = differ = 0
    notes = []
    for algorithm, entry in theirs.items():
        path = runs / f"{algorithm}.json"
        tests = tests_of(path) if path.exists() else []
        if not tests:
            continue
        cells = []
        for family, kind in FAMILY.items():
            verdict, detail = entry.get(family, ("none", ""))
            ours_fails, worst = ours_of(tests, kind)
            left = {"pass": "pass", "fail": "FAIL"}.get(verdict, "—")
            right = "—" if ours_fails is None else ("FAIL" if ours_fails else "pass")
            text = f"{left} / {right}"
            if verdict in ("pass", "fail") and ours_fails is not None:
                if (verdict == "fail") == ours_fails:
                    agree += 1
                else:
                    differ += 1
                    text = f"**{text}**"
                    notes.append(f"- {algorithm}, {family}: rurban {detail}; hashlab "
                                 f"{worst['statistic']} (corrected p {worst['corrected_p']:.2g}).")
            cells.append(text)
        lines.append(f"| {algorithm} ({entry['name']}) | " + " | ".join(cells) + " |")
    lines += ["", f"Where both have a verdict: {agree} agree, {differ} differ (in bold):", ""] + notes
    text = DOC.read_text()
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    DOC.write_text(text[:start] + "\n" + "\n".join(lines) + "\n" + text[end:])


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "facts":
        facts(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "HEAD")
    elif len(sys.argv) == 3 and sys.argv[1] == "table":
        table(pathlib.Path(sys.argv[2]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
