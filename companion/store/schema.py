"""The database's schema: every table and index, as the migrations that made them, in
order. A migration is never changed once released; a change of schema is a new one at
the end. ``migrate`` brings a file up to date at the app's start."""

import sqlite3
import time

from sqlite_utils import Database, Migrations

from companion.core.colours import default as default_colour
from companion.core.tokens import device_id, night_fingerprint
from companion.store.connection import connect

migrations = Migrations("companion")


@migrations()
def create_nights(db: Database) -> None:
    db.table("nights").create(
        {"id": int, "key": str, "created": str, "version": int},
        pk="id", not_null={"key", "created"}, defaults={"version": 0},
    )
    db.table("nights").create_index(["key"], unique=True)
    db.table("seats").create(
        {"id": int, "night_id": int, "position": int, "name": str, "token": str,
         "device": str, "claimed_at": str},
        pk="id", foreign_keys=[("night_id", "nights", "id")],
        not_null={"night_id", "position", "name", "token"},
    )
    db.table("seats").create_index(["token"], unique=True)
    db.table("seats").create_index(["night_id", "position"], unique=True)
    db.table("seats").create_index(["device"])
    db.table("hosts").create(
        {"night_id": int, "device": str, "created": str},
        pk=("night_id", "device"), foreign_keys=[("night_id", "nights", "id")],
    )
    db.table("hosts").create_index(["device"])
    db.table("host_invites").create(
        {"token": str, "night_id": int, "created": str, "used_by": str},
        pk="token", foreign_keys=[("night_id", "nights", "id")],
    )


@migrations()
def create_games(db: Database) -> None:
    db.table("games").create(
        {"id": int, "night_id": int, "number": int, "kind": str, "setup": str, "created": str},
        pk="id", foreign_keys=[("night_id", "nights", "id")],
        not_null={"night_id", "number", "kind", "setup", "created"},
    )
    db.table("games").create_index(["night_id", "number"], unique=True)
    db.table("events").create(
        {"id": int, "game_id": int, "seq": int, "type": str, "data": str, "seat": int,
         "device": str, "created": str},
        pk="id", foreign_keys=[("game_id", "games", "id")],
        not_null={"game_id", "seq", "type", "data", "created"},
    )
    # The log position is unique: of two writes made from the same position, one wins.
    db.table("events").create_index(["game_id", "seq"], unique=True)
    # What happened beside the log: a phone saw its secret, the tablet was passed to a
    # seat. It never moves the log position, so it never makes a host's form stale.
    db.table("activity").create(
        {"id": int, "night_id": int, "game_id": int, "seat": int, "kind": str,
         "created": str},
        pk="id", foreign_keys=[("night_id", "nights", "id"), ("game_id", "games", "id")],
        not_null={"night_id", "seat", "kind", "created"},
    )
    db.table("activity").create_index(["game_id", "seat", "kind"])


@migrations()
def create_aliases(db: Database) -> None:
    """The host's merges: on ``device``, the folded name ``alias`` is the player whose
    folded name is ``canonical``."""
    db.table("aliases").create(
        {"device": str, "alias": str, "canonical": str, "created": str},
        pk=("device", "alias"), not_null={"device", "alias", "canonical", "created"},
    )


@migrations()
def seat_codes_and_order(db: Database) -> None:
    """Seats remember the order they were claimed in (a sequence, never a clock) and the
    codes they had; a seat can play on the tablet; a note beside the log knows the log
    position it came after; a host code expires; devices are stored hashed."""
    db.table("seats").add_column("claim_seq", int)
    db.table("seats").add_column("tablet", int, not_null_default=0)
    db.execute(
        "update seats set claim_seq = (select count(*) from seats s2 where s2.device is not "
        "null and (s2.claimed_at < seats.claimed_at or (s2.claimed_at = seats.claimed_at "
        "and s2.id <= seats.id))) where device is not null")
    db.table("retired_codes").create(
        {"token": str, "seat_id": int, "retired": str}, pk="token",
        foreign_keys=[("seat_id", "seats", "id")])
    db.table("activity").add_column("pos", int)
    db.execute("update activity set pos = (select count(*) from events e where "
               "e.game_id = activity.game_id and e.created <= activity.created)")
    db.table("host_invites").add_column("expires", str)
    db.conn.create_function("device_id", 1, device_id, deterministic=True)
    for table, column in (("seats", "device"), ("hosts", "device"), ("aliases", "device"),
                          ("host_invites", "used_by"), ("events", "device")):
        db.execute(f"update {table} set {column} = device_id({column}) "
                   f"where {column} is not null")


