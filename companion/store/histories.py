"""Each host device's history version: a number that moves whenever what its statistics
read changes — a game of one of its nights added or replaced, a kept result changed, a
night it hosts made, imported, given to it or taken from it. The statistics kept for a
device (companion/store/statistics.py) carry the version they were worked out at, so a
visit knows in one indexed read whether they still hold, however long the history.
"""

from sqlite_utils import Database

from companion.store.connection import get_db


def settle(db: Database, night_id: int) -> None:
    """Move the history version of every host of this night, in ``db``'s open write
    transaction (a host added just now included; call it before a host is removed)."""
    db.execute("insert into histories (device, version) select device, 1 from hosts "
               "where night_id = ? and true on conflict (device) do update set "
               "version = version + 1", [night_id])


def version(device: str) -> int:
    """The device's history version (0: it never hosted a night)."""
    row = get_db().execute("select version from histories where device = ?",
                           [device]).fetchone()
    return int(row[0]) if row else 0
