"""The laptop's addresses a phone at the table may reach, best first.

The interfaces are read from the operating system (psutil: each interface's IPv4
addresses and whether it is up, on Windows, macOS and Linux alike), never by asking which
source address a probe would be routed from: a VPN that routes 10.0.0.0/8 made that
answer the VPN's own address, and a network without a gateway made it 127.0.0.1, while
the Wi-Fi's address was up. :func:`rank` is a pure function of plain data, so the tests
feed it the interface tables of typical laptops (tests/test_addresses.py).

The order (:class:`Kind`), and why:

1. **The laptop's own hotspot** (Windows' Mobile hotspot at 192.168.137.1, macOS Internet
   Sharing's ``bridge*`` at 192.168.2.x, a Linux NetworkManager hotspot at 10.42.x.1):
   it is up only because someone turned it on, and the one reason to turn it on at a
   table is to join the phones to it (README.md, "Phones can't open it?"). The laptop's
   other network stays offered as the next address.
2. **Wi-Fi**, then 3. **Ethernet and other LAN adapters** (macOS ``en*`` may be either):
   the phones are on Wi-Fi; a wired laptop is on the same network only when the router
   joins both, which home routers do and offices often do not.
4. **An adapter the name says nothing about.**
5. **Container and virtual-machine bridges** (docker0, br-*, veth*, virbr*, vmnet*,
   vboxnet*, Hyper-V's "vEthernet (…)"): no phone is on them, except that Hyper-V's
   *external* switch carries the laptop's own LAN address, hence before the VPNs.
6. **VPNs and tunnels** (tun, tap, utun, wg, tailscale, ppp, ZeroTier, Windows' TAP,
   WireGuard and OpenVPN adapters, and any address in 100.64.0.0/10, the carrier-grade
   NAT range Tailscale uses): a phone reaches them only if it is on the same VPN.
7. **Link-local** (169.254.0.0/16, an adapter that got no address) and 8. **loopback**.

An interface that is down comes after every one that is up, whatever its kind; within a
kind, a private address (10/8, 172.16/12, 192.168/16) comes before any other. No default
route is needed for any of it.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from enum import IntEnum

import psutil


class Kind(IntEnum):
    """What an interface is, in the order phones are likely to reach it."""

    HOTSPOT = 1
    WIFI = 2
    LAN = 3
    OTHER = 4
    VIRTUAL = 5
    VPN = 6
    LINK_LOCAL = 7
    LOOPBACK = 8


@dataclass(frozen=True)
class Interface:
    """One IPv4 address of one interface, as the OS names the interface ("wlp2s0",
    "en0", "Wi-Fi", "vEthernet (WSL)"; on Windows the friendly name)."""

    name: str
    address: str
    prefix: int = 24
    up: bool = True


# Name beginnings (lower-cased) of Linux, macOS and BSD interfaces, and of the few
# that are only themselves when a number follows ("ap1" is macOS's, "apple" is not).
_WIFI_STARTS = ("wl", "wifi")
_LAN_STARTS = ("eth", "en")
_VIRTUAL_STARTS = ("docker", "br-", "veth", "virbr", "vmnet", "vboxnet", "lxcbr", "lxdbr",
                   "podman", "cni", "flannel", "vnic", "bridge", "awdl", "llw", "anpi",
                   "vmenet", "feth", "incusbr", "tap")
_VPN_STARTS = ("tun", "utun", "wg", "tailscale", "zt", "ppp", "ipsec", "gpd", "nordlynx",
               "cscotun", "vpn")
_NUMBERED = {"ap": Kind.VIRTUAL, "em": Kind.LAN, "gif": Kind.VPN, "stf": Kind.VPN}
# Words inside Windows' friendly names (and adapters renamed by their software).
_WIFI_WORDS = ("wi-fi", "wifi", "wlan", "wireless", "무선")
_LAN_WORDS = ("ethernet", "이더넷")
_VIRTUAL_WORDS = ("vethernet", "virtualbox", "vmware", "hyper-v", "host-only", "docker",
                  "wsl", "default switch")
_VPN_WORDS = ("vpn", "tap-windows", "openvpn", "wireguard", "tailscale", "zerotier",
              "wintun", "nordlynx", "anyconnect", "globalprotect", "fortinet", "pangp",
              "mullvad", "proton")

_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_LINK_LOCAL = ipaddress.ip_network("169.254.0.0/16")
_WINDOWS_HOTSPOT = ipaddress.ip_network("192.168.137.0/24")  # Internet Connection Sharing
_MAC_SHARING = ipaddress.ip_network("192.168.2.0/24")  # macOS Internet Sharing's default
_NM_SHARED = ipaddress.ip_network("10.42.0.0/16")  # NetworkManager's "shared" hotspot


def _named(name: str, starts: tuple[str, ...], words: tuple[str, ...]) -> bool:
    """Whether the lower-cased ``name`` begins with one of ``starts`` or holds one of
    ``words``."""
    return name.startswith(starts) or any(word in name for word in words)


def _numbered(name: str) -> Kind | None:
    """The kind of a short-named interface ("ap1", "em0"), or None."""
    stem = name.rstrip("0123456789")
    return _NUMBERED.get(stem) if stem != name else None


def _hotspot(name: str, address: ipaddress.IPv4Address) -> bool:
    """The laptop's own hotspot: phones joined to it reach the laptop there."""
    if address in _WINDOWS_HOTSPOT:
        return True
    if address in _MAC_SHARING and name.startswith("bridge"):
        return True
    return address in _NM_SHARED and int(address) & 0xFF == 1


