"""Manifests of whole trees: sorted entries, one root digest, partitions.

A manifest's *lines* are its entries, sorted by the bytes of their names
(``os.fsencode``), each written as ``hashlab sum`` writes it (``<hex>  <name>``
with coreutils escaping; XXH3 lines tagged as xxhsum writes them). Its *root*
is the manifest's own algorithm, at its output length and without a key,
over exactly those lines: for a sha256 manifest, ``grep -v '^#' m.sha256 |
sha256sum`` prints it. Two sites with the same names and contents get the
same root whatever machines or worker counts made them.

*Partition* ``i`` of ``n`` holds the entries whose name's SHA-256 (of its
bytes), read as a big-endian integer from its first 8 bytes, is ``i`` modulo
``n``; its root is computed like the whole tree's over its own lines. When
two roots differ, comparing the ``n`` partition roots says which partitions
to compare entry by entry. A file added or changed moves only its own
partition's root.
"""

import dataclasses
import hashlib
import os

from hashlab import _hashlab

FORMAT = b"# hashlab manifest 1"


def _name_bytes(name):
    return os.fsencode(name)


def _sorted_by_name_bytes(pairs):
    """Pairs sorted by the bytes of their first item. For ASCII names the
    strings sort in that order already, and comparing them is several times
    faster than encoding each one; other names (a surrogate-escaped byte
    sorts differently as a str) are sorted by their bytes."""
    if all(name.isascii() for name, _ in pairs):
        return sorted(pairs)
    return sorted(pairs, key=lambda e: _name_bytes(e[0]))


def partition_of(name, count):
    """The partition (0..count-1) a name falls in."""
    digest = hashlib.sha256(_name_bytes(name)).digest()
    return int.from_bytes(digest[:8], "big") % count


def _escape(raw):
    # As coreutils escapes names in manifest lines, so a root path with a
    # newline stays one comment line.
    return raw.replace(b"\\", b"\\\\").replace(b"\n", b"\\n").replace(b"\r", b"\\r")


def _unescape(raw):
    out = bytearray()
    i = 0
    while i < len(raw):
        if raw[i : i + 1] == b"\\" and i + 1 < len(raw):
            out += {b"\\": b"\\", b"n": b"\n", b"r": b"\r"}.get(raw[i + 1 : i + 2], raw[i : i + 2])
            i += 2
        else:
            out += raw[i : i + 1]
            i += 1
    return bytes(out)


@dataclasses.dataclass(frozen=True)
class Partition:
    """One partition of a manifest: which, of how many, its entry count and root."""

    index: int
    count: int
    entries: int
    root: str


@dataclasses.dataclass
class AuditReport:
    """A tree against a manifest: names that match (``ok``), differ
    (``changed``), are gone (``missing``), appeared under the manifest's roots
    (``new``), or could not be read now (``errors``: (name, message))."""

    ok: list
    changed: list
    missing: list
    new: list
    errors: list

    @property
    def clean(self):
        """True when every recorded file is there, unchanged, and nothing new appeared."""
        return not (self.changed or self.missing or self.new or self.errors)


