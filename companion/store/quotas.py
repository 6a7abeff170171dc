"""What one device, and one client address, may add to the database in an hour: new
nights, imported ones and the numbers TVs show (docs/security.md, "One hostile
device"). Anyone on the Wi-Fi may make a night or upload one, and a device id is any
token a client makes up, so the address counts too. A real table makes a night or two
an evening and imports rarely; the bounds are far above that and keep a guest's growth
of the database to a few megabytes an hour."""

from flask import current_app
from sqlite_utils import Database

from companion.store.connection import now

#: The bounds of an hour, for one device or one address (the app's settings of the same
#: names override them: the bench's simulated hosts all come from one address).
NIGHTS_AN_HOUR = 30
IMPORTS_AN_HOUR = 10
#: Numbers a TV asks for to become a screen (companion/store/screens.py): one lives five
#: minutes and a TV keeps its own, so a TV left waiting an hour asks for 12.
SCREENS_AN_HOUR = 40
IMPORT_BYTES_AN_HOUR = 12 * 1024 * 1024


def _bounds(what: str) -> tuple[int, int | None]:
    """How many ``what`` an hour, and how many bytes of them (None: not counted)."""
    config = current_app.config
    if what == "night":
        return int(config.get("NIGHTS_AN_HOUR", NIGHTS_AN_HOUR)), None
    if what == "screen":
        return int(config.get("SCREENS_AN_HOUR", SCREENS_AN_HOUR)), None
    return (int(config.get("IMPORTS_AN_HOUR", IMPORTS_AN_HOUR)),
            int(config.get("IMPORT_BYTES_AN_HOUR", IMPORT_BYTES_AN_HOUR)))


class OverQuota(Exception):
    """This device or address has added as much as it may in the last hour."""


def spend(db: Database, what: str, device: str, address: str | None, size: int = 0) -> None:
    """Count a new ``what`` ("night", "screen" or "import", of ``size`` bytes) against ``device``
    and ``address`` in ``db``'s open transaction, or raise :class:`OverQuota` (which
    rolls the transaction back: nothing is made). No address (the command line, a test
    of the store) counts nothing."""
    if address is None:
        return
    hour_ago = now(-3600)
    db.execute("delete from spending where at < ?", [hour_ago])
    count, spent = db.execute(
        "select count(*), coalesce(sum(bytes), 0) from spending where what = ? and "
        "(address = ? or device = ?)", [what, address, device]).fetchone()
    most, most_bytes = _bounds(what)
    if count >= most or (most_bytes is not None and spent + size > most_bytes):
        raise OverQuota(what)
    db.execute("insert into spending (at, what, address, device, bytes) values "
               "(?, ?, ?, ?, ?)", [now(), what, address, device, size])
