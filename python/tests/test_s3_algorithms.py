"""S3's ten checksum algorithms as the AWS SDK for Python computes them
(botocore's checksum classes, with awscrt's CRC and xxHash code; hashlib's
MD5 for x-amz-checksum-md5, which botocore does not send): hashlab's digest
of the same bytes, in base64 as S3 shows it, is the SDK's. And a
FULL_OBJECT CRC of a multipart upload, which S3 makes by combining the
parts' CRCs (awscrt's combine functions), is the CRC of the whole content
that hashlab computes from the file."""

import base64
import hashlib
import random

import pytest

import hashlab

#: S3's name, hashlab's catalog name.
ALGORITHMS = [
    ("crc64nvme", "crc64nvme"),
    ("xxhash3", "xxh3-64"),
    ("xxhash128", "xxh3-128"),
    ("crc32c", "crc32c"),
    ("xxhash64", "xxh64"),
    ("crc32", "crc32"),
    ("sha1", "sha1"),
    ("sha256", "sha256"),
    ("sha512", "sha512"),
    ("md5", "md5"),
]

MESSAGES = [b"", b"Hello world", b"abcdefghijklmnopqrstuvwxyz", random.Random(5).randbytes(70_001)]


def sdk_b64(s3_name, data):
    if s3_name == "md5":
        return base64.b64encode(hashlib.md5(data).digest()).decode()
    from botocore.httpchecksum import _CHECKSUM_CLS

    checksum = _CHECKSUM_CLS[s3_name]()
    checksum.update(data)
    return checksum.b64digest()


def test_the_sdk_offers_every_algorithm_hashlab_reads():
    from botocore.httpchecksum import _CHECKSUM_CLS

    # awscrt is what botocore computes CRC-32C, CRC-64/NVME and xxHash with:
    # without it these would be missing, and the comparisons below empty.
    assert {name for name, _ in ALGORITHMS} - {"md5"} <= set(_CHECKSUM_CLS)


@pytest.mark.parametrize("s3_name,algorithm", ALGORITHMS)
def test_each_digest_is_the_sdks_in_base64(s3_name, algorithm):
    for data in MESSAGES:
        ours = base64.b64encode(hashlab.new(algorithm.replace("-", "_"), data).digest()).decode()
        assert ours == sdk_b64(s3_name, data), (s3_name, len(data))


def test_a_full_object_crc_is_the_combination_of_the_parts_crcs():
    from awscrt import checksums

    data = random.Random(9).randbytes(3 * 65536 + 77)
    parts = [data[:65536], data[65536 : 3 * 65536], data[3 * 65536 :]]
    for name, width, combine, crc in [
        ("crc32", 4, checksums.combine_crc32, checksums.crc32),
        ("crc32c", 4, checksums.combine_crc32c, checksums.crc32c),
        ("crc64nvme", 8, checksums.combine_crc64nvme, checksums.crc64nvme),
    ]:
        combined = crc(parts[0])
        for part in parts[1:]:
            combined = combine(combined, crc(part), len(part))
        assert hashlab.new(name, data).digest() == combined.to_bytes(width, "big"), name
