"""Reading and writing nights, seats, hosts and games: every query of the app lives here.

The store knows nothing of requests: the views pass in the device that asks (the
``device`` cookie, companion/web.py) and decide what to answer when a row is missing.
"""

import json
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, cast

from flask import current_app
from sqlite_utils import Database

from companion import log, registry
from companion.colours import default as default_colour
from companion.db import get_db, now, read, write, written
from companion.errors import N_, RuleError
from companion.lru import LRU, Pickled
from companion.tokens import new_token, night_fingerprint

Row = dict[str, Any]


def rules_for(kind: str) -> registry.Rules:
    """The pure rules module of a kind of game (KeyError for an unknown kind)."""
    return registry.get(kind).rules


# --- nights and seats -------------------------------------------------------------

# The hot reads (every screen's version check and its board) go through ``execute``:
# ``Database.query`` wraps each read in a savepoint, three statements for one.

def _rows(db: Database, sql: str, params: list[Any]) -> list[Row]:
    cursor = db.execute(sql, params)
    columns = [c[0] for c in cursor.description]
    return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


def _first(db: Database, sql: str, params: list[Any]) -> Row | None:
    rows = _rows(db, sql, params)
    return rows[0] if rows else None


def _insert_night(db: Database, created: str, names: Iterable[str], device: str,
                  colours: Iterable[str] | None = None) -> int:
    """A night row, its seats (each with a fresh link and its colour: the palette in
    seat order unless given) and its first host, in ``db``'s open transaction; returns
    the night's id."""
    names = list(names)
    hues = list(colours) if colours is not None else [default_colour(i)
                                                      for i in range(len(names))]
    night_id = cast(int, db.table("nights").insert(
        {"key": new_token(), "created": created, "version": 0,
         "fingerprint": night_fingerprint(created, names)}).last_pk)
    for position, name in enumerate(names):
        db.table("seats").insert({
            "night_id": night_id, "position": position, "name": name,
            "token": new_token(), "device": None, "claimed_at": None,
            "colour": hues[position],
        })
    db.table("hosts").insert({"night_id": night_id, "device": device, "created": now()})
    return int(night_id)


# --- one-time form tokens ---------------------------------------------------------

class FormUsed(Exception):
    """A one-time form token that already made something else (another night's form)."""


def _made_with(db: Database, token: str | None) -> Row | None:
    """What a one-time form token made (``night_id``, and ``game`` for a game), or None
    for a token never used (or no token)."""
    if token is None:
        return None
    return next(db.query("select night_id, game from form_tokens where token = ?", [token]),
                None)


def _use_token(db: Database, token: str | None, night_id: int, game: int | None) -> None:
    """Remember what ``token`` made (its key is unique: the second use is refused)."""
    if token is not None:
        db.table("form_tokens").insert(
            {"token": token, "night_id": night_id, "game": game, "created": now()})


def create_night(names: Iterable[str], device: str, form_token: str | None = None,
                 colours: Iterable[str] | None = None) -> Row:
    """A new night with these players in seat order, hosted by ``device``.

    With a one-time ``form_token`` it is made once: the same token again (back and send
    again, a double tap, posts at once) gives the night the first one made."""
    db = get_db()
    with write(db):
        made = _made_with(db, form_token)
        if made is not None and made["game"] is not None:
            raise FormUsed()
        if made is not None:
            night_id = int(made["night_id"])
        else:
            night_id = _insert_night(db, now(), names, device, colours)
            _use_token(db, form_token, night_id, None)
    return night(night_id)


def night(night_id: int) -> Row:
    """The night with this id: one that exists (ids come from rows, and no night is ever
    deleted)."""
    return cast(Row, next(get_db().query("select * from nights where id = ?", [night_id]),
                          None))


def night_by_key(key: str) -> Row | None:
    return next(get_db().query("select * from nights where key = ?", [key]), None)


def latest_night() -> Row | None:
    return next(get_db().query("select * from nights order by id desc limit 1"), None)


def is_host(night_row: Row, device: str) -> bool:
    return bool(next(get_db().query(
        "select 1 from hosts where night_id = ? and device = ?", [night_row["id"], device]
    ), None))


def hosted_night(key: str, device: str) -> Row | None:
    """The night with this key if ``device`` hosts it, else None: one indexed query."""
    return _first(get_db(), "select n.* from nights n join hosts h on h.night_id = n.id "
                  "where n.key = ? and h.device = ?", [key, device])


