"""The SQLite file in instance/: one sqlite-utils Database per thread, and the schema.

Nothing about a night or a game lives in process memory: every request reads the file,
so several worker processes give the same answers. A connection is opened once per
thread (opening one per request halves throughput) and set to WAL with a busy timeout,
so readers never wait for the writer and two writers queue instead of failing.
"""

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from flask import current_app
from sqlite_utils import Database, Migrations

_local = threading.local()

migrations = Migrations("companion")


@migrations()
def create_nights(db: Database) -> None:
    db.table("nights").create(
        {"id": int, "key": str, "created": str, "version": int},
        pk="id", not_null={"key", "created"}, defaults={"version": 0},
    )
    db.table("nights").create_index(["key"], unique=True)
    db.table("seats").create(
        {"id": int, "night_id": int, "position": int, "name": str, "token": str,
         "device": str, "claimed_at": str},
        pk="id", foreign_keys=[("night_id", "nights", "id")],
        not_null={"night_id", "position", "name", "token"},
    )
    db.table("seats").create_index(["token"], unique=True)
    db.table("seats").create_index(["night_id", "position"], unique=True)
    db.table("seats").create_index(["device"])
    db.table("hosts").create(
        {"night_id": int, "device": str, "created": str},
        pk=("night_id", "device"), foreign_keys=[("night_id", "nights", "id")],
    )
    db.table("hosts").create_index(["device"])
    db.table("host_invites").create(
        {"token": str, "night_id": int, "created": str, "used_by": str},
        pk="token", foreign_keys=[("night_id", "nights", "id")],
    )


@migrations()
def create_games(db: Database) -> None:
    db.table("games").create(
        {"id": int, "night_id": int, "number": int, "kind": str, "setup": str, "created": str},
        pk="id", foreign_keys=[("night_id", "nights", "id")],
        not_null={"night_id", "number", "kind", "setup", "created"},
    )
    db.table("games").create_index(["night_id", "number"], unique=True)
    db.table("events").create(
        {"id": int, "game_id": int, "seq": int, "type": str, "data": str, "seat": int,
         "device": str, "created": str},
        pk="id", foreign_keys=[("game_id", "games", "id")],
        not_null={"game_id", "seq", "type", "data", "created"},
    )
    # The log position is unique: of two writes made from the same position, one wins.
    db.table("events").create_index(["game_id", "seq"], unique=True)
    # What happened beside the log: a phone saw its secret, the tablet was passed to a
    # seat. It never moves the log position, so it never makes a host's form stale.
    db.table("activity").create(
        {"id": int, "night_id": int, "game_id": int, "seat": int, "kind": str,
         "created": str},
        pk="id", foreign_keys=[("night_id", "nights", "id"), ("game_id", "games", "id")],
        not_null={"night_id", "seat", "kind", "created"},
    )
    db.table("activity").create_index(["game_id", "seat", "kind"])


@migrations()
def create_aliases(db: Database) -> None:
    """The host's merges: on ``device``, the folded name ``alias`` is the player whose
    folded name is ``canonical``."""
    db.table("aliases").create(
        {"device": str, "alias": str, "canonical": str, "created": str},
        pk=("device", "alias"), not_null={"device", "alias", "canonical", "created"},
    )


def connect(path: str) -> Database:
    """Open the database at ``path`` for this thread, set up for several processes."""
    conn = sqlite3.connect(path, timeout=10, check_same_thread=False, isolation_level=None)
    db = Database(conn)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA foreign_keys=ON")
    db.execute("PRAGMA busy_timeout=10000")
    # Checkpoints run after a write's answer has gone (checkpoint_if_due), and the WAL
    # file shrinks back when it restarts, so its size tells how much is waiting.
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("PRAGMA journal_size_limit=0")
    return db


CHECKPOINT_BYTES = 4 * 1024 * 1024  # SQLite's own threshold: 1,000 pages of 4 KB


def checkpoint_if_due(db: Database, path: str) -> None:
    """Copy the WAL back into the database file once it holds ~4 MB.

    Called after a write's answer is sent (companion/web.py). Left to itself, SQLite
    does this inside the commit of whichever write crosses the threshold, and that
    write waits for the copy and two fsyncs (5-30 ms here, where a write takes 7). A
    passive checkpoint never blocks readers or writers; if another process is already
    at it, this one does nothing, and a later write tries again.
    """
    try:
        if os.path.getsize(path + "-wal") >= CHECKPOINT_BYTES:
            db.execute("PRAGMA wal_checkpoint(PASSIVE)")
    except (OSError, sqlite3.Error) as error:
        logging.getLogger(__name__).warning("checkpoint of %s skipped: %s", path, error)


def migrate(path: str) -> None:
    """Create or upgrade the schema; safe when several workers start at once."""
    db = connect(path)
    try:
        for attempt in range(50):
            try:
                migrations.apply(db)
                return
            except sqlite3.OperationalError:
                if attempt == 49:
                    raise
                time.sleep(0.1)
    finally:
        db.close()


def get_db() -> Database:
    """This thread's connection to the app's database (opened on first use)."""
    path = current_app.config["DATABASE"]
    dbs = getattr(_local, "dbs", None)
    if dbs is None:
        dbs = _local.dbs = {}
    db = dbs.get(path)
    if db is None:
        db = dbs[path] = connect(path)
    return db


@contextmanager
def write(db: Database) -> Iterator[Database]:
    """A write transaction that takes the write lock at once (BEGIN IMMEDIATE).

    Taking it up front means a writer that has to wait waits in the busy timeout,
    instead of failing when it finds its read snapshot stale.
    """
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        if db.conn.in_transaction:
            db.execute("ROLLBACK")
        raise
    else:
        db.execute("COMMIT")


def now() -> str:
    """The time stamp stored with each row (UTC, ISO 8601)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
