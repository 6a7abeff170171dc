"""The fast paths (docs/measurements/2026-11-29/README.md, "What changed for speed"),
checked by what they do, never by how long they take.

A poll that finds nothing new answers 204 with no body, replays nothing, renders nothing
and opens no connection; a state is replayed once per log position; static files carry
their version and are cached a year; text is gzipped when the client asks; a seat page's
first load and a quiet poll stay small. (Timing lives in bench/bench.py, not here.)
"""

import copy
import gzip
import re
import sys

import pytest
from flask import template_rendered
from flask.sessions import SecureCookieSession

from bench.builders import make_night
from companion import store
from companion.app import create_app
from companion.core.lru import LRU, Pickled
from companion.kraken import rules as kraken_rules
from companion.kraken import views as kraken_views
from companion.play import actions
from companion.skullking import score_table
from companion.store import connection as db
from companion.store import log, played
from companion.web import http, templating
from tests.pages import without_tokens

FIVE = {f"seat{i}": "on" for i in range(5)}
KB = 1024


@pytest.fixture
def counts(app, monkeypatch):
    """How many replays, template renders and new database connections happen."""
    seen = {"replay": 0, "render": 0, "connect": 0}
    real_replay, real_connect = kraken_rules.replay, db.connect

    def replay(setup, events):
        seen["replay"] += 1
        return real_replay(setup, events)

    def connect(path):
        seen["connect"] += 1
        return real_connect(path)

    def rendered(sender, template, context, **extra):
        seen["render"] += 1

    monkeypatch.setattr(kraken_rules, "replay", replay)
    monkeypatch.setattr(db, "connect", connect)
    template_rendered.connect(rendered, app)
    yield seen
    template_rendered.disconnect(rendered, app)


def version_of(response):
    return int(re.search(r"\?v=(-?\d+)", response.data.decode()).group(1))


def wire_bytes(response):
    """Status line, headers and body, as they go over the wire."""
    head = f"HTTP/1.1 {response.status}\r\n" + "".join(
        f"{k}: {v}\r\n" for k, v in response.headers.items()) + "\r\n"
    return len(head.encode()) + len(response.data)


@pytest.fixture
def table(night):
    """A Kraken game of five with its host page open and seat 0's phone polling."""
    url = night.start("kraken", **FIVE)
    phone = night.phone(0)
    version = version_of(phone.get("/me/live?v=-1"))
    return night, url, phone, version


def test_a_phone_poll_with_no_change_is_204_with_an_empty_body(table, counts):
    night, url, phone, version = table
    store.states.clear()
    response = phone.get(f"/me/live?v={version}")
    assert response.status_code == 204
    assert response.data == b""
    assert counts == {"replay": 0, "render": 0, "connect": 0}


def test_a_host_poll_with_no_change_is_204_with_no_replay_render_or_connection(table, counts):
    night, url, phone, version = table
    store.states.clear()
    response = night.host.get(f"{url}/live?v={version}")
    assert response.status_code == 204
    assert response.data == b""
    assert counts == {"replay": 0, "render": 0, "connect": 0}


def test_a_poll_never_touches_the_session(table, monkeypatch):
    night, url, phone, version = table
    touched = []
    for name in ("__getitem__", "get", "__contains__", "setdefault", "__setitem__", "pop"):
        real = getattr(SecureCookieSession, name)

        def spy(self, *args, _real=real, _name=name, **kwargs):
            # Flask's own "is it permanent?" before it saves a session it did not
            # change reads no cookie data: only the app's reads count.
            if sys._getframe(1).f_code.co_name != "permanent":
                touched.append(_name)
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(SecureCookieSession, name, spy)
    night.host.get(f"{url}/live?v={version}")
    phone.get(f"/me/live?v={version}")
    assert touched == []
    night.host.get(url)  # a page does read it (its CSRF token): the spy works
    assert touched != []