@migrations()
def current_game_form_tokens_and_fingerprints(db: Database) -> None:
    """A night remembers the game its phones show (the host's choice; none: its latest
    game) and its fingerprint (its creation time and players: an import sees a night
    already here); a one-time form token remembers the night or game it made; an
    uploaded night waits in ``pending_imports`` while the host chooses."""
    db.table("nights").add_column("current_game", int)
    db.table("nights").add_column("fingerprint", str)
    for row in list(db.query("select id, created from nights")):
        names = [s["name"] for s in db.query(
            "select name from seats where night_id = ? order by position", [row["id"]])]
        db.execute("update nights set fingerprint = ? where id = ?",
                   [night_fingerprint(row["created"], names), row["id"]])
    db.table("nights").create_index(["fingerprint"])
    db.table("form_tokens").create(
        {"token": str, "night_id": int, "game": int, "created": str},
        pk="token", foreign_keys=[("night_id", "nights", "id")],
        not_null={"token", "night_id", "created"})
    db.table("pending_imports").create(
        {"token": str, "device": str, "document": str, "expires": str},
        pk="token", not_null={"token", "device", "document", "expires"})



@migrations()
def seat_colours(db: Database) -> None:
    """Each seat has a player colour (companion/core/colours.py): the palette in seat order
    for the nights made before colours."""
    db.table("seats").add_column("colour", str)
    for position in range(8):
        db.execute("update seats set colour = ? where position = ?",
                   [default_colour(position), position])


@migrations()
def night_change_order(db: Database) -> None:
    """Each night remembers when it last changed, in the order of all changes
    (``log.bump``): the live-push watcher asks for the nights changed since it last
    looked, not for the version of every night it watches."""
    db.table("nights").add_column("changed", int, not_null_default=0)
    db.table("nights").create_index(["changed"])


@migrations()
def host_codes_that_stay_ended(db: Database) -> None:
    """A host code remembers that it ended (cancelled by a newer code or a host's
    removal, or found expired): a clock set back afterwards revives nothing. Codes
    ended before (their expiry set to their creation) are marked so."""
    db.table("host_invites").add_column("ended", int, not_null_default=0)
    db.execute("update host_invites set ended = 1 where expires <= created")


@migrations()
def kept_results(db: Database) -> None:
    """What each game came to, worked out when its log changes and kept beside it
    (companion/store/results.py): the log length it was worked out at, whether the game
    is finished and, for a finished game only, its result and the part of its final
    state the tallies read. Games made before are worked out when first read."""
    db.table("results").create(
        {"game_id": int, "night_id": int, "length": int, "finished": int, "result": str,
         "state": str},
        pk="game_id", foreign_keys=[("game_id", "games", "id"), ("night_id", "nights", "id")],
        not_null={"game_id", "night_id", "length", "finished"})
    db.table("results").create_index(["night_id"])


@migrations()
def kept_statistics(db: Database) -> None:
    """Each host device has a history version, moved whenever what its statistics read
    changes (companion/store/histories.py); a host's statistics are kept with the
    version they were worked out at (companion/store/statistics.py)."""
    db.table("histories").create({"device": str, "version": int}, pk="device",
                                 not_null={"device", "version"})
    db.execute("insert into histories (device, version) select device, 1 from hosts "
               "where true on conflict (device) do nothing")
    db.table("kept_statistics").create(
        {"device": str, "stamp": str, "body": str}, pk="device",
        not_null={"device", "stamp", "body"})

