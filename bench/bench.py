"""Many tables on one machine: the load benchmark of issue 7.

It starts the real server on loopback (``companion serve`` under waitress, and gunicorn
with several workers for the café setup), creates tables through the app's own HTTP
routes (a host makes a night of 8 players, 8 phones claim their seats through the
``/s/<token>`` links, the host starts No Touch Kraken through the real form with its CSRF
token), then every device polls the way the pages poll (its live region's own URL,
``/me/live?v=N`` or ``/n/<key>/g/<n>/live?v=N``, every 2 s: 204 when nothing changed,
else the fresh fragment in the same answer) while each host records a Kraken action
every few seconds through the real forms (the ``pos`` and the choices read from its own page).

Reported, in one run: throughput and p50/p95/p99 latency and errors of polls, writes,
fragments and full host pages at each table count; the floor (bench/floor.py, a bare
Flask "hello" under the same server and the same load) and the ratio to it; the
saturation throughput of a no-change poll against the floor's (wrk, if installed, else
this client); bytes of a no-change poll and of a seat page's first load; the server's
peak memory (RSS, all its processes); and the time from a host's write until a phone
has the new fragment.

Every loop is bounded in count and time; everything is on 127.0.0.1.

    .venv/bin/python bench/bench.py                       # the full run (about 15 min)
    .venv/bin/python bench/bench.py --quick               # a smoke run (about 1 min)
    .venv/bin/python bench/bench.py --soak 600 --json report.json   # all, and the soak (~30 min)
"""

import argparse
import asyncio
import gzip
import json
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
POLL_SECONDS = 2.0
PLAYERS = 8
REQUEST_TIMEOUT = 10.0

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
POLL_V = re.compile(r'hx-get="([^"?]+)\?v=(-?\d+)"')
POS = re.compile(r'name="pos" value="(\d+)"')


# --- a small keep-alive HTTP/1.1 client -----------------------------------------------

class HTTPError(Exception):
    pass


class Device:
    """One browser: one keep-alive connection, its cookies, gzip like a real browser."""

    def __init__(self, port, cookies=None):
        self.port = port
        self.cookies = {} if cookies is None else cookies  # shared by a browser's connections
        self.reader = self.writer = None

    async def _connect(self):
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def request(self, method, path, *, form=None, headers=None):
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
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        head = await self.reader.readuntil(b"\r\n\r\n")
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
        if got.get("transfer-encoding") == "chunked":
            raw = b""
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).strip(), 16)
                chunk = await self.reader.readexactly(size + 2)
                raw += chunk[:-2]
                if size == 0:
                    break
        elif status in (204, 304) or method == "HEAD":
            raw = b""
        else:
            raw = await self.reader.readexactly(int(got.get("content-length", 0)))
        wire = len(head) + len(raw)
        if got.get("connection", "").lower() == "close":
            self.close()
        if got.get("content-encoding") == "gzip":
            raw = gzip.decompress(raw)
        return status, got, raw.decode("utf-8", "replace"), wire


# --- measurements ---------------------------------------------------------------------

class Stats:
    """Latencies (ms) and outcomes of one kind of request, inside the measured window."""

    def __init__(self):
        self.ms, self.ok, self.refused, self.errors = [], 0, 0, 0
        self.error_kinds = {}
        self.failed = 0  # no answer at all (refused connection, timeout)

    def add(self, ms, status=None, error=None):
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

    def summary(self, seconds):
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
        self.stats = {k: Stats() for k in ("poll", "live", "write", "page", "hello")}
        self.seen_ms = []
        self.measuring = False
        self.stop = False
        self.no_change_bytes = []

    def record(self, kind, ms, status=None, error=None):
        if self.measuring:
            self.stats[kind].add(ms, status, error)


