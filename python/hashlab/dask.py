"""Integrity of a tree on a Dask cluster: ``sum`` makes a Manifest, ``audit``
checks a tree against one.

    >>> from distributed import Client
    >>> import hashlab.dask
    >>> client = Client()
    >>> manifest = hashlab.dask.sum(["/data/lake"], "blake3", client)
    >>> manifest.write("lake.b3")            # `hashlab check lake.b3` reads it
    >>> hashlab.dask.audit(manifest, client).changed
    []

The client lists the roots (the walk of ``hashlab sum -r``), splits the
files into partitions by name (see hashlab._manifest), and each partition
is one Dask task: a worker hashes its files through the Rust core (the
wheel's ``hash_packed``, the reading strategy of ``hashlab sum``) and returns
its entries. The client merges them into one sorted Manifest. Listing,
splitting and merging are the wheel's too (names travel packed, one bytes
object per task), so the client spends well under a microsecond a file. A task whose
worker dies is run again elsewhere by Dask; a partition's result depends only
on its files, so the merged manifest is the same.

Workers must see the files at the same absolute paths as the client (one
machine, or a shared file system). Object-store prefixes (``s3://bucket/prefix``,
``gs://``, ``az://``) are listed by the client and their objects spread over
the partitions by name like files; each worker reads its objects with the
ranged, parallel reads of ``hashlab sum s3://...`` (the wheel's
``hash_objects``). Workers find credentials and the endpoint where the CLI
does, in the ``AWS_*`` (``GOOGLE_*``, ``AZURE_*``) environment variables, or
in ``storage_options`` (object_store's keys, e.g. ``{"aws_endpoint": ...}``),
which travel with the tasks.
"""

import builtins
import errno
import math
import os
import re
import time
import uuid

from hashlab import _hashlab
from hashlab._manifest import (
    AuditReport,
    Manifest,
    _partition_count,
    partition_of,
    stat_stamp,
)
from hashlab._store import _assemble

__all__ = ["audit", "compare_store", "sum"]

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")

#: Schemes read through an object store rather than the local file system.
OBJECT_STORE_SCHEMES = frozenset({"s3", "s3a", "gs", "az", "azure", "abfs", "abfss", "adl"})

#: Files per partition at most, when the caller does not choose a count: a
#: task of this many names is a few megabytes to ship and seconds to hash.
FILES_PER_PARTITION = 10_000


def _local_path(item):
    """A local path from a path or a ``file://`` URL; an object-store URL as
    ``("url", text)``; any other URL is refused."""
    if isinstance(item, os.PathLike):
        item = os.fspath(item)
    if not isinstance(item, (str, bytes)):
        raise TypeError(f"a path or URL is required, not {type(item).__name__!r}")
    text = os.fsdecode(item)
    match = _SCHEME.match(text)
    if match is None:
        return text
    scheme = match.group(1).lower()
    if scheme == "file":
        from urllib.parse import unquote, urlsplit

        parts = urlsplit(text)
        if parts.netloc not in ("", "localhost"):
            raise ValueError(f"{text}: a file:// URL of another host ({parts.netloc}) is not a local path")
        return unquote(parts.path, errors="surrogateescape")
    if scheme in OBJECT_STORE_SCHEMES:
        return ("url", text)
    raise ValueError(
        f"{text}: {scheme}:// URLs are not supported by hashlab.dask; it hashes local paths "
        f"(and file:// URLs) and object stores ({', '.join(sorted(OBJECT_STORE_SCHEMES))}://)"
    )


def _source_for(roots):
    """``roots`` split into local paths and object-store URLs: the one place
    a URL scheme is dispatched. Returns (all roots as recorded, paths, URLs)."""
    if isinstance(roots, (str, bytes, os.PathLike)):
        roots = [roots]
    recorded, paths, urls = [], [], []
    for root in roots:
        where = _local_path(root)
        if isinstance(where, tuple):
            urls.append(where[1])
            recorded.append(where[1])
        else:
            paths.append(where)
            recorded.append(where)
    if not recorded:
        raise ValueError("no path given")
    return recorded, paths, urls


def _list_objects(urls, missing_ok, storage_options):
    """(name, size, ETag) of the objects under the URLs, each once, listed
    here on the client. A prefix with nothing left under it is skipped when
    ``missing_ok`` (an audit: its objects are then missing); a missing
    bucket, refused credentials or an unreachable store always raise."""
    objects, seen = [], set()
    for url in urls:
        try:
            listed = _hashlab.list_objects([url], storage_options=storage_options)
        except FileNotFoundError as e:
            if missing_ok and "no object at or under" in str(e):
                continue
            raise
        for name, size, etag in listed:
            if name not in seen:
                seen.add(name)
                objects.append((name, size, etag))
    return objects