@migrations()
def screens(db: Database) -> None:
    """The room's big screens: devices that may read one night's public board and
    nothing more (``screens``), and the one-time screen codes that make a device one
    (``screen_invites``, ended like a host code; ``made_by`` is the host device that
    showed it, so that removing that host cancels it; ``short`` is the code typed on a
    TV that cannot scan)."""
    db.table("screens").create(
        {"night_id": int, "device": str, "created": str}, pk=("night_id", "device"),
        foreign_keys=[("night_id", "nights", "id")],
        not_null={"night_id", "device", "created"})
    db.table("screens").create_index(["device"])
    db.table("screen_invites").create(
        {"token": str, "short": str, "night_id": int, "made_by": str, "created": str,
         "expires": str, "used_by": str, "ended": int},
        pk="token", foreign_keys=[("night_id", "nights", "id")],
        not_null={"token", "short", "night_id", "made_by", "created", "expires", "ended"})
    db.table("screen_invites").create_index(["short"])


@migrations()
def spending(db: Database) -> None:
    """What each device and client address added in the last hour (new nights, imports:
    companion/store/quotas.py); older rows are dropped as new ones come."""
    db.table("spending").create(
        {"at": str, "what": str, "address": str, "device": str, "bytes": int},
        not_null={"at", "what", "address", "device", "bytes"})
    db.table("spending").create_index(["address", "what"])
    db.table("spending").create_index(["device", "what"])
    db.table("spending").create_index(["at"])


@migrations()
def wifi_codes(db: Database) -> None:
    """The Wi-Fi join code a host device shows (companion/store/wifi.py): one network a
    device, its password kept only here; a row not ``remembered`` is deleted when a
    server starts (``companion.server_started``)."""
    db.table("wifi").create(
        {"device": str, "ssid": str, "password": str, "security": str, "hidden": int,
         "remembered": int, "shown": int, "stamp": str, "created": str},
        pk="device",
        not_null={"device", "ssid", "password", "security", "hidden", "remembered",
                  "shown", "stamp", "created"})


@migrations()
def reached(db: Database) -> None:
    """Whether a device other than the night's hosts has opened one of its seat or
    screen codes (``reached``): until one has, the host's table page may say that no
    phone reaches the laptop (templates/table/_reach.html)."""
    db.table("nights").add_column("reached", int, not_null_default=0)


@migrations()
def felt(db: Database) -> None:
    """Whether the night's reveal is felt and heard as well as seen (``felt``, off
    unless the host turns it on): phones vibrate at the count's last word, and the
    room's screen may beep the count once tapped (static/js/clock.js)."""
    db.table("nights").add_column("felt", int, not_null_default=0)


@migrations()
def statistics_sums(db: Database) -> None:
    """The statistics as sums (companion/store/statistics.py): each host device's totals
    and the versions of the rules they were worked out under (``statistics_sums``), each
    night's part as it was counted in them (``counted_nights``), and the nights changed
    since (``changed_nights``, with a mark moved by each change), in place of the
    statistics worked out whole and their history versions. A kept result carries the
    version of its kind's rules that worked it out (``rules``: 1, the only one so far)."""
    db.table("results").add_column("rules", int, not_null_default=1)
    db.table("statistics_sums").create(
        {"device": str, "versions": str, "body": str}, pk="device",
        not_null={"device", "versions", "body"})
    db.table("counted_nights").create(
        {"device": str, "night_id": int, "body": str}, pk=("device", "night_id"),
        not_null={"device", "night_id", "body"})
    db.table("changed_nights").create(
        {"device": str, "night_id": int, "mark": int}, pk=("device", "night_id"),
        not_null={"device", "night_id", "mark"})
    db.table("kept_statistics").drop()
    db.table("histories").drop()