async def timed(run, kind, device, method, path, **kw):
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
    def __init__(self, port, index):
        self.port = port
        self.index = index
        self.host = Device(port)
        self.phones = [Device(port) for _ in range(PLAYERS)]
        # The host's page polls on one connection while its forms post on another.
        self.host_poller = Device(port, cookies=self.host.cookies)
        self.key = self.game_url = None
        self.html = ""            # the host's current #live fragment (or page)
        self.write_done = []      # perf_counter when each successful write's answer came

    async def build(self, database):
        host = self.host
        status, _, html, _ = await host.request("GET", "/")
        token = CSRF.search(html).group(1)
        names = [f"T{self.index}P{i}" for i in range(PLAYERS)]
        status, headers, _, _ = await host.request(
            "POST", "/nights", form={"csrf_token": token, "name": names})
        assert status == 303, status
        self.key = headers["location"].rsplit("/", 1)[1]
        with sqlite3.connect(database, timeout=30) as conn:
            tokens = [r[0] for r in conn.execute(
                "select s.token from seats s join nights n on n.id = s.night_id "
                "where n.key = ? order by s.position", [self.key])]
        for phone, seat_token in zip(self.phones, tokens, strict=True):
            status, _, _, _ = await phone.request("GET", f"/s/{seat_token}")
            assert status == 303, status
        await self.new_game()

    async def new_game(self):
        status, _, html, _ = await self.host.request("GET", f"/n/{self.key}/new/kraken")
        form = {"csrf_token": CSRF.search(html).group(1)}
        form.update({f"seat{i}": "on" for i in range(PLAYERS)})
        status, headers, _, _ = await self.host.request(
            "POST", f"/n/{self.key}/new/kraken", form=form)
        assert status == 303, status
        self.game_url = urllib.parse.urlsplit(headers["location"]).path
        status, _, self.html, _ = await self.host.request("GET", self.game_url)

    def next_action(self, rng):
        """What a host would tap next on this page: (path, form) or None for a new game."""
        html = self.html
        csrf = CSRF.search(html)
        pos = POS.search(html)
        if csrf is None:
            return None
        form = {"csrf_token": csrf.group(1)}
        if "kraken/reveal" in html and pos:
            part = html[html.index("kraken-reveal"):]
            seats = re.findall(r'<input type="radio" name="seat" value="(\d+)" required>', part)
            cards = re.findall(r'<button type="submit" name="card" value="([^"]+)"'
                               r' class="card-[a-z]+">', part)
            if seats and cards:
                form.update(pos=pos.group(1), seat=rng.choice(seats), card=rng.choice(cards))
                return f"{self.game_url}/kraken/reveal", form
        if "kraken/marker" in html and pos:
            seats = re.findall(r'name="seat" value="(\d+)"', html)
            if seats:
                form.update(pos=pos.group(1), seat=rng.choice(seats))
                return f"{self.game_url}/kraken/marker", form
        return None


async def device_loop(run, device, live_path, version, on_change=None, table=None,
                      screen=None):
    """Poll like htmx's `every 2s` on the page's live region: GET <live>?v=<shown>.

    Nothing new: 204, counted as a "poll". A change: the fresh fragment in the same
    answer, counted as "live" (one request either way, as in the real pages).
    ``screen`` (the host) returns the HTML on screen now: a form's answer swaps in the
    fresh region, so the next poll asks with the version that answer showed.
    """
    await asyncio.sleep(random.uniform(0, POLL_SECONDS))
    next_at = time.perf_counter()
    seen_upto = len(table.write_done) if table else 0
    while not run.stop:
        next_at += POLL_SECONDS
        visible = len(table.write_done) if table else 0
        if screen is not None and (shown := POLL_V.search(screen())):
            version = int(shown.group(2))
        path = live_path() if callable(live_path) else live_path
        start = time.perf_counter()
        try:
            result = await device.request("GET", f"{path}?v={version}",
                                          headers={"HX-Request": "true"})
        except (TimeoutError, OSError, asyncio.IncompleteReadError, HTTPError) as error:
            run.record("poll", (time.perf_counter() - start) * 1000, error=type(error).__name__)
            result = None
        else:
            kind = "live" if result[0] == 200 else "poll"
            run.record(kind, (time.perf_counter() - start) * 1000, status=result[0])
        if result is not None and result[0] == 200:
            match = POLL_V.search(result[2])
            if match:
                version = int(match.group(2))
            if on_change is not None:
                on_change(result)
            if table is not None and visible > seen_upto:
                # Every write answered before this poll was sent is now on this screen.
                if run.measuring:
                    run.seen_ms.append((time.perf_counter() - table.write_done[seen_upto]) * 1000)
                seen_upto = visible
        elif result is not None and result[0] == 204 and run.measuring \
                and len(run.no_change_bytes) < 1000:
            run.no_change_bytes.append(result[3])
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))


