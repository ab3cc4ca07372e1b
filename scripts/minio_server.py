"""Starts `scripts/minio serve` and reads the settings it prints, for the
Python tests (python/tests/conftest.py) and scripts/bench-store.py."""

import os
import subprocess

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "minio")


def start(data, log=subprocess.DEVNULL):
    """A MinIO server on 127.0.0.1 keeping its data in `data`: (the process,
    its settings as the `AWS_*` variables a client needs)."""
    server = subprocess.Popen(["bash", SCRIPT, "serve", "--data", str(data)], stdout=subprocess.PIPE, stderr=log)
    settings = {}
    for raw in server.stdout:
        line = raw.decode().strip()
        if line.startswith("# data:"):
            break
        if line.startswith("export "):
            key, value = line[len("export ") :].split("=", 1)
            settings[key] = value
    return server, settings
