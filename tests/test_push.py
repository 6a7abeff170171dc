"""Live push (companion/live/): a write wakes the streams of its own night only, a
stream carries nothing but "changed" and a version number, and only the night's own
devices get one."""

import re
import threading
import time

import pytest

from bench.builders import (
    ROLES,
    crazytime_game,
    kraken_game,
    kraken_kraken_first,
    make_night,
    play,
    skullking_hand,
)
from companion import store
from companion.app import create_app
from companion.live import streams
from companion.live.watcher import Stream, Watcher
from companion.store import connection as db
from companion.store import log
from tests.apps import fresh_database
from tests.screens import screen_device

#: Every line a stream may send: the reconnect delay, a heartbeat, a change, its end.
STREAM_LINE = re.compile(
    r"^(retry: 1000|event: spread|event: alive|data: |event: changed|data: \d+|"
    r"event: bye|)$")


@pytest.fixture
def push_app(tmp_path, migrated_database):
    """An app whose pages open streams, with short heartbeats and streams."""
    return create_app({"DATABASE": fresh_database(migrated_database, tmp_path / "push.sqlite"),
                       "SECRET_KEY": "push",
                       "WTF_CSRF_ENABLED": False, "LIVE_PUSH": True, "PUSH_TICK": 0.01,
                       "PUSH_HEARTBEAT": 0.2, "PUSH_STREAM_SECONDS": 3})


def bump(app, night_id):
    with app.app_context():
        conn = db.get_db()
        with db.write(conn):
            log.bump(conn, night_id)


@pytest.mark.slow  # it waits for the watchers' wakes (1.5 s of its 1.55), not the quick loop's
def test_a_write_wakes_the_streams_of_its_night_and_no_other(push_app):
    first, second = make_night(push_app, ["A", "B", "C"]), make_night(push_app, ["D", "E", "F"])
    with push_app.app_context():
        ids = [store.night_by_key(n.key)["id"] for n in (first, second)]
        versions = [store.night(i)["version"] for i in ids]
        watcher = streams.watcher()
    woke = {}

    def wait(night_id, seen):
        woke[night_id] = watcher.wait(watcher.open(f"device {night_id}"), night_id, seen,
                                      timeout=1.5)

    waiters = [threading.Thread(target=wait, args=pair)
               for pair in zip(ids, versions, strict=True)]
    for t in waiters:
        t.start()
    time.sleep(0.2)
    bump(push_app, ids[0])
    for t in waiters:
        t.join()
    assert woke == {ids[0]: versions[0] + 1, ids[1]: None}


def test_a_stream_opened_after_a_change_says_so_at_once(push_app):
    night = make_night(push_app, ["A", "B", "C"])
    with push_app.app_context():
        night_id = store.night_by_key(night.key)["id"]
        watcher = streams.watcher()
        version = store.night(night_id)["version"]
    bump(push_app, night_id)
    start = time.monotonic()
    assert watcher.wait(watcher.open("phone"), night_id, version, timeout=5) == version + 1
    assert time.monotonic() - start < 1


def test_the_watcher_reads_only_the_nights_changed_since_it_last_looked(push_app):
    """Its work follows the changes, not the nights it watches: each change is numbered
    in the order of all changes, and a look asks for those after the last it read."""
    nights = [make_night(push_app, [f"P{i}", "B", "C"]) for i in range(3)]
    with push_app.app_context():
        ids = [store.night_by_key(n.key)["id"] for n in nights]
        versions = [store.night(i)["version"] for i in ids]
        seen = store.last_change(db.get_db())
    bump(push_app, ids[1])
    bump(push_app, ids[2])
    bump(push_app, ids[1])
    with push_app.app_context():
        changed, last = store.changes_since(db.get_db(), seen)
        assert changed == {ids[1]: versions[1] + 2, ids[2]: versions[2] + 1}
        assert last == seen + 3
        assert store.changes_since(db.get_db(), last) == ({}, last)


def read_stream(client, path, into, last):
    """Every line a stream sends until it tells ``last`` (a list that holds the night's
    last version once the game is played), or until it ends (PUSH_STREAM_SECONDS): a
    heartbeat comes at least every PUSH_HEARTBEAT to check."""
    response = client.get(path, buffered=False)
    into.append(response.status_code)
    for chunk in response.response:
        into.append(chunk.decode() if isinstance(chunk, bytes) else chunk)
        if last and f"data: {last[0]}\n" in "".join(into[1:]):
            break
    response.close()


