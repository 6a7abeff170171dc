"""The load bench's simulated table: a host and its phones, as their pages behave.

A table is built through the app's own routes (a night of 8 players, every seat
claimed, a game of No Touch Kraken started through its form). Then each device's
screen (``Screen``) follows its live region: with live push (``push_loop``) it holds
its night's stream (``follow_stream``) and refreshes at each "changed", else it polls
(``device_loop``); the host records a Kraken action every few seconds from the form on
its own screen (``host_writer``). Every answer is recorded into the measured window
(``Run``), kind by kind (``Stats``).
"""

from __future__ import annotations

import asyncio
import math
import random
import re
import sqlite3
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

from bench.client import REQUEST_TIMEOUT, Device, HTTPError, Response
from bench.page import MissingElement, Page, live_region, parse

POLL_SECONDS = 2.0
SAFETY_SECONDS = 60.0  # static/js/live.js: with a stream open, a page asks once a minute
SPREAD_SECONDS = 0.15  # static/js/live.js: after a change, each page waits up to this long
CHASE_SECONDS = 1.0  # static/js/live.js: a refresh that did not land is asked again after this
# (or as long as its stream's "spread" says, companion/live/streams.py: less for fewer streams)
PLAYERS = 8


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
        # docs/measurements/2026-12-02/README.md, "Overload": this server tells none of
        # it): wait this long
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


def event_data(chunk: bytes, event: str) -> list[int]:
    """The number each ``event`` frame of a stream's chunk carries, whatever other
    fields the frame holds between its event and its data (as EventSource reads it: a
    "changed" carries its ``id:``, companion/live/streams.py)."""
    pattern = rb"event: " + event.encode() + rb"\n(?:[^\n]+\n)*?data: (\d+)"
    return [int(told) for told in re.findall(pattern, chunk)]


def take_frames(chunk: bytes, wake: asyncio.Event, screen: Screen) -> None:
    """What the page does with a stream's frames: keeps its ``retry:``, its spread and
    whether the server said "busy", and sets ``wake`` at a change it does not show."""
    if screen.run.measuring:
        screen.run.frames += chunk.count(b"\n\n")
    for told in re.findall(rb"retry: (\d+)", chunk):
        screen.retry_ms = int(told)
    busy = event_data(chunk, "busy")
    if busy:  # not opened: the page polls as slowly as told (the mechanism tried and not kept)
        screen.slow, screen.streaming = float(busy[0]), False
        screen.run.busy += screen.run.measuring
    elif b"event: spread" in chunk:
        screen.streaming = True
    for told in event_data(chunk, "spread"):
        screen.spread = min(SPREAD_SECONDS, told / 1000)
    for version in event_data(chunk, "changed"):
        if version != screen.shown():
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
