"""Secrecy and claim abuse: no secret of a running game reaches anyone else.

A crawler visits every page, fragment, poll, redirect, export and error response that a
viewer can reach — the host, every other seat's phone, a seat that sits the game out, an
unclaimed visitor, someone with a guessed or truncated token — and checks that no secret
of a running game is in it: a Kraken role (the hold-to-reveal markup and the role word
of any seat but the viewer's own), a Crazy Time law's When/What cards for anyone who does
not know it, a Skull King bid before "Yo-ho-ho!". Headers on every answer, and the
server's log while phones claim their seats, are checked too.
"""

import json
import re
import sqlite3
import threading
import urllib.request

import pytest

from bench.builders import make_night
from bench.devices import Device, create_night
from companion import store
from tests.crawling import WHAT, WHEN, check_headers, crawl, pages, roles_in
from tests.over_http import start_game
from tests.pages import page_text, unmarked
from tests.refusing import status_of

FOUR = {"seat0": "on", "seat1": "on", "seat2": "on", "seat3": "on"}
ROLE_WORDS = {"explorer": "Explorer", "skeleton": "Skeleton"}


def viewers(night, own):
    """Everyone but the owner of seat ``own``: the host, the other seats, a visitor."""
    who = {"host": night.host, "visitor": night.app.test_client()}
    for position in range(len(night.tokens)):
        if position != own:
            who[f"seat {position}"] = night.phone(position)
    return who


# --- Kraken: roles and unused role cards ----------------------------------------------


def kraken_game(night):
    url = night.start("kraken", **FOUR)
    assert night.host.post(f"{url}/kraken/marker", data={"seat": 0, "pos": 0}).status_code \
        == 303
    assert night.host.post(f"{url}/kraken/reveal",
                           data={"seat": 1, "card": "empty", "pos": 1}).status_code == 303
    conn = sqlite3.connect(night.app.config["DATABASE"])
    setup = json.loads(conn.execute("select setup from games order by id desc").fetchone()[0])
    conn.close()
    return url, setup


def test_no_page_a_non_owner_reaches_shows_a_kraken_role(night):
    url, setup = kraken_game(night)
    roles = setup["roles"]
    phones = {p: night.phone(p) for p in range(5)}
    visitor = night.app.test_client()
    everyone = {"host": night.host, "visitor": visitor,
                **{f"seat {p}": c for p, c in phones.items()}}
    for name, client in everyone.items():
        answers = crawl(client, pages(night, url))
        check_headers(answers)
        own = int(name.split()[1]) if name.startswith("seat") and name != "seat 4" else None
        for page, status, _, text in answers:
            assert status < 500, (name, page)
            if own is not None and page.startswith("/me") and "tally" not in page \
                    and status == 200:
                # the owner's own page: exactly their role, hidden until held
                assert roles_in(text) == [ROLE_WORDS[roles[str(own)]]], (name, page)
                assert re.search(r'id="role-secret" data-secret hidden>\s*<p class="secret">'
                                 + ROLE_WORDS[roles[str(own)]], text)
                continue
            if not page.startswith("/rules/"):  # the rules summary names both roles
                assert roles_in(text) == [], (name, page)
            assert 'class="secret"' not in text and "role-secret" not in text, (name, page)
            if page.endswith("export.json") and status == 200:
                game = json.loads(text)["games"][-1]
                assert "roles" not in game["setup"] and "unused_roles" not in game["setup"]
                assert game["secrets_removed"] is True
                for role in ("explorer", "skeleton"):
                    assert f'"{role}"' not in text


def test_refusals_redirects_and_stale_answers_show_no_role(night):
    url, setup = kraken_game(night)
    html_of = []
    for form in ({"seat": 9, "card": "empty", "pos": 2}, {"seat": 2, "card": "x", "pos": 2},
                 {"seat": 2, "card": "empty", "pos": 0}, {"seat": 2, "card": "empty"}):
        for headers in ({}, {"HX-Request": "true"}):
            response = night.host.post(f"{url}/kraken/reveal", data=form, headers=headers)
            assert status_of(response) in (409, 422)
            html_of.append(response.data.decode())
    response = night.host.post(f"{url}/kraken/next")
    html_of.append(response.data.decode())
    # a phone trying the host's forms, and the stranger
    for client in (night.phone(2), night.app.test_client()):
        for path in (f"{url}/kraken/reveal", f"{url}/undo", f"{night.url}/pass/0"):
            response = client.post(path, data={"seat": 2, "card": "empty", "pos": 2})
            assert response.status_code == 404
            html_of.append(response.data.decode())
    for html in html_of:
        assert roles_in(html) == [] and 'class="secret"' not in html


