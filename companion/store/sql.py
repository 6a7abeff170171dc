"""The query helpers every module of the store shares: a row as a dict, and reads that
skip sqlite-utils' savepoints on the hot paths."""

from typing import Any

from sqlite_utils import Database

Row = dict[str, Any]

# The hot reads (every screen's version check and its board) go through ``execute``:
# ``Database.query`` wraps each read in a savepoint, three statements for one.

def _rows(db: Database, sql: str, params: list[Any]) -> list[Row]:
    cursor = db.execute(sql, params)
    columns = [c[0] for c in cursor.description]
    return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


def _first(db: Database, sql: str, params: list[Any]) -> Row | None:
    rows = _rows(db, sql, params)
    return rows[0] if rows else None

