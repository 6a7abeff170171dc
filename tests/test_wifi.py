"""The Wi-Fi join code: the exact WIFI: text a camera reads (through the real image
route), the host's form and its refusals, where the password may and may not be, who
may set or see the code, and "only while the server runs" (one process, a restart, the
café's gunicorn master and its workers)."""

import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.browsing import decode_qr
from bench.builders import make_night
from bench.devices import create_night
from bench.servers import STARTS_WITHIN_S
from companion.app import create_app, server_started
from companion.core import wifi
from companion.serving.cafe import Worker
from tests.crawling import crawl, pages
from tests.over_http import CAFE, Gunicorn
from tests.pages import without_tokens
from tests.refusing import refuses, status_of
from tests.screens import screen_device
from tests.wifi_form import PASSWORD, image_url, set_wifi


def scanned(client, night):
    """What a camera reads from the code on the host's table page (the real image)."""
    url = image_url(client.get(night.url).data.decode())
    response = client.get(url)
    assert response.status_code == 200 and response.mimetype == "image/png"
    assert response.headers["Cache-Control"] == "no-store"
    return decode_qr(response.data)


def rows(app):
    conn = sqlite3.connect(app.config["DATABASE"])
    try:
        return conn.execute("select ssid, password, remembered, shown from wifi "
                            "order by ssid").fetchall()
    finally:
        conn.close()


def version(app, key):
    conn = sqlite3.connect(app.config["DATABASE"])
    try:
        return conn.execute("select version from nights where key = ?", [key]).fetchone()[0]
    finally:
        conn.close()


# --- the text of the code --------------------------------------------------------------


@pytest.mark.parametrize(("net", "text"), [
    (wifi.Network("Home", "secret123"), "WIFI:T:WPA;S:Home;P:secret123;;"),
    (wifi.Network("a;b,c:d\\e\"f'g", "p;1,2:3\\4\"5'6"),
     "WIFI:T:WPA;S:a\\;b\\,c\\:d\\\\e\\\"f'g;P:p\\;1\\,2\\:3\\\\4\\\"5'6;;"),
    (wifi.Network("우리집;와이파이", "secret 12345"),
     "WIFI:T:WPA;S:우리집\\;와이파이;P:secret 12345;;"),
    (wifi.Network("Café", "", wifi.OPEN), "WIFI:T:nopass;S:Café;;"),
    (wifi.Network("Hidden", "secret123", hidden=True), "WIFI:T:WPA;S:Hidden;P:secret123;H:true;;"),
    # a hex-looking name is not quoted (companion/core/wifi.py says why)
    (wifi.Network("CAFE1234", "DEADBEEF00"), "WIFI:T:WPA;S:CAFE1234;P:DEADBEEF00;;"),
])
def test_the_join_code_is_the_zxing_wifi_format_escaped(net, text):
    assert wifi.join_code(net) == text


@pytest.mark.parametrize(("ssid", "password"), [
    ("우리집;와이파이", PASSWORD),
    ("a:b,c;d\\e\"f'g", "x" * 7 + ";,:\\\"'"),
    ("“Jo's” \\ 와이파이", "12345678"),
    ("Table", "0123456789abcdefABCDEF0123456789abcdefABCDEF0123456789abcdef0123"),  # raw key
])
def test_the_code_on_the_host_page_scans_to_the_exact_text(night, ssid, password):
    assert set_wifi(night.host, night, ssid=ssid, password=password).status_code == 200
    assert scanned(night.host, night) == wifi.join_code(wifi.Network(ssid, password))


def test_an_open_and_a_hidden_network_scan_as_such(night):
    set_wifi(night.host, night, ssid="Guest: 손님", password="", open="1", hidden="1")
    assert scanned(night.host, night) == "WIFI:T:nopass;S:Guest\\: 손님;H:true;;"


# --- the form ---------------------------------------------------------------------------


