"""`companion doctor`: the same diagnosis as the table page, in the terminal, from facts
the tests make up; and how this machine's facts are read: from fake commands (a small
script named ``powershell`` on PATH, or a stand-in for subprocess.run) that print bytes
in any code page, hang or fail, and never break the table page nor make it wait."""

import json
import os
import socket
import subprocess
import sys
import threading

import pytest

from companion.laptop import doctor
from companion.laptop.addresses import Interface
from companion.laptop.doctor import Facts, Network
from companion.serving import cli

LAPTOP = (
    Interface("lo", "127.0.0.1", 8),
    Interface("docker0", "172.17.0.1", 16),
    Interface("tun0", "10.8.0.2", 8),
    Interface("wlp2s0", "192.168.0.12"),
)


def test_the_report_ranks_the_addresses_and_marks_the_one_serve_prints():
    text = doctor.report(Facts(system="Linux", port=8765, interfaces=LAPTOP, listening=True,
                               firewall=("ufw is on (it blocks the port unless allowed)",)))
    lines = text.splitlines()
    assert lines[0] == ("Addresses of this computer, best first (companion serve prints "
                        "192.168.0.12):")
    assert lines[1].startswith("  http://192.168.0.12:8765  wlp2s0: Wi-Fi")
    assert lines[1].endswith("<- printed by companion serve")
    assert [line.split()[0] for line in lines[1:5]] == [
        "http://192.168.0.12:8765", "http://172.17.0.1:8765", "http://10.8.0.2:8765",
        "http://127.0.0.1:8765"]
    assert "Port 8765: something answers on it" in text
    assert "Firewall: ufw is on" in text
    assert "VPNs and bridges found: tun0, docker0" in text
    assert "sudo ufw allow 8765/tcp" in text
    assert "Turn off the VPN on the laptop (tun0)" in text
    assert "Guest and café Wi-Fi" in text


def test_nothing_listening_says_how_to_start_and_an_unknown_firewall_says_so():
    text = doctor.report(Facts(system="Darwin", port=8800, interfaces=(), listening=False))
    assert "none: this computer is on no network." in text
    assert "nothing answers on it. Start the server: companion serve --port 8800" in text
    assert "Firewall: its state could not be read here." in text
    assert "System Settings → Network → Firewall" in text


def test_a_mac_is_told_of_local_network_privacy_after_its_firewall():
    """macOS 15 and newer keep an app off the local network until it is allowed, and
    a server run in its terminal with it; Apple's Terminal alone is exempt."""
    keys = [step.key for step in doctor.advice(Facts(system="Darwin", port=8765))]
    assert keys[:2] == ["mac-firewall", "mac-local-network"]
    text = doctor.report(Facts(system="Darwin", port=8765))
    assert "VS Code, iTerm, Warp" in text
    assert "System Settings → Privacy & Security → Local Network" in text
    assert "Local Network" not in doctor.report(Facts(system="Windows", port=8765))


def test_windows_names_a_public_network_and_says_what_each_is():
    facts = Facts(system="Windows", port=8765, networks=(
        Network("Wi-Fi", "CafeNet", "Public"), Network("Ethernet", "Office", "Private")))
    text = doctor.report(facts)
    assert "Windows: the network “CafeNet” (Wi-Fi) is Public." in text
    assert "Windows treats the network “CafeNet” as Public" in text
    assert "Office” as Public" not in text
    private = doctor.report(Facts(system="Windows", port=8765,
                                  networks=(Network("Wi-Fi", "Home", "Private"),)))
    assert "Make this network Private" in private


def test_windows_profiles_are_read_from_powershells_json():
    one = '{"InterfaceAlias":"Wi-Fi","Name":"CafeNet","NetworkCategory":0}'
    many = ('[{"InterfaceAlias":"Wi-Fi","Name":"CafeNet","NetworkCategory":"Public"},'
            '{"InterfaceAlias":"이더넷","Name":"네트워크 2","NetworkCategory":1}]')
    assert doctor.parse_profiles(one) == (Network("Wi-Fi", "CafeNet", "Public"),)
    assert doctor.parse_profiles(many) == (Network("Wi-Fi", "CafeNet", "Public"),
                                           Network("이더넷", "네트워크 2", "Private"))
    assert doctor.parse_profiles(None) == ()
    assert doctor.parse_profiles("not json") == ()
    assert doctor.parse_profiles("[1, 2]") == ()


