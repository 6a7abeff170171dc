"""The games of a night and their logs: the ``Game`` view (setup, log length, cached
state), starting a game, recording an event after the rules checked it, and the
activity beside the logs (a phone saw its secret, the tablet was passed)."""

import json
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, cast

from flask import current_app
from sqlite_utils import Database

from companion.core import registry
from companion.core.errors import N_, RuleError
from companion.core.events import REDO, UNDO, Event, effective, undo_redo
from companion.core.tokens import new_token
from companion.store import log
from companion.store.caches import _log_key, logs, read_log, states
from companion.store.connection import get_db, known_games, now, write
from companion.store.form_tokens import FormUsed, _made_with, _use_token
from companion.store.results import keep
from companion.store.sql import Row


def rules_for(kind: str) -> registry.Rules:
    """The pure rules module of a kind of game (KeyError for an unknown kind)."""
    return known_games()[kind].rules


def _state_key(game_: "Game") -> tuple[Any, ...] | None:
    """Where this state sits: the database file, the game, how far its log goes."""
    if game_.database is None:
        return None  # a Game made by hand, outside the store: just replay
    return (game_.database, game_.id, game_.birth, game_.length) + game_.last


@dataclass
class Game:
    """One game of a night: its setup and its event log, with the state derived.

    A game read from the store knows how long its log is and what its last event was
    (one query); the events themselves are read only when a view needs them (the host's
    history, undo and redo), and the state only on a miss of the state cache.
    """

    id: int
    night_id: int
    number: int
    kind: str
    setup: dict[str, Any]
    created: str
    length: int = 0  # events in the log (the positions run 1..length)
    last: tuple[str | None, str | None] = (None, None)  # (created, type) of the last event
    database: str | None = None  # the state cache's key; None for a Game made by hand
    born: str | None = None  # the random mark it was made with (None: made before marks)
    # The night's version of the board it was read from (None: read on its own).
    board_version: int | None = field(default=None, compare=False)

    @property
    def birth(self) -> str:
        """What tells this game from another that had its id before (an id is given
        again once its game is deleted): its creation time and random mark."""
        return f"{self.created} {self.born or ''}"

    @property
    def rules(self) -> registry.Rules:
        return rules_for(self.kind)

    @property
    def pos(self) -> int:
        """The log position a write from this view is made from."""
        return self.length

    @cached_property
    def events(self) -> list[Event]:
        """The log up to this view's position (later writes are not this view's)."""
        if self.database is None:  # a Game made by hand, outside the store
            return log.load(get_db(), self.id, upto=self.length)
        return read_log(get_db(), self.id, self.birth, upto=self.length)

    @cached_property
    def effective(self) -> list[Event]:
        return effective(self.events)

    @cached_property
    def state(self) -> dict[str, Any]:
        key = _state_key(self)
        state = None if key is None else states.get(key)
        if state is None:
            state = self.rules.replay(self.setup, self.effective)
            if key is not None:
                states.put(key, state)
        return state

    @property
    def can_undo(self) -> bool:
        return undo_redo(self.events)[0]

    @property
    def can_redo(self) -> bool:
        return undo_redo(self.events)[1]

    @property
    def finished(self) -> bool:
        return bool(self.state.get("finished"))

    def plain(self) -> dict[str, Any]:
        """The game as the pure tallies read it (companion/core/stats.py)."""
        return {"number": self.number, "kind": self.kind, "setup": self.setup,
                "state": self.state, "created": self.created, "events": self.events}


# A game row with its log's length and last event, in one indexed query.
GAME_SQL = """
select g.*, e.seq as length, e.created as last_created, e.type as last_type
from games g left join events e
  on e.game_id = g.id and e.seq = (select max(seq) from events where game_id = g.id)
"""


def _game(row: Row | None, database: str | None = None) -> Game | None:
    if row is None:
        return None
    return Game(
        id=row["id"], night_id=row["night_id"], number=row["number"], kind=row["kind"],
        setup=json.loads(row["setup"]), created=row["created"], born=row["born"],
        length=row["length"] or 0, last=(row["last_created"], row["last_type"]),
        database=database or current_app.config["DATABASE"],
    )


def _with_events(game_: Game, events: list[Event]) -> Game:
    """``game_`` as it stands after ``events`` (already read: no query)."""
    last = events[-1] if events else {}
    fresh = replace(game_, length=len(events), last=(last.get("created"), last.get("type")))
    fresh.events = events  # fills the cached property
    return fresh


def game(night_id: int, number: int) -> Game | None:
    return _game(next(get_db().query(
        GAME_SQL + "where g.night_id = ? and g.number = ?", [night_id, number]), None))


def games(night_id: int) -> list[Game]:
    return [cast(Game, _game(r)) for r in get_db().query(
        GAME_SQL + "where g.night_id = ? order by g.number", [night_id])]


def current_game(night_id: int) -> Game | None:
    """The game the table's phones show: the one the host chose last (by starting or
    resuming it), else the night's latest."""
    return _game(next(get_db().query(
        GAME_SQL + "where g.night_id = ? and g.number = coalesce("
        "(select current_game from nights where id = ?), "
        "(select max(number) from games where night_id = ?))",
        [night_id, night_id, night_id]), None))


def set_current_game(night_id: int, number: int) -> None:
    """Show game ``number`` on the night's phones (the host resumes it); every screen of
    the night refreshes."""
    db = get_db()
    with write(db):
        db.execute("update nights set current_game = ? where id = ? and exists "
                   "(select 1 from games where night_id = ? and number = ?)",
                   [number, night_id, night_id, number])
        log.bump(db, night_id)