@pytest.mark.parametrize(("form", "message"), [
    ({"ssid": ""}, "Type the Wi-Fi network's name."),
    ({"ssid": "   "}, "Type the Wi-Fi network's name."),
    ({"ssid": "a" * 33}, "at most 32 bytes"),
    ({"ssid": "가" * 11}, "at most 32 bytes"),  # 33 bytes in UTF-8
    ({"ssid": "two\nlines"}, "control characters"),
    ({"password": ""}, "Type the Wi-Fi password"),
    ({"password": "short77"}, "8 to 63 characters"),
    ({"password": "x" * 64}, "8 to 63 characters"),
    ({"password": "비밀번호비밀번호"}, "English letters"),
    ({"password": "tab\there123"}, "English letters"),
    ({"open": "1"}, "An open network has no password"),
    ({"password": None}, "Type the Wi-Fi password"),
])
def test_a_bad_network_gets_a_clear_message_and_records_nothing(night, form, message):
    before = version(night.app, night.key)
    response = set_wifi(night.host, night, **form)
    html = response.data.decode()
    assert status_of(response) == 422
    assert message in html.replace("&#39;", "'")
    assert rows(night.app) == []
    assert version(night.app, night.key) == before
    password = form.get("password", PASSWORD)
    if password:
        assert password not in html  # a refusal never repeats the password
    assert 'type="password" name="password" maxlength' in html  # the field, empty
    assert not re.search(r'name="password"[^>]*value=', html)


def test_a_refused_form_keeps_the_name_and_the_ticks_not_the_password(night):
    html = set_wifi(night.host, night, ssid="우리집", password="Tiny-1", remember="1",
                    hidden="1").data.decode()
    assert 'name="ssid" value="우리집"' in html
    assert re.search(r'name="remember" value="1" checked', html)
    assert re.search(r'name="hidden" value="1" checked', html)
    assert "Tiny-1" not in html


# --- what the sizes tell: nothing of the password ------------------------------------

SIZES = ["12345678", "x" * 63, ';,:\\"' * 12 + "abc", "0123456789abcdef" * 4]


def test_the_code_s_image_weighs_the_same_whatever_the_network(night):
    """(its size showed the password's length: 693 bytes for 8 characters, 1,138 for 63)"""
    weights = set()
    for ssid, password in zip(["a", "우리집;와이파이", ";" * 32, "Table"], SIZES, strict=True):
        assert set_wifi(night.host, night, ssid=ssid, password=password).status_code == 200
        url = image_url(night.host.get(night.url).data.decode())
        image = night.host.get(url).data
        weights.add(len(image))
        assert decode_qr(image) == wifi.join_code(wifi.Network(ssid, password))
    set_wifi(night.host, night, ssid="Open", password="", open="1", hidden="1")
    weights.add(len(night.host.get(image_url(night.host.get(night.url).data.decode())).data))
    assert len(weights) == 1


@pytest.mark.parametrize("encoding", ["gzip", ""])
def test_the_password_page_weighs_the_same_whatever_the_password(night, encoding):
    weights = set()
    for password in SIZES:
        set_wifi(night.host, night, password=password)
        page = night.host.get(f"{night.url}/wifi/password",
                              headers={"Accept-Encoding": encoding})
        assert page.status_code == 200
        weights.add(len(page.data))
    assert len(weights) == 1


def test_the_pure_checks_agree_with_the_limits():
    assert wifi.network(" 우리집 ", "12345678").ssid == "우리집"
    assert wifi.network("a" * 32, "x" * 63).password == "x" * 63
    assert wifi.network("가" * 10 + "ab", " spaces kept ").password == " spaces kept "
    with refuses("characters: check"):
        wifi.network("a", "x" * 7)


def test_without_javascript_the_form_comes_back_to_the_table(night):
    response = night.host.post(f"{night.url}/wifi", data={"ssid": "Table", "password": PASSWORD})
    assert response.status_code == 303 and response.headers["Location"].endswith("#wifi")
    refused = night.host.post(f"{night.url}/wifi", data={"ssid": "", "password": PASSWORD})
    assert refused.status_code == 422
    assert "<!doctype html>" in refused.data.decode() and "Type the Wi-Fi" in refused.data.decode()


# --- where the password is, and is not --------------------------------------------------


