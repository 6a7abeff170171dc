"""Blueprint: live push. A screen learns that its night changed at once, then fetches
its own fragment (docs/architecture.md#live-push).

Each page's live region opens one Server-Sent Events stream for its night
(``/n/<key>/stream`` for a host screen, ``/me/stream`` for a phone,
``/n/<key>/screen/stream`` for the room's big screen). A stream carries
only "the night is now at version n" — never a fragment, never anything of a seat — so
a secret cannot travel in it: every device then asks for its own fragment, with its own
rights, as its polls do. Polling stays as the fallback (static/js/live.js): it runs every
``POLL_SECONDS`` while no stream is open, and once a minute while one is.

Streams need a server that holds many open connections cheaply: ``companion serve`` and
the café setup run gevent (docs/measurements/2026-11-30/README.md, "Live push, the
morning's run"). Under a threaded server
(the tests' in-process server, ``flask run``, gunicorn's sync worker) pages open no
stream and poll as before (``companion.live.enabled``).

The watcher that wakes the streams is companion/live/watcher.py; the laptop's clock that
stamps each "changed", companion/live/clock.py.
"""

from __future__ import annotations

import random
import socket
import threading
import time
from collections.abc import Iterator

import gevent
from flask import Blueprint, Response, current_app, request

from companion import store
from companion.laptop.limits import open_files_soft_limit
from companion.live import enabled
from companion.live.watcher import Stream, Watcher
from companion.web.identity import device, hosted_night_or_404, my_seat, viewed_night

bp = Blueprint("streams", __name__)


_watchers: dict[str, Watcher] = {}
_watchers_lock = threading.Lock()


