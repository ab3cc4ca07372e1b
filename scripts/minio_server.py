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


def boto3_clients(settings, **config):
    """Two boto3 clients of the server: (one with the SDK's defaults, which
    send a CRC-32 of every upload since boto3 1.36, one that sends no
    checksum, as clients before 2025 uploaded). `config`: botocore's Config
    keywords for both."""
    import boto3
    from botocore.config import Config

    def client(**more):
        return boto3.client(
            "s3",
            endpoint_url=settings["AWS_ENDPOINT_URL"],
            aws_access_key_id=settings["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=settings["AWS_SECRET_ACCESS_KEY"],
            region_name="us-east-1",
            config=Config(**config, **more),
        )

    bare = client(request_checksum_calculation="when_required", response_checksum_validation="when_required")
    return client(), bare
