"""Many tables on one machine: the load benchmark of the performance budgets.

It starts the real server on loopback (``companion serve``, gevent, and gunicorn with
one worker per core, each running gevent's WSGI server, for the café setup), creates
tables through the app's own HTTP routes (a host makes a night of 8 players, 8 phones
claim their seats through the ``/s/<token>`` links, the host starts No Touch Kraken
through the real form with its CSRF token), then every device behaves as its page does:
it holds its night's live-push stream (``/me/stream`` or ``/n/<key>/stream``) and, at
each "changed", asks for its live region's own URL (``/me/live?v=N`` or
``/n/<key>/g/<n>/live?v=N``: 204 when nothing changed, else the fresh fragment in the
same answer), and once a minute anyway (``--no-push``: every device polls every 2 s
instead), while each host records a Kraken action every few seconds through the real
forms (the ``pos`` and the choices read from its own page).

Pages are parsed (bench/page.py), and forms found by the ``data-action`` the templates
carry: if a form the bench needs is missing, it stops and names it.

Reported, in one run: throughput and p50/p95/p99 latency and errors of polls, writes,
fragments and full host pages at each table count; the floor (bench/floor.py, a bare
Flask "hello" under the same server and the same load) and the ratio to it; the
saturation throughput of a no-change poll against the floor's, measured interleaved
(floor, app, floor, app…: each pair's ratio, their median and spread; wrk if installed,
else this client); bytes of a no-change poll and of a seat page's first load; the server's
peak memory (RSS, all its processes); and the time from a host's write until a phone
has the new fragment. The summary ends with the budgets (bench/budgets.py), each PASS or
FAIL; a budget whose figure was not measured FAILs.

Every loop is bounded in count and time; everything is on 127.0.0.1.

    .venv/bin/python bench/bench.py                       # the full run (about 15 min)
    .venv/bin/python bench/bench.py --quick               # a smoke run (about 1 min)
    .venv/bin/python bench/bench.py --soak 600 --json report.json   # all, and the soak (~30 min)
    .venv/bin/python bench/bench.py --table report.json   # the budget table of a saved run
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import gzip
import json
import math
import os
import platform
import random
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    # Run as `python bench/bench.py`: import the `bench` package, not this file.
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import budgets  # noqa: E402
from bench.floor import serve_settings  # noqa: E402
from bench.page import MissingElement, Page, live_region, parse  # noqa: E402
from bench.quota import Quota  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
POLL_SECONDS = 2.0
SAFETY_SECONDS = 60.0  # static/js/live.js: with a stream open, a page asks once a minute
SPREAD_SECONDS = 0.15  # static/js/live.js: after a change, each page waits up to this long
CHASE_SECONDS = 1.0  # static/js/live.js: a refresh that did not land is asked again after this
# (or as long as its stream's "spread" says, companion/live/streams.py: less for fewer streams)
PLAYERS = 8
REQUEST_TIMEOUT = 10.0

Response = tuple[int, dict[str, str], str, int]  # status, headers, body text, bytes on the wire


# --- a small keep-alive HTTP/1.1 client -----------------------------------------------

class HTTPError(Exception):
    pass


class SetupError(RuntimeError):
    """No table could be set up: nothing to measure."""


class Device:
    """One browser: one keep-alive connection, its cookies, gzip like a real browser."""

    def __init__(self, port: int, cookies: dict[str, str] | None = None):
        self.port = port
        self.cookies = {} if cookies is None else cookies  # shared by a browser's connections
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def _connect(self) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def request(self, method: str, path: str, *, form: dict[str, Any] | None = None,
                      headers: dict[str, str] | None = None) -> Response:
        """(status, headers, body text, bytes on the wire) — one retry on a closed socket."""
        for attempt in (0, 1):
            if self.writer is None:
                await self._connect()
            try:
                return await asyncio.wait_for(self._once(method, path, form, headers),
                                              REQUEST_TIMEOUT)
            except (ConnectionError, asyncio.IncompleteReadError, HTTPError) as error:
                self.close()
                if attempt or isinstance(error, HTTPError):
                    raise
            except TimeoutError:
                self.close()
                raise
        raise AssertionError("unreachable")

    async def _once(self, method, path, form, headers):
        """One request on the open connection: send it, read the answer, undo gzip."""
        self.writer.write(self._request_bytes(method, path, form, headers))
        head = await self.reader.readuntil(b"\r\n\r\n")
        status, got = self._parse_head(head)
        raw = await self._read_body(method, status, got)
        wire = len(head) + len(raw)
        if got.get("connection", "").lower() == "close":
            self.close()
        if got.get("content-encoding") == "gzip":
            raw = gzip.decompress(raw)
        return status, got, raw.decode("utf-8", "replace"), wire

    def _request_bytes(self, method, path, form, headers) -> bytes:
        """The request on the wire: request line, headers (cookies too), form body."""
        body = b""
        lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}",
                 "Accept-Encoding: gzip", "Accept-Language: en"]
        if self.cookies:
            lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        for k, v in (headers or {}).items():
            lines.append(f"{k}: {v}")
        if form is not None:
            body = urllib.parse.urlencode(form, doseq=True).encode()
            lines.append("Content-Type: application/x-www-form-urlencoded")
            lines.append(f"Content-Length: {len(body)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + body

    def _parse_head(self, head: bytes) -> tuple[int, dict[str, str]]:
        """Status and headers (lower-case names) of an answer; keeps the cookies it sets."""
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        status = int(status_line.split()[1])
        got = {}
        for line in header_lines:
            if ":" in line:
                k, v = line.split(":", 1)
                k, v = k.strip().lower(), v.strip()
                if k == "set-cookie":
                    name, value = v.split(";", 1)[0].split("=", 1)
                    self.cookies[name.strip()] = value.strip()
                got[k] = v
        return status, got

    async def _read_body(self, method: str, status: int, got: dict[str, str]) -> bytes:
        """The raw body of an answer: chunked, none (204, 304, HEAD) or Content-Length."""
        if got.get("transfer-encoding") == "chunked":
            return await self._read_chunked()
        if status in (204, 304) or method == "HEAD":
            return b""
        return await self.reader.readexactly(int(got.get("content-length", 0)))

    async def _read_chunked(self) -> bytes:
        """A chunked body, up to and with its last (empty) chunk."""
        raw = b""
        while True:
            size = int((await self.reader.readuntil(b"\r\n")).strip(), 16)
            chunk = await self.reader.readexactly(size + 2)
            raw += chunk[:-2]
            if size == 0:
                break
        return raw


# --- measurements ---------------------------------------------------------------------

class Stats:
    """Latencies (ms) and outcomes of one kind of request, inside the measured window."""

    def __init__(self):
        self.ms, self.ok, self.refused, self.errors = [], 0, 0, 0
        self.error_kinds = {}
        self.failed = 0  # no answer at all (refused connection, timeout)

    def add(self, ms: float, status: int | None = None, error: str | None = None) -> None:
        if error is not None:
            self.errors += 1
            self.failed += 1
            self.error_kinds[error] = self.error_kinds.get(error, 0) + 1
            return
        self.ms.append(ms)
        if status >= 500:
            self.errors += 1
            self.error_kinds[str(status)] = self.error_kinds.get(str(status), 0) + 1
        elif status in (409, 422):
            self.refused += 1  # "the table moved on" / a rule refusal: a real answer
        else:
            self.ok += 1

    def summary(self, seconds: float) -> dict[str, Any]:
        """n counts every request (answered or not); the percentiles are None (not
        measured) when no request was answered."""
        ms = sorted(self.ms)

        def pct(p):
            return round(ms[min(len(ms) - 1, int(p / 100 * len(ms)))], 1) if ms else None

        return {"n": len(ms) + self.failed,
                "rps": round(len(ms) / seconds, 1), "p50": pct(50), "p95": pct(95),
                "p99": pct(99), "max": round(ms[-1], 1) if ms else None,
                "refused": self.refused, "errors": self.errors,
                "error_kinds": self.error_kinds}


class Run:
    """One measured window: started/stopped by the driver, read by every device."""

    def __init__(self):
        self.stats = {k: Stats() for k in ("poll", "live", "write", "page", "hello",
                                           "stream")}
        self.seen_ms = []
        self.idle_polls = 0       # no-change answers (204) while measuring
        self.streams_opened = 0   # live-push streams the server accepted
        self.reopened = 0         # of those, opened while measuring
        self.frames = 0           # stream frames received while measuring (each wakes a radio)
        self.measuring = False
        self.stop = False
        self.writing = True       # False: the hosts stop writing, the screens go on
        self.no_change_bytes = []
        self.lag_ms = []          # the client's own delays (lag_probe)
        self.turned_away = 0      # refreshes answered 429 "come back in n s" while measuring
        self.busy = 0             # streams answered "busy" (not opened) while measuring
        self.slowed = 0           # answers that said X-Slow-Down while measuring
        self.seen_log = None      # (write answered, shown on a screen), when kept (overload)

    def record(self, kind: str, ms: float, status: int | None = None,
               error: str | None = None) -> None:
        if self.measuring:
            self.stats[kind].add(ms, status, error)


async def timed(run: Run, kind: str, device: Device, method: str, path: str,
                **kw: Any) -> Response | None:
    start = time.perf_counter()
    try:
        result = await device.request(method, path, **kw)
    except (TimeoutError, OSError, asyncio.IncompleteReadError, HTTPError) as error:
        run.record(kind, (time.perf_counter() - start) * 1000, error=type(error).__name__)
        return None
    run.record(kind, (time.perf_counter() - start) * 1000, status=result[0])
    return result


# --- a table, built through the app's own routes --------------------------------------

class Table:
    def __init__(self, port: int, index: int):
        self.port = port
        self.index = index
        self.host = Device(port)
        self.phones = [Device(port) for _ in range(PLAYERS)]
        # The host's page polls on one connection while its forms post on another.
        self.host_poller = Device(port, cookies=self.host.cookies)
        self.key = self.game_url = None
        self.html = ""            # the host's current #live fragment (or page)
        # (perf_counter when each successful write's answer came, the night's version it
        # made: its answer's live region says)
        self.write_done: list[tuple[float, int]] = []
        self._parsed: tuple[str, Page] | None = None
        self._live: tuple[str, tuple[str, int]] | None = None

    def screen(self) -> Page:
        """The host's screen, parsed (once per answer that changed it)."""
        if self._parsed is None or self._parsed[0] is not self.html:
            self._parsed = (self.html, parse(self.html, f"the host's screen of {self.game_url}"))
        return self._parsed[1]

    def shown_live(self) -> tuple[str, int]:
        """The host screen's live region: (the URL it polls, the version it shows)."""
        if self._live is None or self._live[0] is not self.html:
            self._live = (self.html, live_region(self.html,
                                                 f"the host's screen of {self.game_url}"))
        return self._live[1]

    async def build(self, database: str) -> None:
        host = self.host
        status, _, html, _ = await host.request("GET", "/")
        create = parse(html, "the home page (/)").form("night-create")
        if sum(c.name == "name" for c in create.controls) < PLAYERS:
            raise MissingElement(f'fewer than {PLAYERS} fields name="name" in '
                                 f'<form data-action="night-create"> on the home page (/)')
        names = [f"T{self.index}P{i}" for i in range(PLAYERS)]
        status, headers, _, _ = await host.request(
            "POST", create.action, form={"csrf_token": create.value("csrf_token"),
                                         "name": names})
        assert status == 303, status
        self.key = headers["location"].rsplit("/", 1)[1]
        with sqlite3.connect(database, timeout=30) as conn:
            tokens = [r[0] for r in conn.execute(
                "select s.token from seats s join nights n on n.id = s.night_id "
                "where n.key = ? order by s.position", [self.key])]
        for phone, seat_token in zip(self.phones, tokens, strict=True):
            where = f"/s/{seat_token}"
            status, _, html, _ = await phone.request("GET", where)
            claim = parse(html, "a seat code's question (/s/…)").form("seat-claim")
            status, _, _, _ = await phone.request(
                "POST", claim.action, form={"csrf_token": claim.value("csrf_token")})
            assert status == 303, status
        await self.new_game()

    async def new_game(self) -> None:
        where = f"/n/{self.key}/new/kraken"
        status, _, html, _ = await self.host.request("GET", where)
        new = parse(html, where).form("game-new")
        seats = [c.name for c in new.checkboxes() if c.name.startswith("seat")]
        if len(seats) != PLAYERS:
            raise MissingElement(f'{len(seats)} seat checkboxes, not {PLAYERS}, in '
                                 f'<form data-action="game-new"> on {where}')
        form = {"csrf_token": new.value("csrf_token"), **dict.fromkeys(seats, "on")}
        status, headers, _, _ = await self.host.request("POST", new.action, form=form)
        assert status == 303, status
        self.game_url = urllib.parse.urlsplit(headers["location"]).path
        status, _, self.html, _ = await self.host.request("GET", self.game_url)
        assert status == 200, f"GET {self.game_url}: {status}"

    def next_step(self, rng: random.Random) -> tuple[str, str, dict[str, str]]:
        """What a host would tap next on its screen: ("write", path, form) records a
        Kraken action, ("next", path, form) starts the next game, ("goto", path, {})
        opens a later game's page (when "Next game" was recorded but its answer lost)."""
        page = self.screen()
        reveal = page.find_form("kraken-reveal")
        if reveal is not None:
            seats, cards = reveal.choices("seat"), reveal.choices("card")
            if seats and cards:
                return "write", reveal.action, {
                    "csrf_token": reveal.value("csrf_token"), "pos": reveal.value("pos"),
                    "seat": rng.choice(seats), "card": rng.choice(cards)}
        marker = page.find_form("kraken-marker")
        if marker is not None and (seats := marker.choices("seat")):
            return "write", marker.action, {
                "csrf_token": marker.value("csrf_token"), "pos": marker.value("pos"),
                "seat": rng.choice(seats)}
        following = page.find_form("kraken-next")
        if following is not None:
            return "next", following.action, {"csrf_token": following.value("csrf_token")}
        later = self.later_game(page)
        if later is not None:
            return "goto", later, {}
        raise MissingElement(
            'no <form data-action="kraken-reveal"> or "kraken-marker" with a choice to '
            f'make, nor "kraken-next", nor a link to a later game, on {page.where}')

    def take_live(self, html: str) -> None:
        """A live refresh's fragment, unless it is of a game the host has left (a refresh
        sent before "Next game" answers after it)."""
        path, _ = live_region(html, f"the host's screen of {self.game_url}")
        if path.startswith(f"{self.game_url}/"):
            self.html = html

    def later_game(self, page: Page) -> str | None:
        """A link on the page to a later game of this night, if any."""
        prefix, current = f"/n/{self.key}/g/", int(self.game_url.rsplit("/", 1)[1])
        for link in page.links:
            path = urllib.parse.urlsplit(link).path
            number = path.removeprefix(prefix)
            if path.startswith(prefix) and number.isdigit() and int(number) > current:
                return path
        return None


