"""How the server holds its connections, so that no device on the Wi-Fi can use them up
(docs/security.md#connections).

``companion serve`` and the café's workers serve with gevent's WSGI server: a connection
costs a greenlet and a file descriptor, not a thread. Left as gevent makes it, a request
that never finishes holds both for ever, and a process may have 1,024 descriptors open (a
typical Linux laptop's soft limit; 256 on macOS): 1,100 sockets that sent half a request
locked every phone of every table out. So:

* a request's head (its line and headers) must arrive within ``READ_SECONDS`` of its
  first byte being awaited (a kept-alive connection waits that long for the next one),
  and each read of its body, or each write of an answer, within the same: a stalled
  connection is closed. A stream that is only written to, on time, stays open;
* the process raises its open-files soft limit to the hard limit at start
  (:func:`raise_open_files`), and ``companion serve`` says so when even the hard limit
  is low;
* live-push streams are bounded per device and in all (companion/push.py).
"""

from __future__ import annotations

import socket
import sys
from typing import Any

import gevent
from gevent.pywsgi import WSGIHandler, WSGIServer

if sys.platform != "win32":  # (Windows has no such limits)
    import resource

#: How long a request's head, or one read or write of a connection, may take.
READ_SECONDS = 10.0
#: Below this many open files a table's phones may run out (each holds a page request and
#: a stream: ~20 a table).
LOW_OPEN_FILES = 4096


class Handler(WSGIHandler):
    """gevent's handler with a deadline for the head of each request: a client that sends
    nothing, or a byte now and then, is closed after ``READ_SECONDS``."""

    # A write that timed out is a phone gone from the Wi-Fi, as a reset is: the
    # connection is closed without a traceback in the log.
    ignored_socket_errors = (*WSGIHandler.ignored_socket_errors, "timed out")

    def handle_one_request(self) -> Any:
        self._head = gevent.Timeout.start_new(
            READ_SECONDS, TimeoutError("the request did not arrive in time"))
        try:
            return super().handle_one_request()
        finally:
            self._head.close()

    def read_request(self, raw_requestline: str) -> Any:
        try:
            return super().read_request(raw_requestline)
        except OSError:
            # A plain 400 and the connection closed, and no line in the log: a device
            # that opens a thousand of these would fill the host's terminal (gevent
            # prints any other error here as a crash).
            return False
        finally:
            self._head.close()  # the head is here: the answer takes what it takes


class Server(WSGIServer):
    """gevent's WSGI server with :class:`Handler`, a read and write timeout on each
    connection, and Nagle's algorithm off: it sends an answer's head and body in two
    writes, and with Nagle on, the second waited for the client's delayed ACK (40 ms on
    Linux) — a full page took 47 ms instead of 4."""

    handler_class = Handler

    def handle(self, sock: socket.socket, address: Any) -> None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.settimeout(READ_SECONDS)
        super().handle(sock, address)


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


def open_files_soft_limit() -> int:
    """This process's soft limit of open files (a large number where there is none)."""
    if sys.platform == "win32":
        return 1 << 20
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return 1 << 20 if soft == resource.RLIM_INFINITY else int(soft)
