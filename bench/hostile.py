"""What one hostile device on the Wi-Fi can do to the table, measured (docs/security.md).

Eleven drills against the real server (``companion serve`` on loopback, the same
settings as at a table), each with a phone of another table answering throughout:

* ``import``: a stranger uploads the costliest file the import accepts (the longest
  games of marker moves and undos that fit the upload limit; ``worst_import``). Reported:
  the CPU seconds of the check in this process (one run of ``exchange.parse_import``), the
  upload's answer time, and the slowest answer the other table's phone got meanwhile.
* ``sockets``: 1,100 connections from one client that never finish a request (half of
  them send nothing, half a partial header), with the server's open-files soft limit
  set to 1,024 before it starts. Reported: how many the server closed by itself, and the
  other phone's slowest page and live region while they were open.
* ``uploads``: 16 uploads of one near-limit file of a night already on the machine (each
  one waits for the host's choice). Reported: the database's growth against the file's
  size.
* ``trickle``: 10,290 POSTs from one address (127.0.0.2) whose bodies come a byte every
  5 s, with the server's soft limit at 10,240, for 40 s. Reported: the other table's
  slowest live region, a new phone's slowest claim, how many the server closed.
* ``chunked``: two connections sending a 2 MB form in one-byte chunks, again and again,
  for 15 s. Reported: the other table's p99 and the answers the sender got.
* ``streams``: one address opening 4 streams under each of 1,000 made-up device ids
  (a night each), while six host screens at another address hold theirs. Reported: the
  streams it holds at the end, whether a write still reaches each of the six, and
  whether a new phone's stream opens.
* ``disk``: one guest at full speed for a minute, uploading new nights of the largest
  file the import takes and starting new nights, each under a new device id. Reported:
  what it made and the database's growth (the hour's bounds are spent in that minute).
* ``memory``: a guest's two 8,000-event games, a seat's colour changed and both game
  pages opened in a loop for a minute. Reported: the server's growth in memory and the
  other table's p99.
* ``costly``: four connections asking ``export.json`` of a 90-game night again and
  again, its version moving twice a second. Reported: the other table's p99.
* ``qr``: a guest who hosts a night of their own, with a Wi-Fi network set, asking from
  48 connections at their address for every image and code route of it (the Wi-Fi
  code's image, screen and host codes, a seat's new code and its QR) for 20 s.
  Reported: the other table's p50 and p99 before and during, and the guest's answers.

    .venv/bin/python bench/hostile.py                   # all ten drills (~9 min)
    .venv/bin/python bench/hostile.py --drill import --json report.json
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import resource
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script

from bench.devices import Device, create_night  # noqa: E402
from bench.machine import cpu_ms  # noqa: E402
from bench.servers import free_port  # noqa: E402
from companion.core import exchange, registry  # noqa: E402
from companion.kraken import rules as kraken  # noqa: E402
from companion.serving import connections

TIME = "2026-01-01T19:00:00Z"


def _event(seq: int, type_: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"seq": seq, "type": type_, "data": data, "seat": None, "created": TIME}


def kraken_log(length: int, shape: str) -> list[dict[str, Any]]:
    """A Kraken log of ``length`` events that the rules allow, shaped to cost the check
    the most: "pairs" is half marker moves, then marker/undo pairs (each undo takes back
    a new event: the log before it had to be checked, from the start in the old check);
    "flips" grows to one short of a kept copy, then undo/redo pairs (each undo rewinds
    the furthest from a copy)."""
    events = []
    if shape == "pairs":
        for seq in range(1, length // 2 + 1):
            events.append(_event(seq, "marker", {"seat": seq % 3}))
        while len(events) + 2 <= length:
            events.append(_event(len(events) + 1, "marker", {"seat": 1}))
            events.append(_event(len(events) + 1, "undo", {}))
    elif shape == "flips":
        grow = exchange.CHECKPOINT_EVERY - 1
        for seq in range(1, grow + 1):
            events.append(_event(seq, "marker", {"seat": seq % 3}))
        while len(events) + 2 <= length:
            events.append(_event(len(events) + 1, "undo", {}))
            events.append(_event(len(events) + 1, "redo", {}))
    else:
        raise ValueError(shape)
    return events


def worst_import(shape: str = "pairs", players: int = 8) -> bytes:
    """The costliest night the import accepts: as many games of ``exchange.MAX_EVENTS``
    events (``kraken_log(shape)``) as fit within ``exchange.MAX_BYTES``, for ``players``
    seats."""
    names = [f"Player {n}" for n in range(1, players + 1)]
    setup = kraken.start(list(range(players)), {}, rng=random.Random(7))

    def document(count: int, last: int) -> dict[str, Any]:
        games = [{"number": n, "kind": "kraken", "created": TIME, "finished": False,
                  "secrets_removed": False, "setup": copy.deepcopy(setup),
                  "events": kraken_log(exchange.MAX_EVENTS if n < count else last, shape)}
                 for n in range(1, count + 1)]
        return {"format": exchange.FORMAT, "version": exchange.FORMAT_VERSION,
                "night": {"created": TIME, "players": names}, "games": games}

    count = 1
    while len(exchange.dumps(document(count + 1, exchange.MAX_EVENTS))) \
            <= exchange.MAX_BYTES:
        count += 1
    # The last game's length: the most that fits. A file's size grows with it almost in
    # step (an event's text differs from the next by a digit at most), so the guess from
    # the sizes at 0 and at the most is within a few events; each size is a whole 2 MB
    # file written out, and a bisection took 13 of them.
    def fits(last: int) -> bool:
        return len(exchange.dumps(document(count + 1, last))) <= exchange.MAX_BYTES

    empty = len(exchange.dumps(document(count + 1, 0)))
    full = len(exchange.dumps(document(count + 1, exchange.MAX_EVENTS)))
    low = min(exchange.MAX_EVENTS, max(0, (exchange.MAX_BYTES - empty) * exchange.MAX_EVENTS
                                       // max(1, full - empty)))
    while low > 0 and not fits(low):
        low = max(0, low - 8)
    while low < exchange.MAX_EVENTS and fits(low + 1):
        low += 1
    raw = exchange.dumps(document(count + 1, low) if low >= 2 else document(count, 0))
    assert len(raw) <= exchange.MAX_BYTES
    return raw


def long_night(games: int = 90, events: int = 150, players: int = 8) -> bytes:
    """A night of ``games`` Kraken games of ``events`` events each: the long night whose
    export, tally and pictures the "costly" drill asks for."""
    names = [f"Player {n}" for n in range(1, players + 1)]
    setup = kraken.start(list(range(players)), {}, rng=random.Random(7))
    document = {"format": exchange.FORMAT, "version": exchange.FORMAT_VERSION,
                "night": {"created": "2025-06-01T19:00:00Z", "players": names},
                "games": [{"number": n, "kind": "kraken", "created": TIME, "finished": False,
                           "secrets_removed": False, "setup": copy.deepcopy(setup),
                           "events": kraken_log(events, "pairs")}
                          for n in range(1, games + 1)]}
    raw = exchange.dumps(document)
    assert len(raw) <= exchange.MAX_BYTES
    return raw


def check_seconds(raw: bytes) -> float:
    """CPU seconds of one check of ``raw`` in this process."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    exchange.parse_import(raw, registry.installed())
    after = resource.getrusage(resource.RUSAGE_SELF)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


