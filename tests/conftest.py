"""Fixtures: an app on a fresh database, a host with a night, phones, a live server.
Only fixtures and pytest's hooks live here; what a test imports is in a helper module
(tests/README.md), or in bench/ where a bench shares it."""

import gc
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from flask import Flask
from jinja2 import BytecodeCache
from werkzeug.routing import Rule

from bench.browsing import CHROMIUM, CHROMIUM_ARGS
from bench.builders import make_night
from companion.app import create_app
from companion.core import registry
from companion.store import connection as db
from companion.store import schema
from tests.apps import FOURTH, fresh_database, serving
from tests.over_http import ServerProcess

#: A RAM disk, and the room it must have free for the tests' files to go there.
RAM_DISK, RAM_DISK_ROOM = Path("/dev/shm"), 2 * 1024**3


class CompiledTemplates(BytecodeCache):
    """The templates' compiled code, kept in memory for every app of a test process
    (Jinja's own caches are each app's): a cache only, each entry checked against its
    template's source before use (Jinja's ``Bucket``). The suite makes many apps (one a
    worker, one for each test of other settings), and compiling every page's templates
    afresh for each app once took about half the quick loop's time; a served process
    makes one app and would gain nothing."""

    def __init__(self):
        self.code = {}

    def load_bytecode(self, bucket):
        """Fill ``bucket`` from the kept code (a stale entry is refused by Jinja)."""
        if bucket.key in self.code:
            bucket.bytecode_from_string(self.code[bucket.key])

    def dump_bytecode(self, bucket):
        """Keep ``bucket``'s freshly compiled code."""
        self.code[bucket.key] = bucket.bytecode_to_string()


class KeptBuilderRule(Rule):
    """A route whose URL builders are made once per test process and shared by every
    app's same route. Werkzeug writes two small functions for each route of each app
    (``url_for``'s builders, as Python source it compiles): some 35 ms of each app's
    making, and the quick loop makes about a hundred apps. A builder depends only on
    the route's parts, its defaults and whether it adds a query, never on its app (the
    rule is passed in as ``self``), so the same route's builder serves each app; a
    served process makes one app and would gain nothing. Werkzeug's own method, when it
    renames this one, just runs as before."""

    builders: dict = {}

    def _compile_builder(self, append_unknown=True):
        defaults = sorted((name, repr(value), type(self._converters.get(name)))
                          for name, value in (self.defaults or {}).items())
        key = (self.rule, tuple(self._trace), tuple(defaults), append_unknown)
        if key not in self.builders:
            self.builders[key] = super()._compile_builder(append_unknown)
        return self.builders[key]


def pytest_configure(config):
    """Every app of this process shares one :class:`CompiledTemplates` (all are made by
    ``create_app``, with the same Jinja extensions and settings, which the compiled code
    depends on), and its routes' URL builders (:class:`KeptBuilderRule`).

    The tests' files (``tmp_path``: each test's database) on a RAM disk when there is
    one with room: every recorded event commits with a sync (``synchronous=FULL``,
    companion/store/connection.py), and on a shared disk those syncs were most of the wait of the
    tests that record hundreds of events. A sync on tmpfs returns at once; what the
    tests check (what a commit holds, what a killed server's file keeps) is the same.
    A TMPDIR or --basetemp of the runner's own wins.

    The cyclic garbage collector runs a hundred times less often (its first threshold
    70,000 allocations, not 700), and what is loaded by now is never scanned again
    (``gc.freeze``): a test's app, pages and events are mostly short-lived, and the full
    scans of the modules' objects were pure cost. Measured on 288 tests of the quick loop
    in one process: 19.0–19.7 s against 20.7–21.2 s with Python's defaults (0.93x).
    Memory is not the limit: a worker stays under 300 MB."""
    gc.set_threshold(70_000, 10, 10)
    gc.freeze()
    Flask.jinja_options = {**Flask.jinja_options, "bytecode_cache": CompiledTemplates()}
    Flask.url_rule_class = KeptBuilderRule
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


#: The share of a property test's examples the quick loop runs: one in eight.
QUICK_SHARE = 8


@pytest.fixture(params=[pytest.param(QUICK_SHARE, id="quick"),
                        pytest.param(1, id="full", marks=pytest.mark.slow)])
def examples(request):
    """How many examples a property test draws, given its full count: an eighth of them
    in the quick loop, all of them in the slow stage (the same test, marked ``slow``).
    Hypothesis fixes a test's settings when it is decorated, so the test draws its
    examples in an inner ``@given`` function with ``max_examples=examples(full)``."""
    return lambda full: max(1, full // request.param)


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
    gone, and two hundred of them slowed the rest of the suite's workers to a crawl. A
    context opened before the test (by a module's fixture, which its tests share) is
    its fixture's to close."""
    browser = (request.getfixturevalue("browser") if "browser" in request.fixturenames
               else None)
    before = set(browser.contexts) if browser is not None else set()
    yield
    for context in set(browser.contexts) - before if browser is not None else []:
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


@pytest.fixture
def app4(tmp_path, migrated_database):
    """An app with the fourth game registered beside the three."""
    return create_app({
        "TESTING": True, "DATABASE": fresh_database(migrated_database, tmp_path / "four.sqlite"),
        "SECRET_KEY": "test",
        "WTF_CSRF_ENABLED": False, "PUBLIC_URL": "http://table.test:8765", "LANGUAGE": "en",
        "GAMES": [*registry.INSTALLED, FOURTH], "END_HELD": False,
    })


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def night(app):
    """A night of five players made by the host's client."""
    return make_night(app)


# --- a real server for browser and drill tests ----------------------------------------

@pytest.fixture
def live_server(tmp_path, migrated_database):
    with serving(fresh_database(migrated_database, tmp_path / "live.sqlite")) as server:
        yield server


@pytest.fixture(scope="module")
def module_live_server(tmp_path_factory, migrated_database):
    """A live server that a module's tests share, for a night its fixtures make once
    (tests/screen_browsing.py: the room's screen with every game in every phase)."""
    folder = tmp_path_factory.mktemp("live")
    with serving(fresh_database(migrated_database, folder / "live.sqlite")) as server:
        yield server


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
        "executable_path": CHROMIUM,
        "args": list(CHROMIUM_ARGS),
    }


