#!/usr/bin/env python3
"""Seeds for the known_nsrl fuzz target: small RDS v3-shaped SQLite databases
(FILE as a table, as a view over tables, in WAL mode with rows still in the
log, and hostile ones), each prefixed with the selector byte the target reads.

    python3 fuzz/make_nsrl_seeds.py fuzz/corpus/known_nsrl
"""
import os
import sqlite3
import sys
import tempfile

TABLE = """CREATE TABLE FILE (sha256 VARCHAR NOT NULL, sha1 VARCHAR NOT NULL,
 md5 VARCHAR NOT NULL, crc32 VARCHAR NOT NULL, file_name VARCHAR NOT NULL,
 file_size INTEGER NOT NULL, package_id INTEGER NOT NULL);"""


def rows(db, n):
    for i in range(1, n + 1):
        db.execute("INSERT INTO FILE VALUES (?, ?, ?, ?, ?, ?, 1)",
                   ("%064X" % i, "%040X" % i, "%032X" % i, "%08X" % i, "f%d.dll" % i, i))


def build(path, script, wal=False):
    db = sqlite3.connect(path, isolation_level=None)
    if wal:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA wal_autocheckpoint=0")
    script(db)
    if wal:
        # Keep the log: copy both files while the writer holds them open.
        with open(path, "rb") as f:
            main = f.read()
        with open(path + "-wal", "rb") as f:
            log = f.read()
        db.close()
        return main, log
    db.close()
    with open(path, "rb") as f:
        return f.read(), b""


def main(out):
    os.makedirs(out, exist_ok=True)
    seeds = {
        "table": lambda db: (db.executescript(TABLE), rows(db, 20)),
        "view": lambda db: db.executescript(
            "CREATE TABLE M (object_id INTEGER, sha256 VARCHAR, file_name VARCHAR);"
            "CREATE TABLE P (package_id INTEGER, object_id INTEGER);"
            "INSERT INTO M VALUES (1, '%s', 'a.dll'); INSERT INTO P VALUES (7, 1);"
            "CREATE VIEW FILE AS SELECT UPPER(m.sha256) AS sha256, m.file_name AS file_name "
            "FROM M AS m JOIN P AS p ON m.object_id = p.object_id;" % ("ab" * 32)),
        "recursive": lambda db: db.executescript(
            "CREATE VIEW FILE AS WITH RECURSIVE n(i) AS (SELECT 1 UNION SELECT i + 1 FROM n) "
            "SELECT printf('%064X', i) AS sha256, 'x' AS file_name FROM n;"),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, script in seeds.items():
            main_bytes, _ = build(os.path.join(tmp, name + ".db"), script)
            with open(os.path.join(out, name), "wb") as f:
                f.write(b"\x00" + main_bytes)
        main_bytes, log = build(os.path.join(tmp, "wal.db"),
                                lambda db: (db.executescript(TABLE), rows(db, 5)), wal=True)
        # Selector bit 0: the input's second half is the log; pad the halves equal.
        size = max(len(main_bytes), len(log))
        with open(os.path.join(out, "wal"), "wb") as f:
            f.write(b"\x01" + main_bytes.ljust(size, b"\0") + log.ljust(size, b"\0"))


if __name__ == "__main__":
    main(sys.argv[1])
