"""What each process keeps of the logs it read and the states it replayed: caches only,
keyed by where they sit in a log, so a miss just reads or replays again."""

from typing import Any

from flask import current_app
from sqlite_utils import Database

from companion.core.events import Event
from companion.core.lru import Pickled
from companion.store import log

#: Derived states by (database, game, log length): replay only when the log changed.
#: Correct under several worker processes without any coordination: the log is
#: append-only and its positions are unique, so a game's first n events never change
#: once written, and neither does the state they replay to. Each process keeps its own;
#: a miss is just a replay. Kept pickled: every reader gets its own copy. Sized for the
#: newest few versions of 200 tables' games (a view reads only its own game's state, and a
#: Kraken series its own games'): a larger cache only fills for longer. At most
#: ``CACHE_BYTES`` of pickles, whatever the games' lengths.
CACHE_BYTES = 64 * 1024 * 1024
states = Pickled(2048, CACHE_BYTES)

#: Each game's log as this process has read it: (database, game, its birth) → the
#: events in order. A game's birth (``Game.birth``, its creation time and random mark)
#: tells it from an earlier game whose id it was given once that game was deleted. A log
#: only grows (its first n events never change once written), so a later read asks the
#: database only for the events past those known: an append reads the few events written
#: since, not the whole log. Kept pickled, as the states: each reader gets its own copy
#: (tests/test_log_cache.py checks a whole night). A game a table plays is one entry:
#: 1,024 hold the games of 200 tables several times over.
logs = Pickled(1024, CACHE_BYTES)


def _log_key(game_id: int, birth: str) -> tuple[Any, ...]:
    return (current_app.config["DATABASE"], game_id, birth)


def read_log(db: Database, game_id: int, birth: str, upto: int | None = None
             ) -> list[Event]:
    """A game's log (its first ``upto`` events if given): what this process read before
    from its cache, only the newer events from the database. ``birth``: the game's
    (``Game.birth``), which tells it from an earlier game given the same id."""
    key = _log_key(game_id, birth)
    known: list[Event] = logs.get(key) or []
    if upto is not None and len(known) >= upto:
        return known[:upto]
    events = known + log.load(db, game_id, upto=upto, after=len(known))
    if len(events) > len(known):
        logs.put(key, events)
    return list(events)
