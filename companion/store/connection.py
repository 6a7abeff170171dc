"""The SQLite file in instance/: one sqlite-utils Database per thread (the schema and its
migrations are in companion/store/schema.py).

Nothing about a night or a game lives in process memory: every request reads the file,
so several worker processes give the same answers. A connection is opened once per
thread (opening one per request halves throughput) and set to WAL with a busy timeout,
so readers never wait for the writer and two writers queue instead of failing.
"""

import contextlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import cast

import gevent
from flask import current_app, g, has_app_context
from gevent import monkey
from sqlite_utils import Database

from companion.core import registry

# Each thread's connections (each greenlet's, under gevent): made on first use, after
# `companion serve` patched threading, so that a greenlet never shares a connection.
_locals: list[threading.local] = []

def _create_private(path: str) -> None:
    """Make the database file readable by this user only (SQLite gives its WAL and
    shared-memory files the same mode), as far as its folder keeps modes: a USB stick's
    exFAT or FAT32 keeps none and refuses the chmod (docs/security.md)."""
    if path == ":memory:" or path.startswith("file:"):
        return
    descriptor = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    os.close(descriptor)
    with contextlib.suppress(OSError):
        os.chmod(path, 0o600)


def uri(path: str | os.PathLike[str], mode: str) -> str:
    """The SQLite URI that opens the file at ``path`` with ``mode`` ("rw", "ro").

    The path is quoted as a URI (pathlib's ``as_uri``: ``file:///C:/Users/...`` on
    Windows): a data folder may hold a ``#``, ``?`` or ``%`` (Windows user names do), a
    space or Korean, and written into the URI as it is, ``#`` and ``?`` ended the path
    (the database went to another file) and ``%`` was read as an escape."""
    if path == ":memory:":  # SQLite's own name for a database of this connection only
        return f"file::memory:?mode={mode}"
    return f"{Path(os.path.abspath(path)).as_uri()}?mode={mode}"


def connect(path: str, *, create: bool = False) -> Database:
    """Open the database at ``path`` for this thread, set up for several processes.

    Only the app's start (``migrate``) creates the file: a request's connection opens an
    existing one, so a database deleted under a running server is an error (a 503) on
    every request until the server restarts, never a fresh empty file.
    """
    if create:
        _create_private(path)
    conn = sqlite3.connect(uri(path, "rw"), uri=True, timeout=10,
                           check_same_thread=False, isolation_level=None)
    db = Database(conn)
    db.execute("PRAGMA journal_mode=WAL")
    # An acknowledged write is on disk: WAL with FULL syncs the log at every commit, so a
    # dead battery right after "recorded" loses nothing (docs/security.md).
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA foreign_keys=ON")
    db.execute(f"PRAGMA busy_timeout={BUSY_MS}")
    # Checkpoints run after a write's answer has gone (fold_wal), and the WAL
    # file shrinks back when it restarts, so its size tells how much is waiting.
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("PRAGMA journal_size_limit=0")
    return db


CHECKPOINT_BYTES = 4 * 1024 * 1024  # SQLite's own threshold: 1,000 pages of 4 KB


def checkpoint_due(path: str) -> bool:
    """Whether the WAL beside ``path`` holds ~4 MB or more (a stat: cheap enough to ask
    after every write)."""
    try:
        return os.path.getsize(path + "-wal") >= CHECKPOINT_BYTES
    except OSError:
        return False


def checkpoint(path: str) -> None:
    """Copy the WAL back into the database file.

    Called once a write's answer is sent and the WAL is due (:func:`fold_wal`), and
    before a backup is copied. Left to itself, SQLite does this inside the commit of
    whichever write crosses the threshold,
    and that write waits for the copy and two fsyncs (5-30 ms here, where a write takes
    7). A passive checkpoint never blocks readers or writers; if another process is
    already at it, this one does nothing, and a later write tries again. It runs on a
    connection of its own: by then the request's own may be closed (under gevent).
    """
    try:
        db = connect(path)
        try:
            db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        finally:
            db.close()
    except (OSError, sqlite3.Error) as error:
        logging.getLogger(__name__).warning("checkpoint of %s skipped: %s", path, error)


def fold_wal(path: str) -> None:
    """Checkpoint the WAL beside ``path`` if it is due (called once a write's answer is
    sent: companion/web/http.py, ``checkpoint_later``). The size is read here, so a write
    that leaves little in the WAL (nearly all) hands nothing to another thread. Under
    gevent (``companion serve``, the café's workers) the checkpoint runs in a thread of
    gevent's pool, since SQLite's copy and fsyncs (up to ~30 ms here) would stop every
    greenlet of the worker while they ran; elsewhere each request has its thread, and it
    runs there."""
    if not checkpoint_due(path):
        return
    if monkey.is_module_patched("threading"):
        gevent.get_hub().threadpool.spawn(checkpoint, path)
    else:
        checkpoint(path)


def get_db() -> Database:
    """This thread's connection to the app's database (opened on first use). Whether the
    file is still the one it opened is checked once per request (a stat), not at each of
    the request's queries."""
    path = current_app.config["DATABASE"]
    local = _local()
    dbs = getattr(local, "dbs", None)
    if dbs is None:
        dbs = local.dbs = {}
    opened = dbs.get(path)
    if opened is not None and g.get("db_checked") == path:
        return opened[0]
    opened = opened or _spare(path)
    if opened is None or not _same_file(path, opened[1]):
        if opened is not None:
            opened[0].close()
        opened = (connect(path), os.stat(path).st_ino)
    dbs[path] = opened
    g.db_checked = path
    return opened[0]


