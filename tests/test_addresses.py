"""Which address `companion serve` prints, on the interface tables of typical laptops
(companion/laptop/addresses.py): what phones reach first; VPNs, container and VM bridges,
link-local and loopback last; no default route needed."""

import socket
from types import SimpleNamespace

import psutil
import pytest

from companion.laptop.addresses import (
    Interface,
    Kind,
    base_url,
    best,
    interfaces,
    kind,
    offered,
    rank,
    urls,
)


def I(name, address, prefix=24, up=True):  # noqa: E743 - reads like a table row
    return Interface(name, address, prefix, up)


WINDOWS_VPN_WSL = [
    I("Loopback Pseudo-Interface 1", "127.0.0.1", 8),
    I("vEthernet (WSL)", "172.29.160.1", 20),
    I("vEthernet (Default Switch)", "172.20.48.1", 20),
    I("OpenVPN TAP-Windows6", "10.8.0.2", 8),
    I("Wi-Fi", "192.168.0.12"),
    I("Ethernet", "169.254.31.7", 16),  # unplugged: an address it gave itself
    I("Tailscale", "100.101.102.103", 32),
]
WINDOWS_WIREGUARD_WIRED = [
    I("WireGuard Tunnel", "10.66.0.4", 32),
    I("Ethernet", "192.168.1.20"),
    I("Wi-Fi", "192.168.0.12"),
]
WINDOWS_HOTSPOT = [
    I("Wi-Fi", "192.168.0.12"),
    I("Local Area Connection* 12", "192.168.137.1"),
    I("vEthernet (WSL)", "172.29.160.1", 20),
]
KOREAN_WINDOWS = [
    I("로컬 영역 연결* 2", "192.168.137.1", up=False),
    I("이더넷", "192.168.1.20"),
    I("Wi-Fi", "192.168.0.12"),
]
MAC_VPN = [
    I("lo0", "127.0.0.1", 8),
    I("utun3", "10.8.0.2", 8),
    I("utun4", "100.80.1.2", 32),
    I("en0", "192.168.0.12"),
    I("vmnet8", "172.16.40.1"),
    I("bridge0", "169.254.10.2", 16),  # Thunderbolt bridge
]
MAC_SHARING = [
    I("en0", "10.0.1.23"),
    I("bridge100", "192.168.2.1"),
    I("en5", "169.254.3.3", 16),
]
LINUX_DOCKER_VPN = [
    I("lo", "127.0.0.1", 8),
    I("docker0", "172.17.0.1", 16),
    I("br-3f2a9c1d7e5b", "172.18.0.1", 16),
    I("veth1a2b3c4", "169.254.9.9", 16),
    I("virbr0", "192.168.122.1"),
    I("tun0", "10.8.0.2", 8),
    I("wg0", "10.66.0.4", 32),
    I("tailscale0", "100.101.102.103", 32),
    I("ppp0", "10.64.64.64", 32),
    I("wlp2s0", "192.168.0.12"),
    I("enp0s31f6", "192.168.0.40"),
]
LINUX_WIRED_AND_WIFI = [
    I("eth0", "10.1.0.50", 16),
    I("wlan0", "192.168.0.12"),
]
LINUX_NO_GATEWAY = [I("lo", "127.0.0.1", 8), I("wlp2s0", "192.168.0.12")]
LINUX_NM_HOTSPOT = [I("enp0s31f6", "192.168.1.20"), I("wlp2s0", "10.42.0.1")]


@pytest.mark.parametrize("table, printed", [
    (WINDOWS_VPN_WSL, "192.168.0.12"),
    (WINDOWS_WIREGUARD_WIRED, "192.168.0.12"),
    (WINDOWS_HOTSPOT, "192.168.137.1"),
    (KOREAN_WINDOWS, "192.168.0.12"),  # its hotspot is down
    (MAC_VPN, "192.168.0.12"),
    (MAC_SHARING, "192.168.2.1"),
    (LINUX_DOCKER_VPN, "192.168.0.12"),
    (LINUX_WIRED_AND_WIFI, "192.168.0.12"),
    (LINUX_NO_GATEWAY, "192.168.0.12"),
    (LINUX_NM_HOTSPOT, "10.42.0.1"),
])
def test_the_printed_address_is_the_one_phones_reach(table, printed):
    assert best(table) == printed
    assert best(list(reversed(table))) == printed  # whatever order the OS lists them in


