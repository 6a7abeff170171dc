"""Fault drills: nothing lost, nothing recorded twice.

The multi-process drills run the real server (`companion serve` under waitress, or
gunicorn with three workers) and talk to it over HTTP like a phone or a tablet does,
with CSRF on. They kill it with SIGKILL, flood it with concurrent writes, and then read
the SQLite file directly to prove what is stored.

A kind of game joins the kill and worker drills by adding a "script" to SCRIPTS: how to
start it, and given the game's current state, the next legal host action.
"""

import json
import os
import random
import re
import sqlite3
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from companion.store.connection import uri
from tests.over_http import (
    CAFE,
    FOUR,
    SCRIPTS,
    TYPES,
    Device,
    Gunicorn,
    assert_log_sound,
    create_night,
    kraken_next,
    read_game,
    start_game,
    state_of,
    step,
)

STALE = "The table moved on: here is the latest. Check it and try again."


# --- kill mid-game ------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(SCRIPTS))
def test_a_killed_server_keeps_every_acknowledged_event_and_the_game_goes_on(
        server_process, kind):
    rng = random.Random(f"kill-{kind}")
    database = server_process.database
    server_process.start()
    host, key, _ = create_night(server_process.url)
    number = start_game(host, key, kind, SCRIPTS[kind][0])
    acknowledged = {}  # seq -> action path
    interrupted = []  # kills that landed while a write was on its way

    for kill in range(4):
        # a few calm writes, then a burst that the kill lands in the middle of
        for _ in range(rng.randint(1, 3)):
            status, seq, path, _ = step(host, database, key, number, kind, endless=True)
            assert status == 303
            acknowledged[seq] = path
        done = threading.Event()
        errors = []

        def burst(done=done, errors=errors, kill=kill):
            while not done.is_set():
                try:
                    result = step(host, database, key, number, kind, endless=True)
                except Exception as error:  # noqa: BLE001
                    errors.append(error)  # the server died under us: expected
                    interrupted.append(kill)
                    return
                if result is None:
                    return
                status, seq, path, _ = result
                if status == 303:
                    acknowledged[seq] = path

        writer = threading.Thread(target=burst)
        writer.start()
        time.sleep(rng.uniform(0.02, 0.4))
        server_process.kill()
        done.set()
        writer.join(timeout=30)
        rows = assert_log_sound(database, key, number)
        stored = {r["seq"]: r["type"] for r in rows}
        for seq, path in acknowledged.items():
            assert seq in stored, f"acknowledged event {seq} ({path}) was lost"
            assert stored[seq] == TYPES[path]
        server_process.start()
        host.get(f"/n/{key}/g/{number}")  # a fresh page: the tablet reloads

    # the game continues after the last restart: one more action is recorded and shown
    before = len(assert_log_sound(database, key, number))
    status, seq, _, _ = step(host, database, key, number, kind, endless=True)
    assert status == 303 and seq == before + 1
    assert len(assert_log_sound(database, key, number)) == before + 1
    status, _, html = host.get(f"/n/{key}/g/{number}")
    assert status == 200 and f'name="pos" value="{before + 1}"' in html
    assert len(acknowledged) >= 4
    assert interrupted, "no kill landed during a write"


# --- concurrent writes --------------------------------------------------------------


