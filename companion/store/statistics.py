"""A host's history in pages, and its statistics kept with the stamp of the history they
were worked out from.

The statistics read every finished game a device hosted; worked out on every visit,
their cost grew with the history. So they are kept (``kept_statistics``, one row a
device) with a stamp of what they were worked out from: the device's history version
(companion/store/histories.py: it moves with any change to what the statistics read of
its nights) and its merges. A visit whose stamp matches reads the kept row: the stamp is
one indexed read, however long the history. A move in a running game changes nothing
the statistics read, so it keeps them; a game that starts or ends, an import, a replace
or a merge makes the next visit work them out again (from the kept results: no log is
read).
"""

import hashlib
import json
from typing import Any, cast

from companion.store.connection import get_db, write
from companion.store.histories import version
from companion.store.sql import Row, _first, _rows
from companion.store.tallied import tallied

#: Nights per page of the history.
HISTORY_PAGE = 20


def hosts_any(device: str) -> bool:
    """Whether ``device`` hosts any night (one indexed query)."""
    return _first(get_db(), "select 1 as one from hosts where device = ? limit 1",
                  [device]) is not None


def hosted_count(device: str) -> int:
    row = _first(get_db(), "select count(*) as n from hosts where device = ?", [device])
    return int(row["n"]) if row else 0


def hosted_page(device: str, page: int, size: int = HISTORY_PAGE) -> list[Row]:
    """Page ``page`` (from 1) of the nights ``device`` hosts, the latest first (by
    sequence, as ``hosted_nights``)."""
    return _rows(get_db(), "select n.* from nights n join hosts h on h.night_id = n.id "
                 "where h.device = ? order by n.id desc limit ? offset ?",
                 [device, size, (max(page, 1) - 1) * size])


def rosters(night_ids: list[int]) -> dict[int, list[Row]]:
    """The seats of these nights in seat order, by night, in one query."""
    found: dict[int, list[Row]] = {night_id: [] for night_id in night_ids}
    if night_ids:
        for seat in _rows(get_db(), "select * from seats where night_id in "
                          f"({', '.join('?' * len(night_ids))}) order by night_id, position",
                          night_ids):
            found[seat["night_id"]].append(seat)
    return found


def history_stamp(device: str, aliases: dict[str, str]) -> str:
    """What the device's statistics are worked out from, as one stamp: its history
    version (companion/store/histories.py) and its merges; it changes with any change
    to what they read, and only then. One indexed read, however long the history."""
    merges = hashlib.sha256(json.dumps(sorted(aliases.items())).encode()).hexdigest()[:16]
    return f"{version(device)}:{merges}"


def kept_statistics(device: str, stamp: str) -> dict[str, Any] | None:
    """The device's statistics as kept at ``stamp`` (None: none kept at that stamp)."""
    row = _first(get_db(), "select body from kept_statistics where device = ? and stamp = ?",
                 [device, stamp])
    return None if row is None else cast(dict[str, Any], json.loads(row["body"]))


def keep_statistics(device: str, stamp: str, body: dict[str, Any]) -> None:
    """Keep the device's statistics worked out at ``stamp`` (a cache of the kept results:
    whichever worker writes last, both wrote the same)."""
    db = get_db()
    with write(db):
        db.execute("insert or replace into kept_statistics (device, stamp, body) "
                   "values (?, ?, ?)",
                   [device, stamp, json.dumps(body, ensure_ascii=False, sort_keys=True)])


def statistics_nights(device: str) -> list[dict[str, Any]]:
    """Every night ``device`` hosts, oldest first, as the statistics read them: ``{"names":
    {seat: name}, "games": [...]}``, the games from their kept results
    (companion/store/tallied.py)."""
    nights = _rows(get_db(), "select n.id from nights n join hosts h on h.night_id = n.id "
                   "where h.device = ? order by n.created, n.id", [device])
    ids = [n["id"] for n in nights]
    seats = rosters(ids)
    games = tallied(ids)
    return [{"names": {s["position"]: s["name"] for s in seats[i]}, "games": games[i]}
            for i in ids]