# --- the server and the other table ---------------------------------------------------


class Serve:
    """`companion serve` on loopback with a data folder of its own, as the host runs it
    (``soft_limit``: the open-files soft limit it starts with)."""

    def __init__(self, folder: Path, soft_limit: int | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.folder, self.port = folder, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]

        def limit() -> None:
            if soft_limit is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (soft_limit, hard))

        self.log = open(folder / "serve.log", "wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port",
             str(self.port), "--public-url", self.url, "--quiet", "--data", str(folder)],
            env={**os.environ, "COMPANION_SECRET_KEY": "hostile", **(env or {})},
            preexec_fn=limit,
            stdout=self.log, stderr=self.log)
        for _ in range(300):
            try:
                urllib.request.urlopen(self.url + "/", timeout=1).read()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start")

    @property
    def database(self) -> Path:
        return self.folder / "companion.sqlite"

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)  # as Ctrl+C
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def another_table(server: Serve) -> Any:
    """A phone of another table with its seat claimed: the device whose answers the
    drills time."""
    _, _, tokens = create_night(server.url, database=str(server.database))
    phone = Device(server.url)
    assert phone.claim(tokens[0]) == 303
    return phone


class Timer(threading.Thread):
    """The other table's phone asking for its page (or live region) every ``every``
    seconds until stopped: each answer's time and status."""

    def __init__(self, phone: Any, path: str, every: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.phone, self.path, self.every = phone, path, every
        self.times: list[float] = []
        self.statuses: list[int] = []
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            start = time.perf_counter()
            try:
                status = self.phone.get(self.path, timeout=60)[0]
            except OSError:
                status = 0
            self.times.append(time.perf_counter() - start)
            self.statuses.append(status)
            self.stopping.wait(self.every)

    def stop(self) -> dict[str, Any]:
        self.stopping.set()
        self.join()
        return {"answers": len(self.times),
                "slowest_ms": round(max(self.times) * 1000, 1),
                "median_ms": round(statistics.median(self.times) * 1000, 1),
                "not_200": sum(1 for s in self.statuses if s != 200)}


def upload(base: str, raw: bytes, device: Any) -> tuple[int, float]:
    """A stranger's upload of ``raw`` to /import through the form (its CSRF token
    read from the start page): (status, seconds to the answer)."""
    device.get("/")
    boundary = "hostile" + secrets.token_hex(8)
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\n"
            f"{device.csrf}\r\n--{boundary}\r\nContent-Disposition: form-data; "
            f"name=\"file\"; filename=\"night.json\"\r\nContent-Type: application/json"
            f"\r\n\r\n").encode() + raw + f"\r\n--{boundary}--\r\n".encode()
    request = urllib.request.Request(base + "/import", data=body, method="POST", headers={
        "Content-Type": f"multipart/form-data; boundary={boundary}",
        "X-CSRFToken": device.csrf, "Accept-Language": "en"})
    start = time.perf_counter()
    try:
        with device.opener.open(request, timeout=120) as answer:
            answer.read()
            status = answer.status
    except urllib.error.HTTPError as error:
        status = error.code
        device.location = error.headers.get("Location")  # a redirect, to the new night
    return status, time.perf_counter() - start


