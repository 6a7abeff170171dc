"""The names the app answers to (the request's ``Host``): its own, and nothing else.

A web page a player opens elsewhere (a link in the group chat) can point a name of its
own at the laptop's address (DNS rebinding) and then send same-origin requests to it
from inside the table's Wi-Fi: they carry none of the device's cookies, but they spend
that device's address's quotas and its turns. The browser sends such a request with the
page's own name as its ``Host``, so an app that answers only its own names answers none
of them. Its names: ``localhost`` (the double-clicked program opens
``http://localhost:<port>/``), the loopback addresses, the address the request's
connection came to (the laptop's address on the Wi-Fi, whatever it is now), this
laptop's other addresses, the hosts of ``PUBLIC_URL`` and ``OTHER_URLS``, and the
``ALLOWED_HOSTS`` setting's (a café's own name; ``"*"`` answers any). Anything else is a
plain 400. The port is not compared: a rebinding page's name is never one of these,
whatever its port, and a port forwarded by a router keeps its name.
"""

import ipaddress
import time
from collections.abc import Iterable
from urllib.parse import urlsplit

from flask import Response, current_app, request

from companion.laptop import addresses

#: The names every app answers to.
ALWAYS = frozenset({"localhost", "127.0.0.1", "::1"})

#: How often (s) at most this laptop's addresses are read again for a name not found
#: among them (the laptop joined another network since).
READ_AGAIN_S = 10

_laptop: dict[str, object] = {"read": -READ_AGAIN_S, "addresses": frozenset()}


def host_name(host: str) -> str:
    """The name of a ``Host`` header, without its port and an IPv6 address's brackets
    and zone, in lower case: ``[FE80::1%25en0]:8765`` is ``fe80::1``."""
    host = host.strip().lower()
    if host.startswith("["):
        host = host[1:].partition("]")[0]
    elif host.count(":") == 1:
        host = host.partition(":")[0]
    return host.partition("%")[0].rstrip(".")


def named(urls: Iterable[str | None], allowed: Iterable[str]) -> frozenset[str]:
    """The names the app answers to by its settings: :data:`ALWAYS`, the hosts of
    ``urls`` (``PUBLIC_URL``, ``OTHER_URLS``) and the ``allowed`` names."""
    found = set(ALWAYS)
    for url in urls:
        if url:
            found.add(host_name(urlsplit(url).netloc))
    found.update(host_name(name) for name in allowed)
    return frozenset(found)


def _names(setting: object) -> list[str]:
    """A setting that lists names or URLs, as a list (the environment may give one text)."""
    if isinstance(setting, str):
        return [setting]
    if isinstance(setting, list | tuple):
        return [item for item in setting if isinstance(item, str)]
    return []


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _connection_address() -> str | None:
    """The laptop's address the request's connection came to (``companion serve`` and
    the café's workers give their socket: companion/serving/connections.py)."""
    sock = request.environ.get("companion.socket")
    try:
        return host_name(str(sock.getsockname()[0])) if sock is not None else None
    except (OSError, IndexError, TypeError):
        return None


def _laptop_addresses(name: str) -> frozenset[str]:
    """This laptop's addresses, read again when ``name`` is not among them and the last
    reading is :data:`READ_AGAIN_S` old."""
    found = _laptop["addresses"]
    assert isinstance(found, frozenset)
    last = _laptop["read"]
    assert isinstance(last, float | int)
    if name not in found and time.monotonic() - last >= READ_AGAIN_S:
        found = frozenset(i.address for i in addresses.interfaces())
        _laptop.update(read=time.monotonic(), addresses=found)
    return found


def known_host() -> Response | None:
    """Before every request: None when its ``Host`` is one of the app's names, else a
    plain 400 (no page, no cookie kept)."""
    config = current_app.config
    allowed = _names(config.get("ALLOWED_HOSTS"))
    if "*" in allowed or not request.headers.get("Host"):
        return None  # (a browser always names the host: a request without one is no page's)
    name = host_name(request.host)
    if name in named([config.get("PUBLIC_URL"), *_names(config.get("OTHER_URLS"))], allowed):
        return None
    if _is_address(name) and (name == _connection_address()
                              or name in _laptop_addresses(name)):
        return None
    return Response("Bad Request: this server does not answer to that name.\n", 400,
                    mimetype="text/plain")