def test_ufw_is_read_from_its_configuration_file():
    assert doctor.parse_ufw_conf("# comment\nENABLED=yes\nLOGLEVEL=low\n").startswith("ufw is on")
    assert doctor.parse_ufw_conf("ENABLED=no\n") == "ufw is off"
    assert doctor.parse_ufw_conf("") is None


def test_companion_doctor_prints_the_report_of_this_machines_facts(capsys, monkeypatch):
    seen = []

    def facts(port):
        seen.append(port)
        return Facts(system="Linux", port=port, interfaces=LAPTOP, listening=False)

    monkeypatch.setattr(cli.doctor, "facts", facts)
    assert cli.main(["doctor", "--port", "8800"]) == 0
    assert seen == [8800]
    out = capsys.readouterr().out
    assert "companion serve prints 192.168.0.12" in out
    assert "sudo ufw allow 8800/tcp" in out


def test_a_missing_command_is_no_answer_rather_than_an_error():
    assert doctor._run(["companion-no-such-command-here"]) is None


def test_listening_is_a_connection_to_this_machines_own_port():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        assert doctor.listening(port)
    assert not doctor.listening(port)


# --- reading this machine: fake commands -------------------------------------------

NAMES = ["Café", "Wohnzimmer-WLAN-Ü", "우리집 와이파이"]
#: A port nothing listens on here (discard), for doctor.facts' check.
CLOSED_PORT = 9


def profiles_json(names, category="Public"):
    """What Get-NetConnectionProfile | ConvertTo-Json prints for these networks."""
    return json.dumps([{"InterfaceAlias": f"Wi-Fi {i}", "Name": name, "NetworkCategory": category}
                       for i, name in enumerate(names)], ensure_ascii=False)


#: Where Windows keeps its PowerShell, under %SystemRoot% (the ``windows`` fixture's).
POWERSHELL = "Windows/System32/WindowsPowerShell/v1.0/powershell.exe"


@pytest.fixture
def commands(tmp_path, monkeypatch):
    """A factory of fake commands on PATH: ``commands("firewall-cmd", b"...", code=0,
    sleep=0)`` writes an executable script that prints those bytes (as they are, in
    whatever code page), exits with ``code`` after ``sleep`` seconds, and records its
    arguments in ``<name>.args`` beside it; a name with a ``/`` is a path under the
    test's folder (:data:`POWERSHELL`), not on PATH."""
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))  # only the fakes: no real command is found

    def make(name, output=b"", code=0, sleep=0.0):
        script = tmp_path / name if "/" in name else folder / name
        script.parent.mkdir(parents=True, exist_ok=True)
        args = script.with_name(script.name + ".args")
        script.write_text(
            f"#!{sys.executable}\n"
            "import json, sys, time\n"
            f"open({str(args)!r}, 'w').write(json.dumps(sys.argv[1:]))\n"
            f"time.sleep({sleep!r})\n"
            f"sys.stdout.buffer.write({bytes(output)!r})\n"
            "sys.stdout.flush()\n"
            f"sys.exit({code!r})\n")
        script.chmod(0o755)
        return script

    return make


@pytest.fixture
def windows(monkeypatch, tmp_path):
    """This machine reads as Windows, its ``SystemRoot`` the test's ``Windows`` folder,
    with a fresh (empty) cache of its networks; the cache's reading, if one began, is
    over before the test's patches are undone."""
    monkeypatch.setattr(doctor.platform, "system", lambda: "Windows")
    monkeypatch.setenv("SystemRoot", str(tmp_path / "Windows"))
    cache = doctor.Background(doctor.read_windows_networks, ())
    monkeypatch.setattr(doctor, "_NETWORKS", cache)
    yield cache
    cache.wait(10)


@pytest.mark.parametrize("encoding, name", list(zip(["cp850", "cp437", "cp949"], NAMES,
                                                          strict=True)))
def test_powershell_output_in_a_code_page_reads_as_replaced_characters(
        windows, commands, encoding, name):
    commands(POWERSHELL, profiles_json([name]).encode(encoding))
    networks = doctor.read_windows_networks()
    assert len(networks) == 1
    assert networks[0].category == "Public"
    assert "\ufffd" in networks[0].name and networks[0].name != name
    text = doctor.report(doctor.facts(CLOSED_PORT))  # the facts are still produced
    assert f"Windows: the network “{networks[0].name}” (Wi-Fi 0) is Public." in text


