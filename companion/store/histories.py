"""Which nights of each host device changed what its statistics read: a game of one of
its nights added or replaced, a kept result changed, a night it hosts made, imported,
given to it or taken from it. The device's statistics (companion/store/statistics.py)
are sums of what each night adds; the next visit takes out the changed nights' old parts
and puts in their new ones, and nothing else is read, however long the history.
"""

from sqlite_utils import Database

from companion.store.connection import get_db


def settle(db: Database, night_id: int) -> None:
    """Mark this night changed for every host of it, in ``db``'s open write transaction
    (a host added just now included; call it before a host is removed). Each mark moves
    on, so a visit that worked a night out before a newer change counts it again."""
    db.execute("insert into changed_nights (device, night_id, mark) select device, ?, 1 "
               "from hosts where night_id = ? and true on conflict (device, night_id) "
               "do update set mark = mark + 1", [night_id, night_id])


def changed(device: str) -> dict[int, int]:
    """The nights of ``device`` changed since its statistics were last summed, with
    their marks."""
    return {row[0]: row[1] for row in get_db().execute(
        "select night_id, mark from changed_nights where device = ?", [device])}