def _list(roots, missing_ok):
    """The files under the roots, as ``hashlab sum -r`` walks them, each
    once: (their names packed as the wheel's ``walk_packed`` packs them,
    how many, and the (name, message) pairs of what could not be listed)."""
    for root in roots:
        if not missing_ok and not os.path.lexists(root):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), root)
    present = [r for r in roots if os.path.lexists(r)]
    return _hashlab.walk_packed([os.fsencode(r) for r in present])


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _hash_partition(index, names, objects, base, algorithm, options, storage_options, threads_by_host):
    """One task: hash a partition's files on this worker, one thread (the
    worker's other threads run other partitions). ``names`` are packed (the
    wheel's ``split_packed``); a relative name is read under ``base``, the
    client's directory, since a worker's current directory is its own.

    Where the cluster runs a task thread on every core of this machine, large
    files are not read ahead on a second thread: as in ``hashlab sum -j``,
    the reader would only take a core from another hash."""
    started = time.perf_counter()
    from distributed import get_worker

    entries, object_entries, errors, total = b"", [], [], 0
    if names:
        host_threads = threads_by_host.get(get_worker().address.rsplit(":", 1)[0], 1)
        read_ahead = False if host_threads >= _cores() else None
        entries, errors, total = _hashlab.hash_packed(
            names, base, algorithm, threads=1, read_ahead=read_ahead, **options
        )
    if objects:
        outcomes = _hashlab.hash_objects(objects, algorithm, storage_options=storage_options, **options)
        for (name, _size, _etag), (hex_digest, size, message, _verdict) in zip(objects, outcomes):
            if hex_digest is None:
                errors.append((name, message))
            else:
                object_entries.append((name, hex_digest))
                total += size
    return {
        "index": index,
        "entries": entries,
        "object_entries": object_entries,
        "errors": errors,
        "bytes": total,
        "seconds": time.perf_counter() - started,
    }


def _client(client):
    if client is not None:
        return client
    from distributed import get_client

    return get_client()


def _default_partitions(files, client):
    threads = builtins.sum(client.nthreads().values()) or 1
    # Enough tasks that a slow partition does not leave the other workers
    # idle at the end, few enough that each task's overhead is noise.
    wanted = max(4 * threads, math.ceil(files / FILES_PER_PARTITION))
    return max(1, min(files, wanted))


def _sum(urls_or_paths, algorithm, client, partitions, options, missing_ok, storage_options=None):
    recorded_roots, roots, urls = _source_for(urls_or_paths)
    info = _hashlab.algorithm_info(algorithm)
    # A bad key, length or backend fails here, before any task is sent.
    _hashlab.new(info["name"], **options)
    client = _client(client)
    packed, file_count, problems = _list(roots, missing_ok)
    objects = _list_objects(urls, missing_ok, storage_options) if urls else []
    return _sum_listed(
        recorded_roots, packed, file_count, problems, objects, info, client, partitions, options, storage_options
    )


def _sum_listed(recorded_roots, packed, file_count, problems, objects, info, client, partitions, options, storage_options):
    """A Manifest of the files (packed names) and objects given, hashed on
    the workers in partitions."""
    if partitions is None:
        partitions = _default_partitions(file_count + len(objects), client)
    partitions = _partition_count(partitions)
    names = _hashlab.split_packed(packed, partitions)
    objects_of = [[] for _ in range(partitions)]
    for obj in objects:
        objects_of[partition_of(os.fsencode(obj[0]), partitions)].append(obj)
    threads_by_host = {}
    for address, threads in client.nthreads().items():
        host = address.rsplit(":", 1)[0]
        threads_by_host[host] = threads_by_host.get(host, 0) + threads
    run = uuid.uuid4().hex
    work = [i for i in range(partitions) if names[i] or objects_of[i]]
    futures = client.map(
        _hash_partition,
        work,
        [names[i] for i in work],
        [objects_of[i] for i in work],
        base=os.fsencode(os.getcwd()),
        algorithm=info["name"],
        options=options,
        storage_options=storage_options,
        threads_by_host=threads_by_host,
        key=[f"hashlab-sum-{run}-{i}" for i in work],
    )
    results = client.gather(futures)
    errors = list(problems)
    object_entries = []
    total = 0
    for result in results:
        object_entries.extend(result["object_entries"])
        errors.extend(result["errors"])
        total += result["bytes"]
    entries = _hashlab.merge_packed([result["entries"] for result in results])
    described = dict(
        length=options.get("length"),
        roots=recorded_roots,
        partitions=partitions,
        errors=errors,
        bytes=total,
    )
    if object_entries:
        manifest = Manifest(info["name"], entries + object_entries, **described)
    else:
        # Sorted by the merge, each name once (listed once), each digest the
        # algorithm's: the checks of Manifest() cost a microsecond an entry.
        manifest = Manifest._from_sorted(info["name"], entries, **described)
    manifest.task_seconds = {r["index"]: r["seconds"] for r in results}
    return manifest


