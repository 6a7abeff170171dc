"""Nights and their seats: making a night, reading it, its seats' links, claims, codes,
colours and tablet seats, and the versions the live push reads."""

from collections.abc import Iterable
from typing import cast

from sqlite_utils import Database

from companion.core.colours import KEYS as COLOUR_KEYS
from companion.core.colours import default as default_colour
from companion.core.stats import fold
from companion.core.tokens import new_token, night_fingerprint
from companion.store import log
from companion.store.connection import get_db, now, write
from companion.store.form_tokens import FormUsed, _made_with, _use_token
from companion.store.histories import settle
from companion.store.quotas import spend
from companion.store.sql import Row, _first
from companion.store.wifi import show_on_new_night


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
    settle(db, night_id)
    return int(night_id)


def create_night(names: Iterable[str], device: str, form_token: str | None = None,
                 colours: Iterable[str] | None = None, address: str | None = None) -> Row:
    """A new night with these players in seat order, hosted by ``device``.

    With a one-time ``form_token`` it is made once: the same token again (back and send
    again, a double tap, posts at once) gives the night the first one made. A new one
    counts against ``device`` and the client ``address`` (raises ``OverQuota`` past
    their bound, and nothing is made)."""
    db = get_db()
    with write(db):
        made = _made_with(db, form_token)
        if made is not None and made["game"] is not None:
            raise FormUsed()
        if made is not None:
            night_id = int(made["night_id"])
        else:
            spend(db, "night", device, address)
            night_id = _insert_night(db, now(), names, device, colours)
            show_on_new_night(db, night_id, device)
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


def latest_nights(count: int) -> list[Row]:
    """The ``count`` latest nights, the latest first."""
    return list(get_db().query("select * from nights order by id desc limit ?", [count]))


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
    """Seat number → the player's colour key (companion/core/colours.py)."""
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


def add_seat(night_id: int, name: str) -> Row | None:
    """A latecomer's seat, after the last one: the next seat number, a fresh code and the
    first colour nobody has. None when the night has 8 seats or a seat of that name
    (matched as the roster matches names) already. The night's fingerprint follows its
    roster, so that an export made from now on is still recognised as this night."""
    db = get_db()
    with write(db):
        seats_now = list(db.query("select * from seats where night_id = ? order by position",
                                  [night_id]))
        if len(seats_now) >= len(COLOUR_KEYS) or any(
                fold(s["name"]) == fold(name) for s in seats_now):
            return None
        taken = {s["colour"] for s in seats_now}
        position = seats_now[-1]["position"] + 1 if seats_now else 0
        db.table("seats").insert({
            "night_id": night_id, "position": position, "name": name, "token": new_token(),
            "device": None, "claimed_at": None,
            "colour": next(key for key in COLOUR_KEYS if key not in taken),
        })
        created = night(night_id)["created"]
        db.execute("update nights set fingerprint = ? where id = ?",
                   [night_fingerprint(created, [*(s["name"] for s in seats_now), name]),
                    night_id])
        settle(db, night_id)
        log.bump(db, night_id)
    return next(s for s in seats(night_id) if s["position"] == position)


def rename_seat(night_id: int, position: int, name: str) -> bool:
    """Give a seat another name (the host's rename: a name cut short, a typo, a nickname).
    Every page, export, tally and statistic reads a seat's name from here, so they all
    follow: the night's statistics are worked out again (``settle``), its fingerprint
    follows the roster, and the old name is kept as a former one, so an export made before
    still imports as this night. False when another seat has that name (matched as the
    roster matches names), or there is no such seat; a name already the seat's changes
    nothing."""
    db = get_db()
    with write(db):
        seats_now = list(db.query("select * from seats where night_id = ? order by position",
                                  [night_id]))
        seat = next((s for s in seats_now if s["position"] == position), None)
        if seat is None or any(fold(s["name"]) == fold(name) for s in seats_now
                               if s["position"] != position):
            return False
        if seat["name"] == name:
            return True
        db.execute("insert or ignore into former_names (night_id, position, name) "
                   "values (?, ?, ?)", [night_id, position, seat["name"]])
        db.execute("update seats set name = ? where night_id = ? and position = ?",
                   [name, night_id, position])
        roster = [name if s["position"] == position else s["name"] for s in seats_now]
        db.execute("update nights set fingerprint = ? where id = ?",
                   [night_fingerprint(night(night_id)["created"], roster), night_id])
        settle(db, night_id)
        log.bump(db, night_id)
    return True


def former_names(night_id: int) -> dict[int, set[str]]:
    """Seat number → the names the seat had before a rename (none for most seats)."""
    found: dict[int, set[str]] = {}
    for row in get_db().query("select position, name from former_names where night_id = ?",
                              [night_id]):
        found.setdefault(int(row["position"]), set()).add(str(row["name"]))
    return found


def set_left(night_id: int, position: int, left: bool) -> None:
    """A player leaves the night (their seat is not offered for the next game), or comes
    back. Their games, names and colour stay as they were."""
    db = get_db()
    with write(db):
        if db.execute("update seats set left = ? where night_id = ? and position = ? "
                      "and left != ?", [int(left), night_id, position, int(left)]).rowcount:
            log.bump(db, night_id)


def note_reached(night_id: int) -> None:
    """A device other than a host has opened one of the night's codes: it reaches the
    laptop. One write per night (a night already reached is left alone), and the
    night's version moves so that the host's page drops its "no phone has reached the
    laptop yet" by push."""
    db = get_db()
    with write(db):
        if db.execute("update nights set reached = 1 where id = ? and reached = 0",
                      [night_id]).rowcount:
            log.bump(db, night_id)


def set_felt(night_id: int, on: bool) -> None:
    """Turn the night's felt reveal on or off (phones vibrate, the screen may beep);
    the night's version moves when it changed, so that phones and screens redraw their
    reveal with it."""
    db = get_db()
    with write(db):
        if db.execute("update nights set felt = ? where id = ? and felt != ?",
                      [int(on), night_id, int(on)]).rowcount:
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
