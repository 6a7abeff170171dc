"""Kept results: what each game came to, worked out once and kept beside its log.

A game's result is derived from its log (``rules.replay``), never recorded by hand; but
replaying every game of every night on each visit to the history or the statistics made
their cost grow with the history. So each change to a log — an append (undo and redo
across the end, a correction), a new game, an import, a replace — works the game's
result out again in the same write transaction and keeps it in ``results``: the log
length it was worked out at, whether the game is finished and, for a finished game only,
its result and the part of its final state the tallies read (``stats.kept``). A running
game keeps "not finished" and, for a kind that has them, what it adds to statistics so
far (its ``running_parts``: public, the rounds scored or the matches won), never its
state: that may hold secrets (a Kraken deal, bids not revealed); and a finished Crazy
Time game keeps no law's When or What text.

What is kept is a cache of the log, written with it: a row that is missing, was worked
out at another log length (a database from before kept results, a game written by hand)
or by other rules than today's (``rules``: its kind's ``rules_version`` when it was
worked out; an upgrade that changed the scoring moves it) is worked out from the log
when it is read and kept then (companion/store/tallied.py reads them).
"""

import json
from typing import Any

from sqlite_utils import Database

from companion.core import stats
from companion.store.connection import known_games
from companion.store.histories import settle


def _seat_keys(value: dict[str, Any]) -> dict[Any, Any]:
    """A result's dict as it was before JSON: the seat maps (``scores``, ``places``,
    ``roles`` …) are keyed by seat numbers, which JSON writes as text."""
    if value and all(isinstance(k, str) and k.isdigit() for k in value):
        return {int(k): v for k, v in value.items()}
    return value


def _dumps(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


def encode(kind: str, setup: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """The kept columns of a game whose log replays to ``state``."""
    kept = stats.kept(kind, setup, state, known_games())
    return {"finished": int(kept["finished"]), "result": _dumps(kept["result"]),
            "state": _dumps(kept["state"])}


def keep(db: Database, game_id: int, night_id: int, kind: str, setup: dict[str, Any],
         length: int, state: dict[str, Any]) -> bool:
    """Keep what game ``game_id`` came to at log length ``length``, in ``db``'s open
    write transaction. Returns whether it changed what the tallies read (its result,
    kept state or being finished), not just the length it was worked out at."""
    columns = encode(kind, setup, state)
    before = db.execute("select finished, result, state from results where game_id = ?",
                        [game_id]).fetchone()
    db.execute("insert or replace into results (game_id, night_id, length, finished, "
               "result, state, rules) values (?, ?, ?, ?, ?, ?, ?)",
               [game_id, night_id, length, columns["finished"], columns["result"],
                columns["state"], known_games()[kind].rules_version])
    changed = before is None or tuple(before) != (columns["finished"], columns["result"],
                                                  columns["state"])
    if changed:
        settle(db, night_id)
    return changed


def decode_result(text: str | None) -> dict[str, Any] | None:
    return None if text is None else json.loads(text, object_hook=_seat_keys)