def test_the_passed_tablet_shows_one_role_and_the_way_back_shows_none(night):
    url, setup = kraken_game(night)
    html = night.host.post(f"{night.url}/pass/2").data.decode()
    assert roles_in(html) == [ROLE_WORDS[setup["roles"]["2"]]]
    back = night.host.get(night.url).data.decode()
    assert roles_in(back) == [] and 'class="secret"' not in back


# --- Crazy Time: a law's cards, for those who do not know it ---------------------------


def crazytime_with_a_secret_law(night):
    """Match 1 played out with a penalty each but seat 0: seat 0 wins and leaves the room,
    and the others make a law the host types in (When/What are the secret)."""
    url = night.start("crazytime", **FOUR)
    for pos, seat in enumerate([1, 2, 3] * 12):
        response = night.host.post(f"{url}/crazytime/penalty", data={"seat": seat,
                                                                      "pos": pos})
        if response.status_code == 422:
            break
        assert response.status_code == 303, response.data.decode()[:500]
    pos = night.pos(url)
    response = night.host.post(f"{url}/crazytime/law", data={
        "name": "Zebra law", "when": WHEN, "what": WHAT, "pos": pos})
    assert response.status_code == 303, response.data.decode()[:1500]
    return url


def test_a_laws_cards_reach_only_the_players_who_know_it(night):
    url = crazytime_with_a_secret_law(night)
    conn = sqlite3.connect(night.app.config["DATABASE"])
    conn.close()
    phones = {p: night.phone(p) for p in range(5)}
    knows = {1, 2, 3}  # seat 0 was out of the room; seat 4 is not in the game
    for name, client in {"host": night.host, "visitor": night.app.test_client(),
                         **{f"seat {p}": c for p, c in phones.items()}}.items():
        answers = crawl(client, pages(night, url))
        check_headers(answers)
        for page, status, _, text in answers:
            assert status < 500, (name, page)
            seat = int(name.split()[1]) if name.startswith("seat") else None
            if seat in knows and page.split(" ")[0] in ("/me", "/me/live", "/me/live?v=0") \
                    and status == 200:
                assert WHEN in text and WHAT in text, (name, page)  # they do know it
                continue
            assert WHEN not in text and WHAT not in text, (name, page)
            if client is not night.host:
                continue
            if page == url and status == 200:
                assert "Zebra law" in text  # the host sees the law's name, nothing more


def test_a_refused_law_form_and_the_history_never_repeat_the_cards(night):
    url = crazytime_with_a_secret_law(night)
    html = night.host.post(f"{url}/crazytime/law", data={
        "name": "Zebra law", "when": "x", "what": "y", "pos": night.pos(url)}).data.decode()
    assert WHEN not in html and WHAT not in html
    history = night.host.get(url).data.decode()
    assert WHEN not in history and WHAT not in history


# --- Skull King: bids before the reveal ------------------------------------------------


def test_a_bid_stays_with_its_phone_until_yo_ho_ho(night):
    url = night.start("skullking", **FOUR, way="custom", rounds="9,9")
    phones = {p: night.phone(p) for p in range(5)}
    response = phones[1].post("/me/skullking/bid", data={"round": 1, "bid": 7})
    assert response.status_code == 200
    own = phones[1].get("/me").data.decode()
    assert "You bid 7" in own
    for name, client in {"host": night.host, "visitor": night.app.test_client(),
                         **{f"seat {p}": c for p, c in phones.items() if p != 1}}.items():
        answers = crawl(client, pages(night, url))
        check_headers(answers)
        for page, status, _, text in answers:
            assert status < 500, (name, page)
            assert "You bid" not in text and 'class="sk-bids"' not in text, (name, page)
            assert "Bids total" not in text, (name, page)
            if page.endswith("export.json") and status == 200:
                events = json.loads(text)["games"][-1]["events"]
                assert [e["data"]["bid"] for e in events if e["type"] == "bid"] == [0]
        if client is night.host:
            html = client.get(url).data.decode()
            assert re.search(r'data-seat="1" class="done">', html)  # only ✓ for the host
    # after Yo-ho-ho every bid is shown to all
    for seat in (0, 2, 3):
        night.host.post(f"{url}/skullking/bid", data={"seat": seat, "round": 1, "bid": 0,
                                                      "pos": night.pos(url)})
    assert night.host.post(f"{url}/skullking/reveal",
                           data={"round": 1, "pos": night.pos(url)}).status_code == 303
    assert re.search(r'data-seat="1"[^>]*>[^<]*: <strong>7</strong>',
                     unmarked(phones[2].get("/me").data.decode()))


# --- claim abuse ----------------------------------------------------------------------


def seat_devices(night):
    conn = sqlite3.connect(night.app.config["DATABASE"])
    try:
        return [r[0] for r in conn.execute("select device from seats order by position")]
    finally:
        conn.close()