class Manifest:
    """A tree's digests: ``entries`` (sorted (name, hex) pairs), ``root``, partitions.

    ``roots`` are the paths the manifest covers (so an audit can find new
    files under them); ``errors`` the (name, message) pairs of files that
    were listed but could not be read; ``bytes`` how many bytes were hashed
    (None for a manifest read from a file).
    """

    def __init__(
        self,
        algorithm,
        entries,
        *,
        length=None,
        roots=(),
        partitions=1,
        errors=(),
        bytes=None,
    ):
        info = _hashlab.algorithm_info(algorithm)
        self.algorithm = info["name"]
        self.length = info["digest_size"] if length is None else int(length)
        self.roots = tuple(os.fsdecode(r) for r in roots)
        if int(partitions) < 1:
            raise ValueError(f"partitions: {partitions} is not a positive count")
        self.partition_count = int(partitions)
        ordered = _sorted_by_name_bytes([(os.fsdecode(n), h) for n, h in entries])
        for before, after in zip(ordered, ordered[1:]):
            if before[0] == after[0]:
                raise ValueError(f"{before[0]}: listed twice")
        for name, hex_digest in ordered:
            if len(hex_digest) != 2 * self.length:
                raise ValueError(
                    f"{name}: a {self.algorithm} digest of {self.length} bytes has "
                    f"{2 * self.length} hex digits, not {len(hex_digest)}"
                )
        self.entries = ordered
        self.errors = _sorted_by_name_bytes([(os.fsdecode(n), m) for n, m in errors])
        self.bytes = bytes
        #: Seconds each partition's task took (set by hashlab.dask.sum).
        self.task_seconds = None
        self._root = None

    @classmethod
    def _from_sorted(cls, algorithm, entries, **described):
        """A Manifest of ``entries`` that are already sorted by the bytes of
        their names, each name once, each digest of the algorithm's output
        length (hashlab.dask.sum's merge): without the checks of ``Manifest()``."""
        manifest = cls(algorithm, [], **described)
        manifest.entries = entries
        return manifest

    def __repr__(self):
        return (
            f"<hashlab.Manifest {self.algorithm}, {len(self.entries)} entries, "
            f"{len(self.errors)} unreadable, root {self.root[:16]}...>"
        )

    def __len__(self):
        return len(self.entries)

    def __eq__(self, other):
        if not isinstance(other, Manifest):
            return NotImplemented
        return (self.algorithm, self.length, self.entries) == (other.algorithm, other.length, other.entries)

    def as_dict(self):
        """name -> hex digest."""
        return dict(self.entries)

    def _lines(self, entries):
        return _hashlab.format_manifest(
            self.algorithm, [(_name_bytes(n), h) for n, h in entries], length=self.length
        )

    def _root_of(self, entries):
        return _hashlab.new(self.algorithm, self._lines(entries), length=self.length).hexdigest()

    def lines(self):
        """The entry lines, as bytes, exactly as ``write`` puts them after the header."""
        return self._lines(self.entries)

    @property
    def root(self):
        """The manifest's algorithm over ``lines()`` (see the module's documentation)."""
        if self._root is None:
            self._root = self._root_of(self.entries)
        return self._root

    def partition_entries(self, index, count=None):
        count = self.partition_count if count is None else count
        if not 0 <= index < count:
            raise ValueError(f"partition {index} is not among 0..{count - 1}")
        return [e for e in self.entries if partition_of(e[0], count) == index]

    def partitions(self, count=None):
        """Every partition's entry count and root; ``count`` defaults to the
        count the manifest was made with. Any count can be asked of any
        manifest: partitions depend on names only."""
        count = self.partition_count if count is None else int(count)
        if count < 1:
            raise ValueError(f"count: {count} is not a positive count")
        buckets = [[] for _ in range(count)]
        for entry in self.entries:
            buckets[partition_of(entry[0], count)].append(entry)
        return [Partition(i, count, len(b), self._root_of(b)) for i, b in enumerate(buckets)]

    def differing_partitions(self, other, count=None):
        """The partitions whose roots differ between two manifests (the same
        count for both): where to look when the roots differ."""
        count = self.partition_count if count is None else count
        if (self.algorithm, self.length) != (other.algorithm, other.length):
            raise ValueError(
                f"a {self.algorithm} manifest compares only with another, not with {other.algorithm}"
            )
        mine, theirs = self.partitions(count), other.partitions(count)
        return [a.index for a, b in zip(mine, theirs) if a.root != b.root]

    def header(self):
        out = [
            FORMAT,
            f"# algorithm: {self.algorithm}".encode(),
            f"# length: {self.length}".encode(),
            f"# partitions: {self.partition_count}".encode(),
        ]
        out += [b"# covers: " + _escape(os.fsencode(r)) for r in self.roots]
        out += [
            b"# unreadable: " + _escape(os.fsencode(n)) + b" -- " + _escape(m.encode()) for n, m in self.errors
        ]
        out.append(f"# root: {self.root}".encode())
        return b"\n".join(out) + b"\n"

    def write(self, path):
        """Writes the manifest (header comments, then the lines ``hashlab check``
        reads) as ``hashlab sum -o`` writes a file: a regular file is replaced
        whole or not at all (a temporary file of random name, created
        exclusively, synced and renamed over, keeping the mode and owner); a
        symbolic link is followed to its target; a device or FIFO is written
        through. Raises OSError naming the file."""
        _hashlab.write_file(os.fsencode(os.fspath(path)), self.header() + self.lines())

    @classmethod
    def read(cls, path, algorithm=None):
        """Reads a manifest ``write`` made, or any ``hashlab check`` reads (then
        without roots). ``algorithm`` overrides what the file says or implies.
        A header root that disagrees with the lines raises ValueError."""
        path = os.fspath(path)
        with open(path, "rb") as f:
            data = f.read()
        header = {}
        roots, errors = [], []
        for raw in data.split(b"\n"):
            if not raw.startswith(b"# ") or b": " not in raw:
                continue
            field, value = raw[2:].split(b": ", 1)
            if field == b"covers":
                roots.append(os.fsdecode(_unescape(value)))
            elif field == b"unreadable" and b" -- " in value:
                name, message = value.split(b" -- ", 1)
                errors.append((os.fsdecode(_unescape(name)), _unescape(message).decode(errors="replace")))
            else:
                header[field.decode(errors="replace")] = value.decode(errors="replace")
        algorithm = algorithm or header.get("algorithm")
        has_entries = any(line.strip() and not line.startswith(b"#") for line in data.split(b"\n"))
        entries = []
        if has_entries:
            for name, entry_algorithm, hex_digest in _hashlab.read_manifest(
                data, os.path.basename(path), algorithm
            ):
                if algorithm is None:
                    algorithm = entry_algorithm
                elif _hashlab.algorithm_info(entry_algorithm)["name"] != _hashlab.algorithm_info(algorithm)["name"]:
                    raise ValueError(f"{path}: lines of both {algorithm} and {entry_algorithm}")
                entries.append((name, hex_digest))
        if algorithm is None:
            raise ValueError(f"{path}: no entries and no '# algorithm:' line: cannot tell the algorithm")
        length = header.get("length")
        if length is None and entries:
            length = len(entries[0][1]) // 2
        manifest = cls(
            algorithm,
            entries,
            length=None if length is None else int(length),
            roots=roots,
            partitions=int(header.get("partitions", 1)),
            errors=errors,
        )
        recorded = header.get("root")
        if recorded is not None and recorded != manifest.root:
            raise ValueError(
                f"{path}: its header root {recorded} is not the root of its lines "
                f"({manifest.root}): the file was changed after it was written"
            )
        return manifest
