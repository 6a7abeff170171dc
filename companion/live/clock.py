"""Blueprint: the laptop's clock, and the synchronised reveal counted by it
(docs/architecture.md, "A synchronised reveal").

Every screen of the table counts a reveal to one moment in the laptop's time: ``/clock``
and the stamps on every htmx answer let a page estimate how far its own clock is from
the laptop's (static/js/clock.js). A game declares its reveal once (``GameDef.reveal``:
the event, the words counted); recording that event stamps it with the laptop's time
and the lead the night's slowest screen needs (:func:`timed`), and :func:`reveal_at` is
the moment a page counts to while it is ahead. What belongs to the game is what is
counted; the lead belongs to the table's screens (companion/core/reveal.py,
``REVEAL_LEAD_MS``), whatever the game.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, current_app, g, request

from companion import store
from companion.core import reveal
from companion.core.lru import LRU
from companion.live import enabled
from companion.web.identity import DEVICE_COOKIE, device

bp = Blueprint("clock", __name__)


def now_ms() -> int:
    """The laptop's clock in milliseconds: the one clock every screen of the table
    counts a synchronised reveal by (:func:`clock`)."""
    return time.time_ns() // 1_000_000


#: An answer's clock stamps: when the laptop received its request and when it answered.
CLOCK_HEADER = "X-Laptop-Clock"
#: A page's need: how long it took, lately, from the laptop's word of a change until its
#: screen had drawn it (ms; static/js/live.js sends it when it moves).
NEED_HEADER = "X-Reveal-Need"
NEED_MOST_MS = 60_000


def reveal_lead_ms(night_id: int) -> int:
    """The lead of a reveal made now at this night (companion/core/reveal.py): the night's
    screens' needs, or ``REVEAL_LEAD_MS`` when none said."""
    return reveal.lead_ms(store.night_needs(night_id),
                          int(current_app.config["REVEAL_LEAD_MS"]))


#: A need as a page sends it: one to six ASCII digits. (``str.isdigit`` takes "²", which
#: a header's Latin-1 byte 0xB2 becomes, and ``int`` then refused it: a 500.)
NEED = re.compile(r"[0-9]{1,6}")

#: Each device's need as this process noted it (companion/core/reveal.py, ``noted``):
#: a need is written when it moved, at most every ``reveal.NOTE_EVERY_S``.
_noted = LRU(4096)


@bp.before_app_request
def _note_need() -> None:
    """Keep the need a page reports (a whole number of ms), so that the next reveal's
    lead follows it: only a device of some night's (a seat, a host, a screen: a
    made-up cookie writes nothing), only when it moved, and at most every 30 s for a
    device (``reveal.noted``; a need that waits is written by the device's next
    request once its turn has come). A forged one can make a reveal wait at most
    ``reveal.MOST_MS``."""
    value = request.headers.get(NEED_HEADER)
    need = int(value) if value is not None and NEED.fullmatch(value) else None
    if not request.cookies.get(DEVICE_COOKIE) or (need is None and not len(_noted)):
        return
    me = device()
    if g.new_device:  # a cookie that is no device's
        return
    kept = _noted.get(me)
    if need is None and kept is None:
        return
    keep, due = reveal.noted(kept, None if need is None else min(need, NEED_MOST_MS),
                             time.monotonic())
    if due is None:
        _noted.put(me, keep)
    elif store.in_a_night(me):
        store.note_need(me, due)
        _noted.put(me, keep)


@bp.get("/clock")
def clock() -> Response:
    """The laptop's time in ms, for a page to estimate how far its own clock is from it
    (static/js/clock.js: samples kept through the night, the one with the shortest round trip
    used). A phone's clock may be seconds off; the table's moments are told in the
    laptop's time. Nothing here is anyone's: no seat or host is asked for. Its stamps
    are in its header too (:func:`stamp_clock`)."""
    return Response(str(now_ms()), mimetype="text/plain",
                    headers={"Cache-Control": "no-store"})


@bp.before_app_request
def _received() -> None:
    g.clock_received = now_ms()


@bp.after_app_request
def stamp_clock(response: Response) -> Response:
    """Every answer to htmx (a live refresh, a form's answer) and to /clock says when
    the laptop received its request and when it answered, in its time (ms):
    ``X-Laptop-Clock: received,answered``. With the page's own times of sending and
    receiving, that is one clock sample as NTP takes it (static/js/clock.js): the laptop's
    work between the two stamps is not counted in the round trip, and the answers a
    night brings anyway keep sampling the clock through it, with no request of its own
    (no phone's radio woken for nothing). Both stamps are 13 digits: the answer's size
    tells nothing."""
    received = g.get("clock_received")
    if received is not None and (request.headers.get("HX-Request")
                                 or request.endpoint == "clock.clock"):
        response.headers[CLOCK_HEADER] = f"{received},{now_ms()}"
    return response


def timed(game: store.Game, type_: str, data: dict[str, Any]) -> dict[str, Any]:
    """An event's data as it is recorded: the game's reveal (``GameDef.reveal``) with the
    laptop's time in ms (``at_ms``) and the lead the night's slowest screen needs
    (``lead_ms``, companion/core/reveal.py), so that every screen opens it at ``at_ms +
    lead_ms``, the same for every screen however the needs change after; any other
    event as it is. (An event's ``created`` has only whole seconds.)"""
    declared = store.known_games()[game.kind].reveal
    if declared is None or type_ != declared.event:
        return data
    return {**data, "at_ms": now_ms(), "lead_ms": reveal_lead_ms(game.night_id)}


#: The longest lead a reveal's event may say (an older or imported log's own is kept).
LONGEST_MS = 60_000


@dataclass(frozen=True)
class Moment:
    """A reveal counting: the laptop's moment (ms) when every screen shows what it holds
    back, and the words counted to it (the game's, translated where shown)."""

    at_ms: int
    words: tuple[str, ...]


@bp.app_template_global()
def reveal_at(game: store.Game | None) -> Moment | None:
    """The moment the game's reveal opens on every screen together, while it is ahead
    (templates/_reveal.html); None otherwise: for a game that declares no reveal, before
    the reveal, once the moment has passed (a page drawn then shows what was held back
    at once, with no wait for its clock), for a reveal recorded without a time (an older
    log, an import), and without live push (polling screens learn of the reveal up to a
    poll apart, later than the moment: they show it as it comes). The moment is the
    reveal's time and its lead, both in its event (:func:`timed`)."""
    # Only a log that ends with the reveal can be counting towards it (any later event
    # comes after the table saw it, or cancels it): a refresh after it reads no log for
    # this. The rules accepted that last event, so the game stands where it left it.
    # The lead is short, so nothing else comes between.
    if game is None or not enabled():
        return None
    declared = store.known_games()[game.kind].reveal
    if declared is None or game.last[1] != declared.event:
        return None
    data = game.events[-1].get("data") or {}
    at = data.get("at_ms")
    if not isinstance(at, int) or isinstance(at, bool):
        return None
    lead = data.get("lead_ms")
    if not isinstance(lead, int) or isinstance(lead, bool) or not 0 < lead <= LONGEST_MS:
        lead = int(current_app.config["REVEAL_LEAD_MS"])  # a log from before leads moved
    moment = at + lead
    return Moment(moment, declared.words) if now_ms() < moment else None