async def host_writer(run, table, write_every, page_every, rng):
    """The host records an action every few seconds, from the form on its own screen."""
    await asyncio.sleep(rng.uniform(0, write_every))
    next_page = time.perf_counter() + rng.uniform(0, page_every)
    while not run.stop:
        action = table.next_action(rng)
        if action is None:
            # The game is over: "Next game" through the real form, then its page.
            csrf = CSRF.search(table.html)
            if "kraken/next" in table.html and csrf:
                result = await timed(run, "write", table.host, "POST",
                                     f"{table.game_url}/kraken/next",
                                     form={"csrf_token": csrf.group(1)})
                if result is not None and result[0] == 303:
                    table.game_url = urllib.parse.urlsplit(result[1]["location"]).path
                    table.write_done.append(time.perf_counter())
            result = await timed(run, "page", table.host, "GET", table.game_url)
            if result is not None and result[0] == 200:
                table.html = result[2]
        else:
            path, form = action
            result = await timed(run, "write", table.host, "POST", path, form=form,
                                 headers={"HX-Request": "true"})
            if result is not None:
                if result[0] == 200:
                    table.write_done.append(time.perf_counter())
                if result[0] in (200, 409, 422):
                    table.html = result[2]
        if time.perf_counter() >= next_page and not run.stop:
            # Now and then the host reloads the whole page (a full render).
            next_page += page_every
            result = await timed(run, "page", table.host, "GET", table.game_url)
            if result is not None and result[0] == 200:
                table.html = result[2]
        await asyncio.sleep(write_every * rng.uniform(0.7, 1.3))


async def hello_loop(run, device):
    """The floor's device: the same cadence, a bare "hello" instead of a poll."""
    await asyncio.sleep(random.uniform(0, POLL_SECONDS))
    next_at = time.perf_counter()
    while not run.stop:
        next_at += POLL_SECONDS
        await timed(run, "hello", device, "GET", "/")
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))


# --- servers --------------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A server process (and its children), its port and its memory."""

    def __init__(self, name, argv, env, port):
        self.name, self.argv, self.env, self.port = name, argv, env, port
        self.process = None
        self.peak_rss = 0
        self.rss_samples = []
        self._sampling = False

    def start(self):
        # The server's log goes to a file: a pipe nobody reads fills up (64 KB of
        # waitress's "task queue depth" warnings) and then blocks the server for good.
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen(self.argv, env=self.env, cwd=ROOT,
                                        stdout=subprocess.DEVNULL, stderr=self.log,
                                        start_new_session=True)
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
        self._sampling = True
        threading.Thread(target=self._sample, daemon=True).start()
        return self

    def pids(self):
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

    def rss(self):
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

    def stop(self):
        self._sampling = False
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=5)
        self.log.close()


def gunicorn_argv(app, port, args):
    gunicorn = shutil.which("gunicorn", path=str(Path(PY).parent)) or "gunicorn"
    argv = [gunicorn, "-w", str(args.workers), "-k", args.worker_class, "--backlog", "4096",
            "-b", f"127.0.0.1:{port}"]
    if args.worker_class == "gthread":
        argv += ["--threads", str(args.threads), "--worker-connections", "4000",
                 "--keep-alive", str(args.keep_alive)]
    return argv + [app]


def companion_server(kind, database, args):
    port = free_port()
    env = {**os.environ, "COMPANION_DATABASE": database, "COMPANION_SECRET_KEY": "bench",
           "PYTHONPATH": str(ROOT)}
    if kind == "waitress":
        argv = [PY, "-m", "companion", "serve", "--host", "127.0.0.1", "--port", str(port),
                "--public-url", f"http://127.0.0.1:{port}", "--quiet",
                "--threads", str(args.waitress_threads)]
    else:
        env["COMPANION_PUBLIC_URL"] = f"http://127.0.0.1:{port}"
        argv = gunicorn_argv("companion.wsgi:app", port, args)
    return Server(f"companion/{kind}", argv, env, port)


def floor_server(kind, args):
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if kind == "waitress":
        argv = [PY, str(ROOT / "bench" / "floor.py"), "--port", str(port),
                "--threads", str(args.waitress_threads)]
    else:
        argv = gunicorn_argv("bench.floor:create_app()", port, args)
    return Server(f"floor/{kind}", argv, env, port)


# --- saturation: how many requests per second, as fast as they come ----------------------

def saturate(url, seconds, connections, cookie=None):
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
            out = subprocess.run(argv + [url], capture_output=True, text=True,
                                 timeout=seconds + 30).stdout
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
    return asyncio.run(_saturate_py(url, seconds, connections, cookie))


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