@pytest.mark.parametrize("game", [
    lambda: kraken_game(1, ROLES, kraken_kraken_first(), "s"),
    lambda: skullking_hand(1),
    lambda: crazytime_game(1),
], ids=["kraken", "skullking", "crazytime"])
def test_no_stream_carries_anything_but_changed_and_a_number(push_app, game):
    """Every device of the night reads its stream while a whole game is played: each
    sees the changes, and nothing else (no role, no bid, no law, no name)."""
    night = make_night(push_app, ["Ann", "Bo", "Cy", "Di"])
    phones = [night.phone(i) for i in range(4)]
    for phone in phones:
        phone.get("/me")
    tv = screen_device(night)
    heard = {"host": [], "screen": [], **{f"phone{i}": [] for i in range(4)}}
    last: list[int] = []
    readers = [threading.Thread(target=read_stream, args=(night.host, f"{night.url}/stream",
                                                          heard["host"], last)),
               threading.Thread(target=read_stream, args=(
                   tv, f"{night.url}/screen/stream", heard["screen"], last))]
    readers += [threading.Thread(target=read_stream,
                                 args=(p, "/me/stream", heard[f"phone{i}"], last))
                for i, p in enumerate(phones)]
    for r in readers:
        r.start()
    time.sleep(0.3)
    play(push_app, night, game())  # the whole game, event by event, through the store
    with push_app.app_context():
        final = store.night_by_key(night.key)["version"]
    last.append(final)
    for r in readers:
        r.join(timeout=10)
    for who, got in heard.items():
        status, text = got[0], "".join(got[1:])
        assert status == 200, who
        lines = text.split("\n")
        assert all(STREAM_LINE.match(line) for line in lines), (who, text[:300])
        # the game's moves woke it (a burst within one tick is one change), and it
        # ended knowing the night's last version
        assert re.findall(r"data: (\d+)", text)[-1] == str(final), who


def test_only_the_nights_host_gets_its_stream(push_app):
    night = make_night(push_app, ["A", "B", "C"])
    stranger = push_app.test_client()
    assert stranger.get(f"{night.url}/stream").status_code == 404
    assert night.phone(0).get(f"{night.url}/stream").status_code == 404


def test_only_the_nights_screens_and_hosts_get_the_screens_stream(push_app):
    night = make_night(push_app, ["A", "B", "C"])
    path = f"{night.url}/screen/stream"
    assert push_app.test_client().get(path).status_code == 404
    assert night.phone(0).get(path).status_code == 404
    tv = screen_device(night)
    assert f'data-stream="{path}"' in tv.get(f"{night.url}/screen").data.decode()
    assert tv.get(f"{night.url}/stream").status_code == 404  # not the host's


def test_a_phone_without_a_seat_gets_no_stream_and_polls(push_app):
    assert push_app.test_client().get("/me/stream").status_code == 204


def test_pages_name_their_stream_only_where_streams_are_held(push_app, app):
    pushing = make_night(push_app, ["A", "B", "C"])
    html = pushing.host.get(pushing.url).data.decode()
    assert f'data-stream="{pushing.url}/stream"' in html
    phone = pushing.phone(0)
    assert 'data-stream="/me/stream"' in phone.get("/me").data.decode()
    # the tests' app runs without gevent: "auto" is off, pages poll, streams say 204
    polling = make_night(app, ["A", "B", "C"])
    assert "data-stream" not in polling.host.get(polling.url).data.decode()
    assert polling.host.get(f"{polling.url}/stream").status_code == 204


def test_streams_opened_together_do_not_all_end_together():
    """A server start reopens every phone's stream at once: each stream's life is its
    own, between three quarters of PUSH_STREAM_SECONDS and all of it, so they do not
    all reconnect in the same second ever after."""
    lives = [streams.life(300) for _ in range(200)]
    assert all(225 <= one <= 300 for one in lives)
    assert max(lives) - min(lives) > 30


class IdleNight:
    """A watcher of a night where nothing happens, on a clock of its own: each wait
    passes its whole timeout at once (an hour of streams in a moment)."""

    def __init__(self):
        self.now = 0.0

    def monotonic(self):
        return self.now

    def wait(self, _stream, _night_id, _seen, timeout):
        self.now += timeout
        return None


def test_an_idle_phone_gets_at_most_four_frames_a_minute(monkeypatch, app):
    """Each frame wakes a phone's Wi-Fi radio from power save: with nothing happening, a
    stream sends at most 4 a minute (heartbeats, and each new stream's first and last),
    with the app's own settings, over an hour of stream lives."""
    idle = IdleNight()
    monkeypatch.setattr(streams.time, "monotonic", idle.monotonic)
    frames = opened = 0
    while idle.now < 3600:
        lifetime = streams.life(app.config["PUSH_STREAM_SECONDS"])
        sent = list(streams._events(idle, Stream("phone"), 1, 0,
                                 app.config["PUSH_HEARTBEAT"], lifetime))
        frames += len(sent)
        opened += 1
        assert sent[0] == "retry: 1000\nevent: spread\ndata: 150\n\n"
        assert sent[-1] == "event: bye\ndata: \n\n"
    assert opened > 1  # the hour saw streams end and reopen
    assert frames / (idle.now / 60) <= 4


def test_a_stream_ends_with_bye_once_its_life_is_over(monkeypatch):
    """The page tells a planned end ("bye") from a laptop gone (an error without it)."""
    idle = IdleNight()
    monkeypatch.setattr(streams.time, "monotonic", idle.monotonic)
    sent = list(streams._events(idle, Stream("phone"), 1, 0, 20, 50))
    assert sent == ["retry: 1000\nevent: spread\ndata: 150\n\n", "event: alive\ndata: \n\n",
                    "event: alive\ndata: \n\n", "event: bye\ndata: \n\n"]
    assert idle.now == 50  # no wait past the stream's life