def test_powershell_is_asked_for_utf8_and_read_as_utf8(windows, commands, tmp_path):
    commands(POWERSHELL, profiles_json(NAMES).encode("utf-8"))
    assert [n.name for n in doctor.read_windows_networks()] == NAMES
    command = json.loads((tmp_path / (POWERSHELL + ".args")).read_text())[-1]
    assert command.startswith("[Console]::OutputEncoding = [System.Text.Encoding]::UTF8;")
    commands(POWERSHELL, b"\xef\xbb\xbf" + profiles_json(NAMES[2:]).encode("utf-8"))
    assert [n.name for n in doctor.read_windows_networks()] == NAMES[2:]  # a BOM, dropped


def test_powershell_is_windows_own_by_its_full_path_never_one_on_path_or_here(
        windows, commands, tmp_path, monkeypatch):
    """Windows looks a bare ``powershell`` up beside Python and in the current folder
    (a downloaded checkout) before System32."""
    commands("powershell", profiles_json(["Impostor on PATH"]).encode())
    here = tmp_path / "checkout"
    here.mkdir()
    for name in ("powershell", "powershell.exe"):
        (here / name).write_text(f"#!{sys.executable}\nprint('[]')\n")
        (here / name).chmod(0o755)
    monkeypatch.chdir(here)
    commands(POWERSHELL, profiles_json(["Home"]).encode())
    assert [n.name for n in doctor.read_windows_networks()] == ["Home"]


def test_powershells_path_is_under_systemroot_and_its_bare_name_only_without_one():
    arguments = ["-NoProfile", "-NonInteractive", "-Command", doctor.WINDOWS_PROFILES]
    root = os.path.join("C:", "Windows")
    assert doctor.powershell({"SystemRoot": root}) == [
        os.path.join(root, "System32", "WindowsPowerShell", "v1.0", "powershell.exe"),
        *arguments]
    assert doctor.powershell({"SYSTEMROOT": root})[0].startswith(root)  # a copied environ
    assert doctor.powershell({}) == ["powershell", *arguments]


def test_a_command_gets_a_hidden_console_of_its_own_on_windows(commands, monkeypatch):
    """Sharing the host's console, PowerShell's UTF-8 setting stayed on it (code page
    65001) after Companion had stopped."""
    commands("powershell")
    seen = []

    def run(command, **kwargs):
        seen.append(kwargs)
        return subprocess.CompletedProcess(command, 0, b"[]", b"")

    monkeypatch.setattr(doctor.subprocess, "run", run)
    monkeypatch.setattr(subprocess, "CREATE_NO_WINDOW", 0x08000000, raising=False)
    assert doctor._run(["powershell"]) == "[]"
    assert seen[0]["creationflags"] == 0x08000000
    monkeypatch.delattr(subprocess, "CREATE_NO_WINDOW")  # elsewhere: none (0)
    doctor._run(["powershell"])
    assert seen[1]["creationflags"] == 0


@pytest.mark.parametrize("output, code, sleep", [
    # past the time-out, which it waits out (a second of its 1.01): a slow test, whose
    # wait costs the busy slow stage nothing, where the quick loop's worker stood idle
    pytest.param(profiles_json(["Late"]).encode(), 0, 30.0, marks=pytest.mark.slow),
    (profiles_json(["Failed"]).encode(), 1, 0.0),  # a non-zero exit
    (b"\x00\xff\xfe garbage {[", 0, 0.0),  # not JSON
    (b"[" * 100_000, 0, 0.0),  # JSON too deep to parse
    (b"", 0, 0.0),  # nothing
], ids=["hangs", "fails", "garbage", "too-deep", "nothing"])
def test_a_powershell_that_hangs_fails_or_prints_garbage_reads_unknown(
        windows, commands, monkeypatch, output, code, sleep):
    monkeypatch.setattr(doctor, "COMMAND_SECONDS", 0.5)
    commands(POWERSHELL, output, code, sleep)
    assert doctor.read_windows_networks() == ()
    text = doctor.report(doctor.facts(CLOSED_PORT))
    assert "Windows: its networks' profiles (Public or Private) could not be read here." in text
    assert "Make this network Private" in text