# --- the drills -----------------------------------------------------------------------


def drill_import(folder: Path) -> dict[str, Any]:
    """The costliest file the import accepts, uploaded by a stranger while another
    table's phone asks for its live region every 50 ms."""
    report: dict[str, Any] = {}
    for shape in ("pairs", "flips"):
        raw = worst_import(shape)
        events = sum(len(g["events"]) for g in json.loads(raw)["games"])
        report[shape] = {"bytes": len(raw), "events": events,
                         "check_cpu_s": round(check_seconds(raw), 3)}
    server = Serve(folder / "import")
    try:
        phone = another_table(server)
        quiet = Timer(phone, "/me/live")
        quiet.start()
        time.sleep(3)
        report["phone_before"] = quiet.stop()
        for shape in ("pairs", "flips"):
            timer = Timer(phone, "/me/live")
            timer.start()
            status, took = upload(server.url, worst_import(shape), Device(server.url))
            report[shape].update(status=status, answer_s=round(took, 2),
                                 phone_during=timer.stop())
    finally:
        server.stop()
    return report


def drill_sockets(folder: Path, count: int = 1100) -> dict[str, Any]:
    """``count`` connections from one client that never finish a request (every other
    one sends half a request's head), the server started with a soft limit of 1,024
    open files, while another table's phone asks for its page twice a second."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 1024), hard))
    server = Serve(folder / "sockets", soft_limit=1024)
    idle: list[socket.socket] = []
    report: dict[str, Any] = {"connections": count}
    try:
        phone = another_table(server)
        page, live = Timer(phone, "/me", 0.5), Timer(phone, "/me/live", 0.5)
        opened = time.perf_counter()
        for n in range(count):
            sock = socket.create_connection(("127.0.0.1", server.port))
            if n % 2:
                sock.sendall(b"GET /me HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: x")
            idle.append(sock)
        report["open_s"] = round(time.perf_counter() - opened, 2)
        page.start()
        live.start()
        new_phone = Timer(_new_device(server), "/", 0.5)
        new_phone.start()
        time.sleep(connections.READ_SECONDS + 3)
        report.update(phone_page=page.stop(), phone_live=live.stop(),
                      new_device_start_page=new_phone.stop())
        closed = 0
        for sock in idle:
            sock.setblocking(False)
            try:
                if sock.recv(4096) is not None:
                    closed += 1  # b"" (closed) or a 400 before the close
            except BlockingIOError:
                pass
            except OSError:
                closed += 1
        report["closed_by_server_after_s"] = connections.READ_SECONDS + 3
        report["closed_by_server"] = closed
    finally:
        for sock in idle:
            sock.close()
        server.stop()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return report


def _new_device(server: Serve) -> Any:
    return Device(server.url)


def drill_uploads(folder: Path, count: int = 16) -> dict[str, Any]:
    """A near-limit file of a night already on the machine, uploaded ``count`` times by
    one stranger (each waits for a host's choice): the database's growth."""
    server = Serve(folder / "uploads")
    try:
        raw = worst_import("pairs")
        host = Device(server.url)
        assert upload(server.url, raw, host)[0] == 303  # the night is here now
        before = _stored_bytes(server.database)
        stranger = Device(server.url)
        statuses = [upload(server.url, raw, stranger)[0] for _ in range(count)]
        after = _stored_bytes(server.database)
    finally:
        server.stop()
    return {"file_bytes": len(raw), "uploads": count, "statuses": sorted(set(statuses)),
            "database_growth_bytes": after - before,
            "growth_over_file": round((after - before) / len(raw), 2)}


def _stored_bytes(database: Path) -> int:
    """The database's size on disk, its write-ahead log included."""
    return sum(p.stat().st_size for p in (database, Path(f"{database}-wal")) if p.exists())


ATTACKER = "127.0.0.2"  # the hostile device's address; the table's phones are at 127.0.0.1


def _from_attacker(port: int) -> socket.socket | None:
    """A connection from the hostile device's address (None when refused at once)."""
    sock = socket.socket()
    try:
        sock.bind((ATTACKER, 0))
        sock.connect(("127.0.0.1", port))
    except OSError:
        sock.close()
        return None
    return sock


def _closed(sock: socket.socket) -> bool:
    """Whether the server has closed ``sock`` (its answer, if any, read and dropped)."""
    sock.setblocking(False)
    try:
        while True:
            if not sock.recv(65536):
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def _p99(timer: dict[str, Any], times: list[float]) -> dict[str, Any]:
    ordered = sorted(times)
    timer["p99_ms"] = round(ordered[int(0.99 * (len(ordered) - 1))] * 1000, 1)
    return timer


def drill_trickle(folder: Path, count: int = 10290, seconds: float = 40) -> dict[str, Any]:
    """``count`` POSTs from one address whose bodies come a byte every 5 s, with the
    server's open-files soft limit at 10,240, while another table's phone asks for its
    page and a new phone claims a seat: each answer's time."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, count + 2048), hard))
    server = Serve(folder / "trickle", soft_limit=min(hard, 10240))
    held: list[socket.socket] = []
    report: dict[str, Any] = {"connections": count}
    try:
        phone = another_table(server)
        page = Timer(phone, "/me/live", 0.2)
        page.start()
        head = (b"POST /lang HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n"
                b"Content-Type: application/x-www-form-urlencoded\r\n\r\n")
        for _ in range(count):
            sock = _from_attacker(server.port)
            if sock is not None:
                try:
                    sock.sendall(head)
                except OSError:
                    pass
                held.append(sock)
        claims: list[float] = []
        start = time.monotonic()
        while time.monotonic() - start < seconds:
            for sock in held:
                try:
                    sock.send(b"a")
                except OSError:
                    pass
            claims.append(_claim_seconds(server))
            time.sleep(5)
        report.update(other_table=page.stop(),
                      new_phone_claim_slowest_ms=round(max(claims) * 1000, 1),
                      closed_by_server=sum(_closed(s) for s in held),
                      after_s=seconds)
    finally:
        for sock in held:
            sock.close()
        server.stop()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return report


def _claim_seconds(server: Serve) -> float:
    """A new night's first seat claimed by a new phone: the seconds of the claim."""
    _, _, tokens = create_night(server.url, database=str(server.database))
    start = time.perf_counter()
    assert Device(server.url).claim(tokens[0]) == 303
    return time.perf_counter() - start


def drill_chunked(folder: Path, seconds: float = 15, senders: int = 2) -> dict[str, Any]:
    """``senders`` connections sending a 2 MB form to ``POST /lang`` in one-byte chunks,
    again and again, while another table's phone asks for its live region every 50 ms."""
    server = Serve(folder / "chunked")
    report: dict[str, Any] = {"senders": senders}
    answers: list[bytes] = []
    stop = threading.Event()

    def send() -> None:
        head = (b"POST /lang HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
                b"Content-Type: application/x-www-form-urlencoded\r\n\r\n")
        body = b"1\r\na\r\n" * (2 * 1024 * 1024)
        while not stop.is_set():
            sock = _from_attacker(server.port)
            if sock is None:
                continue
            with sock:
                try:
                    sock.sendall(head + body)
                except OSError:
                    pass
                sock.settimeout(5)
                try:
                    answers.append(sock.recv(64)[:12])
                except OSError:
                    answers.append(b"")
    try:
        phone = another_table(server)
        timer = Timer(phone, "/me/live")
        timer.start()
        threads = [threading.Thread(target=send, daemon=True) for _ in range(senders)]
        for thread in threads:
            thread.start()
        time.sleep(seconds)
        stop.set()
        report["other_table"] = _p99(timer.stop(), timer.times)
        for thread in threads:
            thread.join(10)
        report["answers"] = sorted({a.decode("latin-1") for a in answers})
        report["attempts"] = len(answers)
    finally:
        server.stop()
    return report


def drill_streams(folder: Path, identities: int = 1000, each: int = 4,
                  phones: int = 6) -> dict[str, Any]:
    """One address opening ``each`` streams under each of ``identities`` made-up device
    ids (a night of its own each), while ``phones`` host screens at another address hold
    theirs: how many of those were ended, and whether a write still reaches each of them
    and a new phone's stream opens."""
    # (the made-up identities' thousand nights come from 127.0.0.1, the table's own
    # address here: the hour's bound on new nights, which would stop them, is lifted)
    server = Serve(folder / "streams", env={"COMPANION_NIGHTS_AN_HOUR": "100000"})
    report: dict[str, Any] = {"identities": identities, "each": each}
    held: list[socket.socket] = []
    try:
        tables = [create_night(server.url) for _ in range(phones)]
        watching = [_stream_from(server.port, host, key, "127.0.0.1") for host, key, _ in tables]
        made_up = []
        started = time.perf_counter()
        for _ in range(identities):
            device = Device(server.url)
            device.get("/")
            status, head, _ = device.post("/nights", {"name": ["A", "B", "C"]})
            made_up.append((device, head["Location"].rstrip("/").rsplit("/", 1)[1]))
        report["identities_s"] = round(time.perf_counter() - started, 1)
        for device, key in made_up:
            for _ in range(each):
                sock = _stream_from(server.port, device, key, ATTACKER)
                if sock is not None:
                    held.append(sock)
        time.sleep(1)
        report["attacker_streams_held"] = sum(_streaming(s) for s in held)
        for host, key, _ in tables:
            host.post(f"/n/{key}/seats/0/code", htmx=True)
        kept = [_told_changed(sock) for sock in watching if sock is not None]
        report["phones_kept_stream"] = f"{sum(kept)} of {phones}"
        host, key, _ = create_night(server.url)
        report["new_phone_stream"] = "open" if _stream_from(
            server.port, host, key, "127.0.0.1") is not None else "refused (polls)"
    finally:
        for sock in held:
            sock.close()
        server.stop()
    return report


def _stream_from(port: int, device: Any, key: str, address: str) -> socket.socket | None:
    """A host stream of night ``key`` opened from ``address`` with ``device``'s cookies;
    None unless the server answered 200 (a 204 is a page told to poll)."""
    sock = socket.socket()
    try:
        sock.bind((address, 0))
        sock.connect(("127.0.0.1", port))
        cookies = "; ".join(f"{c.name}={c.value}" for c in device.jar)
        sock.sendall(f"GET /n/{key}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     f"Cookie: {cookies}\r\n\r\n".encode())
        sock.settimeout(5)
        if sock.recv(4096).startswith(b"HTTP/1.1 200"):
            return sock
    except OSError:
        pass
    sock.close()
    return None


def _streaming(sock: socket.socket) -> bool:
    """Whether the stream on ``sock`` is still held: not closed, not told "elsewhere"."""
    sock.setblocking(False)
    seen = b""
    try:
        while chunk := sock.recv(65536):
            seen += chunk
        return False  # closed
    except BlockingIOError:
        return b"elsewhere" not in seen
    except OSError:
        return False


def _told_changed(sock: socket.socket) -> bool:
    """Whether the stream on ``sock`` tells a change within 5 s (not "elsewhere")."""
    sock.settimeout(5)
    seen = b""
    try:
        while b"event: changed" not in seen and b"elsewhere" not in seen:
            chunk = sock.recv(4096)
            if not chunk:
                return False
            seen += chunk
    except OSError:
        return False
    return b"event: changed" in seen


def drill_disk(folder: Path, seconds: float = 60) -> dict[str, Any]:
    """One guest at full speed for ``seconds``: new nights of the largest file the import
    takes (each a night of its own, by its creation time), and new nights from the start
    page, each under a new device id. Reported: what it made, what was refused, and the
    database's growth. The bounds are an hour's, spent in the first seconds: the hour's
    growth is the minute's."""
    server = Serve(folder / "disk")
    raw = worst_import("pairs")
    made = {"imports": 0, "nights": 0, "refused": 0}
    try:
        before = _stored_bytes(server.database)
        start, n = time.monotonic(), 0
        while time.monotonic() - start < seconds:
            n += 1
            day = f"2024-{1 + n // 28 % 12:02d}-{1 + n % 28:02d}T19:{n % 60:02d}:00Z"
            status = upload(server.url, raw.replace(TIME.encode(), day.encode()),
                            Device(server.url))[0]
            made["imports" if status == 303 else "refused"] += 1
            device = Device(server.url)
            device.get("/")
            status = device.post("/nights", {"name": ["A", "B", "C"]})[0]
            made["nights" if status == 303 else "refused"] += 1
        grown = _stored_bytes(server.database) - before
    finally:
        server.stop()
    return {"seconds": seconds, "file_bytes": len(raw), **made,
            "database_growth_mb": round(grown / 1e6, 1),
            "an_hour_mb": round(grown / 1e6, 1)}


def _imported(server: Serve, raw: bytes) -> tuple[Any, str]:
    """A stranger imports ``raw`` and so hosts it: (that device, the night's key)."""
    guest = Device(server.url)
    status, _ = upload(server.url, raw, guest)
    assert status == 303, status
    return guest, guest.location.split("/n/")[1].split("/")[0]


def _rss_mb(pid: int) -> float:
    """A process's resident memory in MB (Linux)."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def drill_memory(folder: Path, seconds: float = 60) -> dict[str, Any]:
    """A guest imports two 8,000-event games, then changes a seat's colour and opens both
    game pages in a loop for ``seconds``, while another table's phone asks for its live
    region every 50 ms: the server's growth."""
    server = Serve(folder / "memory")
    report: dict[str, Any] = {"seconds": seconds}
    try:
        phone = another_table(server)
        guest, key = _imported(server, worst_import("pairs"))
        guest.get(f"/n/{key}/g/1")
        report["rss_before_mb"] = round(_rss_mb(server.process.pid), 1)
        timer = Timer(phone, "/me/live")
        timer.start()
        colours, rounds, start = ("blue", "green"), 0, time.monotonic()
        while time.monotonic() - start < seconds:
            guest.post(f"/n/{key}/seats/0/colour", {"colour": colours[rounds % 2]},
                       htmx=True)
            guest.get(f"/n/{key}/g/1")
            guest.get(f"/n/{key}/g/2")
            rounds += 1
        report.update(rounds=rounds, other_table=_p99(timer.stop(), timer.times),
                      rss_after_mb=round(_rss_mb(server.process.pid), 1))
        report["growth_mb"] = round(report["rss_after_mb"] - report["rss_before_mb"], 1)
    finally:
        server.stop()
    return report


def drill_costly(folder: Path, seconds: float = 20, askers: int = 4) -> dict[str, Any]:
    """``askers`` connections of the night's guest host asking ``export.json`` of a
    90-game night again and again (a colour change between rounds, so each version is
    new), while another table's phone asks for its live region every 50 ms."""
    server = Serve(folder / "costly")
    report: dict[str, Any] = {"askers": askers}
    stop = threading.Event()
    answered: list[float] = []
    try:
        phone = another_table(server)
        raw = long_night()
        guest, key = _imported(server, raw)
        report["night_bytes"] = len(raw)

        def ask() -> None:
            while not stop.is_set():
                begun = time.perf_counter()
                status = guest.get(f"/n/{key}/export.json", timeout=60)[0]
                if status == 200:
                    answered.append(time.perf_counter() - begun)

        def change() -> None:
            n = 0
            while not stop.is_set():
                guest.post(f"/n/{key}/seats/0/colour", {"colour": ("blue", "green")[n % 2]},
                           htmx=True)
                n += 1
                stop.wait(0.5)

        timer = Timer(phone, "/me/live")
        timer.start()
        threads = [threading.Thread(target=ask, daemon=True) for _ in range(askers)]
        threads.append(threading.Thread(target=change, daemon=True))
        for thread in threads:
            thread.start()
        time.sleep(seconds)
        stop.set()
        for thread in threads:
            thread.join(60)
        report.update(other_table=_p99(timer.stop(), timer.times), exports=len(answered),
                      export_median_ms=round(statistics.median(answered) * 1000, 1))
    finally:
        server.stop()
    return report


def _cookies(device: Any) -> str:
    return "; ".join(f"{c.name}={c.value}" for c in device.jar)


class Hammer(threading.Thread):
    """One keep-alive connection of the guest's, from the guest's address, asking for
    ``asks`` (method, path, headers: one after the other, again and again) until
    stopped: the statuses it got. A header ``_body`` is the request's body, and a
    cookie ``device={new}`` a made-up device for each request."""

    def __init__(self, port: int, asks: list[tuple[str, str, dict[str, str]]],
                 stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.port, self.asks, self.stop = port, asks, stop
        self.statuses: dict[int, int] = {}

    def _connect(self) -> Any:
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30,
                                          source_address=(ATTACKER, 0))
        conn.connect()
        return conn

    def run(self) -> None:
        conn, n = None, 0
        while not self.stop.is_set():
            method, path, asked = self.asks[n % len(self.asks)]
            n += 1
            headers = dict(asked)
            body = headers.pop("_body", None)
            if "{new}" in headers.get("Cookie", ""):  # a made-up device each time
                headers["Cookie"] = headers["Cookie"].format(new=secrets.token_urlsafe(32))
            try:
                conn = conn or self._connect()
                conn.request(method, path, body=body, headers=headers)
                answer = conn.getresponse()
                answer.read()
                status = answer.status
                if answer.getheader("Connection", "").lower() == "close":
                    conn.close()
                    conn = None
            except OSError:
                status = 0
                if conn is not None:
                    conn.close()
                conn = None
            self.statuses[status] = self.statuses.get(status, 0) + 1
        if conn is not None:
            conn.close()


def _hammered(server: Serve, asks: Any, connections_: int, seconds: float,
              phone: Any) -> dict[str, Any]:
    """``connections_`` hammers of ``asks()`` (a fresh list for each connection) for
    ``seconds``, while the other table's phone asks for its live region every 50 ms:
    the guest's answers by status and the other table's times, before and during."""
    quiet = Timer(phone, "/me/live")
    quiet.start()
    time.sleep(3)
    report: dict[str, Any] = {"connections": connections_, "seconds": seconds,
                              "other_table_before": _p99(quiet.stop(), quiet.times)}
    stop = threading.Event()
    hammers = [Hammer(server.port, asks(), stop) for _ in range(connections_)]
    timer = Timer(phone, "/me/live")
    timer.start()
    for hammer in hammers:
        hammer.start()
    time.sleep(seconds)
    stop.set()
    report["other_table"] = _p99(timer.stop(), timer.times)
    for hammer in hammers:
        hammer.join(60)
    statuses: dict[str, int] = {}
    for hammer in hammers:
        for status, count in hammer.statuses.items():
            statuses[str(status)] = statuses.get(str(status), 0) + count
    report["guest_answers"] = dict(sorted(statuses.items()))
    report["guest_per_s"] = round(sum(statuses.values()) / seconds, 1)
    return report


def drill_qr(folder: Path, seconds: float = 20, connections_: int = 48) -> dict[str, Any]:
    """A guest who hosts a night of their own (anyone may) with a Wi-Fi network set,
    asking from ``connections_`` connections at their own address for every image and
    code route of it: the Wi-Fi code's image, a screen code, a host code, a seat's new
    code and its QR, while another table's phone asks for its live region every 50 ms."""
    server = Serve(folder / "qr")
    try:
        phone = another_table(server)
        guest, key, _ = create_night(server.url)
        status, _, html = guest.post(f"/n/{key}/wifi", {"ssid": "TableWiFi",
                                                        "password": "evil-twin-pw"}, htmx=True)
        assert status == 200, status
        image = html.split("/wifi.png", 1)[1].split('"', 1)[0].replace("&amp;", "&")
        cookie, csrf = _cookies(guest), guest.csrf
        form = f"csrf_token={csrf}"

        def asks() -> list[tuple[str, str, dict[str, str]]]:
            plain = {"Cookie": cookie, "Host": f"127.0.0.1:{server.port}"}
            posted = {**plain, "Content-Type": "application/x-www-form-urlencoded",
                      "X-CSRFToken": csrf}
            return [("GET", f"/n/{key}/wifi.png{image}", plain),
                    ("POST", f"/n/{key}/screens", {**posted, "_body": form}),
                    ("POST", f"/n/{key}/hosts", {**posted, "_body": form}),
                    ("POST", f"/n/{key}/seats/1/code",
                     {**posted, "HX-Request": "true", "_body": form}),
                    ("GET", f"/n/{key}/qr/1.svg", plain)]

        report = _hammered(server, asks, connections_, seconds, phone)
    finally:
        server.stop()
    return report


DRILLS = {"import": drill_import, "sockets": drill_sockets, "uploads": drill_uploads,
          "trickle": drill_trickle, "chunked": drill_chunked, "streams": drill_streams,
          "disk": drill_disk, "memory": drill_memory, "costly": drill_costly,
          "qr": drill_qr}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--drill", choices=sorted(DRILLS), action="append",
                        help="one drill (again for more; default: all)")
    parser.add_argument("--json", help="write the report here too")
    args = parser.parse_args()
    report: dict[str, Any] = {"started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                              "cpu_ms": cpu_ms()}
    with tempfile.TemporaryDirectory() as folder:
        for name in args.drill or list(DRILLS):
            os.mkdir(Path(folder) / name)
            report[name] = DRILLS[name](Path(folder))
            print(name, json.dumps(report[name], indent=1), flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(report, out, indent=1)


if __name__ == "__main__":
    main()