@pytest.mark.slow
def test_twenty_clients_from_one_log_position_record_exactly_one_event(server_process):
    server_process.start()
    database = server_process.database
    host, key, _ = create_night(server_process.url)
    number = start_game(host, key, "kraken", FOUR)
    # twenty tablets that share the host's cookies (the same host device, double taps)
    clients = []
    for _ in range(20):
        device = Device(server_process.url)
        for cookie in host.jar:
            device.jar.set_cookie(cookie)
        device.csrf = host.csrf
        clients.append(device)
    barrier = threading.Barrier(20)
    answers = [None] * 20

    def tap(i):
        barrier.wait()
        answers[i] = clients[i].post(f"/n/{key}/g/{number}/kraken/marker",
                                     {"seat": i % 4, "pos": 0}, htmx=True)

    threads = [threading.Thread(target=tap, args=(i,)) for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    statuses = sorted(a[0] for a in answers)
    assert statuses == [200] + [409] * 19
    for status, _, html in answers:
        if status == 409:
            assert STALE in html
    rows = assert_log_sound(database, key, number)
    assert [r["type"] for r in rows] == ["marker"]


@pytest.mark.slow
def test_two_host_devices_recording_at_once_both_orders_end_in_a_valid_game(
        server_process):
    server_process.start()
    url, database = server_process.url, server_process.database
    host, key, _ = create_night(url)
    # the second host device scans the one-time host code
    status, _, html = host.post(f"/n/{key}/hosts")
    assert status == 200
    invite = re.search(r"/h/([A-Za-z0-9_-]{32,64})", html).group(1)
    second = Device(url)
    assert second.get(f"/h/{invite}")[0] == 200  # the question: nothing used yet
    status, _, _ = second.post(f"/h/{invite}")
    assert status == 303
    assert Device(url).get(f"/h/{invite}")[0] == 410  # one-time: it says so
    winners = []
    for _ in range(4):
        number = start_game(host, key, "kraken", FOUR)
        assert host.post(f"/n/{key}/g/{number}/kraken/marker",
                         {"seat": 0, "pos": 0})[0] == 303
        second.get(f"/n/{key}/g/{number}")
        forms = {"host": (host, {"seat": 1, "card": "empty", "pos": 1}),
                 "second": (second, {"seat": 1, "card": "treasure", "pos": 1})}
        barrier = threading.Barrier(2)
        answers = {}

        def press(name, forms=forms, barrier=barrier, answers=answers, number=number):
            device, form = forms[name]
            barrier.wait()
            answers[name] = device.post(f"/n/{key}/g/{number}/kraken/reveal", form)

        threads = [threading.Thread(target=press, args=(n,)) for n in forms]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        winners.append(_both_orders_check(database, key, number, forms, answers))
    # and each order on purpose, whatever the race above happened to choose
    for first in ("host", "second"):
        number = start_game(host, key, "kraken", FOUR)
        assert host.post(f"/n/{key}/g/{number}/kraken/marker",
                         {"seat": 0, "pos": 0})[0] == 303
        forms = {"host": (host, {"seat": 1, "card": "empty", "pos": 1}),
                 "second": (second, {"seat": 1, "card": "treasure", "pos": 1})}
        later = "second" if first == "host" else "host"
        answers = {}
        for name in (first, later):
            device, form = forms[name]
            answers[name] = device.post(f"/n/{key}/g/{number}/kraken/reveal", form)
        assert _both_orders_check(database, key, number, forms, answers) == first


def _both_orders_check(database, key, number, forms, answers):
    """One of two writes from the same position wins; the other is told and redoes it."""
    statuses = {name: a[0] for name, a in answers.items()}
    assert sorted(statuses.values()) == [303, 409], statuses
    winner = next(name for name, s in statuses.items() if s == 303)
    loser = next(name for name, s in statuses.items() if s == 409)
    assert STALE in answers[loser][2]
    rows = assert_log_sound(database, key, number)
    assert len(rows) == 2
    assert json.loads(rows[1]["data"])["card"] == forms[winner][1]["card"]
    # the loser, now looking at the latest, records their action on top: a valid game
    device, form = forms[loser]
    assert device.post(f"/n/{key}/g/{number}/kraken/reveal",
                       {**form, "seat": 2, "pos": 2})[0] == 303
    rows = assert_log_sound(database, key, number)
    assert [json.loads(r["data"]).get("card") for r in rows[1:]] == \
        [forms[winner][1]["card"], form["card"]]
    return winner


# --- several workers ----------------------------------------------------------------


def _scripted_game(url, database, kind, seed):
    """Play a whole scripted game over HTTP; returns its final state and stored log."""
    host, key, _ = create_night(url)
    number = start_game(host, key, kind, SCRIPTS[kind][0])
    for _ in range(400):
        result = step(host, database, key, number, kind)
        if result is None:
            break
        assert result[0] == 303
    state, _ = state_of(database, key, number)
    kind_, setup, rows = read_game(database, key, number)
    shown = host.get(f"/n/{key}/g/{number}/live")[2]
    return state, setup, [(r["seq"], r["type"], json.loads(r["data"]), r["seat"])
                          for r in rows], shown


def _strip_roles(state, setup):
    """The parts of a result that do not depend on the random deal."""
    state = dict(state)
    for name in ("roles", "unused_roles", "winners", "losers", "outcome"):
        state.pop(name, None)
    return state


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(SCRIPTS))
def test_three_workers_give_the_same_game_as_one_process(server_process, tmp_path, kind):
    server_process.start()
    one = _scripted_game(server_process.url, server_process.database, kind, 1)
    server = Gunicorn(str(tmp_path / "workers.sqlite"))
    try:
        three = _scripted_game(server.url, server.database, kind, 1)
        # every request went to whichever worker took it: the pids must differ somewhere
    finally:
        server.stop()
    assert one[0]["finished"] and three[0]["finished"]
    if kind == "kraken":
        # the deal is random; what the table recorded and what follows from it is not
        assert _strip_roles(one[0], one[1]) == _strip_roles(three[0], three[1])
        assert [e[1:] for e in one[2]] == [e[1:] for e in three[2]]
    else:
        assert one[0] == three[0]
        assert _untimed(one[2]) == _untimed(three[2])