def watcher() -> Watcher:
    """This process's watcher of the app's database. At most half the process's open
    files are streams: the rest answer pages."""
    config = current_app.config
    path = config["DATABASE"]
    with _watchers_lock:
        if path not in _watchers:
            most = min(config["PUSH_STREAMS_MOST"], open_files_soft_limit() // 2)
            _watchers[path] = Watcher(path, config["PUSH_TICK"],
                                      config["PUSH_STREAMS_PER_DEVICE"], most,
                                      config["PUSH_STREAMS_PER_ADDRESS"])
        return _watchers[path]


#: A change wakes every screen of its night at once: each waits a moment at random, up
#: to ``SPREAD_MOST_MS``, before it asks for its fragment, so that the screens of a busy
#: process do not all reach it in the same instant (where a host's next write would queue
#: behind them). A table alone (up to ``SPREAD_FROM`` screens: eight phones, the host
#: and the room's screen, with room for a reload) waits none: the wait was most of what a
#: phone on café Wi-Fi waited to see a write. Past it the wait grows with the streams the
#: process carries, and is whole from ``SPREAD_FULL_AT`` on (about ten tables): on a slow
#: machine two tables' bursts that meet are what holds a fragment back: half a core held
#: 26 café tables with the whole wait from 100 streams, and 13 with it from 500, in runs
#: back to back (docs/measurements/2026-12-02/README.md, "The refresh spread on a slow
#: machine").
SPREAD_MOST_MS = 150
SPREAD_FROM = 12
SPREAD_FULL_AT = 100


def spread_ms(streams: int) -> int:
    """The longest wait before a refresh (ms) with ``streams`` open in the process."""
    part = (streams - SPREAD_FROM) / (SPREAD_FULL_AT - SPREAD_FROM)
    return round(SPREAD_MOST_MS * min(1.0, max(0.0, part)))


def _events(watch: Watcher, stream: Stream, night_id: int, seen: int, heartbeat: float,
            life: float, spread: int = SPREAD_MOST_MS) -> Iterator[str]:
    """The stream: first the browser's reconnection delay and "spread", the longest
    random wait (ms) before a refresh on a change (:func:`spread_ms`, as the stream
    opens; one frame); "changed" with the new version after each change; "alive" after
    ``heartbeat`` seconds without one, which keeps it open through idle Wi-Fi, lets the
    server notice a phone that went away (that write fails) and lets the page notice a
    laptop that fell silent (static/js/live.js); "bye" and an end after ``life`` seconds, so
    no connection is held forever (the browser opens a new one, and the page knows the
    end was planned: it does not check whether the laptop is still there);
    "elsewhere" and an end when the device's newer streams took this one's place
    (:meth:`Watcher.open`): the page polls, and asks for a stream again later.

    Every frame wakes an idle phone's Wi-Fi radio from power save, so the heartbeat is
    as long as a silent laptop may go unnoticed allows (docs/measurements/2026-11-30/README.md,
    "Live push, the morning's run")."""
    yield f"retry: 1000\nevent: spread\ndata: {spread}\n\n"
    deadline = time.monotonic() + life
    while (left := deadline - time.monotonic()) > 0 and not stream.ended:
        version = watch.wait(stream, night_id, seen, min(heartbeat, left))
        if version is not None:
            seen = version
            yield f"event: changed\ndata: {version}\n\n"
        elif left > heartbeat and not stream.ended:
            yield "event: alive\ndata: \n\n"
    if stream.ended:  # the device's newer streams took its place: the page polls
        yield "event: elsewhere\ndata: \n\n"
    else:
        yield "event: bye\ndata: \n\n"


def life(longest: float) -> float:
    """How long one stream stays open: between three quarters of ``longest`` and all of
    it, drawn anew for each. With one life for all, the streams a server start opened
    together (every phone reconnects at once) would all end, and reopen, in the same
    second ever after: a burst of thousands of requests every few minutes, each one
    moving a worker's share of the streams, and the memory that holds them."""
    return random.uniform(0.75 * longest, longest)


def _stream(night_id: int, version: int) -> Response:
    """A night's stream, starting from the version the page shows (``?v=``): a change
    made while the page was on its way is told at once."""
    try:
        seen = int(request.args.get("v", version))
    except ValueError:
        seen = version
    config = current_app.config
    watch = watcher()
    stream = watch.open(device(), request.remote_addr or "")
    if stream is None:
        return Response(status=204)  # as many streams as the process holds: poll
    body = _events(watch, stream, night_id, seen, config["PUSH_HEARTBEAT"],
                   life(config["PUSH_STREAM_SECONDS"]), spread_ms(watch.carrying()))
    response = Response(body, mimetype="text/event-stream",
                        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
    sock = request.environ.get("companion.socket")
    hangup = gevent.spawn(_hung_up, sock, watch, stream) if sock is not None else None

    def closed() -> None:
        if hangup is not None:
            hangup.kill()  # before the connection reads its next request
        watch.close(stream)

    response.call_on_close(closed)
    return response


def _hung_up(sock: socket.socket, watch: Watcher, stream: Stream) -> None:
    """End ``stream`` as soon as its client closes the connection, rather than at the
    next heartbeat that fails to go (up to ``PUSH_HEARTBEAT`` seconds later): a device
    that opens streams and drops them at once would otherwise hold their places. A
    stream's client sends nothing more on its connection until the stream ends, so a
    read that returns no bytes is its end."""
    while not stream.ended:
        try:
            if sock.recv(1, socket.MSG_PEEK) == b"":
                break
            return  # the client sent more: not a hang-up, and not ours to read
        except TimeoutError:
            continue  # (the connection's read timeout): still there
        except OSError:
            break
    watch.close(stream)


@bp.get("/n/<key>/stream")
def host_stream(key: str) -> Response:
    """The stream of a night's host screens (anyone else: a plain 404)."""
    night = hosted_night_or_404(key)
    if not enabled():
        return Response(status=204)  # no stream here: the page keeps polling
    return _stream(int(night["id"]), int(night["version"]))


@bp.get("/me/stream")
def seat_stream() -> Response:
    """The stream of a phone's night (a phone without a seat: 204, it polls)."""
    seat = my_seat()
    if seat is None or not enabled():
        return Response(status=204)
    night = store.night(int(seat["night_id"]))
    return _stream(int(night["id"]), int(night["version"]))


@bp.get("/n/<key>/screen/stream")
def screen_stream(key: str) -> Response:
    """The stream of a night's big screens, with their own right: a screen device of the
    night, or one of its hosts looking at the screen (anyone else: a plain 404)."""
    night = viewed_night(key)
    if not enabled():
        return Response(status=204)
    return _stream(int(night["id"]), int(night["version"]))
