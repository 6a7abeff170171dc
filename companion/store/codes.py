"""One-time codes (a host code, ``host_invites``; a screen code, ``screen_invites``):
each is used, cancelled or expired by a recorded state, not only by comparing times, so
that a clock set back revives none."""

from typing import Literal

from sqlite_utils import Database

from companion.store.connection import now, write
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


def code_known(db: Database, table: Codes, token: str) -> bool:
    """Whether this code was ever shown (it may be used, expired or cancelled since)."""
    return _first(db, f"select 1 from {table} where token = ?", [token]) is not None