class Screen:
    """One live region on a device: the URL it asks and the version it shows, and how
    far its table's writes are on it (for the time from a write until it shows)."""

    def __init__(self, run: Run, device: Device, live_path: str, version: int,
                 on_change: Callable[[Response], None] | None = None,
                 table: Table | None = None,
                 screen: Callable[[], tuple[str, int]] | None = None) -> None:
        self.run, self.device, self.table = run, device, table
        self.path, self.version = live_path, version
        self.on_change, self.screen = on_change, screen
        self.seen_upto = len(table.write_done) if table else 0
        self.spread = SPREAD_SECONDS
        # What an overloaded server told (a mechanism tried and not kept,
        # docs/performance.md "Overload": this server tells none of it): wait this long
        # (s) before polling or asking again; whether the stream is open; how long the
        # browser waits before it reopens a stream (its "retry:", ms).
        self.slow = 0.0
        self.streaming = False
        self.retry_ms = 1000

    def credit(self, now: float | None) -> None:
        """Count each write of the table now on this screen, from its answer until now
        (``now`` None: only those this screen showed already, as 0 ms: a change can
        reach a phone by another worker before the host's own answer arrives)."""
        if self.table is None:
            return
        writes = self.table.write_done
        while self.seen_upto < len(writes) and writes[self.seen_upto][1] <= self.version:
            at = writes[self.seen_upto][0]
            if self.run.measuring:
                self.run.seen_ms.append(0.0 if now is None else max(0.0, now - at) * 1000)
            if self.run.seen_log is not None:
                self.run.seen_log.append((at, at if now is None else max(at, now)))
            self.seen_upto += 1

    def shown(self) -> int:
        """The version on screen now (the host's: its last form answer's, or refresh's)."""
        return self.screen()[1] if self.screen is not None else self.version

    async def refresh(self) -> bool:
        """GET <live>?v=<shown>, as htmx does: nothing new is a 204 (a "poll"); a change
        is the fresh fragment in the same answer ("live"). ``screen`` (the host) gives
        the region on screen now: a form's answer swaps in the fresh region, so the next
        refresh asks with the version it showed. Keeps the answer's ``X-Slow-Down``;
        False when the refresh got no fragment nor "nothing changed" (a 429 turned it
        away, or no answer): the page asks again later."""
        run = self.run
        self.credit(None)  # writes whose version this screen showed before their answer
        if self.screen is not None:
            self.path, self.version = self.screen()
        asked = f"{self.path}?v={self.version}"
        start = time.perf_counter()
        try:
            result = await self.device.request("GET", asked, headers={"HX-Request": "true"})
        except (TimeoutError, OSError, asyncio.IncompleteReadError, HTTPError) as error:
            run.record("poll", (time.perf_counter() - start) * 1000, error=type(error).__name__)
            return False
        run.record("live" if result[0] == 200 else "poll", (time.perf_counter() - start) * 1000,
                   status=result[0])
        self.slow = float(result[1].get("x-slow-down") or 0)
        if run.measuring:
            run.slowed += self.slow > 0
            run.turned_away += result[0] == 429
        if result[0] == 200:
            self.path, self.version = live_region(result[2], f"the answer of GET {asked}")
            if self.on_change is not None:
                self.on_change(result)
            self.credit(time.perf_counter())
        elif result[0] == 204 and run.measuring:
            run.idle_polls += 1
            if len(run.no_change_bytes) < 1000:
                run.no_change_bytes.append(result[3])
        return result[0] in (200, 204)