class Running(Exception):
    """A game is still running on the phones: starting another asks the host first."""

    def __init__(self, game_: "Game") -> None:
        super().__init__(game_.number)
        self.game = game_


def _running(night_id: int) -> "Game | None":
    """The game the phones show, if it is not finished."""
    shown = current_game(night_id)
    return shown if shown is not None and not shown.finished else None


def game_in_progress(within_seconds: float) -> bool:
    """Whether any night has a game not finished that was started or moved on in the
    last ``within_seconds``: the table is mid-game, even while every phone
    is locked (``companion serve`` keeps the laptop awake for it, companion/laptop/awake.py).
    A game left unfinished long before is no game in progress."""
    return bool(get_db().execute(
        "select exists(select 1 from games g where coalesce((select max(e.created) from "
        "events e where e.game_id = g.id), g.created) >= ? and not exists (select 1 from "
        "results r where r.game_id = g.id and r.finished = 1))",
        [now(-within_seconds)]).fetchone()[0])


def start_game(night_row: Row, kind: str, players: list[int], options: Any, *,
               form_token: str | None = None, leave: int | None = None) -> Game:
    """Start a game of ``kind`` for these seats (the rules validate the options); the
    phones show it from now on.

    While the game the phones show is unfinished, a game starts only when the host
    agreed to leave that very game unfinished (``leave`` is its number): otherwise
    ``Running`` (nothing is written), so two hosts pressing "start" at once, or a form
    sent twice, never make two games. A one-time ``form_token`` already used gives the
    game it made (a ``FormUsed`` when it made something else)."""
    rules = rules_for(kind)
    setup = rules.start(players, options)
    state = rules.replay(setup, [])
    night_id = night_row["id"]
    db = get_db()
    with write(db):
        made = _made_with(db, form_token)
        if made is not None:
            if made["night_id"] != night_id or made["game"] is None:
                raise FormUsed()
            number = int(made["game"])
        else:
            running = _running(night_id)
            if running is not None and running.number != leave:
                raise Running(running)
            number = _insert_game(db, night_id, kind, setup, state)
            _use_token(db, form_token, night_id, number)
    return cast(Game, game(night_id, number))  # written just now


def _insert_game(db: Database, night_id: int, kind: str, setup: dict[str, Any],
                 state: dict[str, Any]) -> int:
    """The night's next game, shown on its phones from now on, with what its empty log
    came to (``state``), in ``db``'s open transaction; returns its number."""
    number = int(next(db.query(
        "select coalesce(max(number), 0) + 1 as n from games where night_id = ?",
        [night_id]))["n"])
    game_id = int(cast(int, db.table("games").insert({
        "night_id": night_id, "number": number, "kind": kind,
        "setup": json.dumps(setup, ensure_ascii=False, sort_keys=True), "created": now(),
        "born": new_token(),
    }).last_pk))
    keep(db, game_id, night_id, kind, setup, 0, state)
    db.execute("update nights set current_game = ? where id = ?", [number, night_id])
    log.bump(db, night_id)
    return number


def record(game_: Game, type_: str, data: dict[str, Any], *, pos: int | None,
           device: str | None, seat: int | None = None) -> Game:
    """Append one event after checking it against the rules; returns the fresh game.

    Raises RuleError (nothing recorded) or log.Stale (the table moved on).
    """
    rules = game_.rules
    allowed = rules.HOST_EVENTS if seat is None else rules.SEAT_EVENTS
    if type_ not in allowed and type_ not in (UNDO, REDO):
        raise RuleError(N_("That action is not part of this game."))
    if type_ in (UNDO, REDO) and seat is not None:
        raise RuleError(N_("That action is not part of this game."))

    checked: dict[str, Any] = {}

    def check(events: list[Event]) -> None:
        checked["state"] = rules.replay(game_.setup, effective(events))
        checked["events"] = events

    log.append(get_db(), {"id": game_.id, "night_id": game_.night_id}, type_, data,
               pos=pos, seat=seat, device=device, check=check,
               conflicts=known_games()[game_.kind].conflicts,
               read=lambda db, game_id: read_log(db, game_id, game_.birth),
               kept=lambda db, events: keep(db, game_.id, game_.night_id, game_.kind,
                                            game_.setup, len(events), checked["state"]))
    written = checked["events"]
    logs.put(_log_key(game_.id, game_.birth), written[:-1] + [log.as_read(written[-1])])
    # The write committed, so the log up to here is fixed: its state is known already.
    fresh = _with_events(game_, checked["events"])
    key = _state_key(fresh)
    if key is not None:
        states.put(key, checked["state"])
    return fresh


def note(night_id: int, game_id: int | None, seat: int, kind: str) -> None:
    """Record what happened beside the log (a phone saw its secret; the tablet was
    passed), with the log position it came after (the history's order)."""
    db = get_db()
    with write(db):
        pos = next(db.query("select coalesce(max(seq), 0) as n from events where game_id = ?",
                            [game_id]))["n"]
        db.table("activity").insert({
            "night_id": night_id, "game_id": game_id, "seat": seat, "kind": kind,
            "created": now(), "pos": pos,
        })
        log.bump(db, night_id)


def noted(game_id: int, kind: str) -> set[int]:
    """Seats with an activity of this kind in a game (e.g. who has seen their role)."""
    return {r["seat"] for r in get_db().query(
        "select distinct seat from activity where game_id = ? and kind = ?", [game_id, kind]
    )}


def activity(game_id: int) -> list[Row]:
    return list(get_db().query(
        "select seat, kind, created, pos from activity where game_id = ? order by id",
        [game_id]
    ))
