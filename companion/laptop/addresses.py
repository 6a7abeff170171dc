"""The laptop's addresses a phone at the table may reach, best first.

The interfaces are read from the operating system (psutil: each interface's IPv4
addresses and whether it is up, on Windows, macOS and Linux alike), never by asking which
source address a probe would be routed from: a VPN that routes 10.0.0.0/8 made that
answer the VPN's own address, and a network without a gateway made it 127.0.0.1, while
the Wi-Fi's address was up. :func:`rank` is a pure function of plain data, so the tests
feed it the interface tables of typical laptops (tests/test_addresses.py).

Reading them never fails (:func:`interfaces`): psutil raises while a VPN or the Wi-Fi
comes and goes (macOS asks each interface in turn, and one that vanished meanwhile
fails the whole reading), so each reading is tried twice, and then given up: without
the up-or-down states every interface counts as up, without the addresses there are
none (the app still starts, on 127.0.0.1, and ``companion doctor`` says so).

The order (:class:`Kind`), and why:

1. **The laptop's own hotspot** (Windows' Mobile hotspot at 192.168.137.1, macOS Internet
   Sharing's ``bridge*`` at 192.168.2.x, a Linux NetworkManager hotspot at 10.42.x.1):
   it is up only because someone turned it on, and the one reason to turn it on at a
   table is to join the phones to it (docs/guide.md, "Phones can't open it?"). The laptop's
   other network stays offered as the next address.
2. **Wi-Fi**, then 3. **Ethernet and other LAN adapters**: the phones are on Wi-Fi; a
   wired laptop is on the same network only when the router joins both, which home
   routers do and offices often do not.

   - **macOS ``en0``, ``en1``, …** may be either: ``en0`` is the Wi-Fi on a MacBook and
     the Ethernet port on an iMac, Mac mini or Mac Studio (whose Wi-Fi is ``en1``), and
     only the system's settings, not the name, say which. So every ``en<N>`` is LAN
     alike, and among them the private address and then the lower number come first
     (``en0``/``en1``, the built-in ports, before a dock's ``en7``; numbers compare as
     numbers, so ``en10`` comes after ``en2``). Either way the other ``en*`` addresses
     are offered too, and on one network, as at home, either reaches the phones.
   - **Windows' "Ethernet 2", "Ethernet 3", …** are what Windows calls each adapter
     after the first, and VPN software (OpenVPN's TAP, Cisco, FortiClient and others)
     installs adapters that keep those names; nothing in the name tells them from a
     second network card. So a numbered "Ethernet N" ranks as an adapter the name says
     nothing about (4.), after the Wi-Fi and the plain "Ethernet": never chosen over
     them, and still offered, and still chosen over VM bridges and named VPNs when it is
     all there is (a USB network adapter may well be "Ethernet 2"). Addresses in ranges
     VPNs like (OpenVPN's 10.8.0.0/24) are no hint: home and office networks use them
     as well, and any VPN may be set to another.
   - **Hyper-V's external virtual switch** moves the laptop's own LAN or Wi-Fi address
     onto an adapter named "vEthernet (<the switch's name>)": "vEthernet (External
     Switch)", "vEthernet (Wi-Fi)", "vEthernet (Ethernet)" or whatever the user named
     it, while its internal ones, "vEthernet (Default Switch)", "vEthernet (WSL)",
     "vEthernet (WSL (Hyper-V firewall))" and Docker's "vEthernet (DockerNAT)", are
     networks of the laptop's own machines. A "vEthernet (…)" is therefore the laptop's
     LAN (or Wi-Fi, when its name says Wi-Fi) only when all three say so: its name is
     none of the internal ones (nor says "internal" or "NAT"); its address is in
     192.168/16 or 10/8, where home and office routers hand addresses out (Windows
     draws the Default Switch's and WSL's from 172.16/12); and it is not the first
     address of its network, which is the one a laptop gives itself as the gateway of
     a network it shares (192.168.0.1/24 on a NAT switch), and which no router hands
     out. Any other "vEthernet (…)" is a container and virtual-machine bridge (5.).
4. **An adapter the name says nothing about.**
5. **Container and virtual-machine bridges** (docker0, br-*, veth*, virbr*, vmnet*,
   vboxnet*, Hyper-V's internal "vEthernet (…)"): no phone is on them.
6. **VPNs and tunnels** (tun, tap, utun, wg, tailscale, ppp, ZeroTier, Windows' TAP,
   WireGuard and OpenVPN adapters, and any address in 100.64.0.0/10, the carrier-grade
   NAT range Tailscale uses): a phone reaches them only if it is on the same VPN. So is
   an adapter the name says nothing about (4., "Ethernet 2" included) whose address is
   a point-to-point one (netmask 255.255.255.255, /32): such a network holds the laptop
   alone, so no phone can be on it, and it is what WireGuard on Windows gives the
   adapter it names after the tunnel ("office"). A /32 on a Wi-Fi or LAN that the name
   says is one keeps its kind: the name is the surer sign, and an interface whose
   netmask the OS did not give is read as a /24, not as a /32.
7. **Link-local** (169.254.0.0/16, an adapter that got no address) and 8. **loopback**.

An interface that is down comes after every one that is up, whatever its kind; within a
kind, a private address (10/8, 172.16/12, 192.168/16) comes before any other, then the
names in order, their numbers as numbers. No default route is needed for any of it.

:func:`base_url` writes an address into a URL, an IPv6 one in brackets (RFC 3986) with
its zone's ``%`` written ``%25`` (RFC 6874): ``http://[fe80::1%25en0]:8765``.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import Any
from urllib.parse import quote

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


#: The prefix of an address whose netmask the OS did not give: a LAN's usual, so that
#: a missing netmask is not read as a point-to-point (/32) one.
UNKNOWN_PREFIX = 24


@dataclass(frozen=True)
class Interface:
    """One IPv4 address of one interface, as the OS names the interface ("wlp2s0",
    "en0", "Wi-Fi", "vEthernet (WSL)"; on Windows the friendly name)."""

    name: str
    address: str
    prefix: int = UNKNOWN_PREFIX
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
_VIRTUAL_WORDS = ("virtualbox", "vmware", "hyper-v", "host-only", "docker",
                  "wsl", "default switch")
_VPN_WORDS = ("vpn", "tap-windows", "openvpn", "wireguard", "tailscale", "zerotier",
              "wintun", "nordlynx", "anyconnect", "globalprotect", "fortinet", "pangp",
              "mullvad", "proton")
# Windows' name for each wired adapter after the first, which VPN adapters keep too.
_NUMBERED_ETHERNET = re.compile(r"(ethernet|이더넷) \d+")
# Hyper-V's switches that are the laptop's own machines' networks, not its LAN.
_HYPER_V = "vethernet"
_HYPER_V_INTERNAL = re.compile(r"default switch|wsl|docker|internal|\bnat")

_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_LINK_LOCAL = ipaddress.ip_network("169.254.0.0/16")
_WINDOWS_HOTSPOT = ipaddress.ip_network("192.168.137.0/24")  # Internet Connection Sharing
_MAC_SHARING = ipaddress.ip_network("192.168.2.0/24")  # macOS Internet Sharing's default
_NM_SHARED = ipaddress.ip_network("10.42.0.0/16")  # NetworkManager's "shared" hotspot
# Where home and office routers hand addresses out (172.16/12 is Hyper-V's and WSL's).
_ROUTERS = (ipaddress.ip_network("192.168.0.0/16"), ipaddress.ip_network("10.0.0.0/8"))


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


def _by_address(name: str, address: ipaddress.IPv4Address) -> Kind | None:
    """The kinds the address says, whatever the name: loopback, link-local, hotspot."""
    if address.is_loopback or name in ("lo", "lo0") or "loopback" in name:
        return Kind.LOOPBACK
    if address in _LINK_LOCAL:
        return Kind.LINK_LOCAL
    if _hotspot(name, address):
        return Kind.HOTSPOT
    return None


def _gateway(address: ipaddress.IPv4Address, prefix: int) -> bool:
    """Whether ``address`` is the first of its network: a gateway's, which a laptop
    takes for a network it shares and a router never hands out."""
    network = ipaddress.IPv4Network(f"{address}/{prefix}", strict=False)
    return network.num_addresses > 2 and address == network.network_address + 1


def _hyper_v(name: str, address: ipaddress.IPv4Address, prefix: int) -> Kind:
    """A Hyper-V "vEthernet (…)": the laptop's own Wi-Fi or LAN when it is an external
    switch, which its name, its address and its not being a gateway must all say (the
    module's docstring says why); else a virtual machines' network."""
    if (_HYPER_V_INTERNAL.search(name) or not any(address in r for r in _ROUTERS)
            or _gateway(address, prefix)):
        return Kind.VIRTUAL
    return Kind.WIFI if _named(name, (), _WIFI_WORDS) else Kind.LAN


def _unnamed(prefix: int) -> Kind:
    """An adapter the name says nothing about: a VPN's when its address is
    point-to-point (/32, a network of the laptop alone), else unknown."""
    return Kind.VPN if prefix == 32 else Kind.OTHER


def _by_name(name: str, address: ipaddress.IPv4Address, prefix: int) -> Kind:
    """What the lower-cased ``name`` says, the surer signs first."""
    if address in _CGNAT or _named(name, _VPN_STARTS, _VPN_WORDS):
        return Kind.VPN
    if _HYPER_V in name:
        return _hyper_v(name, address, prefix)
    if _named(name, _VIRTUAL_STARTS, _VIRTUAL_WORDS):
        return Kind.VIRTUAL
    if _named(name, _WIFI_STARTS, _WIFI_WORDS):
        return Kind.WIFI
    if _NUMBERED_ETHERNET.fullmatch(name):
        return _unnamed(prefix)
    if _named(name, _LAN_STARTS, _LAN_WORDS):
        return Kind.LAN
    return _unnamed(prefix)


def kind(interface: Interface) -> Kind:
    """What ``interface`` is, from its address first, then its name."""
    address = ipaddress.IPv4Address(interface.address)
    name = interface.name.lower()
    if (found := _by_address(name, address)) is not None:
        return found
    if (numbered := _numbered(name)) is not None:
        return numbered
    return _by_name(name, address, interface.prefix)


def _is_ipv4(address: str) -> bool:
    try:
        ipaddress.IPv4Address(address)
    except ValueError:
        return False
    return True


def _natural(name: str) -> tuple[tuple[str, int], ...]:
    """``name`` to sort by, its numbers as numbers: "en2" before "en10", "Ethernet"
    before "Ethernet 2"."""
    return tuple((text, int(number) if number else -1)
                 for text, number in re.findall(r"(\D*)(\d*)", name) if text or number)


def rank(interfaces: list[Interface]) -> list[Interface]:
    """The IPv4 addresses of ``interfaces``, the one phones most likely reach first
    (the module's docstring says the order and why); anything else is left out."""
    found = [i for i in interfaces if _is_ipv4(i.address)]
    return sorted(found, key=lambda i: (not i.up, kind(i),
                                        not ipaddress.IPv4Address(i.address).is_private,
                                        _natural(i.name), ipaddress.IPv4Address(i.address)))


def offered(interfaces: list[Interface]) -> list[Interface]:
    """The ranked addresses worth showing a phone: up, and not this machine's loopback."""
    return [i for i in rank(interfaces) if i.up and kind(i) != Kind.LOOPBACK]


def _read(call: Callable[[], Any]) -> dict[str, Any] | None:
    """What psutil's ``call`` answers, or None when it fails twice. It is tried again
    because an interface that vanished while psutil asked about it (a VPN or the Wi-Fi
    going away) is gone from the second reading; whatever it raises (OSError,
    psutil.Error, KeyError, RuntimeError, each platform its own) is caught, because an
    address table that cannot be read must not stop the server starting."""
    for _ in range(2):
        try:
            return dict(call())
        except Exception:  # psutil's failures differ by platform and version
            continue
    return None


def _prefix(netmask: str | None) -> int:
    """The prefix length of an IPv4 ``netmask``, UNKNOWN_PREFIX if none is given or it
    is not one."""
    if not netmask:
        return UNKNOWN_PREFIX
    try:
        return ipaddress.IPv4Network(f"0.0.0.0/{netmask}").prefixlen
    except ValueError:
        return UNKNOWN_PREFIX


def interfaces() -> list[Interface]:
    """This machine's IPv4 addresses, one per address, read from the OS (psutil); none
    when psutil cannot read them, and every one up when it cannot read that."""
    addresses = _read(psutil.net_if_addrs) or {}
    stats = _read(psutil.net_if_stats) or {}
    found = []
    for name, entries in addresses.items():
        up = bool(getattr(stats.get(name), "isup", True))
        for a in entries:
            if a.family == socket.AF_INET and a.address:
                found.append(Interface(name, a.address, _prefix(a.netmask), up))
    return found


def best(found: list[Interface]) -> str:
    """The address ``companion serve`` prints: the best offered one, else 127.0.0.1 (no
    network at all: only this machine can open the app)."""
    ranked = offered(found)
    return ranked[0].address if ranked else "127.0.0.1"


def base_url(address: str, port: int) -> str:
    """The URL of ``port`` at ``address`` (an IPv4 or IPv6 address, or a host name):
    an IPv6 address in brackets, where its colons cannot be read as the port's, and its
    zone ("fe80::1%en0", the interface a link-local address is on) kept, its ``%``
    written ``%25`` as RFC 6874 has it. ``::`` (every interface) is bracketed like any
    other: which address to open instead is for the caller to say."""
    if ":" not in address or address.startswith("["):
        return f"http://{address}:{port}"
    host, percent, zone = address.partition("%")
    return f"http://[{host}{'%25' + quote(zone, safe='') if percent else ''}]:{port}"


def urls(found: list[Interface], port: int) -> tuple[str, list[str]]:
    """The base URL phones should open and the other offered ones, best first (each
    address once)."""
    chosen = best(found)
    others: list[str] = []
    for i in offered(found):
        if i.address != chosen and i.address not in others:
            others.append(i.address)
    return base_url(chosen, port), [base_url(a, port) for a in others]
