"""`companion serve` and `companion host-link` from the command line."""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from bench.builders import make_night
from bench.servers import answers, free_port
from companion.serving import cli
from companion.serving.gevent_first import serving


@pytest.mark.slow  # `companion serve` in a process of its own
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


def test_the_lan_address_is_an_ipv4_address():
    address = cli.lan_address()
    assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+", address)


def test_gevent_patches_first_only_for_serve():
    assert serving(["/home/me/.local/bin/companion", "serve", "--port", "8800"])
    assert serving(["-m", "serve"])  # python -m companion serve, while -m finds it
    assert serving([r"C:\Users\me\pipx\venvs\companion\Scripts\companion.exe", "serve"])
    assert not serving(["/home/me/.local/bin/companion", "doctor"])
    assert not serving(["/usr/bin/flask", "serve"])
    assert not serving([])


def test_gevent_patches_first_for_a_double_click():
    """With no command, ``companion`` serves (companion/serving/cli.py), and so does the
    built program, whatever its file is called, with ``serve`` or nothing."""
    assert serving(["/home/me/.local/bin/companion"])
    assert serving(["-m"])  # python -m companion, while -m finds it
    assert serving(["/Applications/Companion.app/Contents/MacOS/Companion"], frozen=True)
    assert serving([r"C:\Users\me\Downloads\Companion-0.2.0-windows-x64.exe", "serve"],
                   frozen=True)
    assert not serving(["/Applications/Companion.app/Contents/MacOS/Companion"])
    assert not serving([r"C:\Users\me\Downloads\Companion.exe", "doctor"], frozen=True)


def _serve(args, env, **popen):
    """`companion serve` in its own process, its first line read (the address)."""
    process = subprocess.Popen(
        [*args, "serve", "--port", str(free_port()), "--quiet"], env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)
    return process, process.stdout.readline()


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_ctrl_c_sigterm_and_a_closed_terminal_end_the_night_with_one_line(tmp_path, stop):
    env = {**os.environ, "COMPANION_DATA": str(tmp_path), "COMPANION_SECRET_KEY": "cli"}
    env.pop("COMPANION_DATABASE", None)
    process, first = _serve([sys.executable, "-m", "companion"], env)
    assert first.startswith("Companion is running. Open http://")
    process.send_signal(stop)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 0
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert out.strip().splitlines()[-1] == (
        f"Companion stopped. Every night is saved in {tmp_path / 'companion.sqlite'}")


# --- the printed address on a laptop's networks, built in network namespaces ----------

def _netns_unavailable():
    if os.geteuid() != 0:
        return "needs root to make network namespaces (CI runs as root)"
    if shutil.which("ip") is None:
        return "needs iproute2's ip"
    return None


def _ip(*args):
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=20)


def _laptop(name, with_vpn):
    """A namespace holding a Wi-Fi interface at 192.168.0.12/24 (no gateway), and with
    ``with_vpn`` a VPN's tun0 at 10.8.0.2 routing 10.0.0.0/8 and a default route via the
    Wi-Fi's router: each a veth pair whose both ends stay inside the namespace."""
    _ip("netns", "add", name)
    links = [("wlan0", "192.168.0.12/24")] + ([("tun0", "10.8.0.2/8")] if with_vpn else [])
    for link, address in links:
        _ip("-n", name, "link", "add", link, "type", "veth", "peer", "name", f"{link}p")
        _ip("-n", name, "addr", "add", address, "dev", link)
        _ip("-n", name, "link", "set", link, "up")
        _ip("-n", name, "link", "set", f"{link}p", "up")
    if with_vpn:
        _ip("-n", name, "route", "add", "default", "via", "192.168.0.1")


@pytest.mark.slow
@pytest.mark.skipif(_netns_unavailable() is not None, reason=str(_netns_unavailable()))
@pytest.mark.parametrize("with_vpn", [True, False], ids=["vpn-routing-10/8", "no-gateway"])
def test_serve_prints_the_wifi_address_on_a_vpn_or_without_a_gateway(tmp_path, with_vpn):
    """The routed probe printed 10.8.0.2 with the VPN and 127.0.0.1 without a gateway."""
    name = f"companion-reach-{os.getpid()}-{int(with_vpn)}"
    env = {**os.environ, "COMPANION_DATA": str(tmp_path), "COMPANION_SECRET_KEY": "cli"}
    env.pop("COMPANION_DATABASE", None)
    script = Path(sys.executable).with_name("companion")
    try:
        _laptop(name, with_vpn)
        process, first = _serve(["ip", "netns", "exec", name, str(script)], env)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
        assert re.match(r"Companion is running\. Open http://192\.168\.0\.12:\d+ ", first), (
            first + err)
        assert process.returncode == 0
    finally:
        subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=20)


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


@pytest.mark.slow
def test_the_cafe_setup_stops_on_ctrl_c_with_the_saved_line_and_no_traceback(tmp_path):
    """Ctrl+C in a terminal reaches gunicorn's master and every worker (one process
    group): each worker ends without gevent's traceback, the master with the line."""
    database = tmp_path / "cafe.sqlite"
    env = {**os.environ, "COMPANION_DATABASE": str(database), "COMPANION_SECRET_KEY": "cli"}
    port = free_port()
    gunicorn = Path(sys.executable).with_name("gunicorn")
    process = subprocess.Popen(
        [str(gunicorn), "-w", "2", "-c", "python:companion.serving.cafe", "-b", f"127.0.0.1:{port}",
         "companion.serving.wsgi:app"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True)
    try:
        assert answers(f"http://127.0.0.1:{port}/"), "the café setup did not start"
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 0
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert out.strip() == f"Companion stopped. Every night is saved in {database}"


def test_no_token_begins_with_a_dash_so_a_night_s_key_is_never_taken_for_an_option(
        monkeypatch):
    """(``--night -abc…`` was "expected one argument": one key in 64)"""
    from companion.core import tokens

    drawn = iter(["-" + "a" * 42, "-" + "b" * 42, "c" * 43])
    monkeypatch.setattr(tokens.secrets, "token_urlsafe", lambda n: next(drawn))
    assert tokens.new_token() == "c" * 43
    assert cli.build_parser().parse_args(["host-link", "--night", "c" * 43]).night == "c" * 43
