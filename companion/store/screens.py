"""The room's big screens: devices that read one night's public board, and the two ways
a device becomes one: a number (and its QR) the TV shows, which a host device types or
scans, and a one-time screen code a host shows, which a laptop opens.

Either works like a host code (companion/store/hosting.py): once, for a few minutes,
ended by a recorded state when used, replaced, expired or cancelled. It grants reading
only: a screen device records nothing (companion/screen/views.py refuses its every
form), and a device that hosts a night or holds a seat does not become one.
"""

import secrets

from sqlite_utils import Database

from companion.core.tokens import new_token
from companion.store import log
from companion.store.codes import claim_code, code_known, live_code, recent_code
from companion.store.connection import get_db, now, write
from companion.store.nights import night
from companion.store.quotas import spend
from companion.store.sql import Row, _first

#: How long a screen code works after it is shown (as long as a host code).
SCREEN_CODE_MINUTES = 5
#: How long a device stays a night's screen after it was paired: a night's length, and
#: then it lapses (reads the night no more, and is no screen), so that a TV paired once
#: never reads the host's later nights' boards or Wi-Fi code.
SCREEN_HOURS = 12


def _since() -> str:
    """The oldest pairing of a screen that has not lapsed."""
    return now(-SCREEN_HOURS * 3600)


def invite_screen(night_id: int, made_by: str, minutes: int = SCREEN_CODE_MINUTES
                  ) -> Row:
    """A one-time screen code (its ``token`` for the QR) shown by the host device
    ``made_by``; it cancels every screen code shown before for the night. The device's
    code shown seconds ago (``codes.AGAIN_S``) is given back instead."""
    db = get_db()
    again = recent_code(db, "screen_invites", "night_id = ? and made_by = ?",
                        [night_id, made_by])
    if again is not None:
        return {"token": again["token"]}
    token = new_token()
    with write(db):
        _end_codes(db, "night_id = ?", [night_id])
        db.table("screen_invites").insert(
            {"token": token, "night_id": night_id, "made_by": made_by,
             "created": now(), "used_by": None, "expires": now(minutes * 60), "ended": 0})
    return {"token": token}


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


def use_screen_invite(token: str, device: str) -> Row | None:
    """Make ``device`` a screen of the code's night (and of no other night); returns the
    night, or None for a code that is used, ended or unknown."""
    def make_screen(db: Database, code: Row) -> None:
        _make_screen(db, int(code["night_id"]), device)

    night_id = claim_code("screen_invites", token, device, make_screen)
    return None if night_id is None else night(night_id)


def _make_screen(db: Database, night_id: int, device: str) -> None:
    """In ``db``'s open write transaction: ``device`` is the night's screen, and no
    other night's."""
    db.execute("delete from screens where device = ? or created < ?", [device, _since()])
    db.execute("insert into screens (night_id, device, created) values (?, ?, ?)",
               [night_id, device, now()])
    log.bump(db, night_id)  # the host's list of screens changed


# --- the TV's number: the TV shows it, a host device types it ----------------------------

#: How long the number a TV shows works (the TV asks for a new one when it ends).
SCREEN_NUMBER_MINUTES = 5
#: How many digits the number has: a million numbers, a handful live at a time.
NUMBER_DIGITS = 6
#: Wrong numbers a host device (or its address) may type in WRONG_NUMBER_MINUTES before
#: it is refused every number: at most 12 guesses an hour among a million numbers.
WRONG_NUMBERS = 5
WRONG_NUMBER_MINUTES = 25


def number_shown(typed: str) -> str:
    """A typed number as it is stored: its digits only (the TV shows "123 456")."""
    return "".join(c for c in typed if c in "0123456789")[:NUMBER_DIGITS * 2]


def screen_number(device: str) -> Row | None:
    """The number ``device`` shows now (live, not paired), or None."""
    found = _first(get_db(), "select * from screen_numbers where device = ? and ended = 0 "
                   "order by created desc limit 1", [device])
    if found is not None and found["expires"] <= now():
        db = get_db()
        with write(db):
            db.execute("update screen_numbers set ended = 1 where token = ?", [found["token"]])
        return None
    return found


def offer_screen(device: str, address: str | None,
                 minutes: int = SCREEN_NUMBER_MINUTES) -> Row:
    """The number and token ``device`` (a TV) shows to be made a screen: the live one it
    shows already, or a new one, unlike every other live number. New ones are counted
    against the device and its ``address`` (quotas.OverQuota past the hour's bound), so
    nobody fills the million numbers, or most of them, to catch a mistyped one."""
    shown = screen_number(device)
    if shown is not None:
        return shown
    db = get_db()
    with write(db):
        spend(db, "screen", device, address)
        while True:
            number = "".join(secrets.choice("0123456789") for _ in range(NUMBER_DIGITS))
            if _first(db, "select 1 from screen_numbers where number = ? and ended = 0 "
                      "and expires > ?", [number, now()]) is None:
                break
        row = {"token": new_token(), "number": number, "device": device, "created": now(),
               "expires": now(minutes * 60), "ended": 0, "night_id": None,
               "paired_by": None}
        db.table("screen_numbers").insert(row)
    return row


def offered(token: str, device: str) -> Row | None:
    """The number ``device`` asked for with this token (live, paired or ended), or None."""
    return _first(get_db(), "select * from screen_numbers where token = ? and device = ?",
                  [token, device])


