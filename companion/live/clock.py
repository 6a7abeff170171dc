"""Blueprint: the laptop's clock, and the synchronised reveal counted by it
(docs/architecture.md, "A synchronised reveal").

Every screen of the table counts a reveal to one moment in the laptop's time: ``/clock``
and the stamps on every htmx answer let a page estimate how far its own clock is from
the laptop's (static/js/clock.js). A game declares its reveal once (``GameDef.reveal``:
the event, the words counted); recording that event stamps it with the laptop's time
(:func:`timed`), and :func:`reveal_at` is the moment a page counts to while it is ahead:
that time and the lead (``REVEAL_LEAD_MS``). What belongs to the game is what is
counted; the lead belongs to the table's screens, whatever the game.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, current_app, g, request

from companion import store
from companion.live import enabled

bp = Blueprint("clock", __name__)


def now_ms() -> int:
    """The laptop's clock in milliseconds: the one clock every screen of the table
    counts a synchronised reveal by (:func:`clock`)."""
    return time.time_ns() // 1_000_000


#: An answer's clock stamps: when the laptop received its request and when it answered.
CLOCK_HEADER = "X-Laptop-Clock"


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
    laptop's time in ms (``at_ms``), so that every screen opens it at that time and the
    lead (:func:`reveal_at`); any other event as it is. (An event's ``created`` has only
    whole seconds.)"""
    declared = store.known_games()[game.kind].reveal
    if declared is None or type_ != declared.event:
        return data
    return {**data, "at_ms": now_ms()}


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
    reveal's time in its event (:func:`timed`) and the lead, ``REVEAL_LEAD_MS``."""
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
    moment = at + int(current_app.config["REVEAL_LEAD_MS"])
    return Moment(moment, declared.words) if now_ms() < moment else None
