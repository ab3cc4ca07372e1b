#!/usr/bin/env bash
# Regenerate hashlab's test-vector data files:
#   crates/hashlab/tests/vectors/published/*.vec     (scripts/import_published.py)
#   crates/hashlab/tests/vectors/differential/*.vec  (scripts/gen_vectors.py)
#
# Creates a virtualenv at target/vector-venv with PINNED versions of the
# independent oracles and the published-vector package, then runs the two
# Python scripts. Re-runnable; the output is byte-for-byte deterministic.
#
# Needs: python3 (>= 3.9, with venv and its headers) and a C compiler, because
# highwayhash-cffi is built from its source archive (Google's portable C
# HighwayHash), plus access to PyPI the first time.
#
# Options are passed to import_published.py, e.g.
#   scripts/gen_vectors.sh --upstream DIR   (re-convert the upstream files; see
#                                            crates/hashlab/tests/vectors/README.md)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/target/vector-venv"
PY="$VENV/bin/python"

# Build tools for highwayhash-cffi (installed first, then used without build
# isolation so that they too are pinned).
BUILD_REQS=(
  "setuptools==80.9.0"
  "wheel==0.45.1"
  "pycparser==3.12"
  "cffi==2.1.1"
)
REQS=(
  "cryptography-vectors==50.0.2"  # NIST CAVP .rsp, RFC 1321, RFC 4231
  "pycryptodome==4.4.0"           # KangarooTwelve, TurboSHAKE, KMAC, cSHAKE
  "xxhash==4.1.0"                 # libxxhash (C)
  "siphashc==2.9.1"               # SipHash-2-4 (C)
  "crc32c==2.9.post0"             # CRC-32C (C)
  "crcmod==1.7"                   # CRC-64/NVME, POSIX cksum CRC (any polynomial)
  "gmssl==3.2.2"                  # SM3 (pure Python, from GB/T 32905)
  "pycryptodomex==3.24.2"         # gmssl's dependency, pinned too
  "siphash-cffi==0.1.4"           # SipHash reference C: 128-bit output, any c/d
  "mmh3==5.3.1"                   # MurmurHash3 (Appleby's C++)
)
SOURCE_REQS=(
  "highwayhash-cffi==0.1.6"       # Google's C HighwayHash, built from source
)

STAMP="$VENV/.hashlab-vector-reqs"
WANT="$(printf '%s\n' "${BUILD_REQS[@]}" "${REQS[@]}" "${SOURCE_REQS[@]}")"

if [[ ! -x "$PY" ]] || [[ ! -f "$STAMP" ]] || [[ "$(cat "$STAMP")" != "$WANT" ]]; then
  command -v cc >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 || {
    echo "gen_vectors.sh: a C compiler (cc) is needed to build highwayhash-cffi" >&2
    exit 1
  }
  rm -rf "$VENV"
  mkdir -p "$ROOT/target"
  python3 -m venv "$VENV"
  PIP=("$PY" -m pip --disable-pip-version-check --no-input -q)
  "${PIP[@]}" install "${BUILD_REQS[@]}"
  "${PIP[@]}" install "${REQS[@]}"
  "${PIP[@]}" install --no-build-isolation "${SOURCE_REQS[@]}"
  printf '%s' "$WANT" > "$STAMP"
fi

export PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1
"$PY" "$ROOT/scripts/import_published.py" "$@"
"$PY" "$ROOT/scripts/gen_vectors.py"