def sum(
    urls_or_paths,
    algorithm="sha256",
    client=None,
    *,
    partitions=None,
    key=None,
    length=None,
    backend=None,
    storage_options=None,
    update=None,
    prune=False,
):
    """A Manifest of every file under ``urls_or_paths`` (files, directories
    walked recursively, ``file://`` URLs, or object-store prefixes such as
    ``s3://bucket/prefix``, whose objects are named as ``hashlab sum
    s3://bucket/prefix`` names them), hashed on the Dask ``client``'s
    workers (default: the current client). ``storage_options``: object_store
    configuration over the environment's (``aws_endpoint``, ``aws_region``...).

    ``partitions``: how many tasks (and the manifest's partition count);
    by default four per worker thread, more for trees of over
    FILES_PER_PARTITION files per task. Files that cannot be read are in
    ``manifest.errors``, not in its entries. A root that does not exist
    raises FileNotFoundError.

    ``update``: a Manifest of these roots made before (its stamps read with
    it from the sidecar ``Manifest.write`` and ``hashlab sum --update``
    keep): the result is a copy brought up to date, and only new files and
    files whose size or time (an object's ETag) moved are hashed on the
    workers; ``prune`` drops entries whose files are gone. What changed is
    in the result's ``update_report`` (a ``hashlab.UpdateReport``). A file
    changed with the same size and times is found only by ``audit``.
    """
    options = {"key": key, "length": length, "backend": backend}
    options = {k: v for k, v in options.items() if v is not None}
    if update is not None:
        return _sum_update(update, urls_or_paths, algorithm, client, partitions, options, storage_options, prune)
    if prune:
        raise ValueError("prune: only with update=manifest")
    return _sum(urls_or_paths, algorithm, client, partitions, options, False, storage_options)


def _sum_update(manifest, urls_or_paths, algorithm, client, partitions, options, storage_options, prune):
    """``sum(..., update=manifest)``: a copy of ``manifest`` brought up to
    date; only new files and files whose stamp moved are sent to the workers."""
    info = _hashlab.algorithm_info(algorithm)
    if info["name"] != manifest.algorithm:
        raise ValueError(
            f"update: the manifest holds {manifest.algorithm}, not {info['name']}; "
            "an update keeps the manifest's algorithm"
        )
    _hashlab.new(info["name"], **options)
    client = _client(client)
    recorded_roots, roots, urls = _source_for(urls_or_paths)
    packed, _count, problems = _list(roots, False)
    names = [os.fsdecode(n) for n in packed.split(b"\0") if n]
    # Stat'ed here, before any worker reads: a file changed after its stat
    # is read again by the next update, since its time will have moved.
    seen = [(n, st) for n, st in ((n, stat_stamp(n)) for n in names) if st is not None]
    objects = {}
    for name, size, etag in _list_objects(urls, False, storage_options) if urls else []:
        objects[name] = (name, size, etag)
        seen.append((name, (size, None, None, None, etag)))
    # Which files to read is decided as `hashlab sum --update` decides it
    # (the wheel's PendingUpdate): only those go to the workers.
    pending = _hashlab.PendingUpdate(
        manifest.lines(), manifest._sidecar(), manifest.algorithm, manifest.length,
        [(os.fsencode(n), *st) for n, st in seen], [os.fsencode(r) for r in recorded_roots],
        prune=prune, problems=[(os.fsencode(n), m) for n, m in problems],
    )
    wanted = [seen[i][0] for i in pending.wanted]
    outcomes = []
    if wanted:
        local = b"".join(os.fsencode(n) + b"\0" for n in wanted if n not in objects)
        listed = [objects[n] for n in wanted if n in objects]
        hashed = _sum_listed(
            recorded_roots, local, len(wanted) - len(listed), [], listed, info, client, partitions,
            options, storage_options,
        )
        digests = hashed.as_dict()
        messages = dict(hashed.errors)
        outcomes = [(digests.get(n), messages.get(n, "not hashed")) for n in wanted]
    updated = Manifest._from_sorted(
        manifest.algorithm,
        [],
        length=manifest.length,
        roots=recorded_roots,
        partitions=manifest.partition_count,
    )
    updated.update_report = updated._revised(*pending.finish(outcomes), problems=problems)
    return updated