def test_vpns_bridges_link_local_and_loopback_come_last_in_that_order():
    kinds = [kind(i) for i in rank(LINUX_DOCKER_VPN)]
    assert kinds == sorted(kinds)
    assert [i.name for i in rank(LINUX_DOCKER_VPN)] == [
        "wlp2s0", "enp0s31f6", "br-3f2a9c1d7e5b", "docker0", "virbr0",
        "ppp0", "tun0", "wg0", "tailscale0", "veth1a2b3c4", "lo"]
    assert [kind(i) for i in MAC_VPN] == [Kind.LOOPBACK, Kind.VPN, Kind.VPN, Kind.LAN,
                                          Kind.VIRTUAL, Kind.LINK_LOCAL]


@pytest.mark.parametrize("name, address, expected", [
    ("Wi-Fi", "192.168.0.12", Kind.WIFI),
    ("WLAN", "192.168.0.12", Kind.WIFI),
    ("wlx00e04c680123", "192.168.0.12", Kind.WIFI),
    ("Ethernet", "192.168.1.20", Kind.LAN),
    ("Ethernet 2", "192.168.1.20", Kind.OTHER),  # a second card, or a VPN's adapter
    ("이더넷 3", "192.168.1.20", Kind.OTHER),
    ("Ethernet 2", "10.212.134.200", Kind.OTHER),  # 10.x alone says no VPN
    ("Wi-Fi 2", "192.168.0.12", Kind.WIFI),  # a USB Wi-Fi: no VPN is called Wi-Fi
    ("enx00e04c680123", "192.168.1.20", Kind.LAN),
    ("em0", "192.168.1.20", Kind.LAN),
    ("vEthernet (WSL)", "172.29.160.1", Kind.VIRTUAL),
    ("vEthernet (Default Switch)", "172.20.48.1", Kind.VIRTUAL),
    ("en0", "192.168.1.20", Kind.LAN),  # a MacBook's Wi-Fi, a Mac mini's Ethernet
    ("en1", "192.168.1.21", Kind.LAN),
    ("VirtualBox Host-Only Network", "192.168.56.1", Kind.VIRTUAL),
    ("VMware Network Adapter VMnet8", "192.168.80.1", Kind.VIRTUAL),
    ("awdl0", "192.168.9.9", Kind.VIRTUAL),
    ("llw0", "192.168.9.9", Kind.VIRTUAL),
    ("ap1", "192.168.9.9", Kind.VIRTUAL),
    ("bridge101", "10.211.55.2", Kind.VIRTUAL),  # a VM's shared network, not Sharing
    ("TAP-Windows Adapter V9", "10.8.0.2", Kind.VPN),
    ("WireGuard Tunnel", "10.66.0.4", Kind.VPN),
    ("office", "100.64.0.5", Kind.VPN),  # any name, in the carrier-grade NAT range
    ("ProtonVPN", "10.2.0.2", Kind.VPN),
    ("ZeroTier One [8056c2e21c000001]", "10.147.17.3", Kind.VPN),
    ("Bluetooth Network Connection", "192.168.44.2", Kind.OTHER),
    ("Local Area Connection* 12", "192.168.137.1", Kind.HOTSPOT),
    ("bridge100", "192.168.2.1", Kind.HOTSPOT),
    ("wlp2s0", "10.42.0.1", Kind.HOTSPOT),
    ("wlp2s0", "10.42.0.77", Kind.WIFI),  # a laptop joined to someone else's hotspot
    ("Ethernet", "169.254.31.7", Kind.LINK_LOCAL),
    ("lo0", "127.0.0.1", Kind.LOOPBACK),
])
def test_each_kind_of_adapter_is_told_by_its_name_or_address(name, address, expected):
    assert kind(I(name, address)) == expected


def test_a_private_address_comes_before_a_public_one_of_the_same_kind():
    assert best([I("eth0", "141.30.1.5"), I("eth1", "192.168.0.12")]) == "192.168.0.12"