def hosted_nights(device: str) -> list[Row]:
    return list(get_db().query(
        "select n.* from nights n join hosts h on h.night_id = n.id "
        "where h.device = ? order by n.id desc", [device],
    ))


def night_versions(db: Database, night_ids: list[int]) -> dict[int, int]:
    """The versions of these nights, in one query on ``db`` (the live-push watcher's
    own connection: it runs outside any request)."""
    marks = ", ".join("?" * len(night_ids))
    return {int(i): int(v) for i, v in db.execute(
        f"select id, version from nights where id in ({marks})", night_ids).fetchall()}


def changes_since(db: Database, seen: int) -> tuple[dict[int, int], int]:
    """The nights changed after change ``seen`` (``log.bump`` numbers them), with their
    versions, and the last change read; on ``db``, the watcher's own connection."""
    rows = db.execute("select id, version, changed from nights where changed > ?",
                      [seen]).fetchall()
    return {int(i): int(v) for i, v, _ in rows}, max((int(c) for *_, c in rows), default=seen)


def last_change(db: Database) -> int:
    """The number of the last change to any night (0: none yet)."""
    return int(db.execute("select coalesce(max(changed), 0) from nights").fetchone()[0])


def seats(night_id: int) -> list[Row]:
    return list(get_db().query(
        "select * from seats where night_id = ? order by position", [night_id]
    ))


def names(night_id: int) -> dict[int, str]:
    """Seat number → player name."""
    return {s["position"]: s["name"] for s in seats(night_id)}


def colours(night_id: int) -> dict[int, str]:
    """Seat number → the player's colour key (companion/colours.py)."""
    return {s["position"]: s["colour"] for s in seats(night_id)}


def set_colour(night_id: int, position: int, colour: str) -> None:
    """Give a seat a colour of the palette; the seat that had it takes this seat's old
    colour (two players never share one)."""
    db = get_db()
    with write(db):
        old = next(db.query("select colour from seats where night_id = ? and position = ?",
                            [night_id, position]), None)
        if old is None or old["colour"] == colour:
            return
        db.execute("update seats set colour = ? where night_id = ? and colour = ?",
                   [old["colour"], night_id, colour])
        db.execute("update seats set colour = ? where night_id = ? and position = ?",
                   [colour, night_id, position])
        log.bump(db, night_id)


def seat_by_token(token: str) -> Row | None:
    return next(get_db().query("select * from seats where token = ?", [token]), None)


def my_seat(device: str) -> Row | None:
    """The seat ``device`` holds in its current night: the one it claimed (or reopened)
    last, by sequence (or None). It carries its night's version as ``night_version``
    (one query is all a phone's unchanged poll costs)."""
    return _first(get_db(), "select s.*, n.version as night_version from seats s "
                  "join nights n on n.id = s.night_id where s.device = ? "
                  "order by s.claim_seq desc, s.id desc limit 1", [device])


def _next_claim(db: Database) -> int:
    """The next number in the order seats are claimed (a sequence, never a clock)."""
    return int(next(db.query(
        "select coalesce(max(claim_seq), 0) + 1 as n from seats"))["n"])


def claim_seat(seat: Row, device: str) -> tuple[bool, str | None]:
    """Give ``seat`` to ``device`` if it is free, not played on the tablet, and the device
    holds no other seat of that night; the seat's night becomes the device's current one.
    Claiming the device's own seat again just makes its night current. Returns
    (claimed, the name of another seat of the night the device already holds)."""
    db = get_db()
    with write(db):
        held = next(db.query(
            "select name from seats where night_id = ? and device = ? and id != ?",
            [seat["night_id"], device, seat["id"]]), None)
        if held is not None:
            return False, str(held["name"])
        updated = db.execute(
            "update seats set device = ?, claimed_at = ?, claim_seq = ? where id = ? "
            "and (device is null or device = ?) and tablet = 0",
            [device, now(), _next_claim(db), seat["id"], device],
        ).rowcount
        if updated:
            log.bump(db, seat["night_id"])
    return bool(updated), None


def _retire_code(db: Database, seat_id: int) -> None:
    """Give a seat a new code; the old one is remembered only to say it was replaced."""
    old = next(db.query("select token from seats where id = ?", [seat_id]))["token"]
    db.table("retired_codes").insert({"token": old, "seat_id": seat_id, "retired": now()})
    db.execute("update seats set token = ? where id = ?", [new_token(), seat_id])


