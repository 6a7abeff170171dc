"""The Wi-Fi join code a host shows: one network a host device (table ``wifi``), and the
network each night shows (table ``night_wifi``).

A host types the network on a night's table page: the device keeps it (one row, its
password kept here and nowhere else: no export, board or cache reads it), and that
night shows it to its host devices and its room's screens. A night is bound to the
network as it was shown there (its ``stamp``, new each time it is set), so an old
night's screen never reads a network set later on another night, and a device that
becomes a host of someone else's night brings none of its own there. A night the same
device makes later shows its network too (:func:`show_on_new_night`). A network the
host did not ask to remember is deleted when a server starts
(:func:`forget_unremembered`, called by ``companion.server_started``); forgetting one
overwrites its bytes in the file (SQLite's ``secure_delete``).
"""

from collections.abc import Iterator
from contextlib import contextmanager

from sqlite_utils import Database

from companion.core.tokens import new_token
from companion.core.wifi import Network
from companion.store import log
from companion.store.connection import get_db, now, write
from companion.store.sql import Row, _first

#: The night's network as it was shown there: the device's row while its stamp is the
#: one the night was bound to.
_SHOWN = ("from wifi w join night_wifi n on n.device = w.device and n.stamp = w.stamp "
          "where n.night_id = ?")


def set_wifi(night_id: int, device: str, net: Network, *, remembered: bool) -> None:
    """``device`` (a host of the night) shows ``net`` there from now on, in place of the
    one the night showed; the night's screens are told (its version moves)."""
    db = get_db()
    stamp = new_token()
    with write(db):
        db.execute(
            "insert into wifi (device, ssid, password, security, hidden, remembered, "
            "shown, stamp, created) values (?, ?, ?, ?, ?, ?, 1, ?, ?) "
            "on conflict (device) do update set ssid = excluded.ssid, "
            "password = excluded.password, security = excluded.security, "
            "hidden = excluded.hidden, remembered = excluded.remembered, shown = 1, "
            "stamp = excluded.stamp, created = excluded.created",
            [device, net.ssid, net.password, net.security, int(net.hidden),
             int(remembered), stamp, now()])
        _bind(db, night_id, device, stamp)
        log.bump(db, night_id)


def _bind(db: Database, night_id: int, device: str, stamp: str) -> None:
    """In ``db``'s open write: the night shows ``device``'s network as it is now."""
    db.execute("insert into night_wifi (night_id, device, stamp) values (?, ?, ?) "
               "on conflict (night_id) do update set device = excluded.device, "
               "stamp = excluded.stamp", [night_id, device, stamp])


def show_on_new_night(db: Database, night_id: int, device: str) -> None:
    """In ``db``'s open write, as ``device`` makes a night: the night shows the
    device's network, if it keeps one (the host's next night of the evening, or a
    remembered one)."""
    row = _first(db, "select stamp from wifi where device = ?", [device])
    if row is not None:
        _bind(db, night_id, device, row["stamp"])


def night_wifi(night_id: int) -> Row | None:
    """What the night's pages show of its network (hidden or not), without the
    password, or None."""
    return _first(get_db(), "select w.device, w.ssid, w.security, w.hidden, w.remembered, "
                  f"w.shown, w.stamp, w.created {_SHOWN}", [night_id])


def night_network(night_id: int) -> Network | None:
    """The network :func:`night_wifi` shows, password and all: only the code's image
    and the host's "show the password" page read it."""
    row = _first(get_db(), f"select w.* {_SHOWN}", [night_id])
    if row is None:
        return None
    return Network(row["ssid"], row["password"], row["security"], bool(row["hidden"]))


def show_wifi(night_id: int, shown: bool) -> bool:
    """Hide the night's code from its pages and screens (kept, to show again), or
    show it again; False when the night has none."""
    db = get_db()
    with write(db):
        changed = db.execute(
            "update wifi set shown = ? where rowid in "
            f"(select w.rowid {_SHOWN})", [int(shown), night_id]).rowcount
        if changed:
            log.bump(db, night_id)
    return bool(changed)


def forget_wifi(night_id: int) -> bool:
    """Delete the network the night shows (on this laptop: the device keeps it no
    more), its bytes overwritten in the file; False when there was none."""
    db = get_db()
    with _overwriting(db), write(db):
        gone = db.execute(f"delete from wifi where rowid in (select w.rowid {_SHOWN})",
                          [night_id]).rowcount
        db.execute("delete from night_wifi where night_id = ?", [night_id])
        if gone:
            log.bump(db, night_id)
    return bool(gone)


def forget_unremembered(db: Database, *, everything: bool = False) -> int:
    """Delete every network its host did not ask this laptop to remember (a server
    starts: "only while the server runs"), or ``everything`` (a backup's copy: a file
    that travels carries no password), on ``db``, a connection of the caller's (no
    request is running); returns how many."""
    with _overwriting(db), write(db):
        gone = int(db.execute("delete from wifi where remembered = 0 or ?",
                              [everything]).rowcount)
        db.execute("delete from night_wifi where not exists (select 1 from wifi w where "
                   "w.device = night_wifi.device and w.stamp = night_wifi.stamp)")
        return gone


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
