#!/usr/bin/env python3
"""A local tree against its upload in MinIO (scripts/minio, 127.0.0.1), at the
scale of issue 24: 2,000 objects of 1 KiB to 64 MiB, single-part and
multipart, uploaded by boto3 the ways users upload (its defaults: CRC-32,
composite for multipart; CRC-64/NVME; no checksum at all, as older clients).

Times `hashlab audit DIR s3://...` (the store's records, no object read),
`hashlab audit --download` (every object read) and `rclone check` (MD5s of
single-part ETags, sizes otherwise) on the same tree, and counts the bytes
each received from the server through a relay (scripts/counting_proxy.py).

    cargo build --release -p hashlab-cli
    scripts/test-python -q          # the venv with boto3
    target/python-venv/bin/python scripts/bench-store.py [--objects 2000] [--repeats 5]

The tree and the server's data are kept under --data (default
target/bench-store-data, about 9 GB); the files are reused, the upload redone.
Prints a Markdown table.
"""

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time

from boto3.s3.transfer import TransferConfig

import minio_server  # scripts/ is on sys.path
from counting_proxy import CountingProxy

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KiB, MiB = 1 << 10, 1 << 20
BUCKET = "bench"


def sizes(count, rng):
    """95 % single-part objects of 1 KiB to 4 MiB (log-uniform), 5 % multipart
    of 8 to 64 MiB: most objects in a real bucket are small, most bytes in
    large ones."""
    out = []
    for i in range(count):
        if i % 20 == 19:
            out.append(rng.randrange(8 * MiB, 64 * MiB))
        else:
            out.append(int(math.exp(rng.uniform(math.log(KiB), math.log(4 * MiB)))))
    return out


def upload(tree, count, settings, rng):
    sdk, bare = minio_server.boto3_clients(settings, max_pool_connections=16)
    sdk.create_bucket(Bucket=BUCKET)
    transfer = TransferConfig(multipart_threshold=8 * MiB, multipart_chunksize=8 * MiB, max_concurrency=4)
    block = rng.randbytes(MiB)
    kinds = {"crc32 (boto3 default)": 0, "crc64nvme": 0, "no checksum": 0}
    for i, size in enumerate(sizes(count, rng)):
        name = f"d{i % 20:02d}/o{i:05d}.bin"
        path = os.path.join(tree, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        head = i.to_bytes(8, "little")
        if not (os.path.exists(path) and os.path.getsize(path) == size):
            with open(path, "wb") as f:
                for at in range(0, size, MiB):
                    f.write((head + block[8:])[: min(MiB, size - at)])
        kind = list(kinds)[i % 3]
        kinds[kind] += 1
        key = f"tree/{name}"
        if kind == "crc32 (boto3 default)":
            sdk.upload_file(path, BUCKET, key, Config=transfer)
        elif kind == "crc64nvme":
            sdk.upload_file(path, BUCKET, key, Config=transfer, ExtraArgs={"ChecksumAlgorithm": "CRC64NVME"})
        else:
            bare.upload_file(path, BUCKET, key, Config=transfer)
    return kinds


def timed(command, env, proxy):
    before = proxy.from_server
    started = time.perf_counter()
    out = subprocess.run(command, env=env, capture_output=True, text=True)
    return time.perf_counter() - started, proxy.from_server - before, out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=os.path.join(REPO, "target", "bench-store-data"))
    parser.add_argument("--objects", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--hashlab", default=os.path.join(REPO, "target", "release", "hashlab"))
    args = parser.parse_args()
    tree = os.path.join(args.data, "tree")
    store = os.path.join(args.data, "minio")
    # The server's credentials are new each time: its data are too. The
    # files are kept (written again only where their size differs).
    subprocess.run(["rm", "-rf", store], check=True)
    os.makedirs(tree, exist_ok=True)
    server, settings = minio_server.start(store)
    try:
        time.sleep(2)
        started = time.perf_counter()
        kinds = upload(tree, args.objects, settings, random.Random(24))
        print(f"uploaded {args.objects} objects in {time.perf_counter() - started:.0f} s: {kinds}", file=sys.stderr)
        total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(tree) for f in fs)
        proxy = CountingProxy(int(settings["AWS_ENDPOINT_URL"].rsplit(":", 1)[1]))
        env = {**os.environ, **settings, "AWS_ENDPOINT_URL": proxy.address}
        rclone_env = {k: v for k, v in env.items() if k != "AWS_CA_BUNDLE"}
        rclone_env.update(
            RCLONE_CONFIG_M_TYPE="s3",
            RCLONE_CONFIG_M_PROVIDER="Minio",
            RCLONE_CONFIG_M_ACCESS_KEY_ID=settings["AWS_ACCESS_KEY_ID"],
            RCLONE_CONFIG_M_SECRET_ACCESS_KEY=settings["AWS_SECRET_ACCESS_KEY"],
            RCLONE_CONFIG_M_ENDPOINT=proxy.address,
            RCLONE_CONFIG_M_REGION="us-east-1",
            RCLONE_CONFIG="/dev/null",
        )
        runs = {
            "`hashlab audit DIR s3://...` (the store's records)": (
                [args.hashlab, "audit", "--json", tree, f"s3://{BUCKET}/tree"],
                env,
            ),
            "`rclone check DIR remote:...` (MD5 ETags, sizes)": (
                ["rclone", "check", tree, f"m:{BUCKET}/tree", "--checkers", "16"],
                rclone_env,
            ),
            "`hashlab audit --download DIR s3://...` (every object read, blake3)": (
                [args.hashlab, "audit", "--json", "--download", "-a", "blake3", tree, f"s3://{BUCKET}/tree"],
                env,
            ),
        }
        print(f"{args.objects} objects, {total / 1e9:.2f} GB, files in the page cache; medians of {args.repeats}\n")
        print("| run | seconds | bytes received from the store | result |")
        print("|---|---:|---:|---|")
        for label, (command, run_env) in runs.items():
            seconds, received, result = [], [], None
            for _ in range(args.repeats):
                s, r, result = timed(command, run_env, proxy)
                seconds.append(s)
                received.append(r)
            if "hashlab" in command[0]:
                report = json.loads(result.stdout)
                outcome = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in report["counts"].items() if v)
            else:
                said = [line.rsplit(": ", 1)[-1] for line in result.stderr.splitlines() if "NOTICE" in line]
                outcome = "; ".join(line for line in said if "not found" not in line) or "?"
            print(
                f"| {label} | {statistics.median(seconds):.2f} ({min(seconds):.2f}-{max(seconds):.2f}) "
                f"| {statistics.median(received):,.0f} | {outcome} (exit {result.returncode}) |"
            )
        proxy.close()
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
