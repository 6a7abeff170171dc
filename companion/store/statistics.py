"""A host's history in pages, and its statistics kept as sums.

The statistics read every finished game a device hosted; worked out whole, their cost
grew with the history. So each device keeps them as sums (companion/core/sums.py): its
totals (``statistics_sums``), and each night's part as counted in them
(``counted_nights``). A change to what the statistics read of a night — a game that
starts or ends, an undo or a correction across a game's end, an import, a replace, a
host added or removed — marks the night changed for its hosts
(companion/store/histories.py); the next visit works out the changed nights' parts
again (from their kept results: no log is read), takes out the parts they were counted
with and puts in the new ones. A visit with nothing changed reads one row. A merge
changes no sums: the merges are applied as the totals are read.

The totals carry the versions of the rules they were worked out under
(``sums.versions``): totals from other rules — an upgrade that changed a game's scoring
— are worked out again from every night on the next visit, each stale kept result
worked out again from its log on the way (companion/store/tallied.py).
"""

import json
from typing import Any

from companion.core import sums
from companion.store.connection import get_db, known_games, write
from companion.store.histories import changed
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


def _marks(ids: list[int]) -> str:
    return ", ".join("?" * len(ids))


def _hosted(device: str, among: list[int] | None = None) -> list[int]:
    """The nights ``device`` hosts (those of ``among``, if given)."""
    sql = "select night_id from hosts where device = ?"
    if among is not None:
        sql += f" and night_id in ({_marks(among)})"
    return [row[0] for row in get_db().execute(sql, [device, *(among or [])])]


def _night_parts(ids: list[int]) -> dict[int, dict[str, Any]]:
    """What each of these nights adds to its hosts' statistics (``sums.night_parts``),
    from its kept results."""
    if not ids:
        return {}
    created = {row["id"]: row["created"] for row in _rows(
        get_db(), f"select id, created from nights where id in ({_marks(ids)})", ids)}
    seats = rosters(ids)
    games = tallied(ids)
    return {i: sums.night_parts({"names": {s["position"]: s["name"] for s in seats[i]},
                                 "games": games[i]}, [created[i], i], known_games())
            for i in ids}


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _keep(device: str, versions: str, totals: dict[str, Any]) -> None:
    get_db().execute("insert or replace into statistics_sums (device, versions, body) "
                     "values (?, ?, ?)", [device, versions, _dumps(totals)])


def _settled(device: str, marks: dict[int, int]) -> list[int]:
    """Of the changes ``marks`` saw, those no newer change followed: their marks are
    taken away (in the open write transaction) and their nights returned. A night
    changed again since stays marked, to be counted again by the next visit."""
    now = changed(device)
    done = [night_id for night_id, mark in marks.items() if now.get(night_id) == mark]
    for night_id in done:
        get_db().execute("delete from changed_nights where device = ? and night_id = ?",
                         [device, night_id])
    return done


def _sum_again(device: str, versions: str) -> dict[str, Any]:
    """The device's totals worked out from every night it hosts, and kept."""
    marks = changed(device)
    parts = _night_parts(_hosted(device))
    db = get_db()
    with write(db):
        # Only the marks seen before the nights were read, of nights summed here, go: a
        # night changed since (a kept result from other rules worked out again on the
        # way marks it too) or given to the device since keeps its mark, and is counted
        # again by the next visit.
        _settled(device, {n: mark for n, mark in marks.items() if n in parts})
        db.execute("delete from counted_nights where device = ?", [device])
        for night_id, part in parts.items():
            db.execute("insert into counted_nights (device, night_id, body) values (?, ?, ?)",
                       [device, night_id, _dumps(part)])
        totals = sums.total(parts.values())
        _keep(device, versions, totals)
    return totals


def _adjust(device: str, versions: str, marks: dict[int, int]) -> dict[str, Any]:
    """The device's totals with the changed nights' old parts taken out and their new
    ones put in (the parts worked out before the write lock is taken), and kept."""
    parts = _night_parts(_hosted(device, list(marks)))
    db = get_db()
    with write(db):
        row = _first(db, "select body from statistics_sums where device = ?", [device])
        totals: dict[str, Any] | None = json.loads(row["body"]) if row else {}
        for night_id in _settled(device, marks):
            old = _first(db, "select body from counted_nights where device = ? and "
                         "night_id = ?", [device, night_id])
            new = parts.get(night_id)
            if totals is not None:
                totals = sums.replace(totals, json.loads(old["body"]) if old else None, new)
            db.execute("delete from counted_nights where device = ? and night_id = ?",
                       [device, night_id])
            if new is not None:
                db.execute("insert into counted_nights (device, night_id, body) "
                           "values (?, ?, ?)", [device, night_id, _dumps(new)])
        if totals is None:  # a maximum taken out: add up the parts counted
            totals = sums.total(json.loads(r[0]) for r in db.execute(
                "select body from counted_nights where device = ?", [device]))
        _keep(device, versions, totals)
    return totals


def statistics_totals(device: str) -> dict[str, Any]:
    """The device's statistics as sums (``sums.figures`` gives what the page shows): as
    kept when no night of it changed since; else with the changed nights counted again;
    and from every night it hosts when none are kept, or they were kept under other
    rules than today's. Kept before it is returned (a cache of the kept results: two
    workers adjusting at once take turns, and the second finds nothing left to do)."""
    versions = _dumps(sums.versions(known_games()))
    row = _first(get_db(), "select versions, body from statistics_sums where device = ?",
                 [device])
    if row is None or row["versions"] != versions:
        return _sum_again(device, versions)
    marks = changed(device)
    if not marks:
        return dict(json.loads(row["body"]))
    return _adjust(device, versions, marks)
