"""One-time form tokens: a night or a game is made once per token (a double tap, a form
sent again, two posts at once), the check and the write in one transaction."""

from sqlite_utils import Database

from companion.store.connection import now
from companion.store.sql import Row


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