async def build_tables(port, database, count, existing):
    tables = list(existing)
    sem = asyncio.Semaphore(4)

    async def one(i):
        async with sem:
            table = Table(port, i)
            await table.build(database)
            return table

    built = await asyncio.gather(*(one(i) for i in range(len(existing), count)),
                                 return_exceptions=True)
    failed = [repr(b) for b in built if isinstance(b, BaseException)]
    if failed:
        print(f"{len(failed)} tables could not be set up: {failed[0]}", flush=True)
    return tables + [b for b in built if not isinstance(b, BaseException)], len(failed)


async def load_level(port, tables, args, warmup, seconds):
    """Every device of these tables polls; every host writes; measure one window."""
    run = Run()
    rng = random.Random(7)
    tasks = []
    for table in tables:
        tasks.append(asyncio.create_task(device_loop(
            run, table.host_poller, lambda t=table: f"{t.game_url}/live",
            version=-1, on_change=lambda r, t=table: setattr(t, "html", r[2]), table=None,
            screen=lambda t=table: t.html)))
        for phone in table.phones:
            tasks.append(asyncio.create_task(device_loop(
                run, phone, "/me/live", version=-1, table=table)))
        tasks.append(asyncio.create_task(host_writer(run, table, args.write_every,
                                                     args.page_every, rng)))
    elapsed = await measure(run, tasks, warmup, seconds, settle=args.write_every * 1.5)
    return run, elapsed


async def measure(run, tasks, warmup, seconds, settle=0.0):
    """Warm up, measure one window, then stop every task (bounded in time)."""
    await asyncio.sleep(warmup)
    run.measuring = True
    started = time.perf_counter()
    await asyncio.sleep(seconds)
    run.measuring = False
    elapsed = time.perf_counter() - started
    run.stop = True
    await asyncio.wait(tasks, timeout=REQUEST_TIMEOUT + POLL_SECONDS + settle)
    for task in tasks:
        task.cancel()
    return elapsed


async def floor_level(port, devices, warmup, seconds):
    run = Run()
    clients = [Device(port) for _ in range(devices)]
    tasks = [asyncio.create_task(hello_loop(run, d)) for d in clients]
    elapsed = await measure(run, tasks, warmup, seconds)
    for d in clients:
        d.close()
    return run, elapsed


def percentile(values, p):
    values = sorted(values)
    return round(values[min(len(values) - 1, int(p / 100 * len(values)))]) if values else None


async def first_load(port, table):
    """Bytes of a fresh seat page on the wire: the HTML and every file it links, gzip on."""
    phone = table.phones[0]
    fresh = Device(port)
    fresh.cookies = dict(phone.cookies)
    status, _, html, wire = await fresh.request("GET", "/me")
    parts = {"html": wire}
    for link in re.findall(r'(?:href|src)="(/static/[^"]+)"', html):
        status, headers, _, wire = await fresh.request("GET", link.replace("&amp;", "&"))
        assert status == 200, (link, status)
        kind = "css" if link.split("?")[0].endswith(".css") else "js"
        parts[kind] = parts.get(kind, 0) + wire
        parts.setdefault("cache", headers.get("cache-control"))
    qr = await table.host.request("GET", f"/n/{table.key}/qr/0.svg")
    parts["qr (host page, per seat)"] = qr[3]
    parts["total (html+css+js)"] = parts["html"] + parts.get("css", 0) + parts.get("js", 0)
    fresh.close()
    return parts


async def saturate_poll(port, table, args):
    """The no-change poll of one phone, as fast as it comes (nothing else running)."""
    phone = table.phones[1]
    version = int(POLL_V.search((await phone.request("GET", "/me/live?v=-9"))[2]).group(2))
    return saturate(f"http://127.0.0.1:{port}/me/live?v={version}", args.saturate_seconds,
                    args.saturate_connections, f"device={phone.cookies['device']}")