def _seat_id(db: Database, night_id: int, position: int) -> int | None:
    row = next(db.query("select id from seats where night_id = ? and position = ?",
                        [night_id, position]), None)
    return None if row is None else int(row["id"])


def release_seat(night_id: int, position: int) -> None:
    """Free a seat so another phone can claim it, with a new code: a photo of the old
    one, or a phone retrying it, gets nothing."""
    db = get_db()
    with write(db):
        seat_id = _seat_id(db, night_id, position)
        if seat_id is None:
            return
        db.execute("update seats set device = null, claimed_at = null where id = ?",
                   [seat_id])
        _retire_code(db, seat_id)
        log.bump(db, night_id)


def reissue_code(night_id: int, position: int) -> None:
    """A new code for a seat (the phone that holds it keeps it)."""
    db = get_db()
    with write(db):
        seat_id = _seat_id(db, night_id, position)
        if seat_id is not None:
            _retire_code(db, seat_id)
            log.bump(db, night_id)


def set_tablet(night_id: int, position: int, on_tablet: bool) -> None:
    """Mark a seat as played on the host's tablet (its code then opens nothing and the
    phone that held it lets go), or give it back a code for a phone (a new one)."""
    db = get_db()
    with write(db):
        seat_id = _seat_id(db, night_id, position)
        if seat_id is None:
            return
        db.execute("update seats set tablet = ?, device = null, claimed_at = null "
                   "where id = ?", [int(on_tablet), seat_id])
        _retire_code(db, seat_id)
        log.bump(db, night_id)


def retired_code(token: str) -> Row | None:
    """The seat a replaced code belonged to (None for a code that never was)."""
    return next(get_db().query(
        "select s.* from retired_codes r join seats s on s.id = r.seat_id "
        "where r.token = ?", [token]), None)


def seat_in_night(night_id: int, device: str) -> Row | None:
    """The seat ``device`` holds in this night (or None)."""
    return next(get_db().query("select * from seats where night_id = ? and device = ?",
                               [night_id, device]), None)


# --- host devices -----------------------------------------------------------------

#: How long a host code works after it is shown.
HOST_CODE_MINUTES = 5


def invite_host(night_id: int, minutes: int = HOST_CODE_MINUTES) -> str:
    """A one-time token that makes the device which opens it a host of the night, for
    ``minutes``; it cancels any code shown before for the night."""
    token = new_token()
    db = get_db()
    with write(db):
        _end_codes(db, night_id)
        db.table("host_invites").insert(
            {"token": token, "night_id": night_id, "created": now(), "used_by": None,
             "expires": now(minutes * 60), "ended": 0})
    return token


def _end_codes(db: Database, night_id: int) -> None:
    """End every unused host code of the night, in ``db``'s open write transaction."""
    db.execute("update host_invites set ended = 1, expires = min(expires, ?) "
               "where night_id = ? and used_by is null and ended = 0", [now(), night_id])


def _live_code(db: Database, token: str) -> Row | None:
    """An unused host code that has not ended. One past its expiry is recorded as ended
    first, so that a clock set back later does not make it work again."""
    code = next(db.query("select * from host_invites where token = ? and used_by is null "
                         "and ended = 0", [token]), None)
    if code is not None and code["expires"] <= now():
        with write(db):
            db.execute("update host_invites set ended = 1 where token = ?", [token])
        return None
    return code


def host_invite(token: str) -> Row | None:
    """An unused host code that has not ended (or None)."""
    return _live_code(get_db(), token)


def host_invite_known(token: str) -> bool:
    """Whether this host code was ever shown (it may be used up or expired since)."""
    return bool(next(get_db().query("select 1 from host_invites where token = ?", [token]),
                     None))


def use_host_invite(token: str, device: str) -> Row | None:
    """Make ``device`` a host with an unused, unexpired code; a seat the device holds in
    that night is given up (one device is a host or a player, not both). Returns the
    night (None for a used, expired or unknown code)."""
    db = get_db()
    invite = _live_code(db, token)
    if invite is None:
        return None
    with write(db):
        if not db.execute("update host_invites set used_by = ? where token = ? and "
                          "used_by is null and ended = 0", [device, token]).rowcount:
            return None  # another device answered it first
        db.execute("update seats set device = null, claimed_at = null "
                   "where night_id = ? and device = ?", [invite["night_id"], device])
        db.execute("insert or ignore into hosts (night_id, device, created) values (?, ?, ?)",
                   [invite["night_id"], device, now()])
        log.bump(db, invite["night_id"])
    return night(invite["night_id"])


