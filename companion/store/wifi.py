"""The Wi-Fi join code a host shows: one network a host device (table ``wifi``).

A host types the network once, and every night that device hosts shows it to the
night's host devices and its room's screens (the newest of its hosts' networks, when
two hosts typed one). The password lives in this table and nowhere else: no export,
board or cache reads it. A network the host did not ask to remember is deleted when a
server starts (:func:`forget_unremembered`, called by ``companion.server_started``);
forgetting one overwrites its bytes in the file (SQLite's ``secure_delete``).
"""

from collections.abc import Iterator
from contextlib import contextmanager

from sqlite_utils import Database

from companion.core.tokens import new_token
from companion.core.wifi import Network
from companion.store import log
from companion.store.connection import get_db, now, write
from companion.store.sql import Row, _first

_HOSTS = "select device from hosts where night_id = ?"


def set_wifi(night_id: int, device: str, net: Network, *, remembered: bool) -> None:
    """``device`` (a host of the night) shows ``net`` from now on, in place of the one
    it showed; the night's screens are told (its version moves)."""
    db = get_db()
    with write(db):
        db.execute(
            "insert into wifi (device, ssid, password, security, hidden, remembered, "
            "shown, stamp, created) values (?, ?, ?, ?, ?, ?, 1, ?, ?) "
            "on conflict (device) do update set ssid = excluded.ssid, "
            "password = excluded.password, security = excluded.security, "
            "hidden = excluded.hidden, remembered = excluded.remembered, shown = 1, "
            "stamp = excluded.stamp, created = excluded.created",
            [device, net.ssid, net.password, net.security, int(net.hidden),
             int(remembered), new_token(), now()])
        log.bump(db, night_id)


def night_wifi(night_id: int) -> Row | None:
    """What the night's pages show of its network (hidden or not), without the
    password: the newest of its host devices' networks, or None."""
    return _first(get_db(), "select device, ssid, security, hidden, remembered, shown, "
                  f"stamp, created from wifi where device in ({_HOSTS}) "
                  "order by created desc, rowid desc limit 1", [night_id])


def night_network(night_id: int) -> Network | None:
    """The network :func:`night_wifi` shows, password and all: only the code's image
    and the host's "show the password" page read it."""
    row = _first(get_db(), f"select * from wifi where device in ({_HOSTS}) "
                 "order by created desc, rowid desc limit 1", [night_id])
    if row is None:
        return None
    return Network(row["ssid"], row["password"], row["security"], bool(row["hidden"]))


def show_wifi(night_id: int, shown: bool) -> bool:
    """Hide the night's code from its pages and screens (kept, to show again), or
    show it again; False when the night has none."""
    db = get_db()
    with write(db):
        changed = db.execute(f"update wifi set shown = ? where device in ({_HOSTS})",
                             [int(shown), night_id]).rowcount
        if changed:
            log.bump(db, night_id)
    return bool(changed)


def forget_wifi(night_id: int) -> bool:
    """Delete the networks of the night's host devices, their bytes overwritten in the
    file; False when there was none."""
    db = get_db()
    with _overwriting(db), write(db):
        gone = db.execute(f"delete from wifi where device in ({_HOSTS})",
                          [night_id]).rowcount
        if gone:
            log.bump(db, night_id)
    return bool(gone)


def forget_unremembered(db: Database, *, everything: bool = False) -> int:
    """Delete every network its host did not ask this laptop to remember (a server
    starts: "only while the server runs"), or ``everything`` (a backup's copy: a file
    that travels carries no password), on ``db``, a connection of the caller's (no
    request is running); returns how many."""
    with _overwriting(db), write(db):
        return int(db.execute("delete from wifi where remembered = 0 or ?",
                              [everything]).rowcount)


@contextmanager
def _overwriting(db: Database) -> Iterator[None]:
    """SQLite's ``secure_delete`` on ``db`` for what runs inside: a deleted password's
    bytes are overwritten with zeros, not left in a free page of the file."""
    before = int(db.execute("pragma secure_delete").fetchone()[0])
    db.execute("pragma secure_delete = on")
    try:
        yield
    finally:
        db.execute(f"pragma secure_delete = {before}")