def test_the_password_is_on_no_page_export_or_phone_only_in_the_image(night):
    game_url = night.start("kraken", seat0="on", seat1="on", seat2="on", seat3="on")
    set_wifi(night.host, night, ssid="우리집;와이파이")
    tv = screen_device(night)
    viewers = {"host": night.host, "visitor": night.app.test_client(), "screen": tv,
               **{f"seat {p}": night.phone(p) for p in range(3)}}
    urls = pages(night, game_url) + [f"{night.url}/tally/picture", "/me/recap.png",
                                    f"{night.url}/recap.png", "/history", "/stats",
                                    "/stats.csv", f"{night.url}/screen"]
    for name, client in viewers.items():
        for url, status, _headers, text in crawl(client, urls):
            assert PASSWORD not in text, (name, url, status)
            assert "Pa;ss" not in text and "Pa\\;ss" not in text, (name, url)
    host_page = night.host.get(night.url).data.decode()
    assert "우리집;와이파이" in host_page  # the name is shown, as text
    assert image_url(host_page) and image_url(tv.get(f"{night.url}/screen").data.decode())
    for name in ("visitor", "seat 0", "seat 1"):
        me = without_tokens(viewers[name].get("/me").data.decode())
        assert "wifi" not in me.lower() and "우리집" not in me


def test_only_the_host_reads_the_password_as_text_when_asked(night):
    set_wifi(night.host, night)
    page = night.host.get(f"{night.url}/wifi/password")
    assert page.status_code == 200
    assert '<code class="wifi-password">Pa;ss,wo:rd\\q&#34;u&#39;ote</code>' in page.data.decode()
    tv = screen_device(night)
    for client in (tv, night.phone(0), night.app.test_client()):
        answer = client.get(f"{night.url}/wifi/password")
        assert answer.status_code == 404 and "Pa;ss" not in answer.data.decode()


def test_a_guest_device_cannot_set_hide_forget_or_see_the_code(night):
    set_wifi(night.host, night)
    url = image_url(night.host.get(night.url).data.decode())
    tv = screen_device(night)
    assert tv.get(url).status_code == 200  # the room's screen shows it
    before = rows(night.app)
    for client in (night.phone(0), night.app.test_client(), tv):
        for path, form in ((f"{night.url}/wifi", {"ssid": "Evil", "password": "12345678"}),
                           (f"{night.url}/wifi/shown", {"shown": "0"}),
                           (f"{night.url}/wifi/forget", {})):
            answer = client.post(path, data=form)
            assert answer.status_code in (403, 404), path
            assert "Pa;ss" not in answer.data.decode()
    assert rows(night.app) == before
    for client in (night.phone(1), night.app.test_client()):
        assert client.get(url).status_code == 404


def test_another_nights_host_sees_nothing_of_it(app, night):
    set_wifi(night.host, night)
    other = make_night(app, ["A", "B", "C"])
    assert other.host.get(f"{night.url}/wifi.png").status_code == 404
    assert image_url(other.host.get(other.url).data.decode()) is None


def test_a_second_host_device_and_the_next_night_of_the_same_host_show_it(app, night):
    set_wifi(night.host, night, ssid="Home")
    invite = re.search(r"/h/([A-Za-z0-9_-]+)", night.host.post(f"{night.url}/hosts").data.decode())
    tablet = app.test_client()
    assert tablet.post(f"/h/{invite.group(1)}").status_code == 303
    assert scanned(tablet, night).startswith("WIFI:T:WPA;S:Home;")
    again = night.host.post("/nights", data={"name": ["A", "B", "C"]})
    key = again.headers["Location"].rsplit("/", 1)[1]
    html = night.host.get(f"/n/{key}").data.decode()
    assert image_url(html) and "Home" in html


def test_an_old_night_s_screen_never_reads_a_network_set_on_a_later_night(app, night):
    old_screen = screen_device(night)
    set_wifi(night.host, night, ssid="Home", password="old-password-1", remember="1")
    assert old_screen.get(f"{night.url}/wifi.png").status_code == 200
    later = night.host.post("/nights", data={"name": ["A", "B", "C"]})
    key = later.headers["Location"].rsplit("/", 1)[1]
    new = type(night)(app=app, host=night.host, key=key)
    set_wifi(night.host, new, ssid="Home", password="NEW-password-42")
    assert scanned(night.host, new) == "WIFI:T:WPA;S:Home;P:NEW-password-42;;"
    assert old_screen.get(f"{night.url}/wifi.png").status_code == 404
    assert "wifi.png" not in old_screen.get(f"{night.url}/screen").data.decode()
    assert night.host.get(f"{night.url}/wifi/password").status_code == 404


