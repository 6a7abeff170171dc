"""Who hosts a night: its host devices, the nights a device hosts, and the one-time host
codes that make another device a host."""

from sqlite_utils import Database

from companion.core.tokens import new_token
from companion.store import log
from companion.store.codes import claim_code, code_known, live_code, recent_code
from companion.store.connection import get_db, now, write
from companion.store.histories import settle
from companion.store.nights import night
from companion.store.screens import end_codes_made_by
from companion.store.sql import Row, _first


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


#: How long a host code works after it is shown.
HOST_CODE_MINUTES = 5


def invite_host(night_id: int, minutes: int = HOST_CODE_MINUTES) -> str:
    """A one-time token that makes the device which opens it a host of the night, for
    ``minutes``; it cancels any code shown before for the night. The night's code shown
    seconds ago (``codes.AGAIN_S``: only its hosts can ask) is given back instead."""
    db = get_db()
    again = recent_code(db, "host_invites", "night_id = ?", [night_id])
    if again is not None:
        return str(again["token"])
    token = new_token()
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


def host_invite(token: str) -> Row | None:
    """An unused host code that has not ended (or None)."""
    return live_code(get_db(), "host_invites", token)


def host_invite_known(token: str) -> bool:
    """Whether this host code was ever shown (it may be used up or expired since)."""
    return code_known(get_db(), "host_invites", token)


def use_host_invite(token: str, device: str) -> Row | None:
    """Make ``device`` a host with an unused, unexpired code; a seat the device holds in
    that night is given up (one device is a host or a player, not both). Returns the
    night (None for a used, expired or unknown code)."""
    def make_host(db: Database, invite: Row) -> None:
        db.execute("update seats set device = null, claimed_at = null "
                   "where night_id = ? and device = ?", [invite["night_id"], device])
        db.execute("insert or ignore into hosts (night_id, device, created) values (?, ?, ?)",
                   [invite["night_id"], device, now()])
        settle(db, invite["night_id"])
        log.bump(db, invite["night_id"])

    night_id = claim_code("host_invites", token, device, make_host)
    return None if night_id is None else night(night_id)


def hosts(night_id: int) -> list[Row]:
    """The night's host devices, first added first (``id`` to remove one by)."""
    return list(get_db().query(
        "select rowid as id, device, created from hosts where night_id = ? order by rowid",
        [night_id]))


def remove_host(night_id: int, host_id: int, device: str) -> bool:
    """Take host rights from another device of the night (never from ``device`` itself,
    so a night always keeps a host), and cancel the night's unused host codes and the
    screen codes the removed device showed: a removed device that photographed or still
    shows one would take the table back (or bring a screen in) by answering it. Returns
    whether one was removed."""
    db = get_db()
    with write(db):
        settle(db, night_id)  # before: the removed host's history changes too
        gone = _first(db, "select device from hosts where night_id = ? and rowid = ? "
                      "and device != ?", [night_id, host_id, device])
        removed = db.execute(
            "delete from hosts where night_id = ? and rowid = ? and device != ?",
            [night_id, host_id, device]).rowcount
        if removed:
            _end_codes(db, night_id)
            if gone is not None:  # and the screen codes it showed
                end_codes_made_by(db, night_id, gone["device"])
    return bool(removed)