def test_any_error_running_a_command_is_no_answer(commands, monkeypatch):
    commands("powershell")

    def fails(*args, **kwargs):
        raise UnicodeDecodeError("cp1252", b"\x81", 0, 1, "undefined")

    monkeypatch.setattr(doctor.subprocess, "run", fails)
    assert doctor._run(["powershell"]) is None


def test_the_firewall_commands_output_is_read_whatever_its_bytes(commands, monkeypatch, tmp_path):
    monkeypatch.setattr(doctor, "UFW_CONF", tmp_path / "no-ufw.conf")
    commands("firewall-cmd", b"r\x81nning\n")
    assert doctor.firewall("Linux") == ("firewalld is r\ufffdnning",)
    commands("firewall-cmd", b"running\n", code=252)
    assert doctor.firewall("Linux") == ()
    monkeypatch.setattr(doctor, "SOCKETFILTERFW",
                        str(commands("socketfilterfw", "Firewall is enabled. (État = 1)"
                                     .encode("mac-roman"))))
    lines = doctor.firewall("Darwin")
    assert len(lines) == 2 and lines[0].startswith("Firewall is enabled. (\ufffdtat = 1)")


def test_companion_doctor_reads_windows_networks_now(windows, commands):
    commands(POWERSHELL, profiles_json(NAMES[:1]).encode())
    assert doctor.facts(CLOSED_PORT).networks == (Network("Wi-Fi 0", "Café", "Public"),)


# --- the cache: read in the background, at most once a minute ---------------------

class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_the_cache_never_waits_and_reads_once_a_minute():
    clock, release, reads = Clock(), threading.Event(), []

    def read():
        reads.append(threading.get_ident())
        assert release.wait(5)
        return (Network("Wi-Fi", f"Net {len(reads)}", "Private"),)

    cache = doctor.Background(read, (), clock=clock)
    assert cache.get() == ()  # the reading is under way: unknown until it ends
    release.set()
    cache.wait(5)
    assert reads and threading.get_ident() not in reads
    assert cache.get() == (Network("Wi-Fi", "Net 1", "Private"),)
    clock.now += 30
    cache.get()
    cache.wait(5)
    assert len(reads) == 1  # within the minute: the same reading
    clock.now += 31
    cache.get()
    cache.wait(5)
    assert len(reads) == 2
    assert cache.get() == (Network("Wi-Fi", "Net 2", "Private"),)


def test_the_cache_never_reads_twice_at_once():
    release, reads = threading.Event(), []

    def read():
        reads.append(1)
        assert release.wait(5)
        return ("read",)

    cache = doctor.Background(read, (), seconds=0)  # always due, but for one under way
    assert [cache.get() for _ in range(5)] == [()] * 5
    release.set()
    cache.wait(5)
    assert reads == [1]


def test_a_reading_that_raises_is_unknown_and_the_next_one_reads_again():
    clock, answers = Clock(), [RuntimeError("broken"), (Network("Wi-Fi", "Home", "Public"),)]

    def read():
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    cache = doctor.Background(read, (), clock=clock)
    cache.get()
    cache.wait(5)
    assert cache.get() == ()
    clock.now += 60
    cache.get()
    cache.wait(5)
    assert cache.get() == (Network("Wi-Fi", "Home", "Public"),)


def test_warm_begins_a_reading_in_the_background_on_windows_only(windows, monkeypatch):
    release, ran = threading.Event(), []

    def read():
        ran.append(threading.get_ident())
        release.wait(5)
        return (Network("Wi-Fi", "Home", "Public"),)

    monkeypatch.setattr(windows, "_read", read)
    doctor.warm()  # returns at once, the reading under way
    release.set()
    windows.wait(5)
    assert len(ran) == 1 and ran[0] != threading.get_ident()
    assert doctor.windows_networks() == (Network("Wi-Fi", "Home", "Public"),)
    monkeypatch.setattr(doctor.platform, "system", lambda: "Linux")
    monkeypatch.setattr(doctor, "_NETWORKS", doctor.Background(read, ()))
    doctor.warm()
    assert doctor.windows_networks() == () and len(ran) == 1


# --- the table page costs nothing for the doctor -----------------------------------

