"""A local directory against an object-store prefix, as ``hashlab audit DIR
s3://bucket/prefix`` compares them (hashlab-objects' ``compare``): by the
checksums the store recorded at upload, reading no object, or with
``download=True`` by the bytes of every object."""

import dataclasses
import os

from hashlab import _hashlab


@dataclasses.dataclass
class StoreComparison:
    """What the comparison found. Names are paths below the directory, which
    are also the keys below the prefix.

    ``matched``: name -> what was compared ("x-amz-checksum-crc32 of a
    3-part upload", "ETag"...); ``changed``: name -> (what was compared, the
    file's value, the store's); ``only_local``, ``only_in_store``: names on
    one side only; ``not_comparable``: name -> why the store keeps nothing to
    compare with; ``errors``: name -> what could not be read or asked;
    ``proves``: what this comparison shows, in words (the store's records
    show that an upload arrived as sent, not that its bytes are intact now).
    """

    matched: dict
    changed: dict
    only_local: list
    only_in_store: list
    not_comparable: dict
    errors: dict
    proves: str

    @property
    def passed(self):
        """Every file has its object and every object its file, none differs
        and nothing failed ("not comparable" does not fail)."""
        return not (self.changed or self.only_local or self.only_in_store or self.errors)


def _assemble(pairs, verdicts, only_local, only_in_store, errors, proves):
    found = StoreComparison({}, {}, list(only_local), list(only_in_store), {}, dict(errors), proves)
    for pair, (status, detail, local, store) in zip(pairs, verdicts):
        name = pair[0]
        if status == "matched":
            found.matched[name] = detail
        elif status == "changed":
            found.changed[name] = (detail, local, store)
        elif status == "not-comparable":
            found.not_comparable[name] = detail
        else:
            found.errors[name] = detail
    return found


def compare_store(directory, prefix, *, download=False, algorithm="sha256", jobs=None, storage_options=None):
    """Compares the files under ``directory`` with the objects under
    ``prefix`` (``s3://bucket/path``): a StoreComparison. Each file pairs with
    the object whose key is the prefix, ``/``, and the file's path below the
    directory. By default each is compared with the checksum the store
    recorded (one HEAD per object, and one per part of a multipart upload);
    ``download=True`` reads every object and compares ``algorithm`` over its
    bytes with the file's. ``jobs`` files are hashed at once (default: every
    core). Raises NotADirectoryError, FileNotFoundError (no such bucket),
    PermissionError or ConnectionError, naming what failed."""
    pairs, only_local, only_in_store, errors = _hashlab.pair_store(
        os.fsencode(directory), prefix, storage_options=storage_options
    )
    verdicts, proves = _hashlab.compare_pairs(
        pairs, download=download, algorithm=algorithm, jobs=jobs, storage_options=storage_options
    )
    return _assemble(pairs, verdicts, only_local, only_in_store, errors, proves)
