"""The terminal a host starts Companion in: its language, the QR code it can draw, what it
says keeps phones out, and what a double-click does (companion/serving/cli.py,
companion/laptop/words.py, companion/laptop/console.py)."""

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from bench.servers import free_port
from companion.laptop import console, doctor, words
from companion.serving import cli

# --- the system's language ----------------------------------------------------------


@pytest.mark.parametrize(("environ", "language"), [
    ({"LANG": "ko_KR.UTF-8"}, "ko"),
    ({"LANG": "en_US.UTF-8"}, "en"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({"LC_ALL": "ko_KR.eucKR", "LANG": "en_US.UTF-8"}, "ko"),  # LC_ALL outranks LANG
    ({"LANGUAGE": "ko:en", "LC_ALL": "en_US.UTF-8"}, "ko"),  # and LANGUAGE outranks both
    ({"LC_MESSAGES": "ko-KR"}, "ko"),
    ({"LANG": ""}, "en"),
])
def test_the_locale_variables_say_the_language(environ, language):
    assert words.system_language(environ, platform="linux") == language


class Kernel32:
    def __init__(self, language_id=0x0409, code_page=437):
        self.language_id, self.code_page = language_id, code_page

    def GetUserDefaultUILanguage(self):  # noqa: N802 (Windows' own name)
        return self.language_id

    def GetConsoleOutputCP(self):  # noqa: N802
        return self.code_page


def test_a_korean_windows_speaks_korean_when_no_locale_variable_is_set():
    assert words.system_language({}, platform="win32", kernel32=Kernel32(0x0412)) == "ko"
    assert words.system_language({}, platform="win32", kernel32=Kernel32(0x0409)) == "en"
    # Git Bash sets LANG: what the host set wins over the display language
    assert words.system_language({"LANG": "en_US.UTF-8"}, platform="win32",
                                 kernel32=Kernel32(0x0412)) == "en"


def test_a_mac_started_from_finder_reads_its_preferred_languages():
    korean = '(\n    "ko-KR",\n    "en-US"\n)\n'
    assert words.system_language({}, platform="darwin", run=lambda _: korean) == "ko"
    assert words.system_language({}, platform="darwin", run=lambda _: '("en-GB")') == "en"
    assert words.system_language({}, platform="darwin", run=lambda _: None) == "en"


def test_every_terminal_line_has_its_korean(monkeypatch):
    """The catalog is the pages' own: a line the catalog lacks would print in English."""
    monkeypatch.setattr(words, "terminal_language", lambda: "ko")
    said = cli.bind_refused(OSError(98, "in use"), "0.0.0.0", 8765)
    assert said.startswith("8765") and "companion serve --port 8766" in said
    assert all("\uac00" <= c <= "\ud7a3" for c in "포트") and "포트" in said
    report = doctor.report(doctor.Facts(system="Windows", port=8765))
    assert "If phones cannot open it" not in report and "휴대폰" in report


def test_the_doctor_speaks_english_on_an_english_system(monkeypatch):
    monkeypatch.setattr(words, "terminal_language", lambda: "en")
    assert "If phones cannot open it:" in doctor.report(doctor.Facts(system="Linux", port=1))


# --- the QR code in the terminal --------------------------------------------------------


@pytest.mark.parametrize(("code_page", "wt_session", "narrow"), [
    (949, "", False),  # a Korean Windows 10's classic console: blocks two cells wide
    (932, "", False), (936, "", False), (950, "", False),
    (949, "1b2c-…", True),  # Windows Terminal draws them narrow in any code page
    (437, "", True), (65001, "", True), (1252, "", True),
])
def test_an_east_asian_classic_console_draws_the_blocks_wide(code_page, wt_session, narrow):
    environ = {"WT_SESSION": wt_session} if wt_session else {}
    assert console.draws_blocks_narrow(Kernel32(code_page=code_page), environ) is narrow


def test_where_the_blocks_come_out_stretched_no_qr_is_drawn(monkeypatch):
    monkeypatch.setattr(console, "can_draw_blocks", lambda blocks, stream=None: False)
    monkeypatch.setattr(console, "can_print", lambda text, stream=None: True)
    assert cli.qr_text("http://192.168.0.12:8765") is None


# --- what keeps phones out, said at start ---------------------------------------------


def test_listening_on_this_computer_alone_is_said(monkeypatch):
    monkeypatch.setattr(words, "terminal_language", lambda: "en")
    facts = doctor.Facts(system="Linux", port=8765)
    for host in ("127.0.0.1", "::1", "localhost", "127.0.1.1"):
        [said] = cli.reach_warnings(host, facts)
        assert f"--host {host} keeps every phone out" in said
    assert cli.reach_warnings("0.0.0.0", facts) == []
    assert cli.reach_warnings("192.168.0.12", facts) == []


def test_a_public_windows_network_is_said_with_the_clicks_that_fix_it(monkeypatch):
    monkeypatch.setattr(words, "terminal_language", lambda: "en")
    facts = doctor.Facts(system="Windows", port=8765, networks=(
        doctor.Network("Wi-Fi", "CafeWiFi", "Public"),
        doctor.Network("Ethernet", "Office", "DomainAuthenticated")))
    [said] = cli.reach_warnings("0.0.0.0", facts)
    assert "“CafeWiFi” as Public" in said and "Network profile type: Private network" in said
    private = doctor.Facts(system="Windows", port=8765,
                           networks=(doctor.Network("Wi-Fi", "Home", "Private"),))
    assert cli.reach_warnings("0.0.0.0", private) == []


def test_serve_tells_when_the_firewall_has_no_rule_for_the_network(monkeypatch):
    """The firewall's question allows Private only by default: on that laptop's Public
    café Wi-Fi, both the network and the rule are said."""
    monkeypatch.setattr(words, "terminal_language", lambda: "en")
    facts = doctor.Facts(system="Windows", port=8765, program="Companion",
                         networks=(doctor.Network("Wi-Fi", "Cafe", "Public"),),
                         rules=(doctor.Rule("Allow", ("Private",)),))
    said = cli.reach_warnings("0.0.0.0", facts)
    assert len(said) == 2
    assert "“Cafe” as Public" in said[0]
    assert "no rule that lets phones reach Companion on “Cafe”" in said[1]


# --- a double-click ---------------------------------------------------------------------


def test_no_command_serves_and_opens_the_start_page():
    args = cli.double_click(cli.build_parser())
    assert args.command == "serve" and args.open and args.next_free
    assert args.port == cli.DEFAULT_PORT and args.host == "0.0.0.0"
    assert cli.local_url(8766) == "http://localhost:8766/"


def _fake_browser(folder: Path) -> Path:
    """A "browser" that writes the address it was asked to open (``BROWSER``)."""
    script = folder / "browser"
    script.write_text(f'#!/bin/sh\necho "$1" > "{folder / "opened"}"\n')
    script.chmod(0o755)
    return script


@pytest.mark.slow
def test_a_double_click_takes_the_next_free_port_and_opens_the_start_page(tmp_path):
    """Another program holds the default port: one line says which port Companion took,
    the browser opens the start page on localhost, and it answers there."""
    taken = free_port()
    holder = socket.create_server(("0.0.0.0", taken))
    env = {**os.environ, "COMPANION_DATA": str(tmp_path / "data"), "LANG": "en_US.UTF-8",
           "BROWSER": str(_fake_browser(tmp_path)), "COMPANION_SECRET_KEY": "cli"}
    env.pop("COMPANION_DATABASE", None)
    # gevent patches first, as companion/serving/gevent_first.py does for `companion`
    code = ("from gevent import monkey; monkey.patch_all(); import sys;"
            "from companion.serving import cli; cli.DEFAULT_PORT = int(sys.argv[1]);"
            "sys.exit(cli.main([]))")
    process = subprocess.Popen([sys.executable, "-c", code, str(taken)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = process.stdout.readline()
        assert first.strip() == f"Port {taken} is in use: Companion uses port {taken + 1}."
        second = process.stdout.readline()
        assert second.startswith("Companion is running. Open http://"), second
        assert f":{taken + 1} " in second
        for _ in range(100):
            if (tmp_path / "opened").is_file():
                break
            time.sleep(0.1)
        assert (tmp_path / "opened").read_text().strip() == f"http://localhost:{taken + 1}/"
        with urllib.request.urlopen(f"http://localhost:{taken + 1}/", timeout=10) as answer:
            assert answer.status == 200
    finally:
        holder.close()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    assert process.returncode == 0 and "Traceback" not in err, err


@pytest.mark.slow
def test_a_korean_laptop_hears_serve_in_korean(tmp_path):
    env = {**os.environ, "COMPANION_DATA": str(tmp_path), "LANG": "ko_KR.UTF-8",
           "COMPANION_SECRET_KEY": "cli"}
    env.pop("COMPANION_DATABASE", None)
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "companion", "serve", "--port", str(port), "--host",
         "127.0.0.1"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = process.stdout.readline()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert first.startswith("컴패니언") and f"http://127.0.0.1:{port}" in first
    assert "Open" not in first and "태블릿" in first, first
    assert "--host 127.0.0.1" in err and "휴대폰" in err, err  # no phone can reach it
    assert str(tmp_path) in out.splitlines()[-1] and "stopped" not in out
