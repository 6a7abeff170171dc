"""The room's big screens: devices that read one night's public board, and the one-time
screen codes a host shows to make a device one.

A screen code works like a host code (companion/store/hosting.py): once, for a few
minutes, ended by a recorded state when used, replaced, expired or cancelled. It grants
reading only: a screen device records nothing (companion/table/screens.py refuses its every
form), and a device that hosts the night or holds one of its seats does not become one.
"""

import secrets

from sqlite_utils import Database

from companion.core.tokens import new_token
from companion.store import log
from companion.store.codes import claim_code, code_known, live_code
from companion.store.connection import get_db, now, write
from companion.store.nights import night
from companion.store.sql import Row, _first

#: How long a screen code works after it is shown (as long as a host code).
SCREEN_CODE_MINUTES = 5

#: The letters of a typed screen code: no 0/O, 1/I/L, none a remote's keyboard hides.
SHORT_LETTERS = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
SHORT_LENGTH = 8


def short_code(typed: str) -> str:
    """A typed code as it is stored: capitals, without the spaces and dashes shown."""
    return "".join(c for c in typed.upper() if c.isalnum())[:SHORT_LENGTH * 2]


def invite_screen(night_id: int, made_by: str, minutes: int = SCREEN_CODE_MINUTES
                  ) -> Row:
    """A one-time screen code (its ``token`` for the QR, its ``short`` to type) shown by
    the host device ``made_by``; it cancels every screen code shown before for the
    night."""
    token = new_token()
    # 31**8 (about 2**40) codes, each live five minutes at most: not guessed by trying
    short = "".join(secrets.choice(SHORT_LETTERS) for _ in range(SHORT_LENGTH))
    db = get_db()
    with write(db):
        _end_codes(db, "night_id = ?", [night_id])
        db.table("screen_invites").insert(
            {"token": token, "short": short, "night_id": night_id, "made_by": made_by,
             "created": now(), "used_by": None, "expires": now(minutes * 60), "ended": 0})
    return {"token": token, "short": short}


def _end_codes(db: Database, where: str, params: list[object]) -> None:
    """End the unused screen codes ``where`` says, in ``db``'s open write transaction."""
    db.execute("update screen_invites set ended = 1, expires = min(expires, ?) "
               f"where {where} and used_by is null and ended = 0", [now(), *params])


def end_codes_made_by(db: Database, night_id: int, device: str) -> None:
    """Cancel the unused screen codes a host device showed (it is being removed: a
    code it photographed or still shows must not bring a screen in after it)."""
    _end_codes(db, "night_id = ? and made_by = ?", [night_id, device])


def screen_invite(token: str) -> Row | None:
    """An unused screen code that has not ended (or None)."""
    return live_code(get_db(), "screen_invites", token)


def screen_invite_known(token: str) -> bool:
    """Whether this screen code was ever shown (it may be used, expired or cancelled)."""
    return code_known(get_db(), "screen_invites", token)


def screen_token(short: str) -> str | None:
    """The token of the newest screen code with this typed form, live or not (None:
    no such code was ever shown)."""
    found = _first(get_db(), "select token from screen_invites where short = ? "
                   "order by created desc, rowid desc", [short_code(short)])
    return str(found["token"]) if found else None


def use_screen_invite(token: str, device: str) -> Row | None:
    """Make ``device`` a screen of the code's night (and of no other night); returns the
    night, or None for a code that is used, ended or unknown."""
    def make_screen(db: Database, code: Row) -> None:
        db.execute("delete from screens where device = ?", [device])
        db.execute("insert into screens (night_id, device, created) values (?, ?, ?)",
                   [code["night_id"], device, now()])
        log.bump(db, code["night_id"])  # the host's list of screens changed

    night_id = claim_code("screen_invites", token, device, make_screen)
    return None if night_id is None else night(night_id)


def screens(night_id: int) -> list[Row]:
    """The night's screen devices, first added first (``id`` to remove one by)."""
    return list(get_db().query(
        "select rowid as id, device, created from screens where night_id = ? "
        "order by rowid", [night_id]))


def remove_screen(night_id: int, screen_id: int) -> bool:
    """The host takes a screen away: its device reads the night no more."""
    db = get_db()
    with write(db):
        removed = db.execute("delete from screens where night_id = ? and rowid = ?",
                             [night_id, screen_id]).rowcount
        if removed:
            log.bump(db, night_id)
    return bool(removed)


def table_role(device: str) -> str | None:
    """"host" when ``device`` hosts a night, "seat" when it holds a seat in one (any
    night, then or now), else None. Such a device never becomes a screen: a screen
    records nothing, and would lose its host's controls or its player's forms."""
    db = get_db()
    if next(db.query("select 1 from hosts where device = ? limit 1", [device]), None):
        return "host"
    if next(db.query("select 1 from seats where device = ? limit 1", [device]), None):
        return "seat"
    return None


def is_screen(device: str) -> bool:
    """Whether ``device`` is the screen of some night (then it records nothing)."""
    return _first(get_db(), "select 1 from screens where device = ?", [device]) is not None


def screen_night(key: str, device: str) -> Row | None:
    """The night with this key if ``device`` is one of its screens, else None."""
    return _first(get_db(), "select n.* from nights n join screens s on s.night_id = n.id "
                  "where n.key = ? and s.device = ?", [key, device])