def hosts(night_id: int) -> list[Row]:
    """The night's host devices, first added first (``id`` to remove one by)."""
    return list(get_db().query(
        "select rowid as id, device, created from hosts where night_id = ? order by rowid",
        [night_id]))


def remove_host(night_id: int, host_id: int, device: str) -> bool:
    """Take host rights from another device of the night (never from ``device`` itself,
    so a night always keeps a host), and cancel the night's unused host codes: a removed
    device that photographed or still shows one would take the table back by answering
    it. Returns whether one was removed."""
    db = get_db()
    with write(db):
        removed = db.execute(
            "delete from hosts where night_id = ? and rowid = ? and device != ?",
            [night_id, host_id, device]).rowcount
        if removed:
            _end_codes(db, night_id)
    return bool(removed)


# --- a host's merges of two spellings of a name -----------------------------------

def aliases(device: str) -> dict[str, str]:
    """Folded spelling → folded name it was merged into, as ``device`` merged them."""
    return {r["alias"]: r["canonical"] for r in get_db().query(
        "select alias, canonical from aliases where device = ? order by alias", [device])}


def merge_alias(device: str, alias: str, into: str) -> None:
    db = get_db()
    with write(db):
        db.execute("update aliases set canonical = ? where device = ? and canonical = ?",
                   [into, device, alias])
        db.execute("insert or replace into aliases (device, alias, canonical, created) "
                   "values (?, ?, ?, ?)", [device, alias, into, now()])


def unmerge_alias(device: str, alias: str) -> None:
    db = get_db()
    with write(db):
        db.execute("delete from aliases where device = ? and alias = ?", [device, alias])


# --- an imported night ------------------------------------------------------------

def _insert_games(db: Database, night_id: int, games_: list[dict[str, Any]]) -> None:
    """A checked night's games and their logs, in ``db``'s open transaction."""
    for game_ in games_:
        game_id = db.table("games").insert({
            "night_id": night_id, "number": game_["number"], "kind": game_["kind"],
            "setup": json.dumps(game_["setup"], ensure_ascii=False, sort_keys=True),
            "created": game_["created"],
        }).last_pk
        # One statement for the whole log: a row at a time through sqlite-utils (which
        # looks the table up for each) held the server for 4 s on an 8,000-event file.
        db.conn.executemany(
            "insert into events (game_id, seq, type, data, seat, device, created) "
            "values (?, ?, ?, ?, ?, null, ?)",
            [(game_id, event["seq"], event["type"],
              json.dumps(event["data"], ensure_ascii=False, sort_keys=True),
              event["seat"], event["created"]) for event in game_["events"]])


def import_night(document: dict[str, Any], device: str) -> str:
    """Store a checked night (companion.exchange.parse_import) in one transaction; the
    device hosts it and every seat gets a new link. Returns the new night's key."""
    db = get_db()
    with write(db):
        night_id = _insert_night(db, document["created"], document["players"], device,
                                 document.get("colours"))
        _insert_games(db, night_id, document["games"])
    return str(night(night_id)["key"])


def nights_like(created: str, players: list[str]) -> list[Row]:
    """The nights on this machine with this fingerprint (the same night, made here or
    imported before), oldest first."""
    return list(get_db().query("select * from nights where fingerprint = ? order by id",
                               [night_fingerprint(created, players)]))


def replace_games(night_id: int, document: dict[str, Any]) -> None:
    """Put a checked night's games in place of this night's own (the same night: its
    seats, codes, hosts and key stay), in one transaction; the phones show its latest.

    The new games are written before the old ones go, so no game id is ever used twice
    (the state cache knows games by id, in every worker)."""
    db = get_db()
    with write(db):
        old = [r["id"] for r in db.query("select id from games where night_id = ?",
                                         [night_id])]
        db.execute("update games set number = -number where night_id = ?", [night_id])
        _insert_games(db, night_id, document["games"])
        marks = ", ".join("?" * len(old))
        for table in ("activity", "events"):
            db.execute(f"delete from {table} where game_id in ({marks})", old)
        db.execute(f"delete from games where id in ({marks})", old)
        db.execute("delete from form_tokens where night_id = ? and game is not null",
                   [night_id])
        db.execute("update nights set current_game = null where id = ?", [night_id])
        log.bump(db, night_id)