def close_thread_connections() -> None:
    """Close every connection this thread opened (a process that makes many databases,
    like the test suite, would otherwise run out of file descriptors)."""
    local = _local()
    for db, _inode in getattr(local, "dbs", {}).values():
        db.close()
    local.dbs = {}


def _local() -> threading.local:
    if not _locals:
        _locals.append(threading.local())
    return _locals[0]


#: Under gevent, the connections no request holds, per database file: a request takes
#: one (or opens one) and gives it back when it ends. A greenlet per phone would
#: otherwise keep a connection (three file descriptors) for as long as the phone stays
#: connected; closing each after its request would make every request open one again,
#: and the last one closed checkpoints and deletes the WAL. Greenlets share one thread
#: and never yield inside these list operations, so no lock is needed.
_spares: dict[str, list[tuple[Database, int]]] = {}
SPARES = 16


def _spare(path: str) -> tuple[Database, int] | None:
    idle = _spares.get(path)
    return idle.pop() if idle else None


def end_request(_error: BaseException | None = None) -> None:
    """After each request under gevent, give its connections back (up to SPARES kept
    per file, the others closed). Threaded servers keep theirs per thread (few
    threads, each with a warm connection)."""
    if not monkey.is_module_patched("threading"):
        return
    local = _local()
    for path, opened in getattr(local, "dbs", {}).items():
        idle = _spares.setdefault(path, [])
        if len(idle) < SPARES:
            idle.append(opened)
        else:
            opened[0].close()
    local.dbs = {}


def _same_file(path: str, inode: int) -> bool:
    """Whether ``path`` is still the file this thread opened (it was not deleted or
    replaced under the running server): else the error is a 503, never a write into a
    file nobody will read again."""
    try:
        return os.stat(path).st_ino == inode
    except FileNotFoundError:
        raise sqlite3.OperationalError(f"the database file {path} is gone") from None


#: How long a statement waits for a lock another connection holds, then fails (a 503).
BUSY_MS = 10_000


def _begin_write(db: Database) -> None:
    """BEGIN IMMEDIATE, waiting up to ``BUSY_MS`` for another process's write to end.

    SQLite's own busy handler sleeps inside C, 1, 2, 5, 10 ms…: under gevent that
    stops every request of the worker, not just this one. This wait sleeps through
    ``time.sleep`` (cooperative under gevent, another thread's turn otherwise), for
    a fraction of the millisecond a write holds the lock.
    """
    db.execute("PRAGMA busy_timeout=0")
    try:
        deadline = time.monotonic() + BUSY_MS / 1000
        pause = 0.0002
        while True:
            try:
                db.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as error:
                if (error.sqlite_errorcode != sqlite3.SQLITE_BUSY
                        or time.monotonic() >= deadline):
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.005)
    finally:
        db.execute(f"PRAGMA busy_timeout={BUSY_MS}")


@contextmanager
def write(db: Database) -> Iterator[Database]:
    """A write transaction that takes the write lock at once (BEGIN IMMEDIATE).

    Taking it up front means a writer that has to wait waits here, instead of failing
    when it finds its read snapshot stale. It waits in short sleeps of its own
    (:func:`_begin_write`), not in SQLite's busy handler.
    """
    _begin_write(db)
    try:
        yield db
    except BaseException:
        if db.conn.in_transaction:
            db.execute("ROLLBACK")
        if has_app_context():
            g.pop("made_versions", None)
        raise
    else:
        db.execute("COMMIT")
        if has_app_context() and (made := g.pop("made_versions", None)):
            g.setdefault("written", {}).update(made)


def known_games() -> registry.Games:
    """The games of the app this runs in: ``create_app`` keeps its ``GAMES`` in
    ``app.extensions`` (companion/core/registry.py, ``APP_KEY``), as it keeps the
    database's path in its config."""
    return cast(registry.Games, current_app.extensions[registry.APP_KEY])


def made_version(night_id: int, version: int) -> None:
    """Remember that the open write transaction moved ``night_id`` to ``version``
    (``log.bump``): the request's own (:func:`written`) once it commits, nothing if it
    rolls back. Outside a request (a migration, a script) nothing is kept."""
    if has_app_context():
        g.setdefault("made_versions", {})[night_id] = version


def written(night_id: int) -> int | None:
    """The newest version of ``night_id`` this request's own writes made (None: it
    wrote none). Whatever the request answers is drawn at this version or newer: a
    board read before the write, or a version carried from before it (a phone's seat
    row), would show the screen as it was before what was just done."""
    if not has_app_context():
        return None
    return cast(dict[int, int], g.get("written", {})).get(night_id)


@contextmanager
def read(db: Database) -> Iterator[Database]:
    """A read transaction: every read inside it sees the database as of one moment
    (WAL keeps that snapshot while writers go on). Inside a transaction already, it is
    that transaction's."""
    if db.conn.in_transaction:
        yield db
        return
    db.execute("BEGIN")
    try:
        yield db
    finally:
        if db.conn.in_transaction:
            db.execute("COMMIT")


def now(later: float = 0) -> str:
    """The time stamp stored with each row (UTC, ISO 8601), ``later`` seconds from now."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + later))
