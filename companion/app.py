"""The app factory: configuration, the database, Babel, CSRF and every blueprint."""

import contextlib
import gc
import os
import pickle
import secrets
import time
from pathlib import Path
from typing import Any

import gevent
from flask import Flask
from flask_babel import Babel
from flask_wtf.csrf import CSRFProtect
from jinja2 import FileSystemBytecodeCache
from jinja2.bccache import Bucket

from companion import live, store, web
from companion.core import registry
from companion.laptop.paths import asset_folder, compiled_templates_folder, data_folder
from companion.live import clock, streams
from companion.pictures import views as pictures
from companion.play import views as play
from companion.screen import views as screen
from companion.table import hosting, nights, phones, wifi_code
from companion.tally import exchange, statistics
from companion.tally import views as tally
from companion.web import i18n

LANGUAGES = i18n.LANGUAGES

babel = Babel()
csrf = CSRFProtect()


def _secret_key(instance: str) -> str:
    """SECRET_KEY lives in instance/, made on first run, never in the code.

    Made atomically, for several processes starting at once (gunicorn's workers): each
    writes a fresh key to its own private temporary file, syncs it, and publishes it with
    ``os.link``, which fails when the key exists already. So exactly one key is ever
    published, whole, and every process reads that one. A folder that has no hard links
    (a USB stick's exFAT or FAT32) refuses ``os.link``: the key is then created in place,
    exclusively, and a process that finds it still empty waits a moment for its writer
    before taking it for the empty file an older version could leave. The file is made
    0600 (as far as the folder keeps modes: exFAT keeps none, docs/security.md).
    """
    path = Path(instance) / "secret_key"
    if not path.exists():
        _publish_key(path, replace=False)
    key = _read_key(path)
    if not key:  # left empty by an older, non-atomic version: make it good once
        _publish_key(path, replace=True)
        key = _read_key(path)
    return key


#: How long a process waits for a key another one is writing in place (a folder without
#: hard links), in tries of 50 ms.
KEY_WAIT_TRIES = 20


def _read_key(path: Path) -> str:
    """The key in ``path``, waiting up to a second while it is empty."""
    for _ in range(KEY_WAIT_TRIES):
        key = path.read_text(encoding="ascii").strip()
        if key:
            return key
        time.sleep(0.05)
    return ""


def _write_key(path: Path) -> None:
    """Create ``path`` (never an existing one) holding a new random key, synced.

    Its mode is given as it is created (0600, less the umask), never changed after:
    ``os.fchmod`` exists on Windows only from Python 3.13, and a chmod is refused on
    exFAT."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0),
                 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(secrets.token_urlsafe(48))
        out.flush()
        os.fsync(out.fileno())


def _publish_key(path: Path, *, replace: bool) -> None:
    """Write a new random key to a temporary file beside ``path`` and put it at ``path``:
    only if there is none yet (``os.link``; created in place where the folder has no
    hard links), or in place of it (``os.replace``)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(8)}.tmp")
    _write_key(tmp)
    try:
        if replace:
            os.replace(tmp, path)
            return
        try:
            os.link(tmp, path)
        except FileExistsError:  # another process was first
            pass
        except OSError:  # no hard links here (FAT, exFAT, some network shares)
            with contextlib.suppress(FileExistsError):
                _write_key(path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


class TemplateCodeFolder(FileSystemBytecodeCache):
    """Jinja's compiled templates kept in a folder, each under its template's name alone:
    a one-file program (PyInstaller) unpacks its templates into a new folder at each
    start, and Jinja's own key, which holds the template's path, would have added a copy
    of every template at each start. Jinja checks each entry against its template's
    source before use, so a name two installs share is compiled again, never misread.
    A cache only: an entry that cannot be read (cut short) is compiled afresh, and one
    that cannot be written (a full disk, a folder gone) is not kept; the server starts."""

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        return super().get_cache_key(name)

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except (OSError, EOFError, ValueError, pickle.UnpicklingError):
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


def ready(app: Flask) -> Flask:
    """Make a served app ready before its first request; returns it.

    Done once per server process (``companion serve``, ``companion.serving.wsgi`` for gunicorn):
    every template is compiled, so no player waits for a page's first compile (its code
    kept in the user's cache folder, :func:`companion.laptop.paths.compiled_templates_folder`,
    and read from there by the next start: 0.64 → 0.03 s of CPU for 113 templates); then the
    objects made so far (the app, its modules and templates: nearly all a worker ever
    holds) are frozen out of the garbage collector's way. A full collection walks every
    tracked object: without the freeze it took ~15 ms about once per 400 requests, and
    every request of that process waited for it.

    The collector's thresholds then suit a busy worker (:data:`COLLECTOR_THRESHOLDS`).
    At 200 tables, with Python's (700, 10, 10), a worker ran ten young collections a
    second: most of a request's objects live until its answer is sent, so a young
    generation of 700 caught them alive and carried them into older ones, a middle
    collection every second (5-11 ms each), and a full one every ~10 s that walked the
    ~100,000 objects of the worker's open connections (about 50 each) and stopped it for
    30-107 ms, to find a few hundred objects of cyclic garbage (reference counting frees
    the rest). With room for 5,000, most have died before a young collection: a third
    less time collecting, and full collections about every 100 s. gevent does not record
    each connection's greenlet's spawning stack either (more objects per connection, and
    time per spawn, that only a debugger reads).
    """
    folder = compiled_templates_folder()
    if folder is not None and app.jinja_env.bytecode_cache is None:
        app.jinja_env.bytecode_cache = TemplateCodeFolder(str(folder))
    for name in app.jinja_env.list_templates():
        app.jinja_env.get_template(name)
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)
    gevent.config.track_greenlet_tree = False
    return app


