"""A write SQLite refuses (a full disk, a read-only database) tells the host or the
player that it could not be stored, and leaves every table as it was
(docs/security.md, "Nothing lost")."""

import os
import sqlite3

import pytest

from companion.store.connection import uri
from tests.over_http import (
    FOUR,
)


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