def audit(manifest, client=None, *, roots=None, key=None, backend=None, storage_options=None, allow_remote=False):
    """Hashes the manifest's roots again on the cluster and compares: an
    AuditReport with ``ok``, ``changed``, ``missing``, ``new`` and
    ``errors``. ``roots`` overrides the roots the manifest records (needed
    for a manifest ``hashlab sum`` wrote, which records none). Every file is
    read again: bitrot changes neither size nor modification time.

    Object-store roots that the manifest records (``# covers: s3://...``) are
    listed and read only with ``allow_remote=True``: a manifest may come from
    anyone, and listing what it names sends requests signed with this
    process's credentials to the stores it names (as ``hashlab check
    --allow-remote``). Roots passed as ``roots=`` are the caller's own."""
    from_manifest = roots is None
    roots = manifest.roots if roots is None else roots
    if isinstance(roots, (str, bytes, os.PathLike)):
        roots = [roots]
    if not roots:
        raise ValueError("the manifest records no roots: pass roots= to say which tree to audit")
    if from_manifest and not allow_remote:
        remote = [root for root in roots if isinstance(_local_path(root), tuple)]
        if remote:
            raise ValueError(
                f"the manifest's roots name object stores ({', '.join(remote)}): pass allow_remote=True "
                "to read them with this process's credentials, or roots= to say what to audit"
            )
    options = {"key": key, "length": manifest.length, "backend": backend}
    options = {k: v for k, v in options.items() if v is not None}
    now = _sum(roots, manifest.algorithm, client, manifest.partition_count, options, True, storage_options)
    recorded = manifest.as_dict()
    current = now.as_dict()
    unreadable = {name for name, _ in now.errors}
    ok, changed, missing = [], [], []
    for name, hex_digest in manifest.entries:
        if name in current:
            (ok if current[name] == hex_digest else changed).append(name)
        elif name not in unreadable:
            missing.append(name)
    new = [name for name, _ in now.entries if name not in recorded]
    return AuditReport(ok=ok, changed=changed, missing=missing, new=new, errors=now.errors)


def _compare_shard(files, after, until, prefix, download, algorithm, storage_options):
    """One task: list one key range of the prefix (after ``after``, up to
    ``until``), pair it with the shard's files, and judge each pair, one
    file at a time (the worker's other threads run other shards)."""
    pairs, only_local, only_in_store = _hashlab.pair_store_range(
        prefix, files, after, until, storage_options=storage_options
    )
    verdicts, proves = _hashlab.compare_pairs(
        pairs, download=download, algorithm=algorithm, jobs=1, storage_options=storage_options
    )
    return pairs, verdicts, only_local, only_in_store, proves


def _shards(files, count):
    """``files`` (sorted by key) cut into ``count`` runs of about equal
    length, each with the key range it covers: after the previous run's last
    key, up to its own last (the last run: to the end, so that objects after
    every local key are listed too)."""
    count = max(1, min(count, len(files)))
    size = math.ceil(len(files) / count) if files else 0
    runs = [files[i : i + size] for i in range(0, len(files), size)] if files else [[]]
    shards, after = [], None
    for i, run in enumerate(runs):
        until = None if i == len(runs) - 1 else run[-1][0]
        shards.append((run, after, until))
        after = until
    return shards


def compare_store(
    directory, prefix, client=None, *, download=False, algorithm="sha256", partitions=None, storage_options=None
):
    """``hashlab.compare_store`` on a Dask cluster. The client walks the
    directory and cuts its files, sorted by key, into ``partitions`` key
    ranges (default: four per worker thread, more for large trees); each
    range is one task on a worker, which lists that range of the prefix
    itself (S3, GCS and Azure list in key order, so each range's listing
    starts where the last ended), pairs it with its files, and makes the
    range's HEADs (or with ``download=True`` reads) and local hashing. The
    worker must see the directory at the same path. Returns the same
    StoreComparison as ``hashlab.compare_store``."""
    if download:
        _hashlab.algorithm_info(algorithm)  # an unknown name fails here, before any task
    client = _client(client)
    files, unpairable, errors = _hashlab.local_keys(os.fsencode(os.path.abspath(directory)))
    if partitions is None:
        partitions = _default_partitions(len(files), client)
    shards = _shards(files, _partition_count(partitions))
    run = uuid.uuid4().hex
    futures = client.map(
        _compare_shard,
        [s[0] for s in shards],
        [s[1] for s in shards],
        [s[2] for s in shards],
        prefix=prefix,
        download=download,
        algorithm=algorithm,
        storage_options=storage_options,
        key=[f"hashlab-compare-{run}-{i}" for i in range(len(shards))],
    )
    results = client.gather(futures)
    merged_pairs, verdicts, only_local, only_in_store, proves = [], [], list(unpairable), [], None
    for pairs, part_verdicts, part_local, part_store, part_proves in results:
        merged_pairs.extend(pairs)
        verdicts.extend(part_verdicts)
        only_local.extend(part_local)
        only_in_store.extend(part_store)
        proves = part_proves
    if proves is None:
        _, proves = _hashlab.compare_pairs([], download=download, algorithm=algorithm)
    return _assemble(merged_pairs, verdicts, sorted(only_local), sorted(only_in_store), errors, proves)
