"""A game's log read once per process: an append asks the database only for the events
written since this process last looked, never the whole log (companion/store/caches.py
``read_log``), and nothing a view, an export or a tally does changes a cached event."""

import re

import pytest

from bench.builders import make_night, play_evening
from companion import store
from companion.core.events import UNDO
from companion.store import caches, log, played
from companion.store import connection as database


def statements(app, action):
    """The SQL statements ``action()`` runs on this thread's connection, values bound."""
    seen = []
    with app.test_request_context():
        conn = database.get_db().conn
        conn.set_trace_callback(seen.append)
        try:
            action()
        finally:
            conn.set_trace_callback(None)
    return seen


def events_read(sql):
    """For each read of a game's events: the position it reads after."""
    return [int(m.group(1)) for s in sql
            for m in [re.search(r"from events where game_id = \d+ and seq > (\d+)", s)] if m]


@pytest.fixture
def long_game(app):
    """A Crazy Time game with 60 events in its log, played through the store."""
    night = make_night(app, ["Ann", "Bo", "Cy", "Di"])
    url = night.start("crazytime", seat0="on", seat1="on", seat2="on", seat3="on")
    number = int(url.rsplit("/", 1)[1])
    with app.test_request_context():
        night_id = store.night_by_key(night.key)["id"]
        for n in range(60):
            game = store.game(night_id, number)
            store.record(game, UNDO if n % 2 else "rabbit", {} if n % 2 else {"seat": 1},
                         pos=game.length, device="host")
    return night_id, number


def test_an_append_reads_only_what_was_written_since(app, long_game):
    night_id, number = long_game

    def append():
        game = store.game(night_id, number)
        store.record(game, "rabbit", {"seat": 2}, pos=game.length, device="host")

    reads = events_read(statements(app, append))
    assert reads == [60]  # the 60 events before it are known: none is read again


def test_an_append_sees_events_another_process_wrote(app, long_game):
    night_id, number = long_game
    with app.test_request_context():
        game = store.game(night_id, number)
        # another worker's write, straight into the database: this process never saw it
        other = database.connect(app.config["DATABASE"])
        log.append(other, {"id": game.id, "night_id": night_id}, "rabbit", {"seat": 3},
                   pos=game.length)
        other.close()
        with pytest.raises(log.Stale):  # this view is one event behind, and says so
            store.record(game, "rabbit", {"seat": 0}, pos=game.length, device="host")
        fresh = store.game(night_id, number)
        assert [e["seq"] for e in fresh.events] == list(range(1, 62))
        assert fresh.events[-1]["data"] == {"seat": 3}
        assert fresh.state["rabbit"] == 3


def test_a_cached_log_is_the_log_after_a_whole_night(app):
    """Views, history, the tally, statistics and the export (with its masks) read the
    cached events; none of them may change one."""
    night = make_night(app, ["Ann", "Bo", "Cy", "Di"])
    play_evening(app, night)
    url = night.start("crazytime", seat0="on", seat1="on", seat2="on", seat3="on",
                      starting_law="1")
    assert night.host.post(f"{url}/crazytime/law", data={
        "pos": night.pos(url), "name": "Ducks", "when": "W-1", "what": "H-2"},
    ).status_code == 303  # a running game with a secret law: its export masks it
    for number in range(1, 8):
        assert night.host.get(f"{night.url}/g/{number}").status_code in (200, 404)
    for path in ("/tally", "/export.json", "/export.csv"):
        assert night.host.get(night.url + path).status_code == 200
    assert night.host.get("/stats").status_code == 200
    assert night.phone(0).get("/me").status_code == 200
    with app.test_request_context():
        conn = database.get_db()
        night_id = store.night_by_key(night.key)["id"]
        games = store.games(night_id)
        assert len(games) >= 6
        for game in games:
            cached = store.logs.get(caches._log_key(game.id, game.birth))
            assert cached is not None
            assert cached == log.load(conn, game.id)  # unchanged, event for event


@pytest.fixture
def one_second(monkeypatch):
    """Every game made in one second (the same creation time stamp)."""
    monkeypatch.setattr(played, "now", lambda later=0: "2026-12-02T03:00:00Z")


def test_a_game_given_a_deleted_games_id_starts_with_an_empty_log(app, one_second, long_game):
    """SQLite gives a new game the highest id plus one: the id of a game deleted last (a
    night replaced by a file of none of its games) goes to the next game. Made in the
    same second, the new game is still not taken for the old one in the caches."""
    night_id, number = long_game
    with app.test_request_context():
        old = store.game(night_id, number)
        assert len(old.events) == 60 and old.state  # both cached in this process
        store.replace_games(night_id, {"games": []})
    with app.test_request_context():
        new = store.start_game(store.night(night_id), "crazytime", [0, 1, 2, 3], {})
        assert new.id == old.id and new.created == old.created  # its id, in its second
        assert new.events == [] and new.length == 0
        # its first move is its only one: the old game's 60 are not read as its own
        moved = store.record(new, "rabbit", {"seat": 2}, pos=0, device="host")
        assert [e["type"] for e in moved.events] == ["rabbit"]
        assert [e["type"] for e in store.game(night_id, moved.number).events] == ["rabbit"]
