"""Which address `companion serve` prints, on the interface tables of typical laptops
(companion/laptop/addresses.py): what phones reach first; VPNs, container and VM bridges,
link-local and loopback last; no default route needed."""

import pytest

from companion.laptop.addresses import Interface, Kind, best, kind, offered, rank, urls


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
    ("Ethernet 2", "192.168.1.20", Kind.LAN),
    ("enx00e04c680123", "192.168.1.20", Kind.LAN),
    ("em0", "192.168.1.20", Kind.LAN),
    ("vEthernet (WSL)", "172.29.160.1", Kind.VIRTUAL),
    ("vEthernet (Default Switch)", "172.20.48.1", Kind.VIRTUAL),
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
