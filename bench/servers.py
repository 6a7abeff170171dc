"""The load bench's server processes: the app (``companion serve``, or gunicorn for the
café setup) and its bare-Flask floor (bench/floor.py), on a free loopback port, each
with its peak memory sampled and, with ``--cpus``, held to a CPU quota (bench/quota.py);
and for every bench and test that starts a server, a free port and the wait for its
first answer.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from bench.floor import serve_settings
from bench.quota import Quota

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: How long a server process is given to answer its first request (or, stopped while
#: it starts a worker, to end). A start takes some 2.5 s on a quiet box; in a run of the
#: browser stage on a box three times slower (its four workers and their browsers
#: keeping a load of 12 on two cores), starts took more than 20 s. The wait ends at the
#: first answer: the bound only says when to give up.
STARTS_WITHIN_S = 90


def answers(url: str) -> bool:
    """Wait until the server at ``url`` answers it (with any status under 400); whether it
    did within ``STARTS_WITHIN_S``."""
    deadline = time.monotonic() + STARTS_WITHIN_S
    while True:
        try:
            urllib.request.urlopen(url, timeout=2)
            return True
        except OSError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)


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


#: The café setup's worker (docs/guide.md): gunicorn's gevent_pywsgi with the connection
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