def test_a_second_phone_cannot_take_a_claimed_seat_and_sees_nothing_of_it(night):
    url, setup = kraken_game(night)
    owner = night.phone(2)
    before = seat_devices(night)
    thief = night.app.test_client()
    assert thief.post(f"/s/{night.tokens[2]}").status_code == 409
    response = thief.get(f"/s/{night.tokens[2]}")
    html = response.data.decode()
    assert response.status_code == 409
    assert "already taken" in html
    assert night.tokens[2] not in html and roles_in(html) == []
    assert seat_devices(night) == before
    assert thief.get("/me").status_code == 200 and roles_in(thief.get("/me").data.decode()) \
        == []
    assert roles_in(owner.get("/me").data.decode()) == [ROLE_WORDS[setup["roles"]["2"]]]


def test_a_seat_link_leaves_no_token_in_the_address_bar(night):
    response = night.app.test_client().post(f"/s/{night.tokens[1]}")
    assert response.status_code == 303 and response.headers["Location"] == "/me"


def test_cleared_cookies_do_not_lock_a_player_out_the_host_releases_and_they_rescan(night):
    url, setup = kraken_game(night)
    night.phone(3)
    cleared = night.app.test_client()  # the same phone after clearing its cookies
    assert cleared.post(f"/s/{night.tokens[3]}").status_code == 409
    assert night.host.post(f"{night.url}/seats/3/release").status_code == 303
    assert cleared.post(f"/s/{night.tokens[3]}").status_code == 410  # the old code is gone
    assert cleared.post(f"/s/{current_tokens(night)[3]}").status_code == 303
    assert roles_in(cleared.get("/me").data.decode()) == [ROLE_WORDS[setup["roles"]["3"]]]


def test_a_released_seat_is_claimed_once(night):
    night.phone(0)
    assert night.host.post(f"{night.url}/seats/0/release").status_code == 303
    first, second = night.app.test_client(), night.app.test_client()
    token = current_tokens(night)[0]
    assert first.post(f"/s/{token}").status_code == 303
    assert second.post(f"/s/{token}").status_code == 409
    assert first.post(f"/s/{token}").status_code == 303  # the owner: its page


def current_tokens(night):
    """The seat codes as the host's screen shows them now."""
    with night.app.test_request_context():
        return [s["token"] for s in store.seats(store.night_by_key(night.key)["id"])]


def seat_tokens(database, key):
    conn = sqlite3.connect(database)
    try:
        return [row[0] for row in conn.execute(
            "select s.token from seats s join nights n on n.id = s.night_id "
            "where n.key = ? order by s.position", [key])]
    finally:
        conn.close()


def test_release_is_for_the_host_only(night):
    night.phone(0)
    others = (night.phone(1), night.app.test_client())
    before = seat_devices(night)
    for client in others:
        assert client.post(f"{night.url}/seats/0/release").status_code == 404
    assert seat_devices(night) == before


def test_one_phone_holds_one_seat_and_the_host_device_none(night):
    phone = night.phone(0)
    assert phone.post(f"/s/{night.tokens[1]}").status_code == 409
    assert night.host.post(f"/s/{night.tokens[1]}").status_code == 409
    assert seat_devices(night)[1] is None


@pytest.mark.slow
def test_ten_phones_racing_for_a_released_seat_one_wins(live_server):
    host, key, tokens = create_night(live_server.url,
                                     database=live_server.app.config["DATABASE"])
    assert len(tokens) == 5
    results = []
    barrier = threading.Barrier(10)

    def scan():
        # Generous timeouts: on a loaded machine ten phones may wait their turn; the
        # race is what is tested, not the speed.
        phone = Device(live_server.url)
        phone.get(f"/s/{tokens[2]}", timeout=120)  # the question page: a form token
        barrier.wait(timeout=120)
        results.append(phone.post(f"/s/{tokens[2]}", timeout=120)[0])

    threads = [threading.Thread(target=scan) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=150)
    assert sorted(results) == [303] + [409] * 9
    assert host.post(f"/n/{key}/seats/2/release")[0] == 303
    old, tokens[2] = tokens[2], seat_tokens(live_server.app.config["DATABASE"], key)[2]
    assert old != tokens[2] and Device(live_server.url).claim(old) == 410
    results.clear()
    barrier = threading.Barrier(10)
    threads = [threading.Thread(target=scan) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=150)
    assert sorted(results) == [303] + [409] * 9


# --- tokens never land in the logs ----------------------------------------------------