async def device_loop(screen: Screen) -> None:
    """A page that polls, like htmx's `every 2s` on its live region."""
    await asyncio.sleep(random.uniform(0, POLL_SECONDS))
    next_at = time.perf_counter()
    while not screen.run.stop:
        await screen.refresh()
        next_at += max(POLL_SECONDS, screen.slow)  # as told while the server lags
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))


async def push_loop(screen: Screen, stream_path: str) -> None:
    """A page with live push (companion/live/streams.py, static/js/live.js): its stream, on a
    connection of its own, says when the night changed; each change refreshes the live
    region at once, and with no change for SAFETY_SECONDS it refreshes anyway."""
    wake = asyncio.Event()
    follow = asyncio.create_task(follow_stream(screen, stream_path, wake))
    try:
        opened = time.perf_counter()
        answered = await screen.refresh()  # what a page shows when it opens
        last = time.perf_counter()

        def tick(after: float) -> float:
            """The region's timer ticks every 2 s from the page's load."""
            return opened + math.ceil((after - opened) / POLL_SECONDS) * POLL_SECONDS

        while not screen.run.stop:
            # The region's timer: without its stream the page polls at its ticks (no
            # sooner than it was told to wait), with it once a minute; a refresh that did
            # not land is asked again after the wait it was told (static/js/live.js).
            if not answered:
                due = last + max(CHASE_SECONDS, screen.slow)
            elif screen.streaming:
                due = last + SAFETY_SECONDS
            else:
                due = tick(max(time.perf_counter(), last + screen.slow))
            try:
                await asyncio.wait_for(wake.wait(), max(0.0, min(1.0, due - time.perf_counter())))
                await asyncio.sleep(random.uniform(0, screen.spread))  # as static/js/live.js
            except TimeoutError:
                if time.perf_counter() < due:
                    continue
            wake.clear()
            if not screen.run.stop:
                answered = await screen.refresh()
                last = time.perf_counter()
    finally:
        follow.cancel()


async def follow_stream(screen: Screen, path: str, wake: asyncio.Event) -> None:
    """Hold the page's stream open (reopening it when it ends, as EventSource does) and
    set ``wake`` at each "changed". A stream the server refuses or drops counts as a
    stream error. As a browser does, it waits the stream's last ``retry:`` before it
    opens another (after a planned end, a "busy", or an error)."""
    run, device = screen.run, screen.device
    await asyncio.sleep(random.uniform(0, 1))
    first = True
    while not run.stop:
        if not first:
            await asyncio.sleep(screen.retry_ms / 1000)
        first = False
        reader = writer = None
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", device.port)
            cookie = "; ".join(f"{k}={v}" for k, v in device.cookies.items())
            writer.write((f"GET {path}?v={screen.version} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          f"Accept: text/event-stream\r\nCookie: {cookie}\r\n\r\n").encode())
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), REQUEST_TIMEOUT)
            status = int(head.split(b" ", 2)[1])
            if status != 200:
                raise HTTPError(f"stream {status}")
            run.streams_opened += 1
            if run.measuring:
                run.reopened += 1
            await read_events(reader, wake, screen)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, HTTPError, ValueError) as e:
            if not run.stop:
                run.record("stream", 0, error=type(e).__name__)
        finally:
            screen.streaming = False
            if writer is not None:
                writer.close()


async def read_events(reader: asyncio.StreamReader, wake: asyncio.Event,
                      screen: Screen) -> None:
    """The chunks of an open stream, until it ends: an "event: changed" to a version
    the screen does not show yet sets ``wake`` (as static/js/live.js does)."""
    while True:
        size = int((await reader.readuntil(b"\r\n")).strip(), 16)
        if size == 0:
            return  # the stream's life is over: the page opens another
        take_frames(await reader.readexactly(size + 2), wake, screen)


def take_frames(chunk: bytes, wake: asyncio.Event, screen: Screen) -> None:
    """What the page does with a stream's frames: keeps its ``retry:``, its spread and
    whether the server said "busy", and sets ``wake`` at a change it does not show."""
    if screen.run.measuring:
        screen.run.frames += chunk.count(b"\n\n")
    for told in re.findall(rb"retry: (\d+)", chunk):
        screen.retry_ms = int(told)
    busy = re.search(rb"event: busy\ndata: (\d+)", chunk)
    if busy:  # not opened: the page polls as slowly as told (the mechanism tried and not kept)
        screen.slow, screen.streaming = float(busy.group(1)), False
        screen.run.busy += screen.run.measuring
    elif b"event: spread" in chunk:
        screen.streaming = True
    for told in re.findall(rb"event: spread\ndata: (\d+)", chunk):
        screen.spread = min(SPREAD_SECONDS, int(told) / 1000)
    for version in re.findall(rb"event: changed\ndata: (\d+)", chunk):
        if int(version) != screen.shown():
            wake.set()


async def host_writer(run: Run, table: Table, write_every: float, page_every: float,
                      rng: random.Random) -> None:
    """The host records an action every few seconds, from the form on its own screen."""
    await asyncio.sleep(rng.uniform(0, write_every))
    next_page = time.perf_counter() + rng.uniform(0, page_every)
    while not run.stop and run.writing:
        step, path, form = table.next_step(rng)
        if step == "write":
            result = await timed(run, "write", table.host, "POST", path, form=form,
                                 headers={"HX-Request": "true"})
            if result is not None:
                if result[0] == 200:
                    made = live_region(result[2], f"the answer of POST {path}")[1]
                    table.write_done.append((time.perf_counter(), made))
                if result[0] in (200, 409, 422):
                    table.html = result[2]
        else:
            if step == "next":
                # The game is over: "Next game" through the real form, then its page.
                result = await timed(run, "write", table.host, "POST", path, form=form)
                answered = time.perf_counter()
                if result is not None and result[0] == 303:
                    table.game_url = urllib.parse.urlsplit(result[1]["location"]).path
            else:
                answered = None
                table.game_url = path
            result = await timed(run, "page", table.host, "GET", table.game_url)
            if result is not None and result[0] == 200:
                table.html = result[2]
                if answered is not None:  # the new game's version, from its page
                    table.write_done.append((answered, table.shown_live()[1]))
        if time.perf_counter() >= next_page and not run.stop:
            # Now and then the host reloads the whole page (a full render).
            next_page += page_every
            result = await timed(run, "page", table.host, "GET", table.game_url)
            if result is not None and result[0] == 200:
                table.html = result[2]
        await asyncio.sleep(write_every * rng.uniform(0.7, 1.3))