def _untimed(events):
    """A log without the laptop's time a reveal records (its ``at_ms``: when, not what)."""
    return [(*e[:2], {k: v for k, v in e[2].items() if k != "at_ms"}, *e[3:]) for e in events]


@pytest.mark.slow
def test_three_workers_answer_every_poll_with_the_same_version(tmp_path):
    """No state in process memory: after a write, every worker sees it at once."""
    server = Gunicorn(str(tmp_path / "workers.sqlite"))
    try:
        host, key, _ = create_night(server.url)
        number = start_game(host, key, "kraken", FOUR)
        for pos in range(3):
            form = kraken_next(state_of(server.database, key, number)[0], pos)[1]
            path = kraken_next(state_of(server.database, key, number)[0], pos)[0]
            assert host.post(f"/n/{key}/g/{number}/{path}", form)[0] == 303
            conn = sqlite3.connect(server.database)
            version = conn.execute("select version from nights where key = ?",
                                   [key]).fetchone()[0]
            conn.close()
            # many fresh connections land on different workers: all agree
            for _ in range(12):
                assert host.get(f"/n/{key}/live?v={version}")[0] == 204
    finally:
        server.stop()


@pytest.mark.slow
def test_the_cafe_setup_pushes_a_change_to_a_phones_stream(tmp_path):
    """gunicorn's workers with gevent's server hold streams: a phone's stream opens, and
    the host's start of a game reaches it as "changed" with the new version."""
    database = str(tmp_path / "cafe.sqlite")
    server = Gunicorn(database, workers=2, options=CAFE)
    try:
        host, key, tokens = create_night(server.url, database=database)
        phone = Device(server.url)
        assert phone.claim(tokens[0]) == 303
        request = urllib.request.Request(server.url + "/me/stream")
        with phone.opener.open(request, timeout=10) as stream:
            assert stream.headers["Content-Type"].startswith("text/event-stream")

            def event():
                lines = []
                while line := stream.readline().decode().strip():
                    lines.append(line)
                return lines

            assert event()[:2] == ["retry: 1000", "event: spread"]
            start_game(host, key, "kraken", FOUR)
            conn = sqlite3.connect(database)
            version = conn.execute("select version from nights where key = ?",
                                   [key]).fetchone()[0]
            conn.close()
            told = event()
            while told == ["event: alive", "data:"]:  # a heartbeat came first
                told = event()
        assert told[0] == "event: changed" and told[1].startswith("id: ")
        assert told[2:] == [f"data: {version}"]
    finally:
        server.stop()


