"""A killed server loses nothing: `companion serve` runs as a real process, plays a
scripted game of each kind over HTTP with CSRF on (tests/over_http.py), and is killed with
SIGKILL during bursts of writes; every event it acknowledged is in the file, the log
replays, and the game goes on (docs/security.md, "Nothing lost")."""

import random
import threading
import time

import pytest

from bench.devices import create_night
from tests.over_http import SCRIPTS, TYPES, assert_log_sound, start_game, step


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
