"""Several workers, one game: under gunicorn with three workers a scripted game of each
kind ends as under one process, every worker answers a poll with the same version, and
the café setup (gevent workers) pushes a change to a phone's stream."""

import json
import sqlite3
import urllib.error
import urllib.parse
import urllib.request

import pytest

from bench.devices import Device, create_night
from tests.over_http import (
    CAFE,
    FOUR,
    SCRIPTS,
    Gunicorn,
    kraken_next,
    read_game,
    start_game,
    state_of,
    step,
)


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
        assert told == ["event: changed", f"data: {version}"]
    finally:
        server.stop()