def test_a_down_interface_is_never_offered_and_loopback_only_as_the_last_resort():
    table = [I("wlan0", "192.168.0.12", up=False), I("lo", "127.0.0.1", 8)]
    assert offered(table) == []
    assert best(table) == "127.0.0.1"
    assert best([]) == "127.0.0.1"


def test_ipv6_and_nonsense_are_left_out():
    assert rank([I("wlan0", "fe80::1"), I("x", "not an address")]) == []


def test_the_urls_are_the_best_and_the_others_each_once_in_order():
    table = WINDOWS_VPN_WSL + [I("Wi-Fi", "192.168.0.12")]
    chosen, others = urls(table, 8765)
    assert chosen == "http://192.168.0.12:8765"
    assert others == ["http://172.20.48.1:8765", "http://172.29.160.1:8765",
                      "http://10.8.0.2:8765", "http://100.101.102.103:8765",
                      "http://169.254.31.7:8765"]


# A Mac mini (or iMac, Mac Studio): en0 is its Ethernet port, en1 its Wi-Fi, en10 the
# Ethernet of a display or dock plugged in later.
MAC_DESKTOP_ONE_NETWORK = [
    I("lo0", "127.0.0.1", 8),
    I("en10", "192.168.1.22"),
    I("en1", "192.168.1.21"),
    I("en0", "192.168.1.20"),
    I("bridge0", "169.254.10.2", 16),
]
MAC_DESKTOP_TWO_NETWORKS = [  # the cable to the office's network, the Wi-Fi at home
    I("en0", "10.1.0.50", 16),
    I("en1", "192.168.0.12"),
    I("utun3", "10.8.0.2", 8),
]
# A MacBook: en0 its Wi-Fi, en1-en3 its Thunderbolt ports, en8 a dock's Ethernet, en11
# a display's.
MACBOOK_WITH_A_DOCK = [I("en11", "192.168.0.41"), I("en8", "192.168.0.40"),
                       I("en0", "192.168.0.12")]


def test_a_macs_en_ports_are_alike_the_lower_number_first_and_the_others_offered():
    chosen, others = urls(MAC_DESKTOP_ONE_NETWORK, 8765)
    assert chosen == "http://192.168.1.20:8765"
    assert others == ["http://192.168.1.21:8765", "http://192.168.1.22:8765",
                      "http://169.254.10.2:8765"]
    chosen, others = urls(MAC_DESKTOP_TWO_NETWORKS, 8765)
    assert chosen == "http://10.1.0.50:8765"  # the name cannot say which one is Wi-Fi
    assert others[0] == "http://192.168.0.12:8765"  # so the other is the first offered
    assert [i.name for i in rank(MACBOOK_WITH_A_DOCK)] == ["en0", "en8", "en11"]


def test_numbers_in_names_are_ordered_as_numbers():
    table = [I("Ethernet 10", "192.168.1.30"), I("Ethernet 2", "192.168.1.31"),
             I("eth10", "192.168.1.32"), I("eth2", "192.168.1.33"), I("Ethernet", "10.0.0.2")]
    assert [i.name for i in rank(table)] == [
        "Ethernet", "eth2", "eth10", "Ethernet 2", "Ethernet 10"]


# Hyper-V's external switch on the Wi-Fi: the laptop's address moved onto it, the
# Wi-Fi adapter itself has none left.
WINDOWS_HYPER_V_EXTERNAL = [
    I("Loopback Pseudo-Interface 1", "127.0.0.1", 8),
    I("vEthernet (Default Switch)", "172.20.48.1", 20),
    I("vEthernet (WSL (Hyper-V firewall))", "172.29.160.1", 20),
    I("vEthernet (NATSwitch)", "192.168.100.1"),
    I("vEthernet (External Switch)", "192.168.0.12"),
    I("OpenVPN TAP-Windows6", "10.8.0.2", 8),
]


def test_hyper_vs_external_switch_is_the_laptops_lan_and_its_internal_ones_are_not():
    assert best(WINDOWS_HYPER_V_EXTERNAL) == "192.168.0.12"
    assert best(list(reversed(WINDOWS_HYPER_V_EXTERNAL))) == "192.168.0.12"
    assert best(WINDOWS_HYPER_V_EXTERNAL + [I("Wi-Fi 2", "192.168.0.40")]) == "192.168.0.40"