async def bench_server(kind, args, report):
    print(f"\n== {kind} ==", flush=True)
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
            tables, setup_failed = await build_tables(server.port, database, count, tables)
            # Long enough for --min-writes writes, so a write's p99 is not just its slowest.
            seconds = max(args.seconds, args.min_writes * args.write_every / len(tables))
            run, elapsed = await load_level(server.port, tables, args, args.warmup, seconds)
            level = {k: s.summary(elapsed) for k, s in run.stats.items() if k != "hello"}
            level["seen_ms"] = {"p50": percentile(run.seen_ms, 50),
                                "p95": percentile(run.seen_ms, 95),
                                "max": percentile(run.seen_ms, 100), "n": len(run.seen_ms)}
            level["no_change_poll_bytes"] = max(run.no_change_bytes, default=None)
            level["peak_rss_mb"] = round(server.peak_rss / 2**20, 1)
            level["tables_set_up"], level["setup_failed"] = len(tables), setup_failed
            level["cpu_ms_after"] = cpu_ms()
            result["levels"][count] = level
            print(f"T={count}: " + json.dumps({k: level[k] for k in (
                "poll", "write", "live", "page", "seen_ms", "peak_rss_mb", "cpu_ms_after")}),
                  flush=True)
            if "first_load_bytes" not in result:
                # While the server is calm (after the smallest count): bytes and saturation.
                result["first_load_bytes"] = await first_load(server.port, tables[0])
                result["saturation_poll"] = await saturate_poll(server.port, tables[0], args)
                print("saturation poll:", result["saturation_poll"], flush=True)
            failed = sum(level[k]["errors"] for k in ("poll", "live", "write", "page"))
            if (failed > sum(level[k]["n"] for k in ("poll", "live", "write", "page")) / 2
                    or (level["poll"]["p50"] or 0) > 1000):
                beyond = count  # most requests failed, or a median poll waited seconds
        if args.soak and kind in args.soak_servers:
            result["soak"] = await soak(server, tables[:args.soak_tables], args)
        for table in tables:
            for d in [table.host, table.host_poller, *table.phones]:
                d.close()
        result["peak_rss_mb"] = round(server.peak_rss / 2**20, 1)
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    report["servers"][kind] = result

    if args.floor:
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
                if "saturation" not in fl:
                    # As for ours: after the smallest count, while the server is calm.
                    fl["saturation"] = saturate(f"http://127.0.0.1:{floor.port}/",
                                                args.saturate_seconds, args.saturate_connections)
                    print("saturation floor:", fl["saturation"], flush=True)
            fl["peak_rss_mb"] = round(floor.peak_rss / 2**20, 1)
        finally:
            floor.stop()
        report["floor"][kind] = fl


async def soak(server, tables, args):
    """--soak-tables tables for --soak seconds: is memory flat?"""
    print(f"soak: {len(tables)} tables for {args.soak} s", flush=True)
    mark = time.monotonic()
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


def cpu_ms():
    """How fast this machine is right now: the best of three runs of a fixed pure-Python
    loop, in ms (lower is faster). A shared VM's speed drifts; levels record it."""
    def once():
        start, total = time.perf_counter(), 0
        for i in range(1_000_000):
            total += i * i
        return (time.perf_counter() - start) * 1000
    return round(min(once() for _ in range(3)), 1)


def machine():
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


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--servers", default="waitress,gunicorn",
                   help="which setups to measure (waitress = `companion serve`)")
    p.add_argument("--tables", default="10,50,100,200", help="table counts, in order")
    p.add_argument("--seconds", type=float, default=30, help="measured seconds per level")
    p.add_argument("--warmup", type=float, default=10, help="seconds of load before measuring")
    p.add_argument("--min-writes", type=int, default=300,
                   help="measure a level at least this many writes long (10 tables: 90 s)")
    p.add_argument("--write-every", type=float, default=3.0,
                   help="seconds between two actions of one host (jittered ±30%%)")
    p.add_argument("--page-every", type=float, default=15.0,
                   help="seconds between two full page loads of one host")
    p.add_argument("--workers", type=int, default=5, help="gunicorn workers")
    p.add_argument("--threads", type=int, default=2, help="gunicorn threads per worker")
    p.add_argument("--keep-alive", type=int, default=75,
                   help="gunicorn's keep-alive seconds (gthread)")
    p.add_argument("--worker-class", default="gthread", choices=("gthread", "sync"),
                   help="gunicorn's worker class (sync: one request at a time, no keep-alive)")
    p.add_argument("--waitress-threads", type=int, default=4,
                   help="threads of `companion serve` (waitress)")
    p.add_argument("--saturate-seconds", type=int, default=10)
    p.add_argument("--saturate-connections", type=int, default=16)
    p.add_argument("--soak", type=float, default=0,
                   help="after the levels, keep --soak-tables tables polling and writing "
                        "this many seconds and watch memory (600 = the 10-minute soak)")
    p.add_argument("--soak-tables", type=int, default=100)
    p.add_argument("--soak-servers", default="gunicorn", type=lambda v: v.split(","),
                   help="which setups get the soak")
    p.add_argument("--no-floor", dest="floor", action="store_false",
                   help="skip the bare-Flask floor")
    p.add_argument("--quick", action="store_true",
                   help="a smoke run: waitress, 5 and 10 tables, 8 s each")
    p.add_argument("--json", help="write the whole report here as JSON")
    args = p.parse_args(argv)
    if args.quick:
        args.servers, args.tables, args.seconds, args.warmup = "waitress", "5,10", 8, 3
        args.saturate_seconds, args.min_writes = 3, 0
    args.servers = [s for s in args.servers.split(",") if s]
    args.tables = [int(t) for t in args.tables.split(",") if t]
    return args