async def hello_loop(run: Run, device: Device) -> None:
    """The floor's device: the same cadence, a bare "hello" instead of a poll."""
    await asyncio.sleep(random.uniform(0, POLL_SECONDS))
    next_at = time.perf_counter()
    while not run.stop:
        next_at += POLL_SECONDS
        await timed(run, "hello", device, "GET", "/")
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))


# --- servers --------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A server process (and its children), its port and its memory."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], port: int,
                 cpus: float | None = None):
        self.name, self.argv, self.env, self.port = name, argv, env, port
        # The server and all it forks held to ``cpus`` cores (bench/quota.py): one box
        # measures a slower one. None: the whole box.
        self.quota = Quota(cpus)
        self.process = None
        self.peak_rss = 0
        self.rss_samples = []
        self._sampling = False

    def start(self) -> Server:
        # The server's log goes to a file: a pipe nobody reads fills up (64 KB of
        # warnings) and then blocks the server for good.
        self.log = tempfile.TemporaryFile()
        self.quota.__enter__()
        self.process = subprocess.Popen(self.argv, env=self.env, cwd=ROOT,
                                        stdout=subprocess.DEVNULL, stderr=self.log,
                                        start_new_session=True, preexec_fn=self.quota.enter)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self.log.seek(0)
                raise RuntimeError(f"{self.name} exited: {self.log.read()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    break
            except OSError:
                time.sleep(0.2)
        else:
            raise RuntimeError(f"{self.name} did not start")
        time.sleep(1.0)  # gunicorn's workers boot after the master listens
        if self.process.poll() is not None:  # what answered was another process's port
            self.log.seek(0)
            raise RuntimeError(f"{self.name} exited: {self.log.read()[-2000:]}")
        self._sampling = True
        threading.Thread(target=self._sample, daemon=True).start()
        return self

    def pids(self) -> list[int]:
        """The server process and its descendants (gunicorn's workers)."""
        found, frontier = [self.process.pid], [self.process.pid]
        while frontier:
            pid = frontier.pop()
            try:
                children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            except OSError:
                children = []
            for child in map(int, children):
                found.append(child)
                frontier.append(child)
        return found

    def rss(self) -> int:
        total = 0
        for pid in self.pids():
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
            except OSError:
                pass
        return total

    def _sample(self):
        while self._sampling and self.process.poll() is None:
            value = self.rss()
            self.peak_rss = max(self.peak_rss, value)
            self.rss_samples.append((time.monotonic(), value))
            del self.rss_samples[:-20000]
            time.sleep(0.5)

    def stop(self) -> None:
        self._sampling = False
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=5)
        self.log.close()
        self.quota.__exit__()


#: The café setup's worker (README.md): gunicorn's gevent_pywsgi with the connection
#: limits of `companion serve` (companion/serving/cafe.py).
CAFE_WORKER = "companion.serving.cafe.Worker"


def gunicorn_argv(app: str, port: int, args: argparse.Namespace) -> list[str]:
    gunicorn = shutil.which("gunicorn", path=str(Path(PY).parent)) or "gunicorn"
    argv = [gunicorn, "-w", str(args.workers), "-k", args.worker_class, "--backlog", "4096",
            "-b", f"127.0.0.1:{port}"]
    if args.worker_class in ("gthread", "gevent", "gevent_pywsgi", CAFE_WORKER):
        argv += ["--worker-connections", "4000", "--keep-alive", str(args.keep_alive)]
    if args.worker_class == "gthread":
        argv += ["--threads", str(args.threads)]
    return argv + [app]


def companion_server(kind: str, database: str, args: argparse.Namespace) -> Server:
    port = free_port()
    # Every simulated phone and host comes from 127.0.0.1: the bounds on one client
    # address's connections, streams and new nights an hour
    # (companion/serving/connections.py, companion/live/watcher.py,
    # companion/store/quotas.py) are lifted.
    env = {**os.environ, "COMPANION_DATABASE": database, "COMPANION_SECRET_KEY": "bench",
           "PYTHONPATH": str(ROOT), "COMPANION_CONNECTIONS_PER_ADDRESS": "1000000",
           "COMPANION_PUSH_STREAMS_PER_ADDRESS": "1000000",
           "COMPANION_NIGHTS_AN_HOUR": "1000000"}
    if kind == "serve":
        argv = [PY, "-m", "companion", "serve", "--host", "127.0.0.1", "--port", str(port),
                "--public-url", f"http://127.0.0.1:{port}", "--quiet"]
    else:
        env["COMPANION_PUBLIC_URL"] = f"http://127.0.0.1:{port}"
        argv = gunicorn_argv("companion.serving.wsgi:app", port, args)
    return Server(f"companion/{kind}", argv, env, port, args.cpus)


def floor_server(kind: str, args: argparse.Namespace) -> Server:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if kind == "serve":
        # `companion serve`'s own settings, read here (see bench/floor.py).
        argv = [PY, str(ROOT / "bench" / "floor.py"), "--port", str(port),
                "--settings", json.dumps(serve_settings())]
    else:
        argv = gunicorn_argv("bench.floor:create_app()", port, args)
    return Server(f"floor/{kind}", argv, env, port, args.cpus)


# --- saturation: how many requests per second, as fast as they come ----------------------

