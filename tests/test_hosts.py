"""The app answers only to its own names (companion/web/hosts.py): a page elsewhere that
points a name of its own at the laptop (DNS rebinding) gets a plain 400 for everything,
while the double-clicked program's ``localhost``, the laptop's addresses, ``PUBLIC_URL``,
``OTHER_URLS`` and the café's ``ALLOWED_HOSTS`` keep working."""

import http.client
import os
import subprocess
import sys

import pytest

from bench.servers import answers, free_port
from companion.laptop import addresses
from companion.web import hosts
from tests.apps import nights_count


@pytest.mark.parametrize(("host", "name"), [
    ("localhost:8765", "localhost"),
    ("LOCALHOST", "localhost"),
    ("192.168.0.12:8765", "192.168.0.12"),
    ("[::1]:8765", "::1"),
    ("[FE80::1%25en0]:8765", "fe80::1"),
    ("table.example.", "table.example"),
    ("evil.example:80", "evil.example"),
])
def test_a_host_header_s_name_is_read_without_its_port(host, name):
    assert hosts.host_name(host) == name


@pytest.fixture
def no_interfaces(monkeypatch):
    """A laptop whose addresses are read as none (or as the test says)."""
    found = []
    monkeypatch.setattr(addresses, "interfaces", lambda: list(found))
    monkeypatch.setitem(hosts._laptop, "read", -hosts.READ_AGAIN_S)
    return found


@pytest.mark.parametrize("base", ["http://evil.example", "http://evil.example:8765",
                                  "http://192.168.7.7:8765", "http://localhost.evil.example"])
def test_a_name_that_is_not_the_app_s_gets_a_plain_400_and_changes_nothing(
        app, no_interfaces, base):
    client = app.test_client()
    before = nights_count(app)
    for path in ("/", "/screen", "/static/app.css", "/clock", "/nowhere"):
        answer = client.get(path, base_url=base)
        assert answer.status_code == 400 and answer.mimetype == "text/plain"
        assert "Set-Cookie" not in answer.headers
    answer = client.post("/nights", data={"name": ["A", "B", "C"]}, base_url=base)
    assert answer.status_code == 400 and answer.mimetype == "text/plain"
    assert nights_count(app) == before


@pytest.mark.parametrize("base", ["http://localhost", "http://localhost:8765",
                                  "http://127.0.0.1:8765", "http://[::1]:8765",
                                  "http://table.test:8765", "http://table.test:9999"])
def test_the_app_s_own_names_are_answered(app, no_interfaces, base):
    assert app.test_client().get("/", base_url=base).status_code == 200


def test_the_laptop_s_other_addresses_and_other_urls_are_answered(app, no_interfaces):
    no_interfaces.append(addresses.Interface("wlan0", "192.168.0.12", 24))
    app.config["OTHER_URLS"] = ["http://10.42.0.1:8765"]
    client = app.test_client()
    assert client.get("/", base_url="http://192.168.0.12:8765").status_code == 200
    assert client.get("/", base_url="http://10.42.0.1:8765").status_code == 200
    assert client.get("/", base_url="http://192.168.0.13:8765").status_code == 400


def test_the_address_the_connection_came_to_is_answered(app, no_interfaces):
    class Socket:
        def getsockname(self):
            return ("172.20.10.3", 8765)

    client = app.test_client()
    answer = client.get("/", base_url="http://172.20.10.3:8765",
                        environ_base={"companion.socket": Socket()})
    assert answer.status_code == 200
    answer = client.get("/", base_url="http://172.20.10.4:8765",
                        environ_base={"companion.socket": Socket()})
    assert answer.status_code == 400


def test_a_cafe_names_its_own_and_a_star_answers_any(app, no_interfaces):
    client = app.test_client()
    app.config["ALLOWED_HOSTS"] = ["Table.Cafe.lan"]
    assert client.get("/", base_url="http://table.cafe.lan").status_code == 200
    assert client.get("/", base_url="http://evil.example").status_code == 400
    app.config["ALLOWED_HOSTS"] = "table.cafe.lan"  # one name from the environment
    assert client.get("/", base_url="http://table.cafe.lan").status_code == 200
    app.config["ALLOWED_HOSTS"] = ["*"]
    assert client.get("/", base_url="http://evil.example").status_code == 200


def test_without_public_url_the_address_of_the_request_is_still_the_laptop_s(
        app, no_interfaces):
    """(the café setup leaves PUBLIC_URL unset: phones open the laptop's address)"""
    app.config["PUBLIC_URL"] = None
    no_interfaces.append(addresses.Interface("en0", "192.168.1.20", 24))
    assert app.test_client().get("/", base_url="http://192.168.1.20:8000").status_code == 200


def _status(port, host, address="127.0.0.3"):
    conn = http.client.HTTPConnection(address, port, timeout=30)
    try:
        conn.request("GET", "/", headers={"Host": host})
        return conn.getresponse().status
    finally:
        conn.close()


def test_a_request_that_names_no_host_is_no_page_s_and_is_answered(app, no_interfaces):
    """(HTTP/1.0 without ``Host``: a browser always sends one, so no page elsewhere can)"""
    answer = app.test_client().get("/", environ_overrides={"HTTP_HOST": "",
                                                           "SERVER_NAME": "0.0.0.0"})
    assert answer.status_code == 200


@pytest.mark.slow
def test_companion_serve_answers_its_names_and_refuses_another(tmp_path):
    """`companion serve` on 127.0.0.3 (an address psutil does not list: only the
    connection says it is the laptop's) with ``--public-url`` naming the table."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.3", "--port",
         str(port), "--public-url", f"http://table.example:{port}", "--quiet"],
        env={**os.environ, "COMPANION_DATABASE": str(tmp_path / "hosts.sqlite"),
             "COMPANION_SECRET_KEY": "hosts-test"},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert answers(f"http://127.0.0.3:{port}/")
        assert _status(port, f"127.0.0.3:{port}") == 200
        assert _status(port, f"table.example:{port}") == 200
        assert _status(port, f"localhost:{port}") == 200
        assert _status(port, f"evil.example:{port}") == 400
        assert _status(port, "rebound.example") == 400
    finally:
        process.kill()
        process.wait(timeout=10)
