"""One-time codes (a host code, ``host_invites``; a screen code, ``screen_invites``):
each is used, cancelled or expired by a recorded state, not only by comparing times, so
that a clock set back revives none."""

from collections.abc import Callable
from typing import Literal

from sqlite_utils import Database

from companion.store.connection import get_db, now, write
from companion.store.sql import Row, _first

#: The tables of one-time codes (token, used_by, expires, ended, …).
Codes = Literal["host_invites", "screen_invites"]


def live_code(db: Database, table: Codes, token: str) -> Row | None:
    """The unused code of ``table`` that has not ended (or None). One past its expiry is
    recorded as ended first, so that a clock set back later does not make it work."""
    code = _first(db, f"select * from {table} where token = ? and used_by is null "
                      "and ended = 0", [token])
    if code is not None and code["expires"] <= now():
        with write(db):
            db.execute(f"update {table} set ended = 1 where token = ?", [token])
        return None
    return code


#: A code asked for again this soon is the same code: a new one cancels the one shown
#: before (for the night, or the host device), and a host who taps twice, or a guest who
#: asks from many connections, would only have made a write and a drawing each time.
AGAIN_S = 30


def recent_code(db: Database, table: Codes, where: str, params: list[object]) -> Row | None:
    """The newest live code of ``table`` that ``where`` says, shown less than
    :data:`AGAIN_S` ago (or None)."""
    return _first(db, f"select * from {table} where {where} and used_by is null "
                      "and ended = 0 and expires > ? and created >= ? "
                      "order by created desc limit 1", [*params, now(), now(-AGAIN_S)])


def code_known(db: Database, table: Codes, token: str) -> bool:
    """Whether this code was ever shown (it may be used, expired or cancelled since)."""
    return _first(db, f"select 1 from {table} where token = ?", [token]) is not None


def claim_code(table: Codes, token: str, device: str,
               then: Callable[[Database, Row], None]) -> int | None:
    """Use the code for ``device``: once, whoever asks first. In the same transaction,
    ``then(db, code)`` does what the code is for (make a host, make a screen). Returns the
    code's night id, or None for a code that is used, ended, expired or unknown, or that
    another device answered first."""
    db = get_db()
    code = live_code(db, table, token)
    if code is None:
        return None
    with write(db):
        if not db.execute(f"update {table} set used_by = ? where token = ? and "
                          "used_by is null and ended = 0", [device, token]).rowcount:
            return None  # another device answered it first
        then(db, code)
    return int(code["night_id"])
