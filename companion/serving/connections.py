"""How the server holds its connections, so that no device on the Wi-Fi can use them up
(docs/security.md#connections).

``companion serve`` and the café's workers serve with gevent's WSGI server: a connection
costs a greenlet and a file descriptor, not a thread. Left as gevent makes it, a request
that never finishes holds both for ever, and a process may have 1,024 descriptors open (a
typical Linux laptop's soft limit; 256 on macOS): 1,100 sockets that sent half a request
locked every phone of every table out. So:

* a request's head (its line and headers) must arrive within ``READ_SECONDS`` of its
  first byte being awaited (a kept-alive connection waits that long for the next one),
  and its whole body within ``BODY_SECONDS`` more, read before the app runs: a body
  that trickles in a byte every few seconds is answered 408 and closed. Each write of
  an answer must go within ``READ_SECONDS``. A stream that is only written to, on time,
  stays open;
* a chunked request body is refused with 411 (browsers never send one; gevent reads it
  on the loop a chunk at a time, and a megabyte of one-byte chunks held every table for
  seconds), and a head gevent cannot parse is a plain 400 with no line in the log;
* one client address holds at most ``PER_ADDRESS`` connections of a process (the
  app's ``CONNECTIONS_PER_ADDRESS``; ``REQUEST_HEAD_SECONDS`` sets the head's deadline
  and each read and write's, ``REQUEST_BODY_SECONDS`` the body's): a phone's browser
  opens six at most, so one device on the Wi-Fi cannot take the descriptors every other
  phone needs.
  The address is the socket's peer: Companion trusts no proxy's forwarded header;
* the process raises its open-files soft limit to the hard limit at start
  (:func:`raise_open_files`), and ``companion serve`` says so when even the hard limit
  is low;
* live-push streams are bounded per device and in all (companion/live/watcher.py).
"""

from __future__ import annotations

import io
import socket
import sys
from collections import Counter
from typing import Any

import gevent
from gevent.pywsgi import Input, WSGIHandler, WSGIServer

if sys.platform != "win32":  # (Windows has no such limits)
    import resource

#: How long a request's head, or one read or write of a connection, may take (the app's
#: ``REQUEST_HEAD_SECONDS``: the tests shorten it, to see a deadline in seconds).
READ_SECONDS = 10.0
#: How long a request's whole body may take to arrive once its head is in: a 2 MB import
#: needs 70 KB/s, a form of a few hundred bytes a single packet (docs/security.md).
BODY_SECONDS = 30.0
#: Connections one client address may hold at once in a process (a browser opens at
#: most six to one server; a phone with two browsers and the laptop's own tabs stay far
#: below this). The bench, whose simulated phones all come from one address, raises it.
PER_ADDRESS = 64
#: Below this many open files a table's phones may run out (each holds a page request and
#: a stream: ~20 a table).
LOW_OPEN_FILES = 4096


_LENGTH_REQUIRED = (b"HTTP/1.1 411 Length Required\r\nConnection: close\r\n"
                    b"Content-Length: 0\r\n\r\n")
_TOO_SLOW = (b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n"
             b"Content-Length: 0\r\n\r\n")


class LengthRequired(ValueError):
    """A request body sent in chunks, without a length."""


class Handler(WSGIHandler):
    """gevent's handler with a deadline for the head of each request (a client that sends
    nothing, or a byte now and then, is closed after :func:`read_seconds`), one for its
    body (``BODY_SECONDS``), and no chunked bodies."""

    # A write that timed out is a phone gone from the Wi-Fi, as a reset is: the
    # connection is closed without a traceback in the log.
    ignored_socket_errors = (*WSGIHandler.ignored_socket_errors, "timed out")

    def handle_one_request(self) -> Any:
        self._head = gevent.Timeout.start_new(
            read_seconds(self.server), TimeoutError("the request did not arrive in time"))
        try:
            return super().handle_one_request()
        finally:
            self._head.close()

    def read_request(self, raw_requestline: str) -> Any:
        try:
            if not super().read_request(raw_requestline):
                return False
        except OSError:
            # A plain 400 and the connection closed, and no line in the log: a device
            # that opens a thousand of these would fill the host's terminal (gevent
            # prints any other error here as a crash).
            return False
        finally:
            self._head.close()  # the head is here: the body has a deadline of its own
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            raise LengthRequired
        return True

    def _handle_client_error(self, ex: Exception) -> Any:
        """A head gevent could not take (too many headers, a bad length, a chunked
        body): its answer, and nothing in the host's terminal — gevent prints a
        traceback for any error that is not a ValueError, and a line for the rest, and
        a device could send a thousand."""
        if isinstance(ex, LengthRequired):
            return ("411", _LENGTH_REQUIRED)
        return ("400", b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\n"
                       b"Content-Length: 0\r\n\r\n")

    def get_environ(self) -> dict[str, Any]:
        environ: dict[str, Any] = super().get_environ()
        # A stream watches its socket's read side, to give its place back as soon as the
        # phone closes it (companion/live/streams.py).
        environ["companion.socket"] = self.socket
        return environ

    def handle_one_response(self) -> Any:
        """The whole body first, within ``BODY_SECONDS`` (after which the app runs with it
        in memory; no larger than the app's ``MAX_CONTENT_LENGTH``, which the app
        refuses before any of it is read)."""
        length = self.content_length or 0
        if length and length <= _largest_body(self.server):
            body = self._body(length)
            if body is None:
                self.close_connection = True
                return None
            self.wsgi_input = Input(io.BytesIO(body), len(body))
            self.environ["wsgi.input"] = self.wsgi_input
        elif length:
            self.close_connection = True  # refused unread: nothing after it can be parsed
        return super().handle_one_response()

    def _body(self, length: int) -> bytes | None:
        """The request's body, or None (the client's answer sent) when it did not arrive
        within ``BODY_SECONDS`` or the client closed first."""
        deadline = gevent.Timeout.start_new(
            _setting(self.server, "REQUEST_BODY_SECONDS", BODY_SECONDS))
        try:
            body = self.wsgi_input.read(length)  # says "100 Continue" first if asked
        except gevent.Timeout as timeout:
            if timeout is not deadline:
                raise
            self._send_quietly(_TOO_SLOW)
            return None
        except OSError:
            return None
        finally:
            deadline.close()
        return body if len(body) == length else None

    def _send_quietly(self, answer: bytes) -> None:
        try:
            self.socket.sendall(answer)
        except OSError:
            pass