# --- disk full / read-only database --------------------------------------------------


def fill_the_disk(monkeypatch):
    """From now on every insert fails as SQLite does when the disk is full."""
    from sqlite_utils.db import Table

    def full(self, *args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(Table, "insert", full)


def _dump(app):
    conn = sqlite3.connect(app.config["DATABASE"])
    try:
        return {table: conn.execute(f"select * from {table} order by rowid").fetchall()
                for table in ("nights", "seats", "hosts", "games", "events", "activity")}
    finally:
        conn.close()


@pytest.mark.parametrize("htmx", [False, True])
def test_a_full_disk_tells_the_host_and_loses_nothing(night, monkeypatch, htmx):
    url = night.start("kraken", **FOUR)
    fill_the_disk(monkeypatch)
    before = _dump(night.app)
    headers = {"HX-Request": "true"} if htmx else {}
    response = night.host.post(f"{url}/kraken/marker", data={"seat": 0, "pos": 0},
                               headers=headers)
    html = response.data.decode()
    assert response.status_code == 503
    assert "could not be stored" in html
    assert "Something went wrong" not in html
    if htmx:  # the message lands on top of the page the host is looking at
        assert response.headers["HX-Retarget"] == "#live"
        assert response.headers["HX-Reswap"] == "afterbegin"
        assert 'role="alert"' in html
    assert _dump(night.app) == before
    # the host's page still shows the game as it was, ready for another try
    assert night.pos(url) == 0


def test_a_read_only_database_tells_the_host_and_keeps_the_game(night, tmp_path):
    url = night.start("kraken", **FOUR)
    assert night.host.post(f"{url}/kraken/marker", data={"seat": 0, "pos": 0}).status_code \
        == 303
    before = _dump(night.app)
    # the same file reopened read-only (a full disk, a stuck permission, a USB stick)
    from companion.store import connection as database

    path = night.app.config["DATABASE"]
    ro = sqlite3.connect(uri(path, "ro"), uri=True, check_same_thread=False,
                         isolation_level=None)
    from sqlite_utils import Database

    local = database._local()  # this thread's connections
    saved = dict(getattr(local, "dbs", {}))
    local.dbs = {**saved, path: (Database(ro), os.stat(path).st_ino)}
    try:
        response = night.host.post(f"{url}/kraken/reveal",
                                   data={"seat": 1, "card": "empty", "pos": 1})
        html = response.data.decode()
        assert response.status_code == 503
        assert "could not be stored" in html
        # a reader still sees the game as it was
        assert night.host.get(url).status_code == 200
    finally:
        local.dbs = saved
        ro.close()
    assert _dump(night.app) == before
    # once the disk is writable again, the same action goes through
    assert night.host.post(f"{url}/kraken/reveal",
                           data={"seat": 1, "card": "empty", "pos": 1}).status_code == 303


def test_a_full_disk_on_a_phone_tells_the_player(night, monkeypatch):
    night.start("kraken", **FOUR)
    phone = night.phone(1)
    fill_the_disk(monkeypatch)
    response = phone.post("/me/seen")
    assert response.status_code == 503
    assert "could not be stored" in response.data.decode()


def test_a_full_disk_when_making_a_night_says_so_and_makes_nothing(client, app,
                                                                    monkeypatch):
    fill_the_disk(monkeypatch)
    response = client.post("/nights", data={"name": ["A", "B", "C"]})
    assert response.status_code == 503
    assert "could not be stored" in response.data.decode()
    assert _dump(app)["nights"] == []


def test_a_failed_write_in_a_game_start_records_no_game(night, monkeypatch):
    fill_the_disk(monkeypatch)
    response = night.host.post(f"{night.url}/new/kraken", data=FOUR)
    assert response.status_code == 503
    assert "could not be stored" in response.data.decode()
    assert _dump(night.app)["games"] == []