#: How long an uploaded night waits for the host's choice (import it over a copy).
PENDING_IMPORT_MINUTES = 30
#: How many uploaded nights wait at once, all devices together (each device's newest
#: only): anyone on the Wi-Fi may upload, and each waiting file takes its size on disk.
PENDING_IMPORTS_KEPT = 4


def _purge_imports(db: Database) -> None:
    """Forget the uploads past their time, in ``db``'s open write transaction."""
    db.execute("delete from pending_imports where expires <= ?", [now()])


def keep_import(device: str, document: dict[str, Any]) -> str:
    """Keep a checked night for ``device`` while its host chooses; returns its token."""
    token = new_token()
    kept = {"created": document["created"], "players": document["players"],
            "games": [{k: g[k] for k in ("number", "kind", "created", "setup", "events")}
                      for g in document["games"]]}
    db = get_db()
    with write(db):
        _purge_imports(db)
        db.execute("delete from pending_imports where device = ?", [device])
        db.execute("delete from pending_imports where rowid not in (select rowid from "
                   "pending_imports order by rowid desc limit ?)", [PENDING_IMPORTS_KEPT - 1])
        db.table("pending_imports").insert({
            "token": token, "device": device,
            "document": json.dumps(kept, ensure_ascii=False, sort_keys=True),
            "expires": now(PENDING_IMPORT_MINUTES * 60)})
    return token


def kept_import(token: str, device: str) -> dict[str, Any] | None:
    """The night ``device`` uploaded with this token, if it has not expired (the
    expired ones are forgotten first, whoever uploaded them)."""
    with write(get_db()) as db:
        _purge_imports(db)
    row = next(get_db().query(
        "select document from pending_imports where token = ? and device = ? "
        "and expires > ?", [token, device, now()]), None)
    return None if row is None else cast(dict[str, Any], json.loads(row["document"]))


def drop_import(token: str) -> None:
    db = get_db()
    with write(db):
        db.execute("delete from pending_imports where token = ?", [token])


# --- games ------------------------------------------------------------------------

#: Derived states by (database, game, log length): replay only when the log changed.
#: Correct under several worker processes without any coordination: the log is
#: append-only and its positions are unique, so a game's first n events never change
#: once written, and neither does the state they replay to. Each process keeps its own;
#: a miss is just a replay. Kept pickled: every reader gets its own copy. Sized for the
#: newest few versions of 200 tables' games (a view reads only its own game's state, and a
#: Kraken series its own games'): a larger cache only fills for longer.
states = Pickled(2048)

#: Each game's log as this process has read it: (database, game, its creation) → the
#: events in order. A log only grows (its first n events never change once written), so
#: a later read asks the database only for the events past those known: an append reads
#: the few events written since, not the whole log. Kept pickled, as the states: each
#: reader gets its own copy (tests/test_log_cache.py checks a whole night). A game a table
#: plays is one entry: 1,024 hold the games of 200 tables several times over.
logs = Pickled(1024)


def _log_key(game_id: int, created: str) -> tuple[Any, ...]:
    return (current_app.config["DATABASE"], game_id, created)


def read_log(db: Database, game_id: int, created: str, upto: int | None = None
             ) -> list[log.Event]:
    """A game's log (its first ``upto`` events if given): what this process read before
    from its cache, only the newer events from the database."""
    key = _log_key(game_id, created)
    known: list[log.Event] = logs.get(key) or []
    if upto is not None and len(known) >= upto:
        return known[:upto]
    events = known + log.load(db, game_id, upto=upto, after=len(known))
    if len(events) > len(known):
        logs.put(key, events)
    return list(events)


def _state_key(game_: "Game") -> tuple[Any, ...] | None:
    """Where this state sits: the database file, the game, how far its log goes."""
    if game_.database is None:
        return None  # a Game made by hand, outside the store: just replay
    return (game_.database, game_.id, game_.created, game_.length) + game_.last


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
    # The night's version of the board it was read from (None: read on its own).
    board_version: int | None = field(default=None, compare=False)

    @property
    def rules(self) -> registry.Rules:
        return rules_for(self.kind)

    @property
    def pos(self) -> int:
        """The log position a write from this view is made from."""
        return self.length

    @cached_property
    def events(self) -> list[log.Event]:
        """The log up to this view's position (later writes are not this view's)."""
        if self.database is None:  # a Game made by hand, outside the store
            return log.load(get_db(), self.id, upto=self.length)
        return read_log(get_db(), self.id, self.created, upto=self.length)

    @cached_property
    def effective(self) -> list[log.Event]:
        return log.effective(self.events)

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
        return log.undo_redo(self.events)[0]

    @property
    def can_redo(self) -> bool:
        return log.undo_redo(self.events)[1]

    @property
    def finished(self) -> bool:
        return bool(self.state.get("finished"))

    def plain(self) -> dict[str, Any]:
        """The game as the pure tallies read it (companion/stats.py)."""
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
        setup=json.loads(row["setup"]), created=row["created"],
        length=row["length"] or 0, last=(row["last_created"], row["last_type"]),
        database=database or current_app.config["DATABASE"],
    )