async def saturate(url: str, seconds: float, connections: int,
                   cookie: str | None = None) -> dict[str, Any] | None:
    """Requests/s of one URL with `connections` keep-alive clients (wrk if installed)."""
    if seconds <= 0:
        return None  # --saturate-seconds 0: not measured
    wrk = shutil.which("wrk")
    if wrk:
        argv = [wrk, "-t2", f"-c{connections}", f"-d{seconds}s", "--latency",
                "-H", "Accept-Encoding: gzip"]
        if cookie:
            argv += ["-H", f"Cookie: {cookie}"]
        try:
            out = (await asyncio.to_thread(subprocess.run, argv + [url], capture_output=True,
                                           text=True, timeout=seconds + 30)).stdout
        except subprocess.TimeoutExpired:
            out = ""
        if "Requests/sec" not in out:
            return {"tool": "wrk", "rps": None, "p99": None, "errors": None,
                    "failed": "wrk got no answer"}
        rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
        errors = sum(int(x) for x in re.findall(r"(?:Non-2xx or 3xx responses|"
                                                 r"Socket errors: connect) (\d+)", out))
        p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
        p99ms = None
        if p99:
            p99ms = float(p99.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[p99.group(2)]
        return {"tool": "wrk", "rps": rps, "p99": p99ms, "errors": errors}
    return await _saturate_py(url, seconds, connections, cookie)


async def _saturate_py(url, seconds, connections, cookie):
    parts = urllib.parse.urlsplit(url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    count, errors = 0, 0
    deadline = time.perf_counter() + seconds

    async def worker():
        nonlocal count, errors
        device = Device(parts.port)
        if cookie:
            name, value = cookie.split("=", 1)
            device.cookies[name] = value
        while time.perf_counter() < deadline:
            try:
                status = (await device.request("GET", path))[0]
                count += 1
                errors += status >= 400
            except (TimeoutError, OSError, asyncio.IncompleteReadError, HTTPError):
                errors += 1
        device.close()

    await asyncio.gather(*(worker() for _ in range(connections)))
    return {"tool": "python", "rps": round(count / seconds, 1), "p99": None, "errors": errors}


# --- the run ------------------------------------------------------------------------------

async def build_tables(port: int, database: str, count: int,
                       existing: list[Table]) -> tuple[list[Table], int]:
    tables = list(existing)
    sem = asyncio.Semaphore(4)

    async def one(i):
        async with sem:
            table = Table(port, i)
            await table.build(database)
            return table

    built = await asyncio.gather(*(one(i) for i in range(len(existing), count)),
                                 return_exceptions=True)
    for b in built:
        if isinstance(b, MissingElement):
            raise b  # a template changed: no table can be driven, stop
    failed = [repr(b) for b in built if isinstance(b, BaseException)]
    if failed:
        print(f"{len(failed)} tables could not be set up: {failed[0]}", flush=True)
    if not tables and failed and len(failed) == len(built):
        raise SetupError(f"no table could be set up: {failed[0]}")
    return tables + [b for b in built if not isinstance(b, BaseException)], len(failed)


async def load_level(port: int, tables: list[Table], args: argparse.Namespace,
                     warmup: float, seconds: float) -> tuple[Run, float]:
    """Every device of these tables polls; every host writes; measure one window."""
    run = Run()
    tasks = start_tables(run, tables, args, random.Random(7))
    probe = asyncio.create_task(lag_probe(run))
    try:
        elapsed = await measure(run, tasks, warmup, seconds, settle=args.write_every * 1.5)
    finally:
        probe.cancel()
    return run, elapsed


def start_tables(run: Run, tables: list[Table], args: argparse.Namespace,
                 rng: random.Random) -> list[asyncio.Task]:
    """Every device of these tables follows its screen (its stream, or polls), and every
    host writes: their tasks, recording into ``run``."""
    tasks = []
    for table in tables:
        host = Screen(run, table.host_poller, f"{table.game_url}/live", version=-1,
                      on_change=lambda r, t=table: t.take_live(r[2]),
                      screen=table.shown_live)
        phones = [Screen(run, phone, "/me/live", version=-1, table=table)
                  for phone in table.phones]
        if args.push:
            tasks.append(asyncio.create_task(push_loop(host, f"/n/{table.key}/stream")))
            tasks += [asyncio.create_task(push_loop(p, "/me/stream")) for p in phones]
        else:
            tasks += [asyncio.create_task(device_loop(x)) for x in [host, *phones]]
        tasks.append(asyncio.create_task(host_writer(run, table, args.write_every,
                                                     args.page_every, rng)))
    return tasks


async def idle_level(port: int, tables: list[Table], args: argparse.Namespace
                     ) -> dict[str, Any]:
    """Every device of these tables with its page open and nobody playing: how many
    requests an idle device makes a minute (its stream's heartbeats aside), and how many
    stream frames reach it a minute."""
    run = Run()
    tasks = []
    for table in tables:
        host = Screen(run, table.host_poller, f"{table.game_url}/live", version=-1,
                      on_change=lambda r, t=table: t.take_live(r[2]), screen=table.shown_live)
        tasks.append(asyncio.create_task(push_loop(host, f"/n/{table.key}/stream")))
        tasks += [asyncio.create_task(push_loop(Screen(run, phone, "/me/live", version=-1),
                                                "/me/stream")) for phone in table.phones]
    elapsed = await measure(run, tasks, 5, args.idle_seconds)
    devices = len(tables) * (PLAYERS + 1)
    asked = sum(run.stats[k].summary(elapsed)["n"] for k in ("poll", "live"))
    minutes = elapsed / 60
    return {"devices": devices, "seconds": round(elapsed, 1), "requests": asked,
            "requests_per_minute": round(asked / devices / minutes, 2),
            # what wakes an idle phone's radio: every frame of its stream (heartbeats,
            # the reconnect delay of each new stream) and each stream it opens again
            "frames": run.frames,
            "frames_per_minute": round(run.frames / devices / minutes, 2),
            "streams_per_minute": round(run.reopened / devices / minutes, 2),
            "stream_errors": run.stats["stream"].errors}


async def measure(run: Run, tasks: list[asyncio.Task], warmup: float, seconds: float,
                  settle: float = 0.0) -> float:
    """Warm up, measure one window, then stop every task (bounded in time). A task
    that fails (a page without the form it needs) stops them all and raises."""
    try:
        await run_for(tasks, warmup)
        run.measuring = True
        started = time.perf_counter()
        await run_for(tasks, seconds)
        run.measuring = False
        elapsed = time.perf_counter() - started
        run.stop = True
        if tasks:
            await asyncio.wait(tasks, timeout=REQUEST_TIMEOUT + POLL_SECONDS + settle)
        failure(tasks)
    finally:
        run.stop = True
        for task in tasks:
            task.cancel()
    return elapsed


async def lag_probe(run: Run) -> None:
    """How late the client's own event loop wakes a 10 ms sleep, while it measures. A
    latency the client reports includes this: a client starved of CPU (it shares the
    machine with the server) counts its own lateness as the server's."""
    while not run.stop:
        start = time.perf_counter()
        await asyncio.sleep(0.01)
        if run.measuring:
            run.lag_ms.append((time.perf_counter() - start) * 1000 - 10)


async def run_for(tasks: list[asyncio.Task], seconds: float) -> None:
    """Let the tasks run for `seconds`; raise at once the error of any that fails."""
    if not tasks:
        await asyncio.sleep(seconds)
        return
    await asyncio.wait(tasks, timeout=seconds, return_when=asyncio.FIRST_EXCEPTION)
    failure(tasks)


def failure(tasks: list[asyncio.Task]) -> None:
    """Raise the error of the first task that failed, if any."""
    for task in tasks:
        if task.done() and not task.cancelled() and task.exception() is not None:
            raise task.exception()


async def floor_level(port: int, devices: int, warmup: float,
                      seconds: float) -> tuple[Run, float]:
    run = Run()
    clients = [Device(port) for _ in range(devices)]
    tasks = [asyncio.create_task(hello_loop(run, d)) for d in clients]
    elapsed = await measure(run, tasks, warmup, seconds)
    for d in clients:
        d.close()
    return run, elapsed


def percentile(values: list[float], p: float) -> int | None:
    values = sorted(values)
    return round(values[min(len(values) - 1, int(p / 100 * len(values)))]) if values else None


async def first_load(port: int, table: Table) -> dict[str, Any]:
    """Bytes of a fresh seat page on the wire: the HTML and every file it links, gzip on;
    how those files are cached, and whether each URL carries its version (``?v=``)."""
    phone = table.phones[0]
    fresh = Device(port)
    fresh.cookies = dict(phone.cookies)
    status, _, html, wire = await fresh.request("GET", "/me")
    parts: dict[str, Any] = {"html": wire}
    static = [link for link in parse(html, "a seat page (/me)").links
              if urllib.parse.urlsplit(link).path.startswith("/static/")]
    if not static:
        raise MissingElement("no /static/ stylesheet or script on a seat page (/me)")
    caches = []
    for link in static:
        url = urllib.parse.urlsplit(link)
        status, headers, _, wire = await fresh.request("GET", link)
        assert status == 200, (link, status)
        kind = "css" if url.path.endswith(".css") else "js"
        parts[kind] = parts.get(kind, 0) + wire
        caches.append(headers.get("cache-control", ""))
    parts["cache"] = " | ".join(dict.fromkeys(caches))  # each different value once
    parts["static_urls"] = len(static)
    parts["unversioned"] = sum(
        "v" not in urllib.parse.parse_qs(urllib.parse.urlsplit(link).query) for link in static)
    qr = await table.host.request("GET", f"/n/{table.key}/qr/0.svg")
    parts["qr (host page, per seat)"] = qr[3]
    parts["total (html+css+js)"] = parts["html"] + parts.get("css", 0) + parts.get("js", 0)
    fresh.close()
    return parts


async def saturate_poll(port: int, table: Table, kind: str,
                        args: argparse.Namespace) -> dict[str, Any] | None:
    """The no-change poll of one phone, as fast as it comes (nothing else running), and
    the floor's hello the same way, interleaved: floor, app, floor, app… (``--pairs``
    pairs). A noisy machine slows both of a pair alike, so each pair's ratio holds where
    one floor figure and one app figure taken minutes apart would not. Returns the app's
    runs with ``pairs`` (each pair's figures and ratio) and ``ratio`` (their median,
    lowest and highest); the ratio is None when the floor was not run."""
    if args.saturate_seconds <= 0:
        return None
    phone = table.phones[1]
    path, version = live_region((await phone.request("GET", "/me/live?v=-9"))[2],
                                "the answer of GET /me/live?v=-9")
    url = f"http://127.0.0.1:{port}{path}?v={version}"
    cookie = f"device={phone.cookies['device']}"
    if not args.floor:
        return await saturate(url, args.saturate_seconds, args.saturate_connections, cookie)
    floor = floor_server(kind, args).start()
    pairs = []
    try:
        for _ in range(args.pairs):
            bare = await saturate(f"http://127.0.0.1:{floor.port}/", args.saturate_seconds,
                                  args.saturate_connections)
            ours = await saturate(url, args.saturate_seconds, args.saturate_connections,
                                  cookie)
            pairs.append({"floor": bare, "app": ours, "ratio": pair_ratio(bare, ours)})
            print(f"saturation pair {len(pairs)}: floor {bare and bare['rps']} req/s, "
                  f"poll {ours and ours['rps']} req/s", flush=True)
    finally:
        floor.stop()
    ratios = [p["ratio"] for p in pairs if p["ratio"] is not None]
    app_rps = [p["app"]["rps"] for p in pairs if p["app"] and p["app"]["rps"]]
    return {"tool": pairs[0]["app"]["tool"] if pairs and pairs[0]["app"] else None,
            "rps": statistics.median(app_rps) if app_rps else None,
            "errors": sum((p["app"] or {}).get("errors") or 0 for p in pairs),
            "pairs": pairs,
            "ratio": {"median": round(statistics.median(ratios), 3) if ratios else None,
                      "min": min(ratios, default=None), "max": max(ratios, default=None),
                      "n": len(ratios)}}


def pair_ratio(floor: dict[str, Any] | None, app: dict[str, Any] | None) -> float | None:
    """The app's requests/s over the floor's in one pair (None if either is missing)."""
    if not floor or not app or not floor.get("rps") or app.get("rps") is None:
        return None
    return round(app["rps"] / floor["rps"], 3)


async def bench_server(kind: str, args: argparse.Namespace, report: dict[str, Any]) -> None:
    """Every table count (and the soak) on one setup, then its bare-Flask floor."""
    print(f"\n== {kind} ==", flush=True)
    print(f"settled in {settle():.0f} s", flush=True)
    workdir = tempfile.mkdtemp(prefix="companion-bench-")
    database = str(Path(workdir) / "bench.sqlite")
    server = companion_server(kind, database, args).start()
    result = {"levels": {}, "argv": " ".join(server.argv)}
    try:
        tables, beyond = [], None
        for count in args.tables:
            if beyond is not None:
                # Most requests of a smaller count failed: past this setup's reach.
                result["levels"][count] = {"skipped": f"past this setup's reach at {beyond}"
                                                      " tables"}
                print(f"T={count}: skipped ({result['levels'][count]['skipped']})", flush=True)
                continue
            tables, level = await measure_level(server, database, count, tables, args)
            result["levels"][count] = level
            if "first_load_bytes" not in result:
                # While the server is calm (after the smallest count): bytes and saturation.
                result["first_load_bytes"] = await first_load(server.port, tables[0])
                result["saturation_poll"] = await saturate_poll(server.port, tables[0], kind,
                                                                args)
                print("saturation poll:", result["saturation_poll"], flush=True)
                if args.push and args.idle_seconds > 0:
                    result["idle"] = await idle_level(server.port, tables, args)
                    print("idle:", result["idle"], flush=True)
            if past_reach(level):
                beyond = count
        if args.soak and kind in args.soak_servers:
            result["soak"] = await soak(server, tables[:args.soak_tables], args)
        if args.overload:
            result["overload"] = await overload_level(server, database, tables, args)
            tables = tables[:2 * args.overload]
        for table in tables:
            for d in [table.host, table.host_poller, *table.phones]:
                d.close()
        result["peak_rss_mb"] = round(server.peak_rss / 2**20, 1)
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    report["servers"][kind] = result

    if args.floor:
        report["floor"][kind] = await bench_floor(kind, args, result)


def settle(most: float = 90.0) -> float:
    """Before a setup starts, let the last one's leftovers finish: the disk's pending
    writes (the last setup's database, just deleted, can still be on its way to the disk,
    and every fsync of the next setup's writes would wait behind it), the client's own
    garbage, and the machine's load, until its 1-minute average falls below 1 (at most
    ``most`` seconds). A setup measured right after another's 200 tables otherwise
    started on a busy machine. Returns the seconds it waited."""
    start = time.monotonic()
    gc.collect()
    os.sync()
    while os.getloadavg()[0] >= 1 and time.monotonic() - start < most:
        time.sleep(1)
    return time.monotonic() - start


@contextlib.contextmanager
def quiet_collector() -> Iterator[None]:
    """No full garbage collection of the load client while it measures.

    The client is one process holding every device's connections: ~175,000 objects at
    200 tables, and a full collection of them stopped it for up to 70 ms, which it then
    counted as the server's latency. Its start-up objects are frozen and its young
    collections made rarer; what it made is collected after the level.
    """
    thresholds = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 1_000, 1_000)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
        gc.collect()


async def measure_level(server: Server, database: str, count: int, tables: list[Table],
                        args: argparse.Namespace) -> tuple[list[Table], dict[str, Any]]:
    """Set up ``count`` tables (reusing ``tables``), load them and print the level's figures."""
    tables, setup_failed = await build_tables(server.port, database, count, tables)
    # Long enough for --min-writes writes, so a write's p99 is not just its slowest.
    seconds = max(args.seconds, args.min_writes * args.write_every / len(tables))
    with quiet_collector():
        run, elapsed = await load_level(server.port, tables, args, args.warmup, seconds)
    level = {k: s.summary(elapsed) for k, s in run.stats.items() if k != "hello"}
    level["seen_ms"] = {"p50": percentile(run.seen_ms, 50),
                        "p95": percentile(run.seen_ms, 95),
                        "max": percentile(run.seen_ms, 100), "n": len(run.seen_ms)}
    level["no_change_poll_bytes"] = max(run.no_change_bytes, default=None)
    level["client_lag_ms"] = {"p50": percentile(run.lag_ms, 50),
                              "p99": percentile(run.lag_ms, 99),
                              "max": percentile(run.lag_ms, 100)}
    devices = len(tables) * (PLAYERS + 1)
    # What an idle device asks: no-change answers per device and minute (with push,
    # only the once-a-minute safety refresh and a change already seen).
    level["idle_requests_per_minute"] = round(run.idle_polls / devices / (elapsed / 60), 2)
    level["streams_opened"] = run.streams_opened
    level["push"] = args.push
    level["peak_rss_mb"] = round(server.peak_rss / 2**20, 1)
    level["tables_set_up"], level["setup_failed"] = len(tables), setup_failed
    level["cpu_ms_after"] = cpu_ms()
    print(f"T={count}: " + json.dumps({k: level[k] for k in (
        "poll", "write", "live", "page", "stream", "seen_ms", "idle_requests_per_minute",
        "streams_opened", "peak_rss_mb", "client_lag_ms", "cpu_ms_after")}), flush=True)
    return tables, level


#: Overload (--overload N): a window of the load back at N tables is within budget when
#: its p99 and its write→visible p95 are (bench/budgets.py, the levels' budgets).
RECOVERY_WINDOW = 5.0
RECOVERY_P99_MS = 50
RECOVERY_SEEN_P95_MS = 300
#: How long the hosts of the tables that leave stop writing before their screens close
#: (their last writes still reach them), and the longest watch for the recovery.
LEAVING_SECONDS = 10.0
RECOVERY_MOST = 60.0


async def overload_level(server: Server, database: str, tables: list[Table],
                         args: argparse.Namespace) -> dict[str, Any]:
    """Twice the tables the setup holds (``--overload N``: N×2 tables) for ``--seconds``
    after ``--warmup``, then back to N tables: what 2× did (streams that timed out
    unanswered, 5xx answers, writes that failed or never showed on a screen, write→
    visible, how often the server said "slow down") and how many seconds after the load
    went back to N a window of RECOVERY_WINDOW s was within budget again."""
    count = args.overload
    tables, setup_failed = await build_tables(server.port, database, 2 * count, tables)
    staying, leaving = Run(), Run()
    for run in (staying, leaving):
        run.seen_log = []
    rng = random.Random(11)
    stay_tasks = start_tables(staying, tables[:count], args, rng)
    leave_tasks = start_tables(leaving, tables[count:2 * count], args, rng)
    probe = asyncio.create_task(lag_probe(staying))
    out: dict[str, Any] = {"tables": count, "overload_tables": len(tables[:2 * count]),
                           "setup_failed": setup_failed, "cpus": args.cpus}
    try:
        with quiet_collector():
            await run_for(stay_tasks + leave_tasks, args.warmup)
            staying.measuring = leaving.measuring = True
            started = time.perf_counter()
            await run_for(stay_tasks + leave_tasks, args.seconds)
            staying.measuring = leaving.measuring = False
            dropped = time.perf_counter()
            out.update(overload_figures((staying, leaving), tables[:2 * count],
                                        (started, dropped)))
            leaving.writing = False  # back to N tables: the others' hosts stop,
            await run_for(stay_tasks + leave_tasks, LEAVING_SECONDS)
            leaving.stop = True      # and their screens close
            await asyncio.wait(leave_tasks, timeout=REQUEST_TIMEOUT + POLL_SECONDS)
            out["unseen_writes"] = unseen_writes((staying, leaving), tables[:2 * count],
                                                 (started, dropped))
            out["recovery"] = await recovery(staying, stay_tasks, dropped)
    finally:
        staying.stop = leaving.stop = True
        probe.cancel()
        for task in stay_tasks + leave_tasks:
            task.cancel()
    out["recovery_seconds"] = out["recovery"]["seconds"]
    out["cpu_ms_after"], out["loadavg"] = cpu_ms(), [round(x, 2) for x in os.getloadavg()]
    out["peak_rss_mb"] = round(server.peak_rss / 2**20, 1)
    print("overload: " + json.dumps({k: v for k, v in out.items() if k != "at_2x"}),
          flush=True)
    return out


def overload_figures(runs: tuple[Run, ...], tables: list[Table],
                     window: tuple[float, float]) -> dict[str, Any]:
    """The 2× window's figures, both halves of the tables together."""
    seconds = window[1] - window[0]
    merged = {kind: Stats() for kind in ("poll", "live", "write", "page", "stream")}
    for run in runs:
        for kind, stats in merged.items():
            got = run.stats[kind]
            stats.ms += got.ms
            stats.ok, stats.refused = stats.ok + got.ok, stats.refused + got.refused
            stats.errors, stats.failed = stats.errors + got.errors, stats.failed + got.failed
            for name, n in got.error_kinds.items():
                stats.error_kinds[name] = stats.error_kinds.get(name, 0) + n
    at_2x = {kind: stats.summary(seconds) for kind, stats in merged.items()}
    kinds = [stats.error_kinds for stats in merged.values()]
    return {
        "at_2x": at_2x,
        "seconds": round(seconds, 1),
        "stream_timeouts": merged["stream"].error_kinds.get("TimeoutError", 0),
        "stream_errors": merged["stream"].errors,
        "errors_5xx": sum(n for k in kinds for name, n in k.items() if name.startswith("5")),
        "writes": at_2x["write"]["n"],
        "writes_failed": merged["write"].errors,
        "p99_ms": max((at_2x[k]["p99"] or 0) for k in ("poll", "live", "write", "page")),
        "turned_away": sum(run.turned_away for run in runs),
        "streams_busy": sum(run.busy for run in runs),
        "slowed_answers": sum(run.slowed for run in runs),
        "refreshes": sum(at_2x[k]["n"] for k in ("poll", "live")),
    }


def unseen_writes(runs: tuple[Run, ...], tables: list[Table],
                  window: tuple[float, float]) -> dict[str, Any]:
    """Of the writes answered in ``window``, on how many phone screens each showed, and
    how soon: write→visible over every (write, phone) pair, a pair never shown counted as
    never (so it is in the p95 as the slowest)."""
    made = sum(1 for table in tables for at, _ in table.write_done
               if window[0] <= at < window[1]) * PLAYERS
    shown = sorted((seen - at) * 1000 for run in runs for at, seen in run.seen_log
                   if window[0] <= at < window[1])
    never = max(0, made - len(shown))
    ranked = shown + [float("inf")] * never

    def pct(p: float) -> float | None:
        if not ranked:
            return None
        value = ranked[min(len(ranked) - 1, int(p / 100 * len(ranked)))]
        return None if value == float("inf") else round(value)

    return {"pairs": made, "never": never, "p50": pct(50), "p95": pct(95),
            "max": round(shown[-1]) if shown else None}


async def recovery(run: Run, tasks: list[asyncio.Task], dropped: float) -> dict[str, Any]:
    """Windows of RECOVERY_WINDOW s at N tables, until one is within budget (p99 of every
    request < RECOVERY_P99_MS, write→visible p95 ≤ RECOVERY_SEEN_P95_MS, no error): the
    seconds from the drop to that window's end, or None after RECOVERY_MOST s."""
    windows = []
    while time.perf_counter() - dropped < RECOVERY_MOST:
        run.stats = {k: Stats() for k in run.stats}
        run.seen_ms = []
        run.measuring = True
        await run_for(tasks, RECOVERY_WINDOW)
        run.measuring = False
        got = {k: run.stats[k].summary(RECOVERY_WINDOW) for k in ("poll", "live", "write",
                                                                   "page")}
        p99 = max((s["p99"] or 0) for s in got.values())
        seen = percentile(run.seen_ms, 95)
        errors = sum(s["errors"] for s in got.values())
        at = round(time.perf_counter() - dropped, 1)
        windows.append({"at": at, "p99": p99, "seen_p95": seen, "errors": errors})
        if p99 < RECOVERY_P99_MS and errors == 0 and (seen or 0) <= RECOVERY_SEEN_P95_MS:
            return {"seconds": at, "windows": windows}
    return {"seconds": None, "windows": windows}


def past_reach(level: dict[str, Any]) -> bool:
    """Most requests failed, no poll was answered, or a median poll waited seconds."""
    failed = sum(level[k]["errors"] for k in ("poll", "live", "write", "page"))
    median = level["poll"]["p50"]
    if median is None:  # no quiet poll answered: every answer had a change?
        median = level["live"]["p50"]
    return (failed > sum(level[k]["n"] for k in ("poll", "live", "write", "page")) / 2
            or median is None or median > 1000)


async def bench_floor(kind: str, args: argparse.Namespace,
                      result: dict[str, Any]) -> dict[str, Any]:
    """The bare-Flask floor of a setup, at each table count measured in ``result``."""
    floor = floor_server(kind, args).start()
    try:
        fl = {"levels": {}, "argv": " ".join(floor.argv)}
        for count in args.tables:
            if "skipped" in result["levels"].get(count, {}):
                continue  # no figure of ours to compare with
            run, elapsed = await floor_level(floor.port, count * (PLAYERS + 1),
                                             args.warmup, args.seconds)
            fl["levels"][count] = run.stats["hello"].summary(elapsed)
            print(f"floor T={count}: {fl['levels'][count]}", flush=True)
        fl["peak_rss_mb"] = round(floor.peak_rss / 2**20, 1)
    finally:
        floor.stop()
    return fl


async def soak(server: Server, tables: list[Table], args: argparse.Namespace) -> dict[str, Any]:
    """--soak-tables tables for --soak seconds: is memory flat?"""
    print(f"soak: {len(tables)} tables for {args.soak} s", flush=True)
    mark = time.monotonic()
    with quiet_collector():
        run, elapsed = await load_level(server.port, tables, args, 5, args.soak)
    samples = [(t - mark, rss) for t, rss in server.rss_samples if t >= mark + 5]
    minute = min(60.0, args.soak / 5)
    first = [r for t, r in samples if t < 5 + minute]
    last = [r for t, r in samples if t > samples[-1][0] - minute] if samples else []
    out = {"seconds": round(elapsed), "tables": len(tables),
           "requests": sum(len(s.ms) for s in run.stats.values()),
           "errors": sum(s.errors for s in run.stats.values()),
           "rss_first_mb": round(statistics.median(first) / 2**20, 1) if first else None,
           "rss_last_mb": round(statistics.median(last) / 2**20, 1) if last else None,
           "rss_max_mb": round(max(r for _, r in samples) / 2**20, 1) if samples else None,
           "poll": run.stats["poll"].summary(elapsed)}
    print("soak:", out, flush=True)
    return out


def cpu_ms() -> float:
    """How fast this machine is right now: the best of three runs of a fixed pure-Python
    loop, in ms (lower is faster). A shared VM's speed drifts; levels record it."""
    def once():
        start, total = time.perf_counter(), 0
        for i in range(1_000_000):
            total += i * i
        return (time.perf_counter() - start) * 1000
    return round(min(once() for _ in range(3)), 1)


def machine() -> dict[str, Any]:
    cpu = "?"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    load = os.getloadavg()
    return {"nproc": os.cpu_count(), "cpu": cpu, "python": platform.python_version(),
            "platform": platform.platform(), "loadavg_at_start": [round(x, 2) for x in load],
            "cpu_ms_at_start": cpu_ms(),
            "date": time.strftime("%Y-%m-%d %H:%M %Z")}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--servers", default="serve,gunicorn",
                   help="which setups to measure (serve = `companion serve`, gunicorn = the "
                        "café setup)")
    p.add_argument("--tables", default="10,50,100,200", help="table counts, in order")
    p.add_argument("--cpus", type=float, default=None,
                   help="hold each server (and the floor) to this many cores with the "
                        "cgroup cpu controller (bench/quota.py; root): a slower laptop")
    p.add_argument("--seconds", type=float, default=30, help="measured seconds per level")
    p.add_argument("--warmup", type=float, default=10, help="seconds of load before measuring")
    p.add_argument("--min-writes", type=int, default=300,
                   help="measure a level at least this many writes long (10 tables: 90 s)")
    p.add_argument("--write-every", type=float, default=3.0,
                   help="seconds between two actions of one host (jittered ±30%%)")
    p.add_argument("--page-every", type=float, default=15.0,
                   help="seconds between two full page loads of one host")
    p.add_argument("--workers", type=int, default=2,
                   help="gunicorn workers (the café setup: one per core)")
    p.add_argument("--threads", type=int, default=2, help="gunicorn threads per worker")
    p.add_argument("--keep-alive", type=int, default=75,
                   help="gunicorn's keep-alive seconds (gevent, gthread)")
    p.add_argument("--worker-class", default=CAFE_WORKER,
                   choices=(CAFE_WORKER, "gevent", "gevent_pywsgi", "gthread", "sync"),
                   help="gunicorn's worker class (the café setup: companion.serving.cafe.Worker, "
                        "gevent's own HTTP server in gunicorn's workers with companion "
                        "serve's connection limits; it and gevent hold the "
                        "live-push streams, gthread and sync cannot, so run them with "
                        "--no-push)")
    p.add_argument("--no-push", dest="push", action="store_false",
                   help="pages poll every 2 s instead of holding a live-push stream")
    p.add_argument("--saturate-seconds", type=int, default=10)
    p.add_argument("--saturate-connections", type=int, default=16)
    p.add_argument("--pairs", type=int, default=3,
                   help="interleaved floor/app saturation pairs (the ratio is their median)")
    p.add_argument("--idle-seconds", type=float, default=130,
                   help="after the smallest level, this long with nobody playing: the "
                        "requests an idle device makes a minute (0: not measured)")
    p.add_argument("--soak", type=float, default=0,
                   help="after the levels, keep --soak-tables tables polling and writing "
                        "this many seconds and watch memory (600 = the 10-minute soak)")
    p.add_argument("--soak-tables", type=int, default=100)
    p.add_argument("--soak-servers", default="gunicorn", type=lambda v: v.split(","),
                   help="which setups get the soak")
    p.add_argument("--overload", type=int, default=0, metavar="N",
                   help="after the levels, N×2 tables (twice a capacity of N) for --seconds "
                        "after --warmup, then back to N: what 2× did and the seconds until "
                        "a 5 s window is within budget again (bench/budgets.py, "
                        "OVERLOAD_BUDGETS)")
    p.add_argument("--no-floor", dest="floor", action="store_false",
                   help="skip the bare-Flask floor")
    p.add_argument("--quick", action="store_true",
                   help="a smoke run: `companion serve`, 5 and 10 tables, 8 s each")
    p.add_argument("--json", help="write the whole report here as JSON")
    p.add_argument("--table", metavar="REPORT",
                   help="only print the budget table of a saved report (a --json file)")
    args = p.parse_args(argv)
    if args.quick:
        args.servers, args.tables, args.seconds, args.warmup = "serve", "5,10", 8, 3
        args.saturate_seconds, args.min_writes = 3, 0
    args.servers = [s for s in args.servers.split(",") if s]
    args.tables = [int(t) for t in args.tables.split(",") if t]
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.table:
        report = json.loads(Path(args.table).read_text())
        print(budgets.markdown_table(report, source=args.table))
        return 0
    report = {"machine": machine(), "command": " ".join([Path(PY).name, *sys.argv]),
              "cpus": args.cpus, "servers": {}, "floor": {}}
    print(json.dumps(report["machine"]), flush=True)
    try:
        for kind in args.servers:
            asyncio.run(bench_server(kind, args, report))
    except MissingElement as error:
        print(f"\nbench stopped: {error}.\nThe bench drives the app through its forms, found "
              "by their data-action (bench/page.py): a template changed?", file=sys.stderr)
        return 2
    except SetupError as error:
        print(f"\nbench stopped: {error}", file=sys.stderr)
        return 2
    report["budgets"] = [v.as_dict() for v in budgets.judge(report,
                                                             budgets=budgets.sets(report))]
    print_summary(report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    return 0


def print_summary(report: dict[str, Any]) -> None:
    print("\n## Summary")
    for kind, result in report["servers"].items():
        floor = report["floor"].get(kind, {})
        print(f"\n### {kind}: {result['argv']}")
        print("| tables | kind | req/s | p50 ms | p95 ms | p99 ms | errors | refused |")
        print("|---|---|---|---|---|---|---|---|")
        for count, level in result["levels"].items():
            if "skipped" in level:
                print(f"| {count} | skipped: {level['skipped']} | | | | | | |")
                continue
            for name in ("poll", "live", "write", "page"):
                s = level[name]
                print(f"| {count} | {name} | {s['rps']} | {s['p50']} | {s['p95']} | {s['p99']} "
                      f"| {s['errors']} | {s['refused']} |")
            f = floor.get("levels", {}).get(count)
            if f:
                print(f"| {count} | floor hello | {f['rps']} | {f['p50']} | {f['p95']} | "
                      f"{f['p99']} | {f['errors']} | - |")
        print("\n| tables | write→phone p50 ms | p95 ms | max ms | peak RSS MB |")
        print("|---|---|---|---|---|")
        for count, level in result["levels"].items():
            if "skipped" in level:
                continue
            s = level["seen_ms"]
            print(f"| {count} | {s['p50']} | {s['p95']} | {s['max']} | {level['peak_rss_mb']} |")
        sat = result.get("saturation_poll")
        if sat and sat["rps"]:
            ratio = sat.get("ratio") or {}
            spread = (f" = {ratio['median']} × floor (median of {ratio['n']} interleaved "
                      f"pairs; {ratio['min']}–{ratio['max']})") if ratio.get("median") else ""
            print(f"\nno-change poll, saturated: {sat['rps']} req/s{spread} [{sat['tool']}]")
        sizes = [lv["no_change_poll_bytes"] for lv in result["levels"].values()
                 if lv.get("no_change_poll_bytes")]
        print(f"no-change poll bytes on the wire: {max(sizes, default=None)}")
        print(f"seat page first load bytes: {result.get('first_load_bytes')}")
        print(f"peak RSS: {result.get('peak_rss_mb')} MB (floor {floor.get('peak_rss_mb')} MB)")
        if result.get("soak"):
            print(f"soak: {result['soak']}")
        if result.get("overload"):
            print("overload:", {k: v for k, v in result["overload"].items() if k != "at_2x"})
        if kind != budgets.CAFE:
            print(f"\nThe budgets on {kind} (for reference: they are judged on "
                  f"{budgets.CAFE}):\n")
            print(budgets.markdown_table(report, setup=kind))
    print("\n## Budgets\n")
    print(budgets.markdown_table(report))
    judged = budgets.sets(report)
    failed = sum(not v.passed for v in budgets.judge(report, budgets=judged))
    print(f"\n{failed} of {len(judged)} budgets FAIL" if failed
          else "\nevery budget PASS")


if __name__ == "__main__":
    sys.exit(main())