@pytest.mark.slow
def test_seat_host_and_screen_tokens_never_reach_the_servers_log(server_process, caplog):
    server_process.start()
    host, key, tokens = create_night(server_process.url, database=server_process.database)
    assert len(tokens) == 5
    start_game(host, key, "kraken", FOUR)
    for token in tokens:
        assert Device(server_process.url).claim(token) == 303
        Device(server_process.url).claim(token)  # taken
        Device(server_process.url).get(f"/s/{token[:-3]}")  # truncated: 404
    _, _, html = host.post(f"/n/{key}/hosts")
    invite = re.search(r"/h/([A-Za-z0-9_-]{32,64})", html).group(1)
    tablet = Device(server_process.url)
    tablet.get(f"/h/{invite}")
    assert tablet.post(f"/h/{invite}")[0] == 303
    Device(server_process.url).get(f"/h/{invite}")
    _, _, html = host.post(f"/n/{key}/screens")
    screen = re.search(r"/t/([A-Za-z0-9_-]{32,64})", html).group(1)
    tv = Device(server_process.url)
    tv.get(f"/t/{screen}")
    assert tv.post(f"/t/{screen}")[0] == 303
    assert tv.get(f"/n/{key}/screen")[0] == 200
    Device(server_process.url).get(f"/t/{screen}")  # used: refused
    urllib.request.urlopen(server_process.url + "/", timeout=5).read()
    server_process.kill()
    log = server_process.process.stderr.read().decode("utf-8", "replace")
    for secret in [*tokens, invite, screen, key]:
        assert secret not in log
        assert secret[:-3] not in log


def test_tokens_never_reach_the_apps_log(night, caplog):
    import logging

    caplog.set_level(logging.DEBUG)
    url, _ = kraken_game(night)
    for position in range(5):
        phone = night.phone(position)
        phone.get("/me")
        night.app.test_client().get(f"/s/{night.tokens[position]}")
        night.app.test_client().get(f"/s/{night.tokens[position][:-1]}")
    text = caplog.text
    for secret in [*night.tokens, night.key]:
        assert secret not in text and secret[:-1] not in text


def test_a_failed_request_is_logged_with_its_tokens_masked(night, caplog, monkeypatch):
    """Flask logs a failure with its path ("Exception on /s/<token> [GET]"): the path's
    tokens are masked, in the message and its traceback."""
    import logging

    from companion import store

    caplog.set_level(logging.DEBUG)
    night.app.config["PROPAGATE_EXCEPTIONS"] = False  # as served: a 500, logged

    def broken(*_args, **_kwargs):
        raise RuntimeError(f"broken at /s/{night.tokens[0]}")

    monkeypatch.setattr(store, "seat_by_token", broken)
    monkeypatch.setattr(store, "hosted_night", broken)
    assert night.app.test_client().get(f"/s/{night.tokens[0]}").status_code == 500
    assert night.host.get(f"/n/{night.key}").status_code == 500
    assert "Exception on /s/… [GET]" in caplog.text
    assert "Exception on /n/… [GET]" in caplog.text
    assert "broken at /s/…" in caplog.text
    for secret in (night.tokens[0], night.key):
        assert secret not in caplog.text


def test_a_second_night_of_the_same_phone_shows_only_its_own_seat(app):
    first = make_night(app)
    second = make_night(app, names=["A", "B", "C", "D"])
    phone = first.phone(1)
    assert phone.post(f"/s/{second.tokens[2]}").status_code == 303  # a new night: new seat
    url, setup = kraken_game(second)
    html = phone.get("/me").data.decode()
    assert roles_in(html) == [ROLE_WORDS[setup["roles"]["2"]]]


@pytest.mark.slow  # it waits between its tries (1.2 s of its 1.3), not the quick loop's
def test_a_photographed_code_retried_every_50_ms_never_gets_the_seat_back(night):
    """The owner's code is photographed; a script retries it every 50 ms while the host
    releases the seat for the owner's new phone: the script never gets it."""
    import time

    night.phone(1)  # the owner's first phone
    thief = night.app.test_client()
    answers, stop = [], threading.Event()

    def retry():
        while not stop.is_set():
            answers.append(thief.post(f"/s/{night.tokens[1]}").status_code)
            time.sleep(0.05)

    script = threading.Thread(target=retry)
    script.start()
    try:
        time.sleep(0.2)
        for _ in range(4):  # four releases, as in the drill
            assert night.host.post(f"{night.url}/seats/1/release").status_code == 303
            time.sleep(0.15)
            owner = night.app.test_client()
            assert owner.post(f"/s/{current_tokens(night)[1]}").status_code == 303
            time.sleep(0.1)
    finally:
        stop.set()
        script.join()
    assert len(answers) >= 10 and set(answers) <= {409, 410}
    assert "Jo" in owner.get("/me").data.decode()
    assert "Jo" not in page_text(thief.get("/me").data.decode())
