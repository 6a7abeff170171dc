"""Nothing recorded twice: twenty clients posting from one log position record exactly
one event, and two host devices recording at once end in a valid game in either order
(docs/security.md, "Nothing recorded twice")."""

import json
import re
import threading

import pytest

from bench.devices import Device, create_night
from tests.over_http import FOUR, assert_log_sound, start_game

STALE = "The table moved on: here is the latest. Check it and try again."


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
    # htmx's taps: a refusal comes with 200, its own status in X-Refused
    assert [a[0] for a in answers] == [200] * 20
    refused = [html for _, head, html in answers if head["X-Refused"] == "409"]
    assert len(refused) == 19 and all(STALE in html for html in refused)
    assert [head["X-Refused"] for _, head, _ in answers].count(None) == 1
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