@pytest.mark.parametrize("name, address, prefix, expected", [
    ("vEthernet (External Switch)", "192.168.0.12", 24, Kind.LAN),
    ("vEthernet (Ethernet)", "10.1.0.50", 16, Kind.LAN),
    ("vEthernet (Wi-Fi)", "192.168.0.12", 24, Kind.WIFI),
    ("vEthernet (WLAN)", "192.168.0.12", 24, Kind.WIFI),
    ("vEthernet (Realtek PCIe GbE Family Controller - Virtual Switch)", "192.168.1.20",
     24, Kind.LAN),
    # Internal: by name, whatever the address Windows drew this time.
    ("vEthernet (Default Switch)", "192.168.224.1", 20, Kind.VIRTUAL),
    ("vEthernet (WSL)", "192.168.80.1", 20, Kind.VIRTUAL),
    ("vEthernet (WSL (Hyper-V firewall))", "172.29.160.1", 20, Kind.VIRTUAL),
    ("vEthernet (DockerNAT)", "10.0.75.1", 24, Kind.VIRTUAL),
    ("vEthernet (nat)", "10.0.75.2", 24, Kind.VIRTUAL),
    ("vEthernet (Internal)", "192.168.50.7", 24, Kind.VIRTUAL),
    # A switch of the user's own name: by its address.
    ("vEthernet (Lab)", "192.168.50.1", 24, Kind.VIRTUAL),  # the gateway of a shared one
    ("vEthernet (Lab)", "172.20.0.5", 16, Kind.VIRTUAL),  # no home router's range
    ("vEthernet (Lab)", "192.168.50.7", 24, Kind.LAN),
])
def test_a_vethernet_is_the_lan_only_when_name_and_address_say_so(
        name, address, prefix, expected):
    assert kind(I(name, address, prefix)) == expected


@pytest.mark.parametrize("name, address, prefix, expected", [
    ("office", "10.66.0.4", 32, Kind.VPN),  # WireGuard names it after the tunnel
    ("Ethernet 3", "10.212.134.200", 32, Kind.VPN),  # FortiClient's
    ("office", "10.66.0.4", 24, Kind.OTHER),
    ("Ethernet 2", "192.168.1.20", 24, Kind.OTHER),
    ("Wi-Fi", "192.168.0.12", 32, Kind.WIFI),  # the name is the surer sign
    ("Ethernet", "192.168.1.20", 32, Kind.LAN),
    ("wlp2s0", "192.168.0.12", 32, Kind.WIFI),
])
def test_a_point_to_point_address_is_a_vpn_only_when_the_name_says_nothing(
        name, address, prefix, expected):
    assert kind(I(name, address, prefix)) == expected


# A VPN client that installed its adapter as "Ethernet 2" before a USB network adapter
# came, and WireGuard's tunnel named after its configuration.
WINDOWS_NUMBERED_ADAPTERS = [
    I("Ethernet 2", "10.8.0.6"),
    I("office", "10.66.0.4", 32),
    I("vEthernet (WSL)", "172.29.160.1", 20),
    I("Ethernet 3", "192.168.1.20"),
    I("Wi-Fi", "192.168.0.12"),
]


def test_a_numbered_ethernet_is_never_chosen_over_the_wi_fi_and_still_offered():
    assert [i.name for i in rank(WINDOWS_NUMBERED_ADAPTERS)] == [
        "Wi-Fi", "Ethernet 2", "Ethernet 3", "vEthernet (WSL)", "office"]
    assert best([I("Ethernet 2", "192.168.1.20"), I("vEthernet (WSL)", "172.29.160.1", 20)]
                ) == "192.168.1.20"  # a lone USB adapter is still the one printed
    assert best([I("Ethernet 2", "10.8.0.6"), I("Ethernet", "192.168.1.20")]
                ) == "192.168.1.20"


# --- reading the OS: psutil may fail while a VPN or the Wi-Fi comes and goes -------

def _address(address, netmask="255.255.255.0", family=socket.AF_INET):
    return SimpleNamespace(family=family, address=address, netmask=netmask,
                           broadcast=None, ptp=None)