@migrations()
def game_births(db: Database) -> None:
    """A random mark given to each game as it is made (``born``). SQLite gives a new row
    the highest id plus one, so the id of a game deleted last (a night replaced by an
    import with fewer games) is given again to the next game: with its creation second,
    the mark tells the two apart in each process's caches of logs and states
    (companion/store/caches.py). Games made before it have none; a game made after it
    always has one, so it is never taken for one of them."""
    db.table("games").add_column("born", str)


def migrate(path: str) -> None:
    """Create or upgrade the schema; safe when several workers start at once: a worker
    that finds the file locked by another's migration (even while switching a new file
    to WAL, which SQLite refuses at once rather than wait) tries again."""
    for attempt in range(50):
        db = None
        try:
            db = connect(path, create=True)
            migrations.apply(db)
            return
        except sqlite3.OperationalError:
            if attempt == 49:
                raise
            time.sleep(0.1)
        finally:
            if db is not None:
                db.close()


@migrations()
def seats_that_left(db: Database) -> None:
    """A player may leave a running night (``left``): the seat, its name and its games
    stay, and it is not offered for the next game until it comes back."""
    db.table("seats").add_column("left", int, not_null_default=0)


@migrations()
def reveal_needs(db: Database) -> None:
    """How long each device has shown it needs between a change and its screen showing
    it (``reveal_needs``, ms, as the device measured it: static/js/live.js), so that a
    synchronised reveal's lead follows the slowest screen at the table (dropped by
    ``fixed_reveal_lead``)."""
    db.table("reveal_needs").create(
        {"device": str, "need_ms": int, "updated": int}, pk="device",
        not_null={"device", "need_ms", "updated"})


@migrations()
def screen_numbers(db: Database) -> None:
    """A TV asks to be a screen (``screen_numbers``): it shows a short number and a QR of
    its ``token``, and a host device that types the number or scans the code makes it
    the night's screen (``night_id``, ``paired_by``). The eight-letter code a TV typed
    goes: ``screen_invites.short`` is dropped."""
    db.table("screen_numbers").create(
        {"token": str, "number": str, "device": str, "created": str, "expires": str,
         "ended": int, "night_id": int, "paired_by": str},
        pk="token", foreign_keys=[("night_id", "nights", "id")],
        not_null={"token", "number", "device", "created", "expires", "ended"})
    db.table("screen_numbers").create_index(["number"])
    db.table("screen_numbers").create_index(["device"])
    db.execute("drop index if exists idx_screen_invites_short")
    db.table("screen_invites").transform(drop={"short"})


@migrations()
def wifi_of_nights(db: Database) -> None:
    """The network each night shows (``night_wifi``): the host device's network as it
    was when shown there (its ``stamp``, new each time it is set). A night shows it only
    while the device's network is still that one, so an old night's screen never reads
    a network set later, and a device that becomes a host of another night brings none
    of its own there. Each device's network is bound to the latest night it hosts."""
    db.table("night_wifi").create(
        {"night_id": int, "device": str, "stamp": str}, pk="night_id",
        foreign_keys=[("night_id", "nights", "id")],
        not_null={"night_id", "device", "stamp"})
    db.execute("insert or ignore into night_wifi (night_id, device, stamp) "
               "select (select max(night_id) from hosts h where h.device = w.device), "
               "w.device, w.stamp from wifi w "
               "where exists (select 1 from hosts h where h.device = w.device)")


@migrations()
def former_names(db: Database) -> None:
    """The names a seat had before the host renamed it (``former_names``, one row a
    spelling): a night's export made before a rename still imports as the night already
    here (companion/store/imports.py, ``nights_like``)."""
    db.table("former_names").create(
        {"night_id": int, "position": int, "name": str},
        pk=("night_id", "position", "name"), foreign_keys=[("night_id", "nights", "id")],
        not_null={"night_id", "position", "name"})


@migrations()
def fixed_reveal_lead(db: Database) -> None:
    """A synchronised reveal's lead is one setting (``REVEAL_LEAD_MS``), long enough for a
    slow phone on café Wi-Fi: the screens' needs it followed are no longer kept."""
    db.table("reveal_needs").drop(ignore=True)
