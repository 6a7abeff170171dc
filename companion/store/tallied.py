"""The games of nights as the tallies read them: from their kept results
(companion/store/results.py), never from their logs, so the history, the statistics and
a night's tally cost no replay. A game with nothing fresh kept is worked out from its log
once, and kept.
"""

import json
from typing import Any, cast

from companion.core import stats
from companion.store.connection import get_db, known_games, write
from companion.store.played import GAME_SQL, Game, _game
from companion.store.results import decode_result, encode, keep
from companion.store.sql import Row, _rows

#: A game row (``GAME_SQL``) with what is kept of it.
KEPT_SQL = GAME_SQL.replace(
    "select g.*,", "select g.*, r.length as kept_length, r.rules as kept_rules, "
    "r.finished as kept_finished, r.result as kept_result, r.state as kept_state,", 1).replace(
    "from games g left join events e",
    "from games g left join results r on r.game_id = g.id left join events e", 1)


def _fresh(row: Row, running: bool = True) -> bool:
    """Whether the kept columns of ``row`` were worked out at its log's length, by its
    kind's rules of today (``rules_version``); with ``running`` (a reader of what a
    running game adds to statistics), a running game of a kind with ``running_parts``
    kept without them (before they were kept) is worked out again."""
    game = known_games()[row["kind"]]
    return (row["kept_length"] is not None and row["kept_length"] == (row["length"] or 0)
            and row["kept_rules"] == game.rules_version
            and (not running or bool(row["kept_finished"]) or row["kept_state"] is not None
                 or game.running_parts is None))


def _repair(rows: list[Row]) -> None:
    """Work out and keep what the games of ``rows`` came to where nothing fresh is kept
    (each row is given its kept columns)."""
    stale = [row for row in rows if not _fresh(row)]
    if not stale:
        return
    db = get_db()
    worked = [(row, cast(Game, _game(row))) for row in stale]
    with write(db):
        for row, found in worked:
            keep(db, found.id, found.night_id, found.kind, found.setup, found.length,
                 found.state)
            columns = encode(found.kind, found.setup, found.state)
            row.update(kept_length=found.length,
                       kept_rules=known_games()[found.kind].rules_version,
                       kept_finished=columns["finished"],
                       kept_result=columns["result"], kept_state=columns["state"])


def _marks(ids: list[int]) -> str:
    return ", ".join("?" * len(ids))


def tallied(night_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    """The games of these nights as the tallies read them, by night, in order: each
    ``{"number", "kind", "setup", "created", "ended", "finished", "result", "state"}``
    with the kept result and state of a finished game, and ``stats.RUNNING`` (no result)
    for one still running, with what it adds to statistics so far (``running``). No log
    is read and no game replayed (but one with nothing fresh kept). ``ended`` is the time
    of the log's last event (the game's start without one)."""
    found: dict[int, list[dict[str, Any]]] = {night_id: [] for night_id in night_ids}
    if not night_ids:
        return found
    rows = _rows(get_db(), KEPT_SQL + f"where g.night_id in ({_marks(night_ids)}) "
                 "order by g.night_id, g.number", night_ids)
    _repair(rows)
    for row in rows:
        finished = bool(row["kept_finished"])
        found[row["night_id"]].append({
            "number": row["number"], "kind": row["kind"], "setup": json.loads(row["setup"]),
            "created": row["created"], "ended": row["last_created"] or row["created"],
            "finished": finished, "result": decode_result(row["kept_result"]),
            "state": json.loads(row["kept_state"]) if finished else
            {**stats.RUNNING, **json.loads(row["kept_state"] or "{}")}})
    return found


def night_games(night_id: int) -> list[dict[str, Any]]:
    """One night's games as the tallies read them (:func:`tallied`)."""
    return tallied([night_id])[night_id]


def night_game(night_id: int, number: int) -> dict[str, Any] | None:
    """Game ``number`` of a night as the tallies read it; None when there is none."""
    return next((g for g in night_games(night_id) if g["number"] == number), None)


def outcomes(night_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    """Per night, its games' numbers, kinds and kept results, in order, without their
    setups or states (what the history lists): each ``{"number", "kind", "finished",
    "winners"}``."""
    found: dict[int, list[dict[str, Any]]] = {night_id: [] for night_id in night_ids}
    if not night_ids:
        return found
    db = get_db()
    rows = _rows(db, "select g.id, g.night_id, g.number, g.kind, r.finished, r.result, "
                 "r.length as kept_length, r.rules as kept_rules, (select "
                 "coalesce(max(seq), 0) from events where game_id = g.id) as length "
                 "from games g left join results r on "
                 f"r.game_id = g.id where g.night_id in ({_marks(night_ids)}) "
                 "order by g.night_id, g.number", night_ids)
    stale = [row["id"] for row in rows if not _fresh(row, running=False)]
    if stale:
        full = _rows(db, KEPT_SQL + f"where g.id in ({_marks(stale)})", stale)
        _repair(full)
        by_id = {row["id"]: row for row in full}
        for row in rows:
            if row["id"] in by_id:
                row.update(finished=by_id[row["id"]]["kept_finished"],
                           result=by_id[row["id"]]["kept_result"])
    for row in rows:
        result = decode_result(row["result"])
        found[row["night_id"]].append({
            "number": row["number"], "kind": row["kind"], "finished": bool(row["finished"]),
            "winners": result["winners"] if result else []})
    return found