def _setting(server: Any, name: str, default: float) -> float:
    """The app's setting ``name`` (``COMPANION_<name>`` in the environment), else
    ``default``; a server's app is Flask's, or a test's plain WSGI function."""
    config = getattr(server.application, "config", None) or {}
    return float(config.get(name) or default)


def read_seconds(server: Any) -> float:
    """How long a request's head, or one read or write, may take on ``server``'s
    connections: the app's ``REQUEST_HEAD_SECONDS``, else ``READ_SECONDS``."""
    return _setting(server, "REQUEST_HEAD_SECONDS", READ_SECONDS)


def _largest_body(server: Any) -> int:
    """The largest body the app takes (Flask's ``MAX_CONTENT_LENGTH``): a larger one is
    left unread and refused by the app."""
    return int(_setting(server, "MAX_CONTENT_LENGTH", 2 * 1024 * 1024))


class Bounded:
    """A server's connections held to ``per_address`` for each client address (the
    socket's peer: Companion trusts no proxy's forwarded header), with a read and write
    timeout on each connection, and Nagle's algorithm off: it sends an answer's head and
    body in two writes, and with Nagle on, the second waited for the client's delayed
    ACK (40 ms on Linux) — a full page took 47 ms instead of 4. One past the bound is
    closed unanswered, before a byte of it is read. (Mixed in before gevent's server:
    ``companion serve``'s :class:`Server` and the café's, companion/serving/cafe.py.)"""

    application: Any

    def connected(self) -> int:
        """How many connections this server holds now (a phone's page holds one or two)."""
        return sum(self.__dict__.get("held", Counter()).values())

    def handle(self, sock: socket.socket, address: Any) -> None:
        counts: Counter[str] = self.__dict__.setdefault("held", Counter())
        client = str(address[0]) if isinstance(address, tuple) else str(address)
        if counts[client] >= _setting(self, "CONNECTIONS_PER_ADDRESS", PER_ADDRESS):
            sock.close()
            return
        counts[client] += 1
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.settimeout(read_seconds(self))
            super().handle(sock, address)  # type: ignore[misc]
        finally:
            counts[client] -= 1
            if counts[client] <= 0:
                del counts[client]


class Server(Bounded, WSGIServer):
    """gevent's WSGI server with :class:`Handler` and :class:`Bounded`'s hold on
    connections (``companion serve``)."""

    handler_class = Handler


def raise_open_files() -> tuple[int, int] | None:
    """Raise this process's soft limit of open files to its hard limit (as far as the
    system lets: macOS refuses more than its OPEN_MAX). Returns (soft, hard) after, or
    None where there are no such limits (Windows)."""
    if sys.platform == "win32":
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    for wanted in (hard, 10240, 4096):
        if wanted == resource.RLIM_INFINITY:
            continue
        if soft >= wanted:
            break
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            break
        except (ValueError, OSError):
            continue
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def open_files_note(limits: tuple[int, int] | None) -> str | None:
    """What ``companion serve`` tells the host when the system allows few open files."""
    if limits is None or limits[0] >= LOW_OPEN_FILES:
        return None
    return (f"This system lets Companion hold only {limits[0]} connections at once "
            f"(open files); a table's phones use about 20. To allow more, run "
            f"`ulimit -n {LOW_OPEN_FILES}` (or ask the system's owner to raise the hard "
            f"limit) before `companion serve`.")