def kind(interface: Interface) -> Kind:
    """What ``interface`` is, from its address first, then its name."""
    address = ipaddress.IPv4Address(interface.address)
    name = interface.name.lower()
    if address.is_loopback or name in ("lo", "lo0") or "loopback" in name:
        return Kind.LOOPBACK
    if address in _LINK_LOCAL:
        return Kind.LINK_LOCAL
    if _hotspot(name, address):
        return Kind.HOTSPOT
    if (numbered := _numbered(name)) is not None:
        return numbered
    if address in _CGNAT or _named(name, _VPN_STARTS, _VPN_WORDS):
        return Kind.VPN
    if _named(name, _VIRTUAL_STARTS, _VIRTUAL_WORDS):
        return Kind.VIRTUAL
    if _named(name, _WIFI_STARTS, _WIFI_WORDS):
        return Kind.WIFI
    if _named(name, _LAN_STARTS, _LAN_WORDS):
        return Kind.LAN
    return Kind.OTHER


def _is_ipv4(address: str) -> bool:
    try:
        ipaddress.IPv4Address(address)
    except ValueError:
        return False
    return True


def rank(interfaces: list[Interface]) -> list[Interface]:
    """The IPv4 addresses of ``interfaces``, the one phones most likely reach first
    (the module's docstring says the order and why); anything else is left out."""
    found = [i for i in interfaces if _is_ipv4(i.address)]
    return sorted(found, key=lambda i: (not i.up, kind(i),
                                        not ipaddress.IPv4Address(i.address).is_private,
                                        i.name, ipaddress.IPv4Address(i.address)))


def offered(interfaces: list[Interface]) -> list[Interface]:
    """The ranked addresses worth showing a phone: up, and not this machine's loopback."""
    return [i for i in rank(interfaces) if i.up and kind(i) != Kind.LOOPBACK]


def interfaces() -> list[Interface]:
    """This machine's IPv4 addresses, one per address, read from the OS (psutil)."""
    stats = psutil.net_if_stats()
    found = []
    for name, addresses in psutil.net_if_addrs().items():
        up = stats[name].isup if name in stats else True
        for a in addresses:
            if a.family == socket.AF_INET and a.address:
                prefix = (ipaddress.IPv4Network(f"0.0.0.0/{a.netmask}").prefixlen
                          if a.netmask else 32)
                found.append(Interface(name, a.address, prefix, up))
    return found


def best(found: list[Interface]) -> str:
    """The address ``companion serve`` prints: the best offered one, else 127.0.0.1 (no
    network at all: only this machine can open the app)."""
    ranked = offered(found)
    return ranked[0].address if ranked else "127.0.0.1"


def urls(found: list[Interface], port: int) -> tuple[str, list[str]]:
    """The base URL phones should open and the other offered ones, best first (each
    address once)."""
    chosen = best(found)
    others: list[str] = []
    for i in offered(found):
        if i.address != chosen and i.address not in others:
            others.append(i.address)
    return f"http://{chosen}:{port}", [f"http://{a}:{port}" for a in others]
