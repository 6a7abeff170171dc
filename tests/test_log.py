"""The event log: a game is its events; undo and redo are events; a stale write is refused."""

import sqlite3
import threading

import pytest

from companion.core.errors import RuleError
from companion.core.events import REDO, UNDO, effective, undo_redo
from companion.store import connection as database
from companion.store import log
from companion.store.schema import migrate
from tests.refusing import refuses


def ev(type_, **data):
    return {"type": type_, "data": data, "seat": None}


def types(events):
    return [e["data"].get("n") for e in events]


def test_without_undo_every_event_counts_in_order():
    events = [ev("x", n=1), ev("x", n=2), ev("x", n=3)]
    assert types(effective(events)) == [1, 2, 3]


def test_undo_takes_back_the_last_event():
    assert types(effective([ev("x", n=1), ev("x", n=2), ev(UNDO)])) == [1]


def test_two_undos_take_back_two_events():
    events = [ev("x", n=1), ev("x", n=2), ev(UNDO), ev(UNDO)]
    assert types(effective(events)) == []


def test_redo_puts_back_what_undo_took():
    events = [ev("x", n=1), ev("x", n=2), ev(UNDO), ev(REDO)]
    assert types(effective(events)) == [1, 2]


def test_a_new_event_after_undo_clears_redo():
    events = [ev("x", n=1), ev("x", n=2), ev(UNDO), ev("x", n=3)]
    assert types(effective(events)) == [1, 3]
    assert undo_redo(events) == (True, False)
    with refuses("There is nothing to redo."):
        effective(events + [ev(REDO)])


def test_undo_with_nothing_recorded_is_refused():
    with refuses("There is nothing to undo."):
        effective([ev(UNDO)])


def test_undo_redo_availability():
    assert undo_redo([]) == (False, False)
    assert undo_redo([ev("x", n=1)]) == (True, False)
    assert undo_redo([ev("x", n=1), ev(UNDO)]) == (False, True)


# --- storage ------------------------------------------------------------------------

@pytest.fixture
def store_db(tmp_path):
    path = str(tmp_path / "log.sqlite")
    migrate(path)
    db = database.connect(path)
    night_id = db["nights"].insert({"key": "k", "created": "now", "version": 0}).last_pk
    game_id = db["games"].insert({"night_id": night_id, "number": 1, "kind": "kraken",
                                  "setup": "{}", "created": "now"}).last_pk
    return path, db, {"id": game_id, "night_id": night_id}


def test_append_records_at_the_next_position_and_bumps_the_night(store_db):
    _, db, game = store_db
    log.append(db, game, "x", {"n": 1}, pos=0)
    log.append(db, game, "x", {"n": 2}, pos=1)
    assert [e["seq"] for e in log.load(db, game["id"])] == [1, 2]
    assert db["nights"].get(game["night_id"])["version"] == 2


def test_a_write_from_an_old_position_is_refused_and_records_nothing(store_db):
    _, db, game = store_db
    log.append(db, game, "x", {"n": 1}, pos=0)
    with pytest.raises(log.Stale):
        log.append(db, game, "x", {"n": 2}, pos=0)  # a double tap of the same form
    assert len(log.load(db, game["id"])) == 1


def test_a_write_the_rules_refuse_records_nothing(store_db):
    _, db, game = store_db

    def check(events):
        raise RuleError("no")

    with refuses("no"):
        log.append(db, game, "x", {"n": 1}, pos=0, check=check)
    assert log.load(db, game["id"]) == []
    assert db["nights"].get(game["night_id"])["version"] == 0


def test_twenty_devices_pressing_at_once_record_exactly_once(store_db):
    path, _, game = store_db
    results = []
    barrier = threading.Barrier(20)

    def press():
        db = database.connect(path)
        barrier.wait()
        try:
            log.append(db, game, "x", {"n": 1}, pos=0)
            results.append("ok")
        except log.Stale:
            results.append("stale")
        except sqlite3.OperationalError as error:  # pragma: no cover - would be a defect
            results.append(str(error))

    threads = [threading.Thread(target=press) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count("ok") == 1
    assert results.count("stale") == 19
    assert len(log.load(database.connect(path), game["id"])) == 1
