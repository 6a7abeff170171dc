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
the café setup run gevent (docs/performance.md#live-push). Under a threaded server
(the tests' in-process server, ``flask run``, gunicorn's sync worker) pages open no
stream and poll as before (:func:`enabled`).

One watcher per process and database reads, every ``PUSH_TICK`` seconds, the nights
changed since it last looked (each change is numbered, ``log.bump``) and the version of
each night its streams began to watch since, and wakes only the streams of a night
whose version moved: a write to one night wakes no screen of another. Its work follows
the changes, not the nights watched (reading the version of each of 200 watched nights
twenty times a second took a tenth of a worker's time). The watcher is
a cache of the database, like the state cache: several worker processes each run their
own, and none needs to agree with another.
"""

from __future__ import annotations

import random
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import gevent
from flask import Blueprint, Response, current_app, g, request
from gevent import monkey

from companion import store
from companion.core import reveal
from companion.laptop.limits import open_files_soft_limit
from companion.web.identity import DEVICE_COOKIE, device, hosted_night, my_seat, viewed_night

bp = Blueprint("push", __name__)



@dataclass(eq=False)
class Stream:
    """One open stream: ``woken`` is set when its night changes, or when the stream is
    to end (``ended``: its device opened more than ``per_device`` streams since)."""

    device: str
    address: str = ""
    woken: threading.Event = field(default_factory=threading.Event)
    ended: bool = False


@dataclass
class _Night:
    """What the watcher knows of one watched night: its version and the streams
    waiting for it to change."""

    version: int
    waiting: set[Stream] = field(default_factory=set)


class Watcher:
    """Wakes the streams of a night when its version moves (one per process and
    database; the loop runs only while some stream watches). It also holds the count of
    open streams: at most ``per_device`` for one device and ``per_address`` for one
    client address (opening another ends the oldest: a phone that lost its Wi-Fi and
    came back has a stream the server still thinks open), and ``most`` in all, so that
    no device — nor one address under a thousand made-up device ids — can hold the
    process's streams."""

    def __init__(self, path: str, tick: float, per_device: int = 4, most: int = 4000,
                 per_address: int = 16) -> None:
        self.path, self.tick = path, tick
        self.per_device, self.most, self.per_address = per_device, most, per_address
        self._lock = threading.Lock()
        self._nights: dict[int, _Night] = {}
        self._new: set[int] = set()  # nights first watched since the last look
        self._devices: dict[str, list[Stream]] = {}
        self._addresses: dict[str, list[Stream]] = {}
        self._open = 0
        self._running = False

    def open(self, device: str, address: str = "") -> Stream | None:
        """A new stream for ``device`` at ``address``, ending the oldest beyond
        ``per_device`` and ``per_address``; None when ``most`` streams are open (the
        page polls instead)."""
        with self._lock:
            if self._open >= self.most:
                return None
            for streams, most in ((self._devices.get(device, []), self.per_device),
                                  (self._addresses.get(address, []), self.per_address)):
                while len(streams) >= most:
                    self._end(streams[0])
            stream = Stream(device, address)
            self._devices.setdefault(device, []).append(stream)
            self._addresses.setdefault(address, []).append(stream)
            self._open += 1
            return stream

    def carrying(self) -> int:
        """How many streams the process holds open."""
        return self._open

    def close(self, stream: Stream) -> None:
        """The stream's connection is closed (called again, it does nothing)."""
        with self._lock:
            self._end(stream)

    def _end(self, stream: Stream) -> None:
        """Its place given back, and the stream told to end (under the lock)."""
        streams = self._devices.get(stream.device, [])
        if stream in streams:
            streams.remove(stream)
            self._open -= 1
            if not streams:
                del self._devices[stream.device]
            held = self._addresses[stream.address]
            held.remove(stream)
            if not held:
                del self._addresses[stream.address]
        stream.ended = True
        stream.woken.set()

    def wait(self, stream: Stream, night_id: int, seen: int, timeout: float
             ) -> int | None:
        """The night's version once it is not ``seen`` (at once if it already moved),
        or None after ``timeout`` seconds without a change, or once the stream is
        ended."""
        with self._lock:
            if stream.ended:
                return None
            night = self._nights.get(night_id)
            if night is None:
                night = self._nights[night_id] = _Night(seen)
                self._new.add(night_id)  # its version is read at the next look
            if night.version != seen:
                return night.version
            stream.woken.clear()
            night.waiting.add(stream)
            self._start()
        try:
            stream.woken.wait(timeout)
        finally:
            with self._lock:
                night.waiting.discard(stream)
                if not night.waiting and self._nights.get(night_id) is night:
                    del self._nights[night_id]
        return night.version if night.version != seen and not stream.ended else None

    def _start(self) -> None:
        if not self._running:
            self._running = True
            threading.Thread(target=self._loop, name="companion-push", daemon=True).start()

    def _loop(self) -> None:
        db = store.connect(self.path)
        try:
            seen = store.last_change(db)
            while True:
                time.sleep(self.tick)
                with self._lock:
                    if not self._nights:
                        self._running = False
                        self._new.clear()
                        return
                    new, self._new = list(self._new), set()
                versions, seen = store.changes_since(db, seen)
                if new:  # (a change made before it was watched is not among those)
                    versions.update(store.night_versions(db, new))
                self._notify(versions)
        finally:
            db.close()

    def _notify(self, versions: dict[int, int]) -> None:
        with self._lock:
            for night_id, version in versions.items():
                night = self._nights.get(night_id)
                if night is not None and night.version != version:
                    night.version = version
                    for stream in night.waiting:
                        stream.woken.set()


def enabled() -> bool:
    """Whether this app's pages open streams: ``LIVE_PUSH`` True or False, or "auto"
    (the default): on when gevent has patched the server's sockets (``companion serve``,
    gunicorn's gevent workers), where a stream costs a greenlet, not a thread."""
    setting = current_app.config["LIVE_PUSH"]
    if setting == "auto":
        return monkey.is_module_patched("socket")
    return bool(setting)


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
#: back to back (docs/performance.md, "The refresh spread on a slow machine").
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
    opens; one frame); "changed" with the new version after each change (its id the
    laptop's time then, ms); "alive" after
    ``heartbeat`` seconds without one, which keeps it open through idle Wi-Fi, lets the
    server notice a phone that went away (that write fails) and lets the page notice a
    laptop that fell silent (static/js/live.js); "bye" and an end after ``life`` seconds, so
    no connection is held forever (the browser opens a new one, and the page knows the
    end was planned: it does not check whether the laptop is still there);
    "elsewhere" and an end when the device's newer streams took this one's place
    (:meth:`Watcher.open`): the page polls, and asks for a stream again later.

    Every frame wakes an idle phone's Wi-Fi radio from power save, so the heartbeat is
    as long as a silent laptop may go unnoticed allows (docs/performance.md#live-push)."""
    yield f"retry: 1000\nevent: spread\ndata: {spread}\n\n"
    deadline = time.monotonic() + life
    while (left := deadline - time.monotonic()) > 0 and not stream.ended:
        version = watch.wait(stream, night_id, seen, min(heartbeat, left))
        if version is not None:
            seen = version
            # its id: when the laptop told it, by its clock, so that the page can
            # measure how long it takes to show a change (static/js/live.js, need)
            yield f"event: changed\nid: {now_ms()}\ndata: {version}\n\n"
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


@bp.before_app_request
def _note_need() -> None:
    """Keep the need a page reports (a device that has its cookie, a whole number of ms),
    so that the next reveal's lead follows it. A forged one can make a reveal wait at
    most ``reveal.MOST_MS``."""
    value = request.headers.get(NEED_HEADER, "")
    if value.isdigit() and len(value) <= 6 and request.cookies.get(DEVICE_COOKIE):
        store.note_need(device(), min(int(value), NEED_MOST_MS))


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
                                 or request.endpoint == "push.clock"):
        response.headers[CLOCK_HEADER] = f"{received},{now_ms()}"
    return response


@bp.get("/n/<key>/stream")
def host_stream(key: str) -> Response:
    """The stream of a night's host screens (anyone else: a plain 404)."""
    night = hosted_night(key)
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