def server_started(app: Flask) -> Flask:
    """What a server does once as it starts, before anything is served; returns the app.

    It forgets every Wi-Fi code the host did not ask this laptop to remember
    (companion/store/wifi.py): such a code is kept "only while the server runs". This
    is not in :func:`ready`, which every worker process runs: gunicorn starts a worker
    again whenever one dies, mid-night, and the workers of the café setup start at
    different moments, so a worker's start would wipe the code a host showed an hour
    before. ``companion serve`` (one process) calls it before serving; the café setup
    calls it once in gunicorn's master process, before any worker is made
    (``companion.serving.cafe.Worker.check_config``). A connection of its own, closed at once:
    the master forks the workers, and a connection must not cross a fork.
    """
    conn = store.connect(app.config["DATABASE"])
    try:
        store.forget_unremembered(conn)
    finally:
        conn.close()
    return app


#: The garbage collector's thresholds in a served process (:func:`ready`): young,
#: middle, full (Python's defaults: 700, 10, 10).
COLLECTOR_THRESHOLDS = (5000, 10, 10)


def create_app(test_config: dict[str, Any] | None = None,
               data: str | os.PathLike[str] | None = None) -> Flask:
    """The app, keeping its data in ``data`` (else the folder ``data_folder`` chooses)."""
    app = Flask(
        __name__,
        instance_path=str(data_folder(data)),
        instance_relative_config=True,
        template_folder=str(asset_folder("templates")),
        static_folder=str(asset_folder("static")),
    )
    app.config.from_mapping(
        DATABASE=str(Path(app.instance_path) / "companion.sqlite"),
        PUBLIC_URL=None,
        # The laptop's other addresses, best first, as base URLs: the table page offers
        # a QR code of each under "Phones can't open it?" (`companion serve` finds them;
        # none with --public-url, nor in the café setup unless COMPANION_OTHER_URLS='[…]').
        OTHER_URLS=[],
        # Names the app answers to besides its own (localhost, the laptop's addresses,
        # PUBLIC_URL's and OTHER_URLS' hosts): a café's own name; "*" answers any name
        # (companion/web/hosts.py).
        ALLOWED_HOSTS=[],
        BABEL_TRANSLATION_DIRECTORIES=str(Path(__file__).parent / "translations"),
        BABEL_DEFAULT_LOCALE="ko",
        LANGUAGE="ko",  # for a browser that names neither Korean nor English
        WTF_CSRF_TIME_LIMIT=None,
        WTF_CSRF_SSL_STRICT=False,
        SEND_FILE_MAX_AGE_DEFAULT=365 * 24 * 3600,
        MAX_CONTENT_LENGTH=2 * 1024 * 1024,
        SESSION_COOKIE_SAMESITE="Lax",
        POLL_SECONDS=2,
        # Live push (companion/live/streams.py): "auto" is on under gevent (`companion serve`,
        # the café setup), which holds many streams cheaply; off elsewhere (pages poll).
        LIVE_PUSH="auto",
        PUSH_TICK=0.05,  # how often a process reads the watched nights' versions
        # Seconds between a stream's "alive" when nothing changes: at most 3 frames an
        # idle minute wake a phone's radio, and a page whose stream is silent 1.5 times
        # this (and a second) says it can't reach the table (static/js/live.js).
        PUSH_HEARTBEAT=20,
        # Streams one device may hold (a phone and a tab or two), one client address, and
        # one process in all (companion/live/streams.py; at most half its open files,
        # companion/serving/connections.py).
        PUSH_STREAMS_PER_DEVICE=4,
        PUSH_STREAMS_PER_ADDRESS=16,  # one address: a phone or two, a laptop's tabs
        PUSH_STREAMS_MOST=4000,
        PUSH_STREAM_SECONDS=300,  # a stream's life (the browser then opens another)
        # How long after "Yo-ho-ho!" is recorded every screen opens the bids together
        # (static/js/clock.js, a synchronised reveal): long enough for a slow phone on
        # café Wi-Fi to be told by its stream, fetch the reveal and draw it with time to
        # spare, about a table's own "Yo-ho-ho!" (docs/architecture.md, "A synchronised
        # reveal").
        REVEAL_LEAD_MS=3000,
        # Whether an end that makes every secret public (Kraken's every role) waits its
        # few seconds with "Game over — Undo" before it shows (companion/play/seen.py).
        END_HELD=True,
        # How often `companion serve` looks whether a night is live, to keep the laptop
        # awake while it is (companion/laptop/awake.py).
        AWAKE_CHECK_SECONDS=60,
        GAMES=list(registry.INSTALLED),
    )
    app.config.from_prefixed_env("COMPANION")
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(app.instance_path)

    # The games this app knows, read by its pages and its store (``store.known_games``).
    app.extensions[registry.APP_KEY] = registry.load(tuple(app.config["GAMES"]))
    store.migrate(app.config["DATABASE"])
    app.teardown_appcontext(store.end_request)
    babel.init_app(app, locale_selector=i18n.select_locale)
    csrf.init_app(app)
    web.init_app(app)
    app.register_blueprint(nights.bp)
    app.register_blueprint(phones.bp)
    app.register_blueprint(hosting.bp)
    app.register_blueprint(play.bp)
    app.register_blueprint(tally.bp)
    app.register_blueprint(statistics.bp)
    app.register_blueprint(exchange.bp)
    app.register_blueprint(pictures.bp)
    app.register_blueprint(streams.bp)
    app.register_blueprint(clock.bp)
    app.register_blueprint(screen.bp)
    app.register_blueprint(wifi_code.bp)
    app.jinja_env.globals["live_push"] = live.enabled
    for game in app.extensions[registry.APP_KEY].values():
        app.register_blueprint(game.blueprint)
    return app
