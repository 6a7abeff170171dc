"""A game is its event log: undo and redo are events too, and nothing is ever deleted.

What undo and redo mean is pure, in companion/core/events.py (``effective``). This
module stores events so that of two writes made from the same log position exactly one
is recorded.
"""

import json
import sqlite3
from collections.abc import Callable
from typing import Any

from sqlite_utils import Database

from companion.core.events import Event
from companion.store.connection import get_db, made_version, now, write


class Stale(Exception):
    """The write was made from an old log position: the table moved on."""


def _row(row: tuple[Any, ...]) -> Event:
    seq, type_, data, seat, created = row
    return {"seq": seq, "type": type_, "data": json.loads(data), "seat": seat,
            "created": created}


def as_read(event: Event) -> Event:
    """An event as a later read of the log gives it back (its data through JSON)."""
    return _row((event["seq"], event["type"], _dumps(event["data"]), event["seat"],
                 event["created"]))


def _dumps(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, sort_keys=True)


def load(db: Database, game_id: int, upto: int | None = None, after: int = 0
         ) -> list[Event]:
    """A game's events in log order: those past position ``after`` (all by default), up
    to ``upto`` if given."""
    sql = "select seq, type, data, seat, created from events where game_id = ? and seq > ?"
    params = [game_id, after]
    if upto is not None:
        sql, params = sql + " and seq <= ?", params + [upto]
    return [_row(r) for r in db.execute(sql + " order by seq", params).fetchall()]


def append(db: Database, game: dict[str, Any], type_: str, data: dict[str, Any], *,
           pos: int | None, seat: int | None = None, device: str | None = None,
           check: Callable[[list[Event]], None] | None = None,
           conflicts: Callable[[list[Event], Event], bool] | None = None,
           read: Callable[[Database, int], list[Event]] = load,
           kept: Callable[[Database, list[Event]], object] | None = None) -> list[Event]:
    """Record one event at the end of the game's log and return the new log.

    ``pos`` is the log position the writer saw (None for a phone's own move, which
    goes at the end). A write made from an older position is stale (``Stale``) unless
    ``conflicts(later, event)`` says none of the events recorded since touch it (a bid
    for one seat does not conflict with another seat's bid). ``check(events)`` replays
    the log as it would be and raises RuleError if the rules forbid it; then nothing is
    written. The write and the night's version bump are one transaction. ``read(db,
    game_id)`` gives the log as it stands in that transaction (the store's reads only
    what its process has not seen yet). ``kept(db, events)`` keeps what is derived from
    the new log (the game's result), in the same transaction as the event.
    """
    event: Event = {"type": type_, "data": data, "seat": seat, "created": now()}
    try:
        with write(db):
            events = read(db, game["id"])
            if pos is not None and _stale(events, pos, event, conflicts):
                raise Stale()
            event["seq"] = len(events) + 1
            if check is not None:
                check(events + [event])
            db.table("events").insert({
                "game_id": game["id"], "seq": event["seq"], "type": type_,
                "data": _dumps(data),
                "seat": seat, "device": device, "created": event["created"],
            })
            bump(db, game["night_id"])
            if kept is not None:
                kept(db, events + [event])
    except sqlite3.IntegrityError as error:
        raise Stale() from error
    return events + [event]


def _stale(events: list[Event], pos: int, event: Event,
           conflicts: Callable[[list[Event], Event], bool] | None) -> bool:
    if pos == len(events):
        return False
    if not 0 <= pos < len(events) or conflicts is None:
        return True
    return conflicts(events[pos:], event)


def touch(night_id: int) -> None:
    """Tell every screen of the night to draw it again, nothing else changed (a game's
    end held back a few seconds is shown now: companion/play/seen.py)."""
    db = get_db()
    with write(db):
        bump(db, night_id)


def bump(db: Database, night_id: int) -> None:
    """Tell every screen of the night that something changed (they poll this number).
    ``changed`` orders the change among all nights' (an index finds the last one): the
    live-push watcher reads only the nights changed since it last looked."""
    row = db.execute("update nights set version = version + 1, "
                     "changed = (select coalesce(max(changed), 0) + 1 from nights) "
                     "where id = ? returning version", [night_id]).fetchone()
    if row is not None:
        made_version(night_id, int(row[0]))
