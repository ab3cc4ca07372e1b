#!/usr/bin/env bash
# Seeds for the fuzz targets that read what users pass: manifests of every
# form match -k and sum --update read (written here by hashlab, hashdeep,
# hashdeep -p and b3sum), the committed results fixtures, and RDS-shaped
# SQLite databases (make_nsrl_seeds.py). Each manifest seed is prefixed
# with the selector bytes its target reads first.
#
#   fuzz/make_seeds.sh CORPUS_DIR [HASHLAB]     (HASHLAB: target/release/hashlab)
#   cargo +nightly fuzz run known_set CORPUS_DIR/known_set -- -max_total_time=600
set -euo pipefail
out=${1:?usage: fuzz/make_seeds.sh CORPUS_DIR [HASHLAB]}
hashlab=$(realpath "${2:-target/release/hashlab}")
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"/{known_set,update_manifest,results_file,known_nsrl}
out=$(realpath "$out")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir -p t/d
echo a > t/a
echo bb > t/d/b
head -c 3000 /dev/zero | tr '\0' x > t/big
"$hashlab" sum -r t > m.sha256
"$hashlab" sum -a md5 -r t > m.md5
"$hashlab" sum --tag -a sha1 -r t > m.tag
"$hashlab" sum --json -r t > m.json
"$hashlab" sum -a crc32-posix --format cksum -r t > m.ck
"$hashlab" sum -z -r t > m.z
hashdeep -r t > m.hd
hashdeep -p 1k -r t > m.hdp
b3sum t/a t/big > m.b3
n=0
seed() { # TARGET FILE SELECTOR...
  local target=$1 file=$2
  shift 2
  for selector in "$@"; do
    { printf "\\$(printf %03o "$selector")"; cat "$file"; } > "$out/$target/seed$n"
    n=$((n + 1))
  done
}
for f in m.sha256 m.md5 m.tag m.json m.hd m.hdp m.b3 m.ck; do seed known_set "$f" 0 1 2 16 21; done
for f in m.sha256 m.md5 m.tag m.json m.b3; do seed update_manifest "$f" 0 2 4 6; done
seed update_manifest m.z 1 3
# The committed results cut to a few cells (whole, each input took seconds).
for f in "$here"/../fixtures/results/*.json; do
  python3 - "$f" "$out/results_file/$(basename "$f")" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
report["cells"] = report["cells"][:12]
report["scaling"] = report["scaling"][:6]
json.dump(report, open(sys.argv[2], "w"), indent=1)
PY
done
python3 "$here/make_nsrl_seeds.py" "$out/known_nsrl"
