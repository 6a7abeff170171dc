"""What the database file promises: acknowledged writes are on disk, the file is private,
it holds no usable device token, and a file deleted under the server is a plain 503."""

import os
import stat
import threading

import pytest

from bench.builders import make_night
from companion.store import connection as db
from companion.store import schema


def test_every_connection_syncs_each_commit(app):
    """WAL with synchronous=FULL: a commit is on disk before the answer says "recorded"."""
    seen = []

    def look():
        with app.app_context():
            conn = db.get_db()
            seen.append((conn.execute("PRAGMA synchronous").fetchone()[0],
                         conn.execute("PRAGMA journal_mode").fetchone()[0]))

    threads = [threading.Thread(target=look) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    look()
    assert seen == [(2, "wal")] * 4  # 2 is FULL


def test_the_database_and_its_journal_files_are_private(app, night):
    night.phone(0)  # a write, so the WAL and shared-memory files exist
    path = app.config["DATABASE"]
    for name in (path, path + "-wal", path + "-shm"):
        assert stat.S_IMODE(os.stat(name).st_mode) == 0o600, name


def test_the_file_holds_no_device_cookie(app):
    night = make_night(app)
    phone = night.phone(1)
    tablet = app.test_client()
    link = night.host.post(f"{night.url}/hosts").data.decode().split("/h/")[1].split("<")[0]
    tablet.post("/h/" + link.strip())
    assert tablet.get(night.url).status_code == 200
    cookies = [c.get_cookie("device").value for c in (night.host, phone, tablet)]
    path = app.config["DATABASE"]
    raw = b"".join(open(name, "rb").read() for name in (path, path + "-wal")
                   if os.path.exists(name))
    for cookie in cookies:
        assert cookie.encode() not in raw
    # ... and the devices are still told apart: the phone is its seat, the host its night.
    assert "Jo" in phone.get("/me").data.decode()
    assert night.host.get(night.url).status_code == 200


def test_a_database_deleted_under_the_server_is_a_503_until_restart(app, night, tmp_path):
    game = night.start("kraken", seat0="on", seat1="on", seat2="on", seat3="on")
    path = app.config["DATABASE"]
    for name in (path, path + "-wal", path + "-shm"):
        if os.path.exists(name):
            os.remove(name)
    answers = [night.host.get(game).status_code,
               night.host.post(f"{game}/kraken/marker", data={"seat": 0, "pos": 0}).status_code,
               night.host.get(night.url).status_code,
               app.test_client().get("/").status_code]
    assert answers == [503] * 4
    assert not os.path.exists(path)  # no fresh empty file takes its place


def test_whether_the_file_is_still_there_is_asked_once_per_request(night, monkeypatch):
    """A stat per request, not one per query (a host's page runs several)."""
    game = night.start("kraken", seat0="on", seat1="on", seat2="on", seat3="on")
    asked = []
    real = db._same_file
    monkeypatch.setattr(db, "_same_file", lambda *a: asked.append(1) or real(*a))
    assert night.host.get(game).status_code == 200
    assert asked == [1]
    assert night.host.get(game).status_code == 200  # the next request asks again
    assert asked == [1, 1]


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_opening_a_host_code_uses_nothing(night, method):
    html = night.host.post(f"{night.url}/hosts").data.decode()
    link = "/h/" + html.split("/h/")[1].split("<")[0].strip()
    night.app.test_client().open(link, method=method)
    tablet = night.app.test_client()
    assert tablet.post(link).status_code == 303


# --- a write waiting for another's lock sleeps where the server can serve others -----

def test_a_write_waits_for_another_connections_lock_in_sleeps_of_its_own(app, monkeypatch):
    """Under gevent SQLite's own busy wait would stop the whole worker; the write's wait
    goes through time.sleep (cooperative there) and gets the lock once it is free."""
    path = app.config["DATABASE"]
    holder = db.connect(path)
    holder.execute("BEGIN IMMEDIATE")
    slept = []
    real_sleep = db.time.sleep

    def sleep(seconds):
        slept.append(seconds)
        if len(slept) == 5:
            holder.execute("COMMIT")  # the other writer is done
        real_sleep(seconds)

    monkeypatch.setattr(db.time, "sleep", sleep)
    waiter = db.connect(path)
    with db.write(waiter):
        waiter.execute("update nights set version = version")
    assert len(slept) == 5 and all(s <= 0.005 for s in slept)
    # …and its busy timeout is the usual one again, for the reads.
    assert waiter.execute("PRAGMA busy_timeout").fetchone()[0] == db.BUSY_MS
    holder.close()
    waiter.close()


def test_a_lock_held_too_long_fails_the_write_with_nothing_written(app, monkeypatch):
    path = app.config["DATABASE"]
    monkeypatch.setattr(db, "BUSY_MS", 50)
    holder = db.connect(path)
    holder.execute("BEGIN IMMEDIATE")
    waiter = db.connect(path)
    with pytest.raises(db.sqlite3.OperationalError, match="locked"):
        with db.write(waiter):
            waiter.execute("insert into nights (key) values ('never')")
    holder.execute("ROLLBACK")
    assert waiter.execute("select count(*) from nights where key = 'never'").fetchone() == (0,)
    holder.close()
    waiter.close()


def test_a_worker_that_finds_the_new_file_locked_at_start_tries_again(tmp_path, monkeypatch):
    """Several gunicorn workers start at once on a new file: one switching it to WAL while
    another migrates is refused at once ("database is locked"), and must try again, not
    fail to boot (gunicorn then stops the whole server)."""
    import sqlite3

    real = db.connect
    refused = []

    def connect(path, **kwargs):
        if not refused:
            refused.append(path)
            raise sqlite3.OperationalError("database is locked")
        return real(path, **kwargs)

    monkeypatch.setattr(schema, "connect", connect)
    path = str(tmp_path / "new.sqlite")
    schema.migrate(path)
    assert refused == [path]
    opened = real(path)
    assert "nights" in opened.table_names()
    assert "changed" in opened["nights"].columns_dict
    opened.close()
