"""`companion serve` and `companion host-link` from the command line."""

import os
import re
import socket
import subprocess
import sys

from companion import cli
from tests.conftest import make_night


def test_a_taken_port_gets_a_clear_message(tmp_path):
    """In its own process, as a host runs it (``serve`` patches the process for gevent)."""
    env = {**os.environ, "COMPANION_DATABASE": str(tmp_path / "c.sqlite"),
           "COMPANION_SECRET_KEY": "cli"}
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1",
             "--port", str(port), "--quiet"],
            env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert f"Port {port} is already in use" in done.stderr


def test_the_lan_address_is_not_a_loopback_name():
    address = cli.lan_address()
    assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+", address)


def test_a_host_who_lost_their_cookies_gets_back_in_with_a_host_link(app, capsys, monkeypatch):
    night = make_night(app)
    monkeypatch.setenv("COMPANION_DATABASE", app.config["DATABASE"])
    monkeypatch.setenv("COMPANION_SECRET_KEY", "test")
    assert cli.main(["host-link", "--public-url", "http://table.test:8765"]) == 0
    link = re.search(r"http://table\.test:8765(/h/[A-Za-z0-9_-]+)", capsys.readouterr().out)
    laptop = app.test_client()  # the same laptop, its cookies cleared
    assert laptop.get(night.url).status_code == 404
    assert laptop.get(link.group(1)).status_code == 200  # "host this night?"
    assert laptop.post(link.group(1)).status_code == 303
    assert laptop.get(night.url).status_code == 200
    assert app.test_client().get(link.group(1)).status_code == 410  # once only, and it says so


def test_host_link_says_so_when_there_is_no_night(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("COMPANION_DATABASE", str(tmp_path / "empty.sqlite"))
    monkeypatch.setenv("COMPANION_SECRET_KEY", "cli")
    assert cli.main(["host-link", "--public-url", "http://t"]) == 2
    assert "no such night" in capsys.readouterr().err


def test_host_link_asks_which_night_and_never_takes_the_latest_by_itself(
        app, capsys, monkeypatch):
    """Any guest on the Wi-Fi can make a night a moment before the host runs it: the
    latest nights are listed by time and players, and one is chosen."""
    ours = make_night(app, ["민수", "Jo", "지혜"])
    make_night(app, ["Guest", "Made", "This"])
    monkeypatch.setenv("COMPANION_DATABASE", app.config["DATABASE"])
    monkeypatch.setenv("COMPANION_SECRET_KEY", "test")
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False)
    assert cli.main(["host-link", "--public-url", "http://t"]) == 2
    said = capsys.readouterr()
    assert "Guest, Made, This" in said.out and "민수, Jo, 지혜" in said.out
    assert f"--night {ours.key}" in said.out and "/h/" not in said.out
    assert "--night KEY" in said.err
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt: "2")
    assert cli.main(["host-link", "--public-url", "http://t"]) == 0
    link = re.search(r"http://t(/h/[A-Za-z0-9_-]+)", capsys.readouterr().out).group(1)
    laptop = app.test_client()
    assert laptop.post(link).status_code == 303
    assert laptop.get(ours.url).status_code == 200
