"""How long each screen of the table needs to show a change (table ``reveal_needs``).

A device's page measures, for the changes the night's stream tells it of, the time from
the laptop telling it until its screen has drawn the change (static/js/live.js) and
reports the longest of its latest ones. A synchronised reveal's lead is made from the
needs of the night's devices (companion/core/reveal.py, ``lead_ms``), so that a slow
phone holds the moment before it passes. A need is one number per device, written only
when the device reports a new one: a phone that keeps up writes nothing.
"""

import time

from sqlite_utils import Database

from companion.store.connection import get_db, write
from companion.store.sql import _first, _rows

#: A need older than this is not counted: the device has gone, or its page sleeps.
FRESH_S = 30 * 60

#: The night's devices: its phones, its hosts, its room's screens.
_NIGHT_DEVICES = (
    "select device from seats where night_id = ? and device is not null "
    "union select device from hosts where night_id = ? "
    "union select device from screens where night_id = ?")


def in_a_night(device: str) -> bool:
    """Whether ``device`` holds a seat, hosts or is the screen of some night: only such
    a device's need is kept (three indexed reads at most)."""
    return _first(get_db(), "select 1 from seats where device = ? union all "
                  "select 1 from hosts where device = ? union all "
                  "select 1 from screens where device = ? limit 1",
                  [device, device, device]) is not None


def note_need(device: str, need_ms: int) -> None:
    """``device`` needs ``need_ms`` between the laptop's word of a change and showing it.
    The needs no longer fresh are deleted in the same write: the table holds only the
    devices of the last half hour."""
    db = get_db()
    with write(db):
        db.execute(
            "insert into reveal_needs (device, need_ms, updated) values (?, ?, ?) "
            "on conflict (device) do update set need_ms = excluded.need_ms, "
            "updated = excluded.updated", [device, need_ms, int(time.time())])
        _prune(db)


def prune_needs(db: Database) -> int:
    """Delete the needs no longer fresh on ``db``, a connection of the caller's (a
    server's start: no request is running); returns how many."""
    with write(db):
        return _prune(db)


def _prune(db: Database) -> int:
    """Delete the needs older than :data:`FRESH_S`, in ``db``'s open write."""
    return int(db.execute("delete from reveal_needs where updated < ?",
                          [int(time.time()) - FRESH_S]).rowcount)


def night_needs(night_id: int) -> list[int]:
    """The fresh needs (ms) of the night's devices that reported one."""
    rows = _rows(get_db(), f"select need_ms from reveal_needs where updated >= ? "
                 f"and device in ({_NIGHT_DEVICES})",
                 [int(time.time()) - FRESH_S, night_id, night_id, night_id])
    return [int(r["need_ms"]) for r in rows]