ADDRS = {
    "en0": [_address("192.168.0.12"), _address("fe80::1", "ffff:ffff:ffff:ffff::",
                                               socket.AF_INET6)],
    "utun4": [_address("100.80.1.2", "255.255.255.255")],
    "en5": [_address("192.168.5.5", None)],
}
STATS = {"en0": SimpleNamespace(isup=True), "utun4": SimpleNamespace(isup=True),
         "en5": SimpleNamespace(isup=False)}


def _raises(error):
    def call():
        raise error
    return call


def test_interfaces_reads_each_ipv4_address_its_netmask_and_whether_it_is_up(monkeypatch):
    monkeypatch.setattr(psutil, "net_if_addrs", lambda: ADDRS)
    monkeypatch.setattr(psutil, "net_if_stats", lambda: STATS)
    assert interfaces() == [Interface("en0", "192.168.0.12", 24, True),
                            Interface("utun4", "100.80.1.2", 32, True),
                            Interface("en5", "192.168.5.5", 24, False)]  # no netmask


ERRORS = [OSError(6, "Device not configured"), psutil.NoSuchProcess(0),
          psutil.AccessDenied(), KeyError("utun5"), RuntimeError("interface vanished"),
          ValueError("odd")]


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_when_the_states_cannot_be_read_every_interface_counts_as_up(monkeypatch, error):
    monkeypatch.setattr(psutil, "net_if_addrs", lambda: ADDRS)
    monkeypatch.setattr(psutil, "net_if_stats", _raises(error))
    found = interfaces()
    assert [(i.name, i.up) for i in found] == [("en0", True), ("utun4", True), ("en5", True)]
    assert best(found) == "192.168.0.12"


@pytest.mark.parametrize("error", ERRORS, ids=lambda e: type(e).__name__)
def test_when_the_addresses_cannot_be_read_there_are_none(monkeypatch, error):
    monkeypatch.setattr(psutil, "net_if_addrs", _raises(error))
    monkeypatch.setattr(psutil, "net_if_stats", _raises(error))
    assert interfaces() == []
    monkeypatch.setattr(psutil, "net_if_stats", lambda: STATS)
    assert interfaces() == []


def test_a_reading_that_fails_once_is_read_again(monkeypatch):
    calls = {"addrs": 0, "stats": 0}

    def flaky(key, answer):
        def call():
            calls[key] += 1
            if calls[key] == 1:
                raise OSError(6, "Device not configured")  # an interface vanished
            return answer
        return call

    monkeypatch.setattr(psutil, "net_if_addrs", flaky("addrs", ADDRS))
    monkeypatch.setattr(psutil, "net_if_stats", flaky("stats", STATS))
    assert [(i.name, i.up) for i in interfaces()] == [
        ("en0", True), ("utun4", True), ("en5", False)]
    assert calls == {"addrs": 2, "stats": 2}


def test_an_unreadable_netmask_is_no_point_to_point_hint(monkeypatch):
    monkeypatch.setattr(psutil, "net_if_addrs", lambda: {
        "office": [_address("10.66.0.4", "255.0.255.0")], "ppp0": [_address("10.64.64.64", "")]})
    monkeypatch.setattr(psutil, "net_if_stats", lambda: {})
    assert [(i.name, i.prefix) for i in interfaces()] == [("office", 24), ("ppp0", 24)]


# --- URLs ----------------------------------------------------------------------------

@pytest.mark.parametrize("address, url", [
    ("192.168.0.12", "http://192.168.0.12:8765"),
    ("127.0.0.1", "http://127.0.0.1:8765"),
    ("companion.local", "http://companion.local:8765"),
    ("::1", "http://[::1]:8765"),
    ("::", "http://[::]:8765"),
    ("2001:db8::12", "http://[2001:db8::12]:8765"),
    ("fe80::1%en0", "http://[fe80::1%25en0]:8765"),  # RFC 6874: the zone's % as %25
    ("fe80::1%12", "http://[fe80::1%2512]:8765"),  # Windows numbers its zones
    ("fe80::1%vEthernet (WSL)", "http://[fe80::1%25vEthernet%20%28WSL%29]:8765"),
    ("[::1]", "http://[::1]:8765"),  # bracketed already
])
def test_the_base_url_brackets_an_ipv6_address(address, url):
    assert base_url(address, 8765) == url