@pytest.mark.parametrize("gzip_asked", [False, True])
def test_a_poll_with_no_change_is_under_one_kilobyte(table, gzip_asked):
    night, url, phone, version = table
    headers = {"Accept-Encoding": "gzip"} if gzip_asked else {}
    response = phone.get(f"/me/live?v={version}", headers=headers)
    assert response.status_code == 204
    assert wire_bytes(response) < KB
    assert "Set-Cookie" not in response.headers


def test_a_poll_after_a_change_brings_the_fresh_fragment_in_the_same_request(table, counts):
    night, url, phone, version = table
    night.host.post(f"{url}/kraken/marker", data={"seat": 1, "pos": night.pos(url)})
    response = phone.get(f"/me/live?v={version}")
    assert response.status_code == 200
    assert version_of(response) == version + 1
    assert 'id="live"' in response.data.decode()


def test_a_state_is_replayed_once_per_log_position(table, counts):
    night, url, phone, version = table
    store.states.clear()
    for _ in range(3):
        assert night.host.get(f"{url}/live").status_code == 200
        assert phone.get("/me/live").status_code == 200
    assert counts["replay"] == 1


def test_a_phone_fragment_reads_no_events_once_the_state_is_known(table, monkeypatch):
    """A phone shows the state, never the log: only a cache miss reads the events."""
    night, url, phone, version = table
    night.host.post(f"{url}/kraken/marker", data={"seat": 1, "pos": night.pos(url)})
    loads = []
    real_load = log.load
    monkeypatch.setattr(log, "load", lambda *a, **k: loads.append(a) or real_load(*a, **k))
    response = phone.get(f"/me/live?v={version}")
    assert response.status_code == 200
    assert "⚓" in response.data.decode()  # the marker the write set
    assert loads == []


def glance(html):
    return re.search(r'<section class="kraken-glance".*?</section>', html, re.S).group(0)


def test_the_table_at_a_glance_is_rendered_once_for_every_screen(table, monkeypatch):
    """Host and phones show the same glance: one render per position and language, the
    same bytes on each screen (so it can hold nothing of one viewer's own)."""
    night, url, phone, version = table
    phones = [phone, night.phone(1), night.phone(2)]  # (a claim moves the night on)
    night.host.post(f"{url}/kraken/marker", data={"seat": 2, "pos": night.pos(url)})
    renders = []

    class Spy(LRU):
        def put(self, key, value):
            if key[-1] == "kraken/_glance.html":
                renders.append(key)
            super().put(key, value)

    monkeypatch.setattr(templating, "_shared", Spy(16))
    screens = [night.host.get(f"{url}/live").data.decode()]
    screens += [p.get("/me/live").data.decode() for p in phones]
    assert len({glance(html) for html in screens}) == 1
    assert "⚓" in glance(screens[0])
    assert len(renders) == 1
    korean = phone.get("/me/live", headers={"Accept-Language": "ko"}).data.decode()
    assert "라운드" in glance(korean)  # another language is its own render
    assert len(renders) == 2


