"""`companion serve`: run the app for the table under gevent, on the LAN.

gevent's server gives each connection a greenlet, not a thread: it holds every phone's
open live-push stream (companion/push.py) at the cost of a little memory each, on
Windows, macOS and Linux alike. ``serve`` patches the standard library for gevent first
thing (sockets, threads, sleep), before the app is made.
"""

import argparse
import errno
import socket
import sys
from typing import Any

from gevent import monkey
from gevent.pywsgi import WSGIServer

from companion import create_app, ready, store
from companion.qr import text

DEFAULT_PORT = 8765  # 5000 is AirPlay's on macOS


def lan_address() -> str:
    """This machine's address on the local network (no packet is sent to find it)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.254.254.254", 1))
        address = probe.getsockname()[0]
    except OSError:
        address = "127.0.0.1"
    finally:
        probe.close()
    return address


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="companion", description="A board-game table companion.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the app to the table (gevent)")
    serve.add_argument("--host", default="0.0.0.0",
                       help="address to listen on (default: every interface, so phones reach it)")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT,
                       help=f"port to listen on (default {DEFAULT_PORT})")
    serve.add_argument("--public-url",
                       help="the address phones should use, if not this machine's LAN address")
    serve.add_argument("--quiet", action="store_true", help="print only the address")
    link = sub.add_parser(
        "host-link", help="print a one-time link (and QR) that makes a device a host again")
    link.add_argument("--night", help="the night's key (default: the latest night)")
    link.add_argument("--public-url", help="the address phones and tablets use")
    link.add_argument("--port", type=int, default=DEFAULT_PORT,
                      help=f"the port `companion serve` listens on (default {DEFAULT_PORT})")
    return parser


def host_link(args: argparse.Namespace) -> int:
    """A way back in when the host device lost its cookies: run on the laptop itself."""
    public = (args.public_url or f"http://{lan_address()}:{args.port}").rstrip("/")
    app = create_app({"PUBLIC_URL": public})
    with app.app_context():
        night = store.night_by_key(args.night) if args.night else store.latest_night()
        if night is None:
            print("There is no such night yet.", file=sys.stderr)
            return 2
        token = store.invite_host(night["id"])
    link = f"{public}/h/{token}"
    print(f"Open this once, within {store.HOST_CODE_MINUTES} minutes, on the device that "
          f"should host the night of {night['created'][:10]}:")
    print(link)
    print(text(link), flush=True)
    return 0


# How `companion serve` runs gevent's server (bench/floor.py serves its floor with the
# same): no access log (a line per poll would be most of the work), a backlog for a
# room of phones arriving at once.
SERVE_SETTINGS: dict[str, Any] = {"log": None, "backlog": 2048}


class Server(WSGIServer):
    """gevent's WSGI server with Nagle's algorithm off on each connection: it sends an
    answer's head and body in two writes, and with Nagle on, the second waited for the
    client's delayed ACK (40 ms on Linux) — a full page took 47 ms instead of 4."""

    def handle(self, sock: socket.socket, address: Any) -> None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().handle(sock, address)


def serve(args: argparse.Namespace) -> int:
    monkey.patch_all()  # before anything opens a socket or a thread-local
    if args.public_url:
        public = args.public_url.rstrip("/")
    else:
        host = lan_address() if args.host in ("0.0.0.0", "") else args.host
        public = f"http://{host}:{args.port}"
    app = ready(create_app({"PUBLIC_URL": public}))
    server = Server((args.host, args.port), app, **SERVE_SETTINGS)
    try:
        server.init_socket()
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            print(f"Port {args.port} is already in use. Stop the other program or choose "
                  f"another port: companion serve --port {args.port + 1}", file=sys.stderr)
            return 2
        raise
    print(f"Companion is running. Open {public} on the host's tablet or laptop.", flush=True)
    if not args.quiet:
        print(text(public), flush=True)
        print("Phones must be on the same Wi-Fi. Press Ctrl+C to stop.", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "serve":
        return serve(args)
    if args.command == "host-link":
        return host_link(args)
    return 1


if __name__ == "__main__":
    sys.exit(main())