def test_the_table_page_does_not_wait_for_a_slow_powershell(night, windows, commands,
                                                            monkeypatch):
    commands(POWERSHELL)
    release, done, ran = threading.Event(), threading.Event(), []

    def slow_powershell(command, **kwargs):
        """PowerShell taking two seconds, or until the test lets it answer."""
        ran.append(threading.get_ident())
        release.wait(2)
        done.set()
        return subprocess.CompletedProcess(command, 0, profiles_json(["SlowNet"]).encode(), b"")

    monkeypatch.setattr(doctor.subprocess, "run", slow_powershell)
    first = night.host.get(night.url)
    assert first.status_code == 200
    assert not done.is_set()  # the page answered while PowerShell was still at it
    html = first.data.decode()
    assert "SlowNet" not in html and "Make this network Private" in html
    release.set()
    windows.wait(5)
    assert ran and threading.get_ident() not in ran  # never run inside a request
    html = night.host.get(night.url).data.decode()
    assert "Windows treats the network “SlowNet” as Public" in html  # at the next load
    assert night.host.get(night.url).status_code == 200
    windows.wait(5)
    assert len(ran) == 1  # once a minute, whatever the loads


def test_the_table_page_answers_when_powershell_prints_undecodable_bytes(night, windows,
                                                                       commands):
    commands(POWERSHELL, profiles_json(["Café"]).encode("cp850"))
    assert night.host.get(night.url).status_code == 200
    windows.wait(5)
    answer = night.host.get(night.url)
    assert answer.status_code == 200
    assert "Windows treats the network “Caf\ufffd” as Public" in answer.data.decode()


# --- Windows' firewall rules for the program that serves --------------------------------


def test_the_rules_are_read_from_powershells_json():
    one = '{"Action":"Allow","Profile":"Private"}'
    assert doctor.parse_rules(one) == (doctor.Rule("Allow", ("Private",)),)
    several = ('[{"Action":"Allow","Profile":"Private, Public"},'
               '{"Action":"Block","Profile":"Domain"}]')
    assert doctor.parse_rules(several) == (doctor.Rule("Allow", ("Private", "Public")),
                                           doctor.Rule("Block", ("Domain",)))
    assert doctor.parse_rules("") == ()  # no rule at all: the question was closed
    assert doctor.parse_rules(None) is None  # PowerShell could not say: unknown
    assert doctor.parse_rules("Get-NetFirewallRule : Access denied") is None


def test_a_program_with_a_quote_in_its_path_is_quoted_for_powershell():
    script = doctor.rules_script(r"C:\Users\O'Neil\Downloads\Companion.exe")
    assert r"-Program 'C:\Users\O''Neil\Downloads\Companion.exe'" in script


@pytest.mark.parametrize(("rules", "category", "admitted"), [
    ((doctor.Rule("Allow", ("Private",)),), "Private", True),
    ((doctor.Rule("Allow", ("Private",)),), "Public", False),  # the prompt's default
    ((doctor.Rule("Allow", ("Any",)),), "Public", True),
    ((doctor.Rule("Allow", ("Domain",)),), "DomainAuthenticated", True),
    ((doctor.Rule("Allow", ("Any",)), doctor.Rule("Block", ("Private",))), "Private", False),
    ((), "Private", False),  # the question closed without an answer
])
def test_a_block_wins_and_no_rule_keeps_phones_out(rules, category, admitted):
    assert doctor.admitted(rules, category) is admitted


def test_a_network_the_rules_leave_out_gets_the_clicks_that_fix_it():
    facts = doctor.Facts(system="Windows", port=8765, program="Companion",
                         networks=(doctor.Network("Wi-Fi", "Home", "Private"),),
                         rules=(doctor.Rule("Allow", ("Public",)),))
    [step] = [s for s in doctor.advice(facts) if s.key == "windows-no-rule"]
    said = step.english()
    assert "no rule that lets phones reach Companion on “Home”" in said
    assert "Allow an app through firewall" in said
    unread = doctor.Facts(system="Windows", port=8765,
                          networks=(doctor.Network("Wi-Fi", "Home", "Private"),))
    assert not [s for s in doctor.advice(unread) if s.key == "windows-no-rule"]


def test_the_firewall_knows_a_venv_by_its_base_python(monkeypatch):
    monkeypatch.delattr(sys, "frozen", raising=False)
    monkeypatch.setattr(sys, "_base_executable", r"C:\Python312\python.exe", raising=False)
    assert doctor.serving_program() == (r"C:\Python312\python.exe", "Python")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", r"C:\Users\me\Downloads\Companion.exe")
    assert doctor.serving_program() == (r"C:\Users\me\Downloads\Companion.exe", "Companion")
