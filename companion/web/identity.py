"""Who is asking: the device cookie, the form's one-time token, the host's night and the
phone's seat."""

import re

from flask import (
    abort,
    g,
    request,
)

from companion import store
from companion.core.tokens import device_id, new_token

DEVICE_COOKIE = "device"


_TOKEN = re.compile(r"^[A-Za-z0-9_-]{32,64}$")


def device() -> str:
    """This browser's id: the hash of its HttpOnly cookie (made on its first request).
    The database keeps only the hash (tokens.device_id)."""
    if "device" not in g:
        value = request.cookies.get(DEVICE_COOKIE, "")
        g.new_device = not _TOKEN.match(value)
        g.device_cookie = new_token() if g.new_device else value
        g.device = device_id(g.device_cookie)
    return str(g.device)


def form_token() -> str | None:
    """The one-time token of the posted form (a night or a game is made once per token),
    or None when the form has none that looks like one."""
    value = request.form.get("form_token", "")
    return value if _TOKEN.match(value) else None


def hosted_night_or_404(key: str) -> store.Row:
    """The night with this key if this device hosts it; anyone else gets a plain 404
    (:func:`store.hosted_night` answers None instead)."""
    night = store.hosted_night(key, device())
    if night is None:
        abort(404)
    return night


def viewed_night(key: str) -> store.Row:
    """The night with this key for one of its screens or hosts (a host may look at
    what the room sees); anyone else gets a plain 404."""
    night = store.screen_night(key, device()) or store.hosted_night(key, device())
    if night is None:
        abort(404)
    return night


def my_seat() -> store.Row | None:
    """The seat this phone holds in its latest night (or None)."""
    return store.my_seat(device())


def my_night_or_404() -> store.Row:
    """The night this phone holds a seat in; a phone without one gets a plain 404 (the
    phone's side of :func:`hosted_night_or_404`)."""
    seat = my_seat()
    if seat is None:
        abort(404)
    return store.night(seat["night_id"])


def is_htmx() -> bool:
    return request.headers.get("HX-Request") == "true"


def unchanged(version: int | None) -> bool:
    """True when the screen asking already shows this version of its night.

    Every live region polls its own URL with ``?v=<the version it shows>``; when nothing
    changed the answer is an empty 204 (htmx swaps nothing), before any replay or render.
    """
    return request.args.get("v") == str(version)