def test_a_host_who_answers_a_guest_s_host_code_brings_no_network_there(app, night):
    set_wifi(night.host, night, ssid="HomeNet", password="host-secret-77", remember="1")
    guest = make_night(app, ["Guest", "B", "C"])
    invite = re.search(r"/h/([A-Za-z0-9_-]+)", guest.host.post(f"{guest.url}/hosts").data.decode())
    question = night.host.get(f"/h/{invite.group(1)}").data.decode()
    assert "This device's own Wi-Fi is not shown there" in question
    assert night.host.post(f"/h/{invite.group(1)}").status_code == 303
    assert guest.host.get(f"{guest.url}/wifi/password").status_code == 404
    assert guest.host.get(f"{guest.url}/wifi.png").status_code == 404
    assert "HomeNet" not in guest.host.get(guest.url).data.decode()
    assert scanned(night.host, night).startswith("WIFI:T:WPA;S:HomeNet;")  # still at home


def test_the_host_code_s_question_names_the_night_s_players_and_its_network(app, night):
    set_wifi(night.host, night, ssid="Table Wi-Fi")
    invite = re.search(r"/h/([A-Za-z0-9_-]+)", night.host.post(f"{night.url}/hosts").data.decode())
    text = re.sub(r"</?bdi>", "", app.test_client().get(f"/h/{invite.group(1)}").data.decode())
    assert "Its players: 민수, Jo, 지혜 🙂, Ann, 박서준." in text
    assert "It shows the Wi-Fi network Table Wi-Fi to its screens." in text


def test_the_password_never_reaches_the_apps_log(night, caplog):
    import logging

    caplog.set_level(logging.DEBUG)
    set_wifi(night.host, night)
    set_wifi(night.host, night, password="bad")
    scanned(night.host, night)
    night.host.get(f"{night.url}/wifi/password")
    assert "Pa;ss" not in caplog.text and "Pa\\;ss" not in caplog.text


# --- hide, forget, remember -------------------------------------------------------------


def test_hide_shows_it_nowhere_and_show_brings_it_back(night):
    set_wifi(night.host, night)
    tv = screen_device(night)
    url = image_url(night.host.get(night.url).data.decode())
    assert night.host.post(f"{night.url}/wifi/shown", data={"shown": "0"},
                           headers={"HX-Request": "true"}).status_code == 200
    assert image_url(night.host.get(night.url).data.decode()) is None
    assert image_url(tv.get(f"{night.url}/screen").data.decode()) is None
    assert tv.get(url).status_code == 404 and night.host.get(url).status_code == 404
    assert "is hidden" in night.host.get(night.url).data.decode()
    night.host.post(f"{night.url}/wifi/shown", data={"shown": "1"})
    assert image_url(tv.get(f"{night.url}/screen").data.decode())


def test_forget_deletes_it_and_overwrites_its_bytes(night):
    set_wifi(night.host, night, password="Unforgettable-Passphrase-42", remember="1")
    tv = screen_device(night)
    before = version(night.app, night.key)
    assert night.host.post(f"{night.url}/wifi/forget").status_code == 303
    assert rows(night.app) == []
    assert version(night.app, night.key) > before  # the room's screen is told
    assert image_url(tv.get(f"{night.url}/screen").data.decode()) is None
    conn = sqlite3.connect(night.app.config["DATABASE"])
    conn.execute("pragma wal_checkpoint(truncate)")  # the log copied back, as it will be
    conn.close()
    assert b"Unforgettable-Passphrase" not in Path(night.app.config["DATABASE"]).read_bytes()


def test_a_restart_forgets_what_was_not_remembered_and_keeps_what_was(app, night):
    set_wifi(night.host, night, ssid="Kept", remember="1")
    other = make_night(app, ["A", "B", "C"])
    set_wifi(other.host, other, ssid="Tonight only")
    assert [r[0] for r in rows(app)] == ["Kept", "Tonight only"]
    server_started(create_app({"DATABASE": app.config["DATABASE"], "SECRET_KEY": "test"}))
    assert rows(app) == [("Kept", PASSWORD, 1, 1)]
    assert image_url(other.host.get(other.url).data.decode()) is None
    assert scanned(night.host, night).startswith("WIFI:T:WPA;S:Kept;")


