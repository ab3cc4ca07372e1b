#!/usr/bin/env python3
"""Rebuilds ascon-kat.jsonl: a selection of the NIST SP 800-232 known answers from ascon/ascon-c.

Usage: python3 make_ascon.py UPSTREAM_DIR   (UPSTREAM_DIR/ascon+ascon-c/repo is a bare git directory)
The KAT files are those the Ascon designers' reference code generates for the final standard
(Ascon-Hash256, Ascon-XOF128 with 64-byte output, Ascon-CXOF128 with 64-byte output and
customization string Z). Records use the fields of make_data.py (see make_data.py): msg, custom, len, out.
"""
import json, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO, COMMIT = "ascon/ascon-c", "446347f21b209f3921c65ece70027c366cbe1693"
FILES = [("ascon-hash256", "crypto_hash/asconhash256/LWC_HASH_KAT_128_256.txt"),
         ("ascon-xof128", "crypto_hash/asconxof128/LWC_XOF_KAT_128_512.txt"),
         ("ascon-cxof128", "crypto_cxof/asconcxof128/LWC_CXOF_KAT_128_512.txt")]
MSG_LENS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33, 40, 47, 48, 49, 63, 64, 65,
            127, 128, 129, 255, 256, 257, 500, 511, 512, 513, 1000, 1023, 1024]
CXOF_PAIRS = [(m, z) for m in (0, 1, 8, 16, 17, 32) for z in (0, 1, 7, 8, 9, 16, 31, 32)]


def main():
    git = os.path.join(sys.argv[1], REPO.replace("/", "+"), "repo")
    out = []
    for alg, path in FILES:
        text = subprocess.run(["git", "--git-dir", git, "show", f"{COMMIT}:{path}"], check=True,
                              capture_output=True, text=True).stdout
        for block in text.strip().split("\n\n"):
            f = dict(re.match(r"(\w+) = ?(.*)$", line).groups() for line in block.strip().splitlines())
            msg, z, md = f["Msg"].lower(), f.get("Z", "").lower(), f["MD"].lower()
            assert msg == bytes(i & 255 for i in range(len(msg) // 2)).hex()
            if alg == "ascon-cxof128":
                if (len(msg) // 2, len(z) // 2) not in CXOF_PAIRS:
                    continue
            elif len(msg) // 2 not in MSG_LENS:
                continue
            r = {"id": f"{path}#Count={f['Count']}", "alg": alg, "msg": msg}
            if alg == "ascon-cxof128":
                r["custom"] = z
            if alg != "ascon-hash256":
                r["len"] = len(md) // 2
            r["out"] = md
            out.append(r)
    with open(os.path.join(HERE, "ascon-kat.jsonl"), "w") as f:
        for r in out:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
    print(len(out), "records")


if __name__ == "__main__":
    main()
