"""Fixtures: an app on a fresh database, a host with a night, phones, a live server."""

import os
import re
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from companion.app import create_app
from companion.core import registry
from companion.store import connection as db
from companion.store import schema
from companion.store.connection import connect

NAMES = ["민수", "Jo", "지혜 🙂", "Ann", "박서준"]


#: A RAM disk, and the room it must have free for the tests' files to go there.
RAM_DISK, RAM_DISK_ROOM = Path("/dev/shm"), 2 * 1024**3


def pytest_configure(config):
    """The tests' files (``tmp_path``: each test's database) on a RAM disk when there is
    one with room: every recorded event commits with a sync (``synchronous=FULL``,
    companion/store/connection.py), and on a shared disk those syncs were most of the wait of the
    tests that record hundreds of events. A sync on tmpfs returns at once; what the
    tests check (what a commit holds, what a killed server's file keeps) is the same.
    A TMPDIR or --basetemp of the runner's own wins."""
    if "TMPDIR" in os.environ or config.option.basetemp or not RAM_DISK.is_dir():
        return
    if os.access(RAM_DISK, os.W_OK) and shutil.disk_usage(RAM_DISK).free >= RAM_DISK_ROOM:
        tempfile.tempdir = str(RAM_DISK)


#: Test workers per core that ``-n auto`` starts for the stage of browser and server-process
#: tests (``-m "browser or slow"``).
BROWSER_WORKERS_PER_CORE = 2


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config):
    """``-n auto`` for the browser stage: two workers a core, not one. Its tests wait
    as much as they work (a phone locked for 70 s, a heartbeat missed for 31 s, a wheel
    installing, a server starting), and a waiting worker's core is free for another;
    three a core kept both cores of a two-core box 99–100 % busy, and tests timed out.
    The quick loop's tests work all the time, and keep xdist's one a core. A
    PYTEST_XDIST_AUTO_NUM_WORKERS of the runner's own wins."""
    markers = config.option.markexpr or ""
    if "PYTEST_XDIST_AUTO_NUM_WORKERS" in os.environ or "not browser" in markers \
            or "browser" not in markers:
        return None
    return BROWSER_WORKERS_PER_CORE * (len(os.sched_getaffinity(0)) or 1)


@pytest.fixture(autouse=True)
def _close_connections():
    """After each test, close the connections its databases opened in this thread: a
    worker runs hundreds of tests, each with a database of its own, and would otherwise
    hold more than 1,024 descriptors, past what a select()-based server (waitress) takes."""
    yield
    db.close_thread_connections()


@pytest.fixture(autouse=True)
def _close_pages(request):
    """After a browser test, close every context it opened on the session's browser: a
    page left open goes on polling, streaming and asking the time of a server that is
    gone, and two hundred of them slowed the rest of the suite's workers to a crawl."""
    yield
    browser = request.node.funcargs.get("browser")
    for context in list(browser.contexts) if browser is not None else []:
        try:
            context.close()
        except Exception:  # already closed by its own fixture, or the browser is gone
            pass


@pytest.fixture(scope="session")
def migrated_database(tmp_path_factory):
    """A database with every migration applied, made once per test process: each test's
    app starts from a copy of it (:func:`fresh_database`), for applying the migrations
    one by one, each in its own synced transaction, took a third of every app's making."""
    path = tmp_path_factory.mktemp("migrated") / "migrated.sqlite"
    schema.migrate(str(path))
    return path


def fresh_database(migrated, path):
    """A copy of the migrated database at ``path`` (its mode too: readable by this user
    only, as the app makes it); returns ``path`` as a string. The app's start still
    runs the migrations, and finds them all applied."""
    shutil.copy(migrated, path)
    return str(path)


@pytest.fixture(scope="session")
def worker_app(tmp_path_factory, migrated_database):
    """The app of this test process, made once: making one (registering every route,
    which Werkzeug compiles) cost about a tenth of a second, in each of some 1,800
    tests. Each test gets it with its own database and its settings as made
    (:func:`app`); a test that needs other routes or games makes its own."""
    folder = tmp_path_factory.mktemp("app")
    return create_app({
        "TESTING": True, "DATABASE": fresh_database(migrated_database, folder / "app.sqlite"),
        "SECRET_KEY": "test",
        "WTF_CSRF_ENABLED": False, "PUBLIC_URL": "http://table.test:8765",
        "LANGUAGE": "en",  # test clients send no Accept-Language: read the English text
        "END_HELD": False,  # an end is read at once (tests/test_held_end.py holds it)
    })