def test_a_device_holds_at_most_four_streams_and_a_fifth_ends_its_oldest(push_app):
    """A phone that lost its Wi-Fi and came back opens a stream while the server still
    holds its old one; a device that opens streams by the thousand holds four."""
    with push_app.app_context():
        watcher = Watcher(push_app.config["DATABASE"], 0.01, per_device=4, most=10)
    held = [watcher.open("phone") for _ in range(5)]
    assert [s.ended for s in held] == [True, False, False, False, False]
    assert watcher.open("another phone") is not None
    idle = IdleNight()
    sent = list(streams._events(idle, held[0], 1, 0, 20, 50))
    assert sent == ["retry: 1000\nevent: spread\ndata: 150\n\n", "event: elsewhere\ndata: \n\n"]


def test_a_full_process_answers_a_new_stream_204_and_the_page_polls(push_app):
    with push_app.app_context():
        watcher = Watcher(push_app.config["DATABASE"], 0.01, per_device=4, most=3)
    opened = [watcher.open(f"phone {n}") for n in range(3)]
    assert watcher.open("phone 3") is None
    watcher.close(opened[0])
    watcher.close(opened[0])  # a connection closes once; a second close changes nothing
    assert watcher.open("phone 3") is not None
    assert watcher.open("phone 4") is None


def test_a_stream_of_a_device_past_its_four_is_told_elsewhere_by_the_route(push_app):
    night = make_night(push_app, ["A", "B", "C"])
    answers = [night.host.get(f"{night.url}/stream") for _ in range(5)]
    try:
        first = answers[0].response
        assert next(first).startswith(b"retry: 1000\nevent: spread\ndata: ")
        assert next(first) == b"event: elsewhere\ndata: \n\n"
    finally:
        for answer in answers:
            answer.close()
    with push_app.app_context():
        assert streams.watcher()._open == 0  # each closed connection gave its place back


def test_one_address_holds_at_most_its_share_of_streams_under_any_number_of_device_ids(
        push_app):
    """A device id is any token a client makes up: one address opening streams under a
    thousand ids holds ``per_address`` of them (its oldest end), and a phone at another
    address keeps its own."""
    with push_app.app_context():
        watcher = Watcher(push_app.config["DATABASE"], 0.01, per_device=4, most=100,
                               per_address=16)
    phone = watcher.open("a real phone", "192.168.0.21")
    made_up = [watcher.open(f"made-up {n}", "192.168.0.66") for n in range(1000)]
    assert sum(not s.ended for s in made_up) == 16
    assert [s.ended for s in made_up[-16:]] == [False] * 16
    assert not phone.ended
    assert watcher.open("another real phone", "192.168.0.22") is not None


@pytest.mark.slow  # `companion serve` in a process of its own
def test_a_stream_whose_phone_hung_up_gives_its_place_back_at_once(tmp_path):
    """With room for two streams in all and heartbeats a minute apart, two streams opened
    and dropped leave room for a third device at once (not only when a heartbeat fails to
    go, a minute later)."""
    import socket

    from bench.devices import create_night
    from tests.over_http import ServerProcess

    server = ServerProcess(database=str(tmp_path / "s.sqlite"),
                           env={"COMPANION_PUSH_STREAMS_MOST": "2",
                                "COMPANION_PUSH_HEARTBEAT": "60"})
    server.start()
    try:
        host, key, _ = create_night(server.url)
        cookies = "; ".join(f"{c.name}={c.value}" for c in host.jar)
        head = (f"GET /n/{key}/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"Cookie: {cookies}\r\n\r\n").encode()
        for _ in range(2):
            with socket.create_connection(("127.0.0.1", server.port)) as sock:
                sock.sendall(head)
                assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        time.sleep(0.5)
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.settimeout(5)
            sock.sendall(head)
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")
    finally:
        server.kill()


def test_the_refresh_spread_follows_the_streams_the_process_carries():
    """The screens of one table (eight phones, the host, the room's screen) need no
    spread; past them it grows, and ten tables' worth spread a change's refreshes over
    SPREAD_MOST_MS."""
    assert streams.spread_ms(0) == streams.spread_ms(10) == 0
    assert streams.spread_ms(streams.SPREAD_FROM) == 0
    assert 0 < streams.spread_ms(20) < streams.spread_ms(50) < streams.spread_ms(90) < 150
    assert streams.spread_ms(100) == streams.spread_ms(40000) == streams.SPREAD_MOST_MS == 150


def test_a_stream_tells_its_spread_as_it_opens(push_app):
    night = make_night(push_app, ["A", "B", "C"])
    answer = night.host.get(f"{night.url}/stream")
    try:
        assert next(answer.response) == b"retry: 1000\nevent: spread\ndata: 0\n\n"
    finally:
        answer.close()
