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

import contextlib
import dataclasses
import hashlib
import os
import re
import stat
import time
import typing

from hashlab import _hashlab

FORMAT = b"# hashlab manifest 1"

#: Seconds an update waits for another update of the same manifest (as the CLI).
LOCK_TIMEOUT = 30.0

#: The most partitions a manifest is split into: each costs a list and a
#: root, so a hostile ``# partitions: 1000000000`` line would run until
#: memory ran out. A million files per partition of a trillion-file tree.
MAX_PARTITIONS = 1 << 20

#: The longest line read from a manifest, as ``hashlab``'s own line readers
#: (``hashlab_integrity::bounded``): a file without line ends (``/dev/zero``)
#: is refused after this much rather than read until memory runs out.
MAX_LINE_BYTES = 64 * 1024


_HEX = re.compile(r"[0-9a-fA-F]*")


def _partition_count(value, what="partitions"):
    count = int(value)
    if count < 1:
        raise ValueError(f"{what}: {value} is not a positive count")
    if count > MAX_PARTITIONS:
        raise ValueError(f"{what}: {value} is more than {MAX_PARTITIONS} partitions")
    return count


def _read_bounded(path):
    """The whole file, refused (ValueError naming it and the line) as soon
    as a line passes MAX_LINE_BYTES."""
    chunks = []
    line, run = 1, 0
    with open(path, "rb") as f:
        while chunk := f.read(1 << 16):
            first = chunk.find(b"\n")
            if first == -1:
                run += len(chunk)
            elif run + first > MAX_LINE_BYTES:
                run += first
            else:
                # Lines wholly inside a chunk are shorter than the limit.
                line += chunk.count(b"\n")
                run = len(chunk) - chunk.rfind(b"\n") - 1
            if run > MAX_LINE_BYTES:
                raise ValueError(
                    f"{path}: line {line} is longer than {MAX_LINE_BYTES} bytes, "
                    "the longest line hashlab reads (not a text file?)"
                )
            chunks.append(chunk)
    return b"".join(chunks)


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
        self.partition_count = _partition_count(partitions)
        ordered = _sorted_by_name_bytes([(os.fsdecode(n), h) for n, h in entries])
        for before, after in zip(ordered, ordered[1:]):
            if before[0] == after[0]:
                raise ValueError(f"{before[0]}: listed twice")
        for name, hex_digest in ordered:
            # What is written must read back: a name holds no NUL (no
            # file name can) and is not empty, a digest is hex digits.
            if not name or "\0" in name:
                raise ValueError(f"{name!r}: not a file name (empty, or holding NUL)")
            if not isinstance(hex_digest, str) or not _HEX.fullmatch(hex_digest):
                raise ValueError(f"{name}: digest {hex_digest!r} is not hex digits")
            if len(hex_digest) != 2 * self.length:
                raise ValueError(
                    f"{name}: a {self.algorithm} digest of {self.length} bytes has "
                    f"{2 * self.length} hex digits, not {len(hex_digest)}"
                )
        self.entries = [(name, hex_digest.lower()) for name, hex_digest in ordered]
        self.errors = _sorted_by_name_bytes([(os.fsdecode(n), m) for n, m in errors])
        self.bytes = bytes
        #: Seconds each partition's task took (set by hashlab.dask.sum).
        self.task_seconds = None
        #: name -> Stamp of the file when it was hashed, for ``update``: read
        #: from and written to the sidecar ``hashlab sum --update`` keeps.
        self.stamps = {}
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
        count = self.partition_count if count is None else _partition_count(count, "count")
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

    def update(self, paths=None, *, prune=False, threads=None, key=None, length=None, backend=None):
        """Brings the manifest up to date with its files, in place, as
        ``hashlab sum --update`` does (the same code: the wheel's
        ``update_tree``): files under ``paths`` (default: the manifest's
        roots, else the files it lists) that it lacks are added, files whose
        size or modification time (or inode, status-change time) moved since
        they were hashed are read again, the rest are not read; with
        ``prune``, entries whose files are gone are dropped. Local files
        only (``hashlab.dask.sum(..., update=manifest)`` also takes
        object-store prefixes). Returns an UpdateReport.

        A file changed with the same size and times (bitrot, a time set
        back) is found only by an audit, which reads everything."""
        return self._update(paths, prune, None, threads, key, length, backend)

    def _update(self, paths, prune, path, threads, key, length, backend):
        roots = list(self.roots) if paths is None else [os.fsdecode(p) for p in paths]
        lines, sidecar, report = _hashlab.update_tree(
            self.lines(), self._sidecar(), self.algorithm, self.length,
            [os.fsencode(r) for r in roots], prune=prune,
            manifest=None if path is None else os.fsencode(os.fspath(path)),
            threads=threads, key=key, length_argument=length, backend=backend,
        )
        return self._revised(lines, sidecar, report)

    def _revised(self, lines, sidecar, report, problems=()):
        """Takes the entries and stamps of an update's result (the wheel's
        ``update_tree`` or ``PendingUpdate.finish``); its UpdateReport, whose
        ``errors`` are ``problems`` (what could not be listed) and every
        entry the update kept because it could not tell what became of it."""
        self.entries = _sorted_by_name_bytes(
            [(os.fsdecode(n), h) for n, _algorithm, h in self._read_lines(lines)]
        )
        self.stamps = {}
        self._apply_sidecar(sidecar)
        errors = [(os.fsdecode(n), m) for n, m in problems]
        errors += report["not_read"] + report["unreadable"] + report["skipped"]
        self.errors = _sorted_by_name_bytes(errors)
        self._root = None
        return UpdateReport(
            report["added"], report["changed"], report["removed"], report["missing"],
            report["rehashed"], report["unchanged"], errors,
        )

    def _read_lines(self, lines):
        if not lines:
            return []
        return _hashlab.read_manifest(lines, "manifest", self.algorithm)

    @staticmethod
    def locked(path, timeout=LOCK_TIMEOUT):
        """A context manager holding the lock ``hashlab sum --update`` and
        ``update_file`` take on the manifest at ``path``, for a read, update
        and write done by hand (see ``locked`` in this module)."""
        return locked(path, timeout)

    @classmethod
    def update_file(
        cls, path, paths=None, *, prune=False, timeout=LOCK_TIMEOUT, algorithm=None,
        threads=None, key=None, length=None, backend=None,
    ):
        """Reads the manifest at ``path``, ``update``s it and writes it back
        (with its sidecar), holding the lock ``hashlab sum --update`` takes,
        so that updates of one manifest made at once, by the CLI or by
        Python, each keep the others' entries. Waits up to ``timeout``
        seconds for another update to end, then raises TimeoutError.
        Returns (Manifest, UpdateReport)."""
        with locked(path, timeout):
            manifest = cls.read(path, algorithm)
            # The file, its sidecar and temporary files are left out of the walk.
            report = manifest._update(paths, prune, path, threads, key, length, backend)
            manifest.write(path)
        return manifest, report

    def write(self, path):
        """Writes the manifest (header comments, then the lines ``hashlab check``
        reads) as ``hashlab sum -o`` writes a file: a regular file is replaced
        whole or not at all (a temporary file of random name, created
        exclusively, synced and renamed over, keeping the mode and owner); a
        symbolic link is followed to its target; a device or FIFO is written
        through. Raises OSError naming the file."""
        path = os.fsencode(os.fspath(path))
        _hashlab.write_file(path, self.header() + self.lines())
        if self.stamps:
            _hashlab.write_file(path + SIDECAR_SUFFIX, self._sidecar())

    def _sidecar(self):
        """The sidecar's bytes (empty when no file has a stamp)."""
        rows = []
        for name, hex_digest in self.entries:
            stamp = self.stamps.get(name)
            if stamp is not None:
                rows.append((os.fsencode(name), *stamp, bytes.fromhex(hex_digest)[:8]))
        return _hashlab.format_sidecar(rows)

    def _apply_sidecar(self, data):
        rows = _hashlab.read_sidecar(data)
        if rows is None:
            return
        digests = dict(self.entries)
        for name, size, mtime_ns, inode, ctime_ns, etag, check in rows:
            name = os.fsdecode(name)
            hex_digest = digests.get(name)
            if hex_digest is not None and bytes.fromhex(hex_digest)[:8] == check:
                self.stamps[name] = Stamp(size, mtime_ns, inode, ctime_ns, etag)

    @classmethod
    def read(cls, path, algorithm=None):
        """Reads a manifest ``write`` made, or any ``hashlab check`` reads (then
        without roots). ``algorithm`` overrides what the file says or implies.
        A header root that disagrees with the lines raises ValueError."""
        path = os.fspath(path)
        data = _read_bounded(path)
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
        try:
            with open(os.fsencode(path) + SIDECAR_SUFFIX, "rb") as f:
                manifest._apply_sidecar(f.read())
        except FileNotFoundError:
            pass
        return manifest


