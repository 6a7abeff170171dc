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
from typing import cast

from flask import current_app, g, has_app_context
from gevent import monkey
from sqlite_utils import Database, Migrations

from companion.colours import default as default_colour
from companion.tokens import device_id, night_fingerprint

# Each thread's connections (each greenlet's, under gevent): made on first use, after
# `companion serve` patched threading, so that a greenlet never shares a connection.
_locals: list[threading.local] = []

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


@migrations()
def seat_codes_and_order(db: Database) -> None:
    """Seats remember the order they were claimed in (a sequence, never a clock) and the
    codes they had; a seat can play on the tablet; a note beside the log knows the log
    position it came after; a host code expires; devices are stored hashed."""
    db.table("seats").add_column("claim_seq", int)
    db.table("seats").add_column("tablet", int, not_null_default=0)
    db.execute(
        "update seats set claim_seq = (select count(*) from seats s2 where s2.device is not "
        "null and (s2.claimed_at < seats.claimed_at or (s2.claimed_at = seats.claimed_at "
        "and s2.id <= seats.id))) where device is not null")
    db.table("retired_codes").create(
        {"token": str, "seat_id": int, "retired": str}, pk="token",
        foreign_keys=[("seat_id", "seats", "id")])
    db.table("activity").add_column("pos", int)
    db.execute("update activity set pos = (select count(*) from events e where "
               "e.game_id = activity.game_id and e.created <= activity.created)")
    db.table("host_invites").add_column("expires", str)
    db.conn.create_function("device_id", 1, device_id, deterministic=True)
    for table, column in (("seats", "device"), ("hosts", "device"), ("aliases", "device"),
                          ("host_invites", "used_by"), ("events", "device")):
        db.execute(f"update {table} set {column} = device_id({column}) "
                   f"where {column} is not null")


@migrations()
def current_game_form_tokens_and_fingerprints(db: Database) -> None:
    """A night remembers the game its phones show (the host's choice; none: its latest
    game) and its fingerprint (its creation time and players: an import sees a night
    already here); a one-time form token remembers the night or game it made; an
    uploaded night waits in ``pending_imports`` while the host chooses."""
    db.table("nights").add_column("current_game", int)
    db.table("nights").add_column("fingerprint", str)
    for row in list(db.query("select id, created from nights")):
        names = [s["name"] for s in db.query(
            "select name from seats where night_id = ? order by position", [row["id"]])]
        db.execute("update nights set fingerprint = ? where id = ?",
                   [night_fingerprint(row["created"], names), row["id"]])
    db.table("nights").create_index(["fingerprint"])
    db.table("form_tokens").create(
        {"token": str, "night_id": int, "game": int, "created": str},
        pk="token", foreign_keys=[("night_id", "nights", "id")],
        not_null={"token", "night_id", "created"})
    db.table("pending_imports").create(
        {"token": str, "device": str, "document": str, "expires": str},
        pk="token", not_null={"token", "device", "document", "expires"})



@migrations()
def seat_colours(db: Database) -> None:
    """Each seat has a player colour (companion/colours.py): the palette in seat order
    for the nights made before colours."""
    db.table("seats").add_column("colour", str)
    for position in range(8):
        db.execute("update seats set colour = ? where position = ?",
                   [default_colour(position), position])


@migrations()
def night_change_order(db: Database) -> None:
    """Each night remembers when it last changed, in the order of all changes
    (``log.bump``): the live-push watcher asks for the nights changed since it last
    looked, not for the version of every night it watches."""
    db.table("nights").add_column("changed", int, not_null_default=0)
    db.table("nights").create_index(["changed"])


@migrations()
def host_codes_that_stay_ended(db: Database) -> None:
    """A host code remembers that it ended (cancelled by a newer code or a host's
    removal, or found expired): a clock set back afterwards revives nothing. Codes
    ended before (their expiry set to their creation) are marked so."""
    db.table("host_invites").add_column("ended", int, not_null_default=0)
    db.execute("update host_invites set ended = 1 where expires <= created")


@migrations()
def kept_results(db: Database) -> None:
    """What each game came to, worked out when its log changes and kept beside it
    (companion/store/results.py): the log length it was worked out at, whether the game
    is finished and, for a finished game only, its result and the part of its final
    state the tallies read. Games made before are worked out when first read."""
    db.table("results").create(
        {"game_id": int, "night_id": int, "length": int, "finished": int, "result": str,
         "state": str},
        pk="game_id", foreign_keys=[("game_id", "games", "id"), ("night_id", "nights", "id")],
        not_null={"game_id", "night_id", "length", "finished"})
    db.table("results").create_index(["night_id"])


