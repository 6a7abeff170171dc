"""What one hostile device on the Wi-Fi can do to the table, measured (docs/security.md).

Three drills against the real server (``companion serve`` on loopback, the same
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

    .venv/bin/python bench/hostile.py                   # all three drills (~2 min)
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

from bench.bench import cpu_ms  # noqa: E402
from companion import connections, exchange  # noqa: E402
from companion.kraken import rules as kraken  # noqa: E402

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
    low, high = 0, exchange.MAX_EVENTS  # the last game's length: the most that fits
    while low < high:
        middle = (low + high + 1) // 2
        if len(exchange.dumps(document(count + 1, middle))) <= exchange.MAX_BYTES:
            low = middle
        else:
            high = middle - 1
    raw = exchange.dumps(document(count + 1, low) if low >= 2 else document(count, 0))
    assert len(raw) <= exchange.MAX_BYTES
    return raw


def check_seconds(raw: bytes) -> float:
    """CPU seconds of one check of ``raw`` in this process."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    exchange.parse_import(raw)
    after = resource.getrusage(resource.RUSAGE_SELF)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


# --- the server and the other table ---------------------------------------------------


class Serve:
    """`companion serve` on loopback with a data folder of its own, as the host runs it
    (``soft_limit``: the open-files soft limit it starts with)."""

    def __init__(self, folder: Path, soft_limit: int | None = None) -> None:
        self.folder, self.port = folder, _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]

        def limit() -> None:
            if soft_limit is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (soft_limit, hard))

        self.log = open(folder / "serve.log", "wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port",
             str(self.port), "--public-url", self.url, "--quiet", "--data", str(folder)],
            env={**os.environ, "COMPANION_SECRET_KEY": "hostile"}, preexec_fn=limit,
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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def another_table(server: Serve) -> Any:
    """A phone of another table with its seat claimed: the device whose answers the
    drills time."""
    from tests.test_drills import Device, create_night

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
    return status, time.perf_counter() - start


# --- the drills -----------------------------------------------------------------------


def drill_import(folder: Path) -> dict[str, Any]:
    """The costliest file the import accepts, uploaded by a stranger while another
    table's phone asks for its live region every 50 ms."""
    from tests.test_drills import Device

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
    from tests.test_drills import Device

    return Device(server.url)


def drill_uploads(folder: Path, count: int = 16) -> dict[str, Any]:
    """A near-limit file of a night already on the machine, uploaded ``count`` times by
    one stranger (each waits for a host's choice): the database's growth."""
    from tests.test_drills import Device

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


DRILLS = {"import": drill_import, "sockets": drill_sockets, "uploads": drill_uploads}


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