@pytest.fixture
def app(worker_app, tmp_path, migrated_database):
    """This process's app, on a fresh copy of the migrated database; the settings a
    test changes are put back after it."""
    settings = dict(worker_app.config)
    worker_app.config["DATABASE"] = fresh_database(migrated_database, tmp_path / "test.sqlite")
    yield worker_app
    worker_app.config.clear()
    worker_app.config.update(settings)


#: The fourth game, defined only under tests/ (docs/adding-a-game.md).
FOURTH = "tests.fourthgame.game"


@pytest.fixture
def app4(tmp_path):
    """An app with the fourth game registered beside the three."""
    return create_app({
        "TESTING": True, "DATABASE": str(tmp_path / "four.sqlite"), "SECRET_KEY": "test",
        "WTF_CSRF_ENABLED": False, "PUBLIC_URL": "http://table.test:8765", "LANGUAGE": "en",
        "GAMES": [*registry.INSTALLED, FOURTH], "END_HELD": False,
    })


@pytest.fixture
def client(app):
    return app.test_client()


@dataclass
class Night:
    """A night made through the real routes: the host's client, its key, the seat links."""

    app: object
    host: object
    key: str
    tokens: list = field(default_factory=list)

    @property
    def url(self):
        return f"/n/{self.key}"

    def phone(self, position):
        """A new phone that scans seat ``position``'s QR and answers "yes, it's me"."""
        phone = self.app.test_client()
        assert phone.get(f"/s/{self.tokens[position]}").status_code == 200
        response = phone.post(f"/s/{self.tokens[position]}")
        assert response.status_code == 303, response.data
        return phone

    def start(self, kind, **form):
        """Start a game through the real start form; returns the game's page URL. While
        another game runs on the phones, it answers the form's second step as a host
        would ("start it; that game stays unfinished"): tests of that question post the
        form themselves."""
        url = f"{self.url}/new/{kind}"
        response = self.host.post(url, data=form)
        running = re.search(r'name="leave" value="(\d+)"', response.data.decode())
        if response.status_code == 409 and running:
            response = self.host.post(url, data={**form, "leave": running.group(1)})
        assert response.status_code == 303, response.data.decode()[:2000]
        return response.headers["Location"]

    def pos(self, game_url):
        """The log position the host's page shows now."""
        html = self.host.get(game_url).data.decode()
        return int(re.search(r'name="pos" value="(\d+)"', html).group(1))


def store_game(app, device, key, game):
    """Store a hand-made game of night ``key`` (its setup as made, e.g. a known deal) and
    record its events one by one through store.record, as the host's forms would."""
    import json

    from companion import store
    from companion.store.connection import get_db, now

    with app.test_request_context(headers={"Cookie": f"device={device}"}):
        row = store.night_by_key(key)
        number = len(store.games(row["id"])) + 1
        get_db()["games"].insert({
            "night_id": row["id"], "number": number, "kind": game["kind"],
            "setup": json.dumps(game["setup"], sort_keys=True), "created": now()})
        current = store.game(row["id"], number)
        for event in game["events"]:
            current = store.record(current, event["type"], event["data"], pos=current.pos,
                                   device=device, seat=event["seat"])
        return current


def make_night(app, names=NAMES):
    host = app.test_client()
    response = host.post("/nights", data={"name": list(names)})
    assert response.status_code == 303
    key = response.headers["Location"].rsplit("/", 1)[1]
    from companion import store

    with app.test_request_context():
        night = store.night_by_key(key)
        tokens = [s["token"] for s in store.seats(night["id"])]
    return Night(app=app, host=host, key=key, tokens=tokens)


def pushing_app(tmp_path):
    """An app as `companion serve` runs it, with live push (a reveal's count needs it),
    on a fresh database in ``tmp_path``."""
    return create_app({
        "TESTING": True, "DATABASE": str(tmp_path / "test.sqlite"), "SECRET_KEY": "test",
        "WTF_CSRF_ENABLED": False, "PUBLIC_URL": "http://table.test:8765",
        "LANGUAGE": "en", "LIVE_PUSH": True, "END_HELD": False,
    })


@pytest.fixture
def night(app):
    """A night of five players made by the host's client."""
    return make_night(app)