def test_a_write_replays_once_and_its_fresh_view_reuses_that_state(table, counts):
    night, url, phone, version = table
    pos = night.pos(url)
    before = counts["replay"]
    response = night.host.post(f"{url}/kraken/marker", data={"seat": 2, "pos": pos},
                               headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert f'name="pos" value="{pos + 1}"' in response.data.decode()
    assert counts["replay"] - before == 1
    assert phone.get("/me/live").status_code == 200
    assert counts["replay"] - before == 1


def test_a_cached_state_is_a_copy_nobody_can_spoil(app, table):
    night, url, phone, version = table
    number = int(url.rsplit("/", 1)[1])
    with app.test_request_context():
        row = store.night_by_key(night.key)
        first = store.game(row["id"], number).state
        first["players"].append(99)
        first["spoiled"] = True
        again = store.game(row["id"], number).state
    assert 99 not in again["players"]
    assert "spoiled" not in again


def test_another_worker_sees_a_write_made_elsewhere(app, table):
    """Two app instances on one file (two workers): the cache never hides a new event."""
    night, url, phone, version = table
    other = create_app({"TESTING": True, "DATABASE": app.config["DATABASE"],
                        "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False})
    number = int(url.rsplit("/", 1)[1])
    with other.test_request_context():
        row = store.night_by_key(night.key)
        assert store.game(row["id"], number).state["marker"] is None
    night.host.post(f"{url}/kraken/marker", data={"seat": 3, "pos": night.pos(url)})
    with other.test_request_context():
        assert store.game(row["id"], number).state["marker"] == 3


def test_two_databases_never_share_a_cached_state(tmp_path):
    """The same game id in two files: each gets its own state."""
    markers = []
    for name, seat in (("a", 1), ("b", 2)):
        app = create_app({"TESTING": True, "DATABASE": str(tmp_path / f"{name}.sqlite"),
                          "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False})
        night = make_night(app)
        url = night.start("kraken", **FIVE)
        night.host.post(f"{url}/kraken/marker", data={"seat": seat, "pos": night.pos(url)})
        with app.test_request_context():
            markers.append(store.game(store.night_by_key(night.key)["id"], 1).state["marker"])
    assert markers == [1, 2]


def test_the_cache_is_bounded(app):
    cache = Pickled(size=3)
    for i in range(10):
        cache.put(("db", i), {"i": i})
    assert cache.get(("db", 0)) is None
    assert cache.get(("db", 9)) == {"i": 9}
    assert len(cache) == 3
    cache.get(("db", 9))["i"] = "spoilt"  # each reader has its own copy
    assert cache.get(("db", 9)) == {"i": 9}


def static_urls(html):
    return [u.replace("&amp;", "&") for u in re.findall(r'(?:href|src)="(/static/[^"]+)"', html)]


def test_static_urls_carry_a_version_and_are_cached_a_year(table):
    night, url, phone, version = table
    urls = static_urls(phone.get("/me").data.decode())
    assert len(urls) >= 4
    for static in urls:
        assert re.search(r"\?v=[0-9a-f]{10}$", static), static
        response = phone.get(static)
        assert response.status_code == 200
        assert "max-age=31536000" in response.headers["Cache-Control"]
        assert "immutable" in response.headers["Cache-Control"]
        response.close()


def test_a_seat_page_first_load_is_under_150_kilobytes(table):
    """The page, its scripts and stylesheets, and the fonts the stylesheets name (the
    emoji subset a page with the rabbit or a trophy loads)."""
    night, url, phone, version = table
    asked = {"Accept-Encoding": "gzip, deflate, br"}
    page = phone.get("/me", headers=asked)
    total = wire_bytes(page)
    fonts = set()
    for static in static_urls(gzip.decompress(page.data).decode()):
        response = phone.get(static, headers=asked)
        total += wire_bytes(response)
        if static.split("?")[0].endswith(".css"):
            css = response.data
            if response.headers.get("Content-Encoding") == "gzip":
                css = gzip.decompress(css)
            folder = static.split("?")[0].rsplit("/", 1)[0]
            fonts |= {f"{folder}/{name}" for name in
                      re.findall(r'url\("?([^")]+\.woff2)', css.decode())}
        response.close()
    assert fonts  # the emoji subset is counted
    for font in fonts:
        response = phone.get(font, headers=asked)
        assert response.status_code == 200, font
        total += wire_bytes(response)
        response.close()
    assert total < 150 * KB


def test_html_is_gzipped_when_asked_and_only_then(table):
    night, url, phone, version = table
    plain = night.host.get(url)
    zipped = night.host.get(url, headers={"Accept-Encoding": "gzip, deflate"})
    assert "Content-Encoding" not in plain.headers
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in zipped.headers["Vary"]
    assert len(zipped.data) < len(plain.data) / 2
    # The same page apart from the CSRF token, which is signed afresh.
    assert (without_tokens(gzip.decompress(zipped.data).decode())
            == without_tokens(plain.get_data(as_text=True)))


def test_static_files_are_gzipped_once_and_the_same_bytes(table):
    night, url, phone, version = table
    css = next(u for u in static_urls(phone.get("/me").data.decode()) if "pico" in u)
    plain = phone.get(css)
    zipped = [phone.get(css, headers={"Accept-Encoding": "gzip"}) for _ in range(2)]
    assert zipped[0].headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(zipped[0].data) == plain.data
    assert zipped[0].data == zipped[1].data
    assert zipped[0].headers["ETag"] != plain.headers["ETag"]
    for response in (plain, *zipped):
        response.close()


def test_small_bodies_are_not_gzipped(table):
    night, url, phone, version = table
    stranger = night.app.test_client()  # no seat: the short "scan your code" fragment
    response = stranger.get("/me/live?v=0", headers={"Accept-Encoding": "gzip"})
    assert response.status_code == 200
    assert len(response.data) < KB
    assert "Content-Encoding" not in response.headers


@pytest.mark.slow  # a Python of its own that loads gevent (docs/testing.md)
def test_the_served_app_is_compiled_and_frozen_before_its_first_request(tmp_path):
    """companion.serving.wsgi (gunicorn's entry; `companion serve` does the same): every template
    compiled up front, the start-up objects frozen out of the collector's full passes,
    young collections rarer (most of a request's objects die before one), full ones
    seven times rarer than Python's default (each walks every open connection's
    objects), and no spawning stack kept per greenlet."""
    import subprocess
    import sys

    probe = ("import gc, gevent, companion.serving.wsgi as w; "
             "print(len(w.app.jinja_env.cache), len(w.app.jinja_env.list_templates()), "
             "gc.get_freeze_count(), *gc.get_threshold(), "
             "int(gevent.config.track_greenlet_tree))")
    env = {"COMPANION_DATABASE": str(tmp_path / "w.sqlite"), "COMPANION_SECRET_KEY": "t",
           "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                         text=True, timeout=60, check=True).stdout.split()
    cached, templates, frozen, young, middle, full, tree = map(int, out)
    assert cached == templates > 40
    assert frozen > 10_000
    assert young >= 5000  # Python's default: 700
    assert young * middle * full >= 7 * 700 * 10 * 10  # allocations between full ones
    assert tree == 0


#: A served app's start (companion.serving.wsgi), counting the templates it compiles.
COMPILES = ("import jinja2; compile = jinja2.Environment.compile; n = [0]\n"
            "def counted(env, *args, **kwargs):\n"
            "    n[0] += 1\n"
            "    return compile(env, *args, **kwargs)\n"
            "jinja2.Environment.compile = counted\n"
            "import companion.serving.wsgi as w\n"
            "print(n[0], len(w.app.jinja_env.cache))")


@pytest.mark.slow  # four starts of a served app, each a second of a core
@pytest.mark.parametrize("cache", ["a folder", "no folder"])
def test_a_served_app_s_next_start_reads_its_templates_compiled_code(tmp_path, cache):
    """Every template is compiled at the first start; the next reads their code from the
    user's cache folder (companion/laptop/paths.py) and compiles none. Where that folder
    cannot be made (here a file stands in its way), each start compiles them all."""
    import subprocess

    home = tmp_path / "home"
    home.mkdir()
    if cache == "no folder":
        (home / "cache").write_text("a file, not a folder")
    env = {"COMPANION_DATABASE": str(tmp_path / "w.sqlite"), "COMPANION_SECRET_KEY": "t",
           "PATH": "/usr/bin:/bin", "HOME": str(home), "XDG_CACHE_HOME": str(home / "cache"),
           "LOCALAPPDATA": str(home / "cache")}
    starts = [subprocess.run([sys.executable, "-c", COMPILES], env=env, capture_output=True,
                             text=True, timeout=60, check=True).stdout.split()
              for _ in range(2)]
    (first, templates), (second, again) = [map(int, start) for start in starts]
    assert first == templates == again > 40
    assert second == (0 if cache == "a folder" else templates)


def test_a_template_s_compiled_code_is_kept_under_its_name_wherever_it_was_unpacked(tmp_path):
    """A one-file program unpacks its templates into a new folder at each start: the
    kept code's key is the template's name, so those starts share one entry each."""
    from companion.app import TemplateCodeFolder

    cache = TemplateCodeFolder(str(tmp_path))
    assert (cache.get_cache_key("night.html", "/tmp/_MEI1234/templates/night.html")
            == cache.get_cache_key("night.html", "/tmp/_MEI5678/templates/night.html")
            != cache.get_cache_key("seat.html", "/tmp/_MEI5678/templates/seat.html"))


def test_kept_template_code_that_cannot_be_read_or_written_is_compiled_afresh(tmp_path):
    """A cache only: an entry cut short is compiled again (and replaced), and a folder
    that is gone keeps nothing; the template loads either way."""
    from jinja2 import DictLoader, Environment
    from jinja2.bccache import bc_magic

    from companion.app import TemplateCodeFolder

    def env(folder):
        return Environment(loader=DictLoader({"t.html": "{{ 1 + 1 }}"}),
                           bytecode_cache=TemplateCodeFolder(str(folder)))

    assert env(tmp_path / "gone").get_template("t.html").render() == "2"
    env(tmp_path).get_template("t.html")
    [kept] = tmp_path.glob("*.cache")
    cut = len(bc_magic) + 2  # the magic, and a checksum cut short
    kept.write_bytes(kept.read_bytes()[:cut])
    assert env(tmp_path).get_template("t.html").render() == "2"
    assert kept.stat().st_size > cut


def wal_bytes(path):
    import os

    return os.path.getsize(path + "-wal")


def test_a_commit_never_checkpoints_the_wal_the_check_after_the_answer_does(tmp_path):
    """SQLite's own checkpoint runs inside the commit that crosses 1,000 pages, making
    that write wait; here commits only append, and the store's fold_wal folds the WAL back."""
    path = str(tmp_path / "c.sqlite")
    conn = db.connect(path, create=True)
    conn.execute("create table t (x text)")
    for _ in range(1200):  # ~1,200 pages: past the 4 MB threshold
        conn.execute("insert into t values (?)", ["x" * 4000])
    assert wal_bytes(path) > db.CHECKPOINT_BYTES  # no commit checkpointed on its own
    db.fold_wal(path)  # on its own connection, as after an answer
    conn.execute("insert into t values ('after')")  # the WAL restarts from its start
    assert wal_bytes(path) < 64 * KB
    db.fold_wal(path)  # below the threshold: nothing to do
    assert conn.execute("select count(*) from t").fetchone()[0] == 1201


def test_the_checkpoint_runs_after_a_writes_answer_is_sent(table, monkeypatch):
    night, url, phone, version = table
    calls = []
    monkeypatch.setattr(db, "checkpoint_due", lambda path: True)
    monkeypatch.setattr(db, "checkpoint", lambda path: calls.append(path))
    response = night.host.post(f"{url}/kraken/marker", data={"seat": 1, "pos": night.pos(url)},
                               headers={"HX-Request": "true"}, buffered=False)
    assert response.status_code == 200
    assert calls == []  # not while answering
    response.close()  # the server has sent it
    assert calls == [night.app.config["DATABASE"]]
    phone.get("/me/live").close()
    assert len(calls) == 1  # a read never checkpoints


def test_under_gevent_the_checkpoint_runs_in_a_thread_not_in_the_worker(table, monkeypatch):
    """SQLite's copy and fsyncs would stop every greenlet of a gevent worker while they
    ran: under gevent they go to a thread of gevent's pool."""
    night, url, phone, version = table
    spawned = []

    class Pool:
        def spawn(self, work, *args):
            spawned.append((work, args))

    monkeypatch.setattr(db.monkey, "is_module_patched", lambda name: name == "threading")
    monkeypatch.setattr(db.gevent, "get_hub", lambda: type("Hub", (), {"threadpool": Pool()}))
    night.host.post(f"{url}/kraken/marker", data={"seat": 1, "pos": night.pos(url)}).close()
    assert spawned == []  # a WAL far below 4 MB: nothing handed over
    monkeypatch.setattr(db, "checkpoint_due", lambda path: True)
    night.host.post(f"{url}/kraken/marker", data={"seat": 2, "pos": night.pos(url)}).close()
    assert spawned == [(db.checkpoint, (night.app.config["DATABASE"],))]


# --- boards: a screen at a version its process has read costs one query --------------

@pytest.fixture
def statements(app, monkeypatch):
    """The SQL statements each request runs (its transactions' own BEGIN/COMMIT and
    pragmas aside), counted on every connection the app opens from now on."""
    seen = []
    real_connect = db.connect

    def connect(*args, **kwargs):
        opened = real_connect(*args, **kwargs)
        opened.conn.set_trace_callback(seen.append)
        return opened

    monkeypatch.setattr(db, "connect", connect)
    db.close_thread_connections()

    def counted():
        return [s for s in seen if not s.startswith(("SAVEPOINT", "RELEASE", "PRAGMA",
                                                     "BEGIN", "COMMIT"))]
    yield seen, counted


def test_a_phone_fragment_after_another_phones_costs_one_query(table, statements):
    night, url, phone, version = table
    other = night.phone(1)  # (taking the seat changes the night: a new version)
    night.host.post(f"{url}/kraken/marker", data={"seat": 1, "pos": night.pos(url)})
    seen, counted = statements
    answer = other.get(f"/me/live?v={version}")  # reads the board
    assert answer.status_code == 200
    seen.clear()
    response = phone.get(f"/me/live?v={version}")
    assert response.status_code == 200 and version_of(response) == version_of(answer)
    assert "⚓" in response.data.decode()
    assert len(counted()) == 1, counted()


def test_a_host_fragment_at_a_known_version_costs_one_query(table, statements):
    night, url, phone, version = table
    night.host.post(f"{url}/kraken/marker", data={"seat": 1, "pos": night.pos(url)})
    seen, counted = statements
    assert phone.get(f"/me/live?v={version}").status_code == 200
    seen.clear()
    response = night.host.get(f"{url}/live?v={version}")
    assert response.status_code == 200 and version_of(response) == version + 1
    assert len(counted()) == 1, counted()


def boards_of(app):
    """The boards this process keeps of the app's database (other tests' aside)."""
    return {key: board for key, board in store.boards._items.items()
            if key[0] == app.config["DATABASE"]}


def versions_kept(app):
    return {board.version for board in boards_of(app).values()}


def test_a_board_is_read_once_per_version_in_four_queries(table, statements):
    night, url, phone, version = table
    night.host.post(f"{url}/kraken/marker", data={"seat": 1, "pos": night.pos(url)})
    seen, counted = statements
    store.boards.clear()
    seen.clear()
    phone.get(f"/me/live?v={version}")
    assert len(counted()) == 1 + 4  # the seat with its version, then the board
    # A write's own answer draws the new version's board; the phones then share it.
    night.host.post(f"{url}/kraken/marker", data={"seat": 2, "pos": night.pos(url)})
    seen.clear()
    response = phone.get(f"/me/live?v={version + 1}")
    assert version_of(response) == version + 2
    assert "⚓" in response.data.decode()
    assert len(counted()) == 1
    # Only a night's newest board is asked for again: the process keeps that one.
    assert versions_kept(night.app) == {version + 2}


def test_a_phone_behind_the_newest_board_is_drawn_from_it(table, statements):
    """A board is never older than the version asked for, and may be newer: a phone
    that asks after a write it has not heard of yet gets the write."""
    night, url, phone, version = table
    night.host.post(f"{url}/kraken/marker", data={"seat": 1, "pos": night.pos(url)})
    seen, counted = statements
    seen.clear()
    response = phone.get(f"/me/live?v={version}")
    assert version_of(response) == version + 1
    assert len(counted()) == 1  # the host's answer had read that board


def test_a_change_to_one_game_parses_no_other_games_setup(night, monkeypatch):
    """A long night has dozens of games; a board read after a change takes the games
    whose rows did not change from the board before."""
    first = night.start("kraken", **FIVE)
    url = night.start("kraken", **FIVE)
    phone = night.phone(0)
    assert phone.get("/me/live").status_code == 200  # this version's board is read
    made = []
    real = played._game
    monkeypatch.setattr(store.night_board, "_game", lambda row, *a: made.append(row["number"])
                        or real(row, *a))
    night.host.post(f"{url}/kraken/marker", data={"seat": 1, "pos": night.pos(url)})
    assert "⚓" in phone.get("/me/live").data.decode()
    assert made.count(1) == 0 and made.count(2) >= 1
    assert night.host.get(first).status_code == 200  # the first game, as it was


def test_a_board_holds_the_latest_games_however_long_the_night(night, monkeypatch):
    """A night of many games: its board holds the latest (and the phones' game, if the
    host went back to an older one), so it stays the same size; an older game's page
    and a phone shown it read it when asked."""
    monkeypatch.setattr(store.night_board, "BOARD_GAMES", 3)
    urls = [night.start("kraken", **FIVE) for _ in range(6)]
    phone = night.phone(0)

    def held():
        with night.app.test_request_context():
            found = store.board(store.night_by_key(night.key)["id"])
        return [row["number"] for row in found.game_rows], found.complete

    assert held() == ([4, 5, 6], False)
    assert 'data-game="6"' in phone.get("/me/live").data.decode()
    page = night.host.get(urls[0])  # game 1, older than the board
    assert page.status_code == 200 and "kraken-marker" in page.data.decode()
    with night.app.test_request_context():
        board = store.board(store.night_by_key(night.key)["id"])
        assert [g.number for g in board.games_after(1)] == [2, 3, 4, 5, 6]
        assert [g.number for g in board.games_after(4)] == [5, 6]
        assert [g.number for g in board.games()] == [1, 2, 3, 4, 5, 6]
    assert night.host.post(f"{urls[0]}/resume").status_code in (200, 303)
    assert held() == ([1, 4, 5, 6], False)  # the game the phones show, and the latest
    live = phone.get("/me/live").data.decode()
    assert 'data-game="1"' in live


def test_a_seats_view_is_built_once_per_version_and_language(table, monkeypatch):
    night, url, phone, version = table
    built = []
    real = kraken_rules.kinds_in_play  # called once each time Kraken's view is built
    monkeypatch.setattr(kraken_rules, "kinds_in_play",
                        lambda **k: built.append(1) or real(**k))
    night.host.post(f"{url}/kraken/marker", data={"seat": 1, "pos": night.pos(url)})
    built.clear()  # (the host's answer built the host's view)
    for _ in range(3):
        assert phone.get(f"/me/live?v={version}").status_code == 200
    assert built == [1]
    assert "Hold to see your role" in phone.get(f"/me/live?v={version}").data.decode()
    phone.set_cookie("lang", "ko")  # another language: its own
    assert "Hold to see your role" not in phone.get(f"/me/live?v={version}").data.decode()
    assert built == [1, 1]


def test_the_kraken_series_is_derived_once_per_board_for_every_screen(table, monkeypatch):
    """It reads every game of the night: the host and the table's phones share it."""
    night, url, phone, version = table
    others = [night.phone(i) for i in range(1, 5)]
    pos = night.pos(url)  # (reading it loads the host's page)
    derived = []
    real = kraken_views._series
    monkeypatch.setattr(kraken_views, "_series", lambda *a: derived.append(1) or real(*a))
    night.host.post(f"{url}/kraken/marker", data={"seat": 1, "pos": pos})
    for client in [phone, *others]:
        assert "⚓" in client.get("/me/live").data.decode()
    assert night.host.get(f"{url}/live").status_code == 200
    assert derived == [1]


def test_the_skull_king_table_is_worked_out_once_per_board_for_every_screen(night,
                                                                             monkeypatch):
    """The score table and chart hold no secret: the tablet and four phones share one."""
    url = night.start("skullking", seat0="1", seat1="1", seat2="1", seat3="1")
    phones = [night.phone(i) for i in range(4)]
    pos = night.pos(url)
    worked = []
    real = score_table.score_table
    monkeypatch.setattr(score_table, "score_table",
                        lambda *a: worked.append(1) or real(*a))
    night.host.post(f"{url}/skullking/bid",
                    data={"round": 1, "seat": 0, "bid": 1, "pos": pos})
    for phone in phones:
        assert "sk-me" in phone.get("/me/live").data.decode()
    assert night.host.get(f"{url}/live").status_code == 200
    assert worked == [1]


def test_a_writes_answer_draws_its_view_from_the_board_it_read(night, statements):
    """The host's answer reads the night's new board once; the game's view (here Skull
    King's score table) takes it from there, without asking the night's version again."""
    url = night.start("skullking", seat0="1", seat1="1", seat2="1", seat3="1")
    pos = night.pos(url)
    seen, counted = statements
    seen.clear()
    answer = night.host.post(f"{url}/skullking/bid",
                             data={"round": 1, "seat": 0, "bid": 1, "pos": pos},
                             headers={"HX-Request": "true"})
    assert answer.status_code == 200 and "sk-card-total" in answer.data.decode()
    assert not [s for s in counted() if s.startswith("select version from nights")]


def test_a_seats_view_is_never_handed_to_another_seat(app, table):
    """Screens are kept per seat: seat 3 asking after seat 2 builds its own view (which
    may hold its own secret), never seat 2's."""
    night, url, phone, version = table
    with app.test_request_context():
        board = store.board(store.night_by_key(night.key)["id"])
        game = board.current_game()
        mine = actions.view_model(board, game, 2, lambda: {"view": "seat 2's"})
        theirs = actions.view_model(board, game, 3, lambda: {"view": "seat 3's"})
        again = actions.view_model(board, game, 2, lambda: {"view": "built again"})
    assert (mine["view"], theirs["view"], again["view"]) == ("seat 2's", "seat 3's",
                                                               "seat 2's")



def test_nothing_a_screen_draws_changes_a_board(table):
    """Boards are shared by every request of a process: drawing every screen of a
    night twice leaves the boards it drew from as they were read."""
    night, url, phone, version = table
    phones = [phone] + [night.phone(i) for i in range(1, 5)]
    night.host.post(f"{url}/kraken/marker", data={"seat": 1, "pos": night.pos(url)})

    def draw_everything():
        for client in phones:
            for path in ("/me", "/me/live", "/me/tally", "/me/tally/live"):
                assert client.get(path).status_code == 200
        for path in (url, f"{url}/live", f"/n/{night.key}", f"/n/{night.key}/live",
                     f"/n/{night.key}/tally"):
            assert night.host.get(path).status_code == 200, path

    draw_everything()
    kept = copy.deepcopy(boards_of(night.app))
    assert kept
    draw_everything()
    assert boards_of(night.app) == kept


def test_a_static_files_version_follows_its_change(app, tmp_path):
    """An edited file gets a new URL at once (under `flask run --debug` too): its version
    is worked out again when its change time or size moves, as the gzip cache's is."""
    import os


    app.static_folder = str(tmp_path)
    script = tmp_path / "app.js"
    script.write_text("let a = 1;")
    with app.test_request_context():
        first = http.static_version("app.js")
        assert http.static_version("app.js") == first
        script.write_text("let a = 2;")  # same size: the change time tells
        os.utime(script, ns=(1, script.stat().st_mtime_ns + 10**9))
        assert http.static_version("app.js") not in (first, "0")
        assert http.static_version("missing.js") == "0"