def _with_events(game_: Game, events: list[log.Event]) -> Game:
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


# --- boards: what every screen of a night is drawn from ------------------------------

#: How many of a night's latest games a board holds (and the game its phones show, if
#: older): what the table's screens show. A night's older games are read when a screen
#: asks for one, so a board stays the same size however long the night goes on.
BOARD_GAMES = 16


@dataclass(frozen=True)
class Board:
    """A night as its screens show it at one version: the night's row, its seats, its
    latest games (``BOARD_GAMES``, each with its log's length) and their activity
    beside the logs.

    Every change to a night bumps its version (``log.bump``), so a board read at a
    version stays true of it: each process keeps the newest board it read of each night
    (``boards``) and a screen that asks again at that version costs no query. Nothing
    may change a board it was given; :meth:`game` and :meth:`games` make fresh ``Game``
    objects, whose states come from the state cache as copies.
    """

    night: Row
    seats: list[Row]
    game_rows: list[Row]  # the latest games in order (and the phones' game, if older)
    activity: list[Row]   # of those games
    database: str
    #: Whether ``game_rows`` holds every game of the night.
    complete: bool = True
    #: The first of the latest games it holds (every game after it is in ``game_rows``).
    first: int = 1
    _parsed: dict[int, Game] = field(default_factory=dict, compare=False, repr=False)
    _derived: dict[Hashable, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def key(self) -> tuple[Any, ...]:
        """Where the board sits: the database, the night and its version."""
        return (self.database, self.night["id"], self.version)

    @property
    def version(self) -> int:
        return int(self.night["version"])

    @cached_property
    def names(self) -> dict[int, str]:
        return {s["position"]: s["name"] for s in self.seats}

    @cached_property
    def colours(self) -> dict[int, str]:
        return {s["position"]: s["colour"] for s in self.seats}

    @cached_property
    def _by_number(self) -> dict[int, Row]:
        return {row["number"]: row for row in self.game_rows}

    def _held(self, number: int) -> Game | None:
        """Game ``number`` as this board read it (its setup parsed once per board), or
        None when the board does not hold it."""
        if number not in self._parsed:
            row = self._by_number.get(number)
            if row is None:
                return None
            self._parsed[number] = replace(cast(Game, _game(row, self.database)),
                                           board_version=self.version)
        return self._parsed[number]

    def game(self, number: int) -> Game | None:
        """Game ``number``, a fresh object: from the board, else (an older game than it
        holds) read now."""
        held = self._held(number)
        if held is not None:
            return replace(held)
        if self.complete:
            return None
        return game(self.night["id"], number)

    def games(self) -> list[Game]:
        """Every game of the night in order, fresh objects (a night longer than the
        board: read now)."""
        if not self.complete:
            return games(self.night["id"])
        return [replace(cast(Game, self._held(number))) for number in self._by_number]

    def games_after(self, number: int) -> list[Game]:
        """The night's games after game ``number``, in order."""
        if not self.complete and number < self.first - 1:
            return [g for g in games(self.night["id"]) if g.number > number]
        return [replace(cast(Game, self._held(n))) for n in self._by_number if n > number]

    def current_game(self) -> Game | None:
        """What :func:`current_game` reads: the game the host chose last, else the
        latest."""
        if not self.game_rows:
            return None
        chosen = self.night["current_game"]
        return self.game(chosen if chosen in self._by_number else self.game_rows[-1]["number"])

    def derived(self, key: Hashable, build: Callable[[], Any]) -> Any:
        """What a view derives from the whole board, once per board: ``build()`` the
        first time ``key`` is asked for, the same value after (a Kraken series reads
        every game of it; the table's nine screens need it once). Nothing may change
        what it gives, and it must hold no secret."""
        if key not in self._derived:
            self._derived[key] = build()
        return self._derived[key]

    @cached_property
    def _game_ids(self) -> set[int]:
        """The games whose activity the board holds."""
        return {row["id"] for row in self.game_rows}

    def noted(self, game_id: int, kind: str) -> set[int]:
        """As :func:`noted`."""
        if game_id not in self._game_ids:
            return noted(game_id, kind)
        return {r["seat"] for r in self.activity
                if r["game_id"] == game_id and r["kind"] == kind}

    def activity_of(self, game_id: int) -> list[Row]:
        """As :func:`activity`."""
        if game_id not in self._game_ids:
            return activity(game_id)
        return [r for r in self.activity if r["game_id"] == game_id]


#: The newest board this process has read of each night: (database, night) → Board.
#: Only a night's newest version is ever asked for again (every screen of the table
#: moves on to it), so one board a night is enough.
boards = LRU(256)


def board(night_id: int, version: int | None = None) -> Board:
    """The night's board, never older than ``version`` nor than what this request
    wrote (``db.written``: an answer shows what was just done, whatever version its
    caller read before the write): from this process's cache, else read in one
    transaction (four queries); without a version, the night's board now."""
    database = current_app.config["DATABASE"]
    db = get_db()
    mine = written(night_id)
    if version is not None and mine is not None:
        version = max(version, mine)
    if version is None:
        row = db.execute("select version from nights where id = ?", [night_id]).fetchone()
        version = int(row[0]) if row else -1
    cached: Board | None = boards.get((database, night_id))
    if cached is not None and cached.version >= version:
        return cached
    with read(db):  # every read sees the same version
        night_row = cast(Row, _first(db, "select * from nights where id = ?", [night_id]))
        latest = _rows(db, GAME_SQL + "where g.night_id = ? order by g.number desc limit ?",
                       [night_id, BOARD_GAMES])[::-1]
        first = latest[0]["number"] if latest else 1
        shown = night_row["current_game"]
        if shown is not None and shown < first:
            latest[:0] = _rows(db, GAME_SQL + "where g.night_id = ? and g.number = ?",
                               [night_id, shown])
        ids = [row["id"] for row in latest]
        fresh = Board(
            night=night_row,
            seats=_rows(db, "select * from seats where night_id = ? order by position",
                        [night_id]),
            game_rows=latest,
            activity=_rows(db, "select game_id, seat, kind, created, pos from activity "
                           f"where game_id in ({', '.join('?' * len(ids))}) order by id",
                           ids) if ids else [],
            database=database,
            complete=len(latest) < BOARD_GAMES, first=first)
    now_kept: Board | None = boards.get((database, night_id))
    if now_kept is None or now_kept.version <= fresh.version:
        boards.put((database, night_id), fresh)
    return fresh


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
    rules.replay(setup, [])
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
            number = _insert_game(db, night_id, kind, setup)
            _use_token(db, form_token, night_id, number)
    return cast(Game, game(night_id, number))  # written just now


def _insert_game(db: Database, night_id: int, kind: str, setup: dict[str, Any]) -> int:
    """The night's next game, shown on its phones from now on (in ``db``'s open
    transaction); returns its number."""
    number = int(next(db.query(
        "select coalesce(max(number), 0) + 1 as n from games where night_id = ?",
        [night_id]))["n"])
    db.table("games").insert({
        "night_id": night_id, "number": number, "kind": kind,
        "setup": json.dumps(setup, ensure_ascii=False, sort_keys=True), "created": now(),
    })
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
    if type_ not in allowed and type_ not in (log.UNDO, log.REDO):
        raise RuleError(N_("That action is not part of this game."))
    if type_ in (log.UNDO, log.REDO) and seat is not None:
        raise RuleError(N_("That action is not part of this game."))

    checked: dict[str, Any] = {}

    def check(events: list[log.Event]) -> None:
        checked["state"] = rules.replay(game_.setup, log.effective(events))
        checked["events"] = events

    log.append(get_db(), {"id": game_.id, "night_id": game_.night_id}, type_, data,
               pos=pos, seat=seat, device=device, check=check,
               conflicts=registry.get(game_.kind).conflicts,
               read=lambda db, game_id: read_log(db, game_id, game_.created))
    written = checked["events"]
    logs.put(_log_key(game_.id, game_.created), written[:-1] + [log.as_read(written[-1])])
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