# --- a real server for browser and drill tests ----------------------------------------

@dataclass
class LiveServer:
    url: str
    app: object


@pytest.fixture
def live_server(tmp_path, migrated_database):
    from waitress import create_server

    app = create_app({
        "DATABASE": fresh_database(migrated_database, tmp_path / "live.sqlite"),
        "SECRET_KEY": "live-test", "POLL_SECONDS": 1,
        "END_HELD": False,  # an end is read at once (tests/test_held_end.py holds it)
    })
    server = create_server(app, host="127.0.0.1", port=0, threads=8)
    port = server.effective_port
    app.config["PUBLIC_URL"] = f"http://127.0.0.1:{port}"
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield LiveServer(url=f"http://127.0.0.1:{port}", app=app)
    # Its eight threads end first: one that has just sent an answer still tells the loop
    # (it writes to the loop's trigger), and told after the loop closed it, it died of a
    # bad file descriptor (a test's teardown failed so, on a slow box).
    server.task_dispatcher.shutdown()
    # Then the loop, closed from inside itself; it ends once nothing is left in its map
    # (closed from here while it was in select(), its thread died the same way).
    from waitress import wasyncore

    server.trigger.pull_trigger(lambda: wasyncore.close_all(server._map))
    thread.join(timeout=10)
    assert not thread.is_alive(), "the live server's loop did not stop"
    db.close_thread_connections()


#: How long a server process is given to answer its first request (or, stopped while
#: it starts a worker, to end). A start takes some 2.5 s on a quiet box; in a run of the
#: browser stage on a box three times slower (its four workers and their browsers
#: keeping a load of 12 on two cores), starts took more than 20 s. The wait ends at the
#: first answer: the bound only says when to give up.
STARTS_WITHIN_S = 90


def answers(url):
    """Wait until the server at ``url`` answers it (with any status under 400); whether it
    did within ``STARTS_WITHIN_S``."""
    import time
    import urllib.request

    deadline = time.monotonic() + STARTS_WITHIN_S
    while True:
        try:
            urllib.request.urlopen(url, timeout=2)
            return True
        except OSError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)


def free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class ServerProcess:
    """`companion serve` in its own process, as a host runs it; can be killed and restarted."""

    database: str
    port: int = field(default_factory=free_port)
    process: object = None
    env: dict = field(default_factory=dict)  # more COMPANION_* settings

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        import os
        import subprocess
        import sys

        env = {**os.environ, "COMPANION_DATABASE": self.database,
               "COMPANION_SECRET_KEY": "process-test", "COMPANION_POLL_SECONDS": "1",
               **self.env}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1",
             "--port", str(self.port), "--public-url", self.url, "--quiet"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        if not answers(self.url + "/"):
            raise RuntimeError("the server did not start")
        return self

    def kill(self):
        import signal

        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)


@pytest.fixture
def server_process(tmp_path):
    server = ServerProcess(database=str(tmp_path / "process.sqlite"))
    yield server
    if server.process and server.process.poll() is None:
        server.kill()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {
        **browser_type_launch_args,
        "executable_path": "/usr/bin/chromium",
        "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"],
    }


def unmarked(html):
    """A page with each player's colour mark taken off their name
    (``<span class="player pc-…">Jo</span>`` → ``Jo``), for tests that read names
    where they stand."""
    return re.sub(r'<span class="player(?: pc-\w+)?">([^<]*)</span>', r"\1", html)


def page_text(html):
    """What a page shows as text: its tags gone, and with them every attribute (random
    form tokens and keys, in which a short name like "Jo" can turn up by chance)."""
    return re.sub(r"<[^>]*>", " ", html)


def text_without_bdi(response):
    """The page as its words read: a name's isolation (<bdi>) is left out here, and
    checked by tests/test_names_isolated.py."""
    return re.sub(r"</?bdi>", "", response.get_data(as_text=True))


def nights_count(app):
    return connect(app.config["DATABASE"])["nights"].count


def visible_names(html):
    """The roster's name fields a person sees (the others are in the form, hidden)."""
    roster = html[html.index('class="roster"'):html.index("</form>", html.index('class="roster"'))]
    return re.findall(r'<li data-roster-seat>\s*<div class="roster-row">\s*'
                      r'<label class="roster-name">[^<]*<input type="text" name="name"'
                      r'[^>]*value="([^"]*)"', roster)