#: Beside a manifest, the stamps of its files (the sidecar of ``hashlab sum --update``).
SIDECAR_SUFFIX = b".hashlab-stat"


class Stamp(typing.NamedTuple):
    """What tells a file unchanged without reading it."""

    size: typing.Optional[int]
    mtime_ns: typing.Optional[int]
    inode: typing.Optional[int] = None
    ctime_ns: typing.Optional[int] = None
    etag: typing.Optional[str] = None

    def unchanged(self, now):
        """As ``hashlab sum --update`` decides (the same code): the size and
        the time (or the ETag) recorded and equal, and whatever else is
        recorded too."""
        return _hashlab.stamp_unchanged(tuple(self), tuple(now))


def stat_stamp(name):
    """A local file's stamp now; None when it is not a regular file."""
    try:
        st = os.stat(name)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return Stamp(st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


@dataclasses.dataclass
class UpdateReport:
    """What ``Manifest.update`` (or ``hashlab.dask.sum(update=...)``) did:
    names added, changed (new digest), removed (gone, with ``prune``),
    missing (gone, kept), rehashed (read again, same digest), the count
    left unread, and (name, message) of files that could not be read (their
    entries kept as they were)."""

    added: list
    changed: list
    removed: list
    missing: list
    rehashed: list
    unchanged: int
    errors: list


@contextlib.contextmanager
def locked(path, timeout=LOCK_TIMEOUT):
    """Holds the lock of the manifest at ``path`` that ``hashlab sum
    --update`` takes (``flock`` on the manifest itself), for a read,
    update and write done by hand; waits up to ``timeout`` seconds for
    another holder, then raises TimeoutError. A manifest replaced while this
    waited (an update renames a new file over it) is locked anew. Nothing is
    locked where there is no such file or it is not a regular file, or
    where the platform has no ``flock``."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    path = os.fsencode(os.fspath(path))
    deadline = time.monotonic() + timeout
    pause = 0.01
    while True:
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                yield
                return
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            yield
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            if time.monotonic() >= deadline:
                raise TimeoutError(
                    f"{os.fsdecode(path)}: another update of it is still running after "
                    f"{timeout:g} s; try again when it ends"
                ) from None
            time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
            pause = min(pause * 2, 0.2)
            continue
        except BaseException:
            os.close(fd)
            raise
        try:
            held, now = os.fstat(fd), os.stat(path)
            current = (held.st_dev, held.st_ino) == (now.st_dev, now.st_ino)
        except FileNotFoundError:
            current = False
        except BaseException:
            os.close(fd)
            raise
        if not current:
            os.close(fd)
            continue
        try:
            yield
        finally:
            os.close(fd)
        return