def test_a_workers_start_forgets_nothing(app, night):
    """ready() runs in every worker (companion.serving.wsgi): a worker started again mid-night
    must not wipe the code."""
    from companion.app import ready

    set_wifi(night.host, night)
    ready(create_app({"DATABASE": app.config["DATABASE"], "SECRET_KEY": "test"}))
    assert len(rows(app)) == 1


def test_the_cafe_masters_start_forgets_what_was_not_remembered(app, night, monkeypatch):
    set_wifi(night.host, night)
    monkeypatch.setenv("COMPANION_DATABASE", app.config["DATABASE"])
    monkeypatch.setenv("COMPANION_SECRET_KEY", "test")
    Worker.check_config(None, None)
    assert rows(app) == []


def test_a_backup_carries_no_password(app, night, tmp_path, monkeypatch, capsys):
    from companion.serving.cli import main

    set_wifi(night.host, night, password="Backup-Never-Holds-It", remember="1")
    monkeypatch.setenv("COMPANION_DATABASE", app.config["DATABASE"])
    target = tmp_path / "copy.sqlite"
    assert main(["backup", str(target), "--data", str(tmp_path / "data")]) == 0
    assert b"Backup-Never-Holds-It" not in target.read_bytes()
    assert rows(app)[0][1] == "Backup-Never-Holds-It"  # the laptop keeps what it remembers


@pytest.mark.slow
def test_companion_serve_started_again_forgets_what_was_not_remembered(server_process):
    server_process.start()
    host, key, _ = create_night(server_process.url)
    guest_host, guest_key, _ = create_night(server_process.url)
    host.get(f"/n/{key}")
    assert host.post(f"/n/{key}/wifi", {"ssid": "Kept", "password": PASSWORD,
                                        "remember": "1"})[0] == 303
    guest_host.get(f"/n/{guest_key}")
    assert guest_host.post(f"/n/{guest_key}/wifi", {"ssid": "Gone", "password": PASSWORD})[0] == 303
    server_process.kill()
    server_process.start()
    assert image_url(host.get(f"/n/{key}")[2])
    assert image_url(guest_host.get(f"/n/{guest_key}")[2]) is None
    status, _head, body = host.get(image_url(host.get(f"/n/{key}")[2]))
    assert status == 200


def _workers(master):
    """The pids of a gunicorn master's workers (Linux)."""
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return [int(pid) for pid in children]


@pytest.mark.slow
def test_the_cafe_keeps_the_code_when_a_worker_restarts_and_forgets_it_when_it_restarts(tmp_path):
    database = str(tmp_path / "cafe.sqlite")
    server = Gunicorn(database, workers=2, options=CAFE)
    try:
        host, key, _ = create_night(server.url)
        host.get(f"/n/{key}")
        assert host.post(f"/n/{key}/wifi", {"ssid": "Cafe", "password": PASSWORD})[0] == 303
        first = _workers(server.process.pid)
        os.kill(first[0], signal.SIGKILL)  # a worker dies mid-night; the master makes another
        deadline = time.monotonic() + STARTS_WITHIN_S
        while time.monotonic() < deadline and (len(_workers(server.process.pid)) < 2
                                               or first[0] in _workers(server.process.pid)):
            time.sleep(0.2)
        time.sleep(1)
        for _ in range(6):  # whichever worker answers
            assert image_url(host.get(f"/n/{key}")[2])
    finally:
        server.stop()
    server = Gunicorn(database, workers=2, options=CAFE)
    try:
        host.base = server.url  # the same laptop (cookies are the host's, not the port's)
        assert image_url(host.get(f"/n/{key}")[2]) is None
    finally:
        server.stop()
    conn = sqlite3.connect(database)
    assert conn.execute("select count(*) from wifi").fetchone()[0] == 0
    conn.close()


@pytest.mark.slow  # `companion serve` in a process of its own
def test_a_second_serve_refused_its_port_forgets_nothing(app, night, tmp_path):
    """Started by mistake beside the running server, on the same data: it says the port
    is taken and leaves the running server's Wi-Fi code alone."""
    set_wifi(night.host, night)
    env = {**os.environ, "COMPANION_DATABASE": app.config["DATABASE"],
           "COMPANION_SECRET_KEY": "test"}
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1",
             "--port", str(port), "--quiet"], env=env, capture_output=True, timeout=60)
    assert done.returncode == 2
    assert len(rows(app)) == 1
