"""`companion doctor`: the same diagnosis as the table page, in the terminal, from facts
the tests make up (no firewall or PowerShell is asked here)."""

import socket

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