@migrations()
def kept_statistics(db: Database) -> None:
    """Each host device has a history version, moved whenever what its statistics read
    changes (companion/store/histories.py); a host's statistics are kept with the
    version they were worked out at (companion/store/statistics.py)."""
    db.table("histories").create({"device": str, "version": int}, pk="device",
                                 not_null={"device", "version"})
    db.execute("insert into histories (device, version) select device, 1 from hosts "
               "where true on conflict (device) do nothing")
    db.table("kept_statistics").create(
        {"device": str, "stamp": str, "body": str}, pk="device",
        not_null={"device", "stamp", "body"})

@migrations()
def screens(db: Database) -> None:
    """The room's big screens: devices that may read one night's public board and
    nothing more (``screens``), and the one-time screen codes that make a device one
    (``screen_invites``, ended like a host code; ``made_by`` is the host device that
    showed it, so that removing that host cancels it; ``short`` is the code typed on a
    TV that cannot scan)."""
    db.table("screens").create(
        {"night_id": int, "device": str, "created": str}, pk=("night_id", "device"),
        foreign_keys=[("night_id", "nights", "id")],
        not_null={"night_id", "device", "created"})
    db.table("screens").create_index(["device"])
    db.table("screen_invites").create(
        {"token": str, "short": str, "night_id": int, "made_by": str, "created": str,
         "expires": str, "used_by": str, "ended": int},
        pk="token", foreign_keys=[("night_id", "nights", "id")],
        not_null={"token", "short", "night_id", "made_by", "created", "expires", "ended"})
    db.table("screen_invites").create_index(["short"])


@migrations()
def spending(db: Database) -> None:
    """What each device and client address added in the last hour (new nights, imports:
    companion/store/quotas.py); older rows are dropped as new ones come."""
    db.table("spending").create(
        {"at": str, "what": str, "address": str, "device": str, "bytes": int},
        not_null={"at", "what", "address", "device", "bytes"})
    db.table("spending").create_index(["address", "what"])
    db.table("spending").create_index(["device", "what"])
    db.table("spending").create_index(["at"])


@migrations()
def wifi_codes(db: Database) -> None:
    """The Wi-Fi join code a host device shows (companion/store/wifi.py): one network a
    device, its password kept only here; a row not ``remembered`` is deleted when a
    server starts (``companion.server_started``)."""
    db.table("wifi").create(
        {"device": str, "ssid": str, "password": str, "security": str, "hidden": int,
         "remembered": int, "shown": int, "stamp": str, "created": str},
        pk="device",
        not_null={"device", "ssid", "password", "security", "hidden", "remembered",
                  "shown", "stamp", "created"})


@migrations()
def reached(db: Database) -> None:
    """Whether a device other than the night's hosts has opened one of its seat or
    screen codes (``reached``): until one has, the host's table page may say that no
    phone reaches the laptop (templates/nights/_reach.html)."""
    db.table("nights").add_column("reached", int, not_null_default=0)


def _create_private(path: str) -> None:
    """Make the database file readable by this user only (SQLite gives its WAL and
    shared-memory files the same mode)."""
    if path == ":memory:" or path.startswith("file:"):
        return
    descriptor = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    os.close(descriptor)
    os.chmod(path, 0o600)


def connect(path: str, *, create: bool = False) -> Database:
    """Open the database at ``path`` for this thread, set up for several processes.

    Only the app's start (``migrate``) creates the file: a request's connection opens an
    existing one, so a database deleted under a running server is an error (a 503) on
    every request until the server restarts, never a fresh empty file.
    """
    if create:
        _create_private(path)
    conn = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=10,
                           check_same_thread=False, isolation_level=None)
    db = Database(conn)
    db.execute("PRAGMA journal_mode=WAL")
    # An acknowledged write is on disk: WAL with FULL syncs the log at every commit, so a
    # dead battery right after "recorded" loses nothing (docs/security.md).
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA foreign_keys=ON")
    db.execute(f"PRAGMA busy_timeout={BUSY_MS}")
    # Checkpoints run after a write's answer has gone (web.fold_wal), and the WAL
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

    Called once a write's answer is sent and the WAL is due (companion/web.py). Left to
    itself, SQLite does this inside the commit of whichever write crosses the threshold,
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


def migrate(path: str) -> None:
    """Create or upgrade the schema; safe when several workers start at once: a worker
    that finds the file locked by another's migration (even while switching a new file
    to WAL, which SQLite refuses at once rather than wait) tries again."""
    for attempt in range(50):
        db = None
        try:
            db = connect(path, create=True)
            migrations.apply(db)
            return
        except sqlite3.OperationalError:
            if attempt == 49:
                raise
            time.sleep(0.1)
        finally:
            if db is not None:
                db.close()


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