def main(argv=None):
    args = parse_args(argv)
    report = {"machine": machine(), "command": " ".join([Path(PY).name, *sys.argv]),
              "servers": {}, "floor": {}}
    print(json.dumps(report["machine"]), flush=True)
    for kind in args.servers:
        asyncio.run(bench_server(kind, args, report))
    report["budgets"] = {
        kind: [{"budget": b, "figure": f, "met": m}
               for b, f, m in budgets(result, report["floor"].get(kind))]
        for kind, result in report["servers"].items()}
    print_summary(report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    return 0


def budgets(result, floor):
    """Issue 7's budgets, checked against one server's figures: [(budget, figure, met)]."""
    levels = {int(k): v for k, v in result["levels"].items()}
    out = []
    if 100 in levels and "skipped" in levels[100]:
        out.append(("100 tables: poll p99 < 50 ms, no errors", levels[100]["skipped"], False))
    elif 100 in levels:
        lv = levels[100]
        p99 = max(lv["poll"]["p99"] or 0, lv["live"]["p99"] or 0)
        errors = sum(lv[k]["errors"] for k in ("poll", "live", "write", "page"))
        out.append(("100 tables: poll p99 < 50 ms, no errors",
                    f"p99 {lv['poll']['p99']} / {lv['live']['p99']} ms, {errors} errors",
                    p99 < 50 and errors == 0))
    sat, fsat = result.get("saturation_poll"), (floor or {}).get("saturation")
    if sat and fsat and sat["rps"] and fsat["rps"]:
        ratio = sat["rps"] / fsat["rps"]
        out.append(("no-change poll >= 0.5 x the floor's throughput",
                    f"{ratio:.2f} x ({sat['rps']} / {fsat['rps']} req/s)", ratio >= 0.5))
    if 10 in levels:
        w, pg = levels[10]["write"]["p99"], levels[10]["page"]["p99"]
        out.append(("10 tables: write and full host page p99 < 20 ms",
                    f"write {w}, page {pg} ms", max(w or 0, pg or 0) < 20))
    first = result.get("first_load_bytes", {}).get("total (html+css+js)")
    if first:
        out.append(("seat page first load < 150 KB", f"{first} B", first < 150 * 1024))
    sizes = [lv["no_change_poll_bytes"] for lv in levels.values()
             if lv.get("no_change_poll_bytes")]
    if sizes:
        out.append(("no-change poll < 1 KB", f"{max(sizes)} B", max(sizes) < 1024))
    soak_ = result.get("soak")
    if soak_ and soak_.get("rss_first_mb"):
        growth = soak_["rss_last_mb"] / soak_["rss_first_mb"] - 1
        out.append(("memory flat over the soak (< 5 % growth), no errors",
                    f"{soak_['rss_first_mb']} -> {soak_['rss_last_mb']} MB over "
                    f"{soak_['seconds']} s ({growth:+.1%}), {soak_['errors']} errors",
                    growth < 0.05 and soak_["errors"] == 0))
    return out


def print_summary(report):
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
        sat, fsat = result.get("saturation_poll"), floor.get("saturation")
        if sat and sat["rps"]:
            ratio = f" = {sat['rps'] / fsat['rps']:.2f} × floor ({fsat['rps']} req/s)" \
                if fsat and fsat["rps"] else ""
            print(f"\nno-change poll, saturated: {sat['rps']} req/s{ratio} [{sat['tool']}]")
        sizes = [lv["no_change_poll_bytes"] for lv in result["levels"].values()
                 if lv.get("no_change_poll_bytes")]
        print(f"no-change poll bytes on the wire: {max(sizes, default=None)}")
        print(f"seat page first load bytes: {result.get('first_load_bytes')}")
        print(f"peak RSS: {result.get('peak_rss_mb')} MB (floor {floor.get('peak_rss_mb')} MB)")
        if result.get("soak"):
            print(f"soak: {result['soak']}")
        checks = budgets(result, floor)
        if checks:
            print("\n| budget | this run | met |\n|---|---|---|")
            for name, figure, met in checks:
                print(f"| {name} | {figure} | {'yes' if met else 'NO'} |")


if __name__ == "__main__":
    sys.exit(main())