def offer_by_token(token: str) -> Row | None:
    """The live number of this token (the TV's QR), or None."""
    found = _first(get_db(), "select * from screen_numbers where token = ? and ended = 0 "
                   "and expires > ?", [token, now()])
    return found


def wrong_numbers_left(device: str, address: str) -> int:
    """How many more wrong numbers this host device and address may type now."""
    since = now(-WRONG_NUMBER_MINUTES * 60)
    count = get_db().execute(
        "select count(*) from spending where what = 'screen number' and at >= ? and "
        "(address = ? or device = ?)", [since, address, device]).fetchone()[0]
    return max(0, WRONG_NUMBERS - int(count))


#: A host device, or its address, pairs at most one screen in this many seconds: whoever
#: pairs the room's TV first with a night of their own cannot take each new number it
#: shows in turn (the TV's "Not our table? New number" undoes a pairing).
PAIR_EVERY_S = 60


class PairedLately(Exception):
    """This host device or its address paired a screen less than PAIR_EVERY_S ago."""


def paired_lately(host: str, address: str) -> bool:
    """Whether this host device or address paired a screen in the last PAIR_EVERY_S."""
    return _first(get_db(), "select 1 from spending where what = 'screen paired' and "
                  "at >= ? and (address = ? or device = ?)",
                  [now(-PAIR_EVERY_S), address, host]) is not None


def taken_lately(night_id: int, *, number: str | None = None,
                 token: str | None = None) -> bool:
    """Whether this ``number`` (or QR ``token``) was paired by another night in the last
    SCREEN_NUMBER_MINUTES: the host who typed it is told that someone was quicker, not
    that they mistyped."""
    where, param = ("number = ?", number_shown(number)) if number is not None \
        else ("token = ?", token or "")
    return _first(get_db(), f"select 1 from screen_numbers where {where} and "
                  "night_id is not null and night_id != ? and created >= ?",
                  [param, night_id, now(-SCREEN_NUMBER_MINUTES * 60)]) is not None


def pair_screen(night_id: int, host: str, address: str, *, number: str | None = None,
                token: str | None = None) -> Row | None:
    """The host device ``host`` makes the TV that shows this ``number`` (or this QR's
    ``token``) the night's screen: once, while the number lives. Returns the number's
    row, or None (nothing paired): no live number is like it, the TV has become a host's
    or a seat's since, or this device and address typed too many wrong numbers (each
    wrong number typed is counted; a scanned token, unguessable, is not). Raises
    :class:`PairedLately` when the device or address paired one a moment ago."""
    db = get_db()
    with write(db):
        if paired_lately(host, address):
            raise PairedLately()
        if number is not None and wrong_numbers_left(host, address) == 0:
            return None
        where, param = ("number = ?", number_shown(number)) if number is not None \
            else ("token = ?", token or "")
        found = _first(db, f"select * from screen_numbers where {where} and ended = 0 "
                       "and expires > ? order by created desc limit 1", [param, now()])
        if found is not None and table_role(found["device"]) is not None:
            found = None
        if found is None:
            if number is not None:
                db.execute("insert into spending (at, what, address, device, bytes) "
                           "values (?, 'screen number', ?, ?, 0)", [now(), address, host])
            return None
        db.execute("update screen_numbers set ended = 1, night_id = ?, paired_by = ? "
                   "where token = ?", [night_id, host, found["token"]])
        db.execute("insert into spending (at, what, address, device, bytes) "
                   "values (?, 'screen paired', ?, ?, 0)", [now(), address, host])
        _make_screen(db, night_id, found["device"])
    return {**found, "night_id": night_id, "ended": 1}


def leave_screen(device: str) -> None:
    """``device`` is a screen no more (a TV paired to a night that is not its table's
    asks for a new number): the night's host sees it gone from the list."""
    db = get_db()
    with write(db):
        for row in list(db.query("select night_id from screens where device = ?", [device])):
            log.bump(db, row["night_id"])
        db.execute("delete from screens where device = ?", [device])


#: For how long a TV paired by its number shows whose night it joined, with "Not our
#: table? New number".
JOINED_MINUTES = 2


def joined_lately(night_id: int, device: str) -> bool:
    """Whether ``device`` became the night's screen by its number (or its QR) in the last
    JOINED_MINUTES: a host device typed or scanned what the TV showed to the room, and
    the room may not know whose night it is."""
    return _first(get_db(), "select 1 from screens s join screen_numbers n on "
                  "n.device = s.device and n.night_id = s.night_id where s.night_id = ? "
                  "and s.device = ? and s.created >= ?",
                  [night_id, device, now(-JOINED_MINUTES * 60)]) is not None


def screens(night_id: int) -> list[Row]:
    """The night's screen devices that have not lapsed, first added first (``id`` to
    remove one by)."""
    return list(get_db().query(
        "select rowid as id, device, created from screens where night_id = ? "
        "and created >= ? order by rowid", [night_id, _since()]))


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
    """Whether ``device`` is the screen of some night (then it records nothing), one
    that has not lapsed."""
    return _first(get_db(), "select 1 from screens where device = ? and created >= ?",
                  [device, _since()]) is not None


def screen_night(key: str, device: str) -> Row | None:
    """The night with this key if ``device`` is one of its screens (not lapsed), else
    None."""
    return _first(get_db(), "select n.* from nights n join screens s on s.night_id = n.id "
                  "where n.key = ? and s.device = ? and s.created >= ?",
                  [key, device, _since()])
