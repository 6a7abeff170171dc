"""Imported nights: storing a checked night, finding a copy already here, replacing a
copy's games, and the uploads waiting for the host's choice."""

import json
from typing import Any, cast

from sqlite_utils import Database

from companion.core.events import effective
from companion.core.tokens import new_token
from companion.store import log
from companion.store.connection import get_db, now, write
from companion.store.histories import settle
from companion.store.nights import _insert_night, former_names, night
from companion.store.played import rules_for
from companion.store.quotas import spend
from companion.store.results import keep
from companion.store.sql import Row


def _insert_games(db: Database, night_id: int, games_: list[dict[str, Any]]) -> None:
    """A checked night's games and their logs, with what each came to (the state the
    import's check replayed; replayed here when the night waited for the host's choice
    without it), in ``db``'s open transaction."""
    for game_ in games_:
        state = game_.get("state")
        if state is None:
            state = rules_for(game_["kind"]).replay(game_["setup"],
                                                    effective(game_["events"]))
        game_id = db.table("games").insert({
            "night_id": night_id, "number": game_["number"], "kind": game_["kind"],
            "setup": json.dumps(game_["setup"], ensure_ascii=False, sort_keys=True),
            "created": game_["created"], "born": new_token(),
        }).last_pk
        # One statement for the whole log: a row at a time through sqlite-utils (which
        # looks the table up for each) held the server for 4 s on an 8,000-event file.
        db.conn.executemany(
            "insert into events (game_id, seq, type, data, seat, device, created) "
            "values (?, ?, ?, ?, ?, null, ?)",
            [(game_id, event["seq"], event["type"],
              json.dumps(event["data"], ensure_ascii=False, sort_keys=True),
              event["seat"], event["created"]) for event in game_["events"]])
        keep(db, int(cast(int, game_id)), night_id, game_["kind"], game_["setup"],
             len(game_["events"]), state)


def import_night(document: dict[str, Any], device: str, address: str | None = None,
                 size: int = 0) -> str:
    """Store a checked night (companion.core.exchange.parse_import) in one transaction; the
    device hosts it and every seat gets a new link. Returns the new night's key. It
    counts against ``device`` and the client ``address`` with its file's ``size``
    (raises ``OverQuota`` past their bound, and nothing is stored)."""
    db = get_db()
    with write(db):
        spend(db, "import", device, address, size)
        night_id = _insert_night(db, document["created"], document["players"], device,
                                 document.get("colours"))
        _insert_games(db, night_id, document["games"])
    return str(night(night_id)["key"])


def nights_like(created: str, players: list[str]) -> list[Row]:
    """The nights on this machine that are this night (made here or imported before),
    oldest first: made at the same moment, with these ``players`` first in seat order.
    An export made before a latecomer joined holds the roster as it was then, so a
    night's roster may go on past the file's (never the other way: the file's games
    would seat players the night does not have); one made before a rename holds a seat's
    former name, which matches it too."""
    db = get_db()
    found = []
    for row in db.query("select * from nights where created = ? order by id", [created]):
        roster = [r["name"] for r in db.query(
            "select name from seats where night_id = ? order by position", [row["id"]])]
        if len(roster) < len(players):
            continue
        former = former_names(row["id"]) if roster[:len(players)] != list(players) else {}
        if all(name == roster[seat] or name in former.get(seat, ())
               for seat, name in enumerate(players)):
            found.append(row)
    return found


def replace_games(night_id: int, document: dict[str, Any]) -> None:
    """Put a checked night's games in place of this night's own (the same night: its
    seats, codes, hosts and key stay), in one transaction; the phones show its latest.

    The new games are written before the old ones go, so none is given an old game's
    id here; an id freed here may go to a later game, which its random mark tells apart
    in every worker's caches (``Game.birth``)."""
    db = get_db()
    with write(db):
        old = [r["id"] for r in db.query("select id from games where night_id = ?",
                                         [night_id])]
        db.execute("update games set number = -number where night_id = ?", [night_id])
        _insert_games(db, night_id, document["games"])
        marks = ", ".join("?" * len(old))
        for table in ("activity", "events", "results"):
            db.execute(f"delete from {table} where game_id in ({marks})", old)
        db.execute(f"delete from games where id in ({marks})", old)
        db.execute("delete from form_tokens where night_id = ? and game is not null",
                   [night_id])
        db.execute("update nights set current_game = null where id = ?", [night_id])
        settle(db, night_id)
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
