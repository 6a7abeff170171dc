"""`companion serve`: run the app for the table under gevent, on the LAN; `companion
backup`: a copy of the group's data while it runs.

gevent's server gives each connection a greenlet, not a thread: it holds every phone's
open live-push stream (companion/push.py) at the cost of a little memory each, on
Windows, macOS and Linux alike. ``serve`` patches the standard library for gevent first
thing (sockets, threads, sleep), before the app is made.
"""

import argparse
import errno
import os
import socket
import sqlite3
import sys
import time
from contextlib import closing
from datetime import datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from gevent import monkey
from sqlite_utils import Database

from companion import connections, create_app, ready, server_started, store
from companion.places import DataFolderError, data_folder, prepare
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


def installed_version() -> str:
    try:
        return version("companion")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


def _data_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", metavar="DIR",
                        help="the folder of the group's data (default: COMPANION_DATA, "
                             "else instance/ in a checkout, else the user's data folder)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="companion", description="A board-game table companion.")
    parser.add_argument("--version", action="version",
                        version=f"companion {installed_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the app to the table (gevent)")
    _data_option(serve)
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
    _data_option(link)
    backup = sub.add_parser(
        "backup", help="copy the group's data to a file, safely while the server runs")
    backup.add_argument("file", nargs="?",
                        help="where to write the copy (default: backups/ in the data folder)")
    _data_option(backup)
    return parser


def backup(args: argparse.Namespace) -> int:
    """A consistent copy of the database while the server may be writing to it (SQLite's
    online backup: the copy is the database as of one moment), without the Wi-Fi codes:
    a backup is a file that travels, and no password goes with it. Restoring is putting
    the copy back as ``companion.sqlite`` while the server is stopped (README.md)."""
    folder = data_folder(args.data)
    source = Path(os.environ.get("COMPANION_DATABASE") or folder / "companion.sqlite")
    if not source.is_file():
        print(f"There is no data to back up in {folder}.", file=sys.stderr)
        return 2
    target = Path(args.file) if args.file else (
        folder / "backups" / time.strftime("companion-%Y%m%d-%H%M%S.sqlite"))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            print(f"{target} exists already: name another file.", file=sys.stderr)
            return 2
        with closing(sqlite3.connect(f"file:{source}?mode=ro", uri=True)) as src, \
                closing(sqlite3.connect(target)) as copy:
            src.backup(copy)
            store.forget_unremembered(Database(copy), everything=True)
    except (OSError, sqlite3.Error) as error:
        print(f"Could not write the backup to {target}: {error}", file=sys.stderr)
        return 2
    print(f"Backed up {source} to {target}")
    return 0


def _data_or_exit(chosen: str | None) -> Path | None:
    """The data folder, made and writable; None after saying why not."""
    try:
        return prepare(data_folder(chosen))
    except DataFolderError as error:
        print(error, file=sys.stderr)
        return None


def host_link(args: argparse.Namespace) -> int:
    """A way back in when the host device lost its cookies: run on the laptop itself."""
    public = (args.public_url or f"http://{lan_address()}:{args.port}").rstrip("/")
    folder = _data_or_exit(args.data)
    if folder is None:
        return 2
    app = create_app({"PUBLIC_URL": public}, data=folder)
    with app.app_context():
        night = store.night_by_key(args.night) if args.night else _chosen_night()
        if night is None:
            return 2
        token = store.invite_host(night["id"])
    link = f"{public}/h/{token}"
    print(f"Open this once, within {store.HOST_CODE_MINUTES} minutes, on the device that "
          f"should host the night of {night['created'][:10]}:")
    print(link)
    print(text(link), flush=True)
    return 0


#: How many of the latest nights ``host-link`` offers to choose from.
NIGHTS_OFFERED = 10


def _chosen_night() -> store.Row | None:
    """The night to host again: the only one, or the one the person at the laptop picks
    from the latest (by time and players; never simply the latest, which any guest on
    the Wi-Fi can have made a moment ago). None, with the reason said, when there is none
    or no one to ask."""
    nights = store.latest_nights(NIGHTS_OFFERED)
    if not nights:
        print("There is no such night yet.", file=sys.stderr)
        return None
    if len(nights) == 1:
        return nights[0]
    rosters = store.rosters([int(n["id"]) for n in nights])
    print("Which night should this device host again?")
    for number, night in enumerate(nights, 1):
        players = ", ".join(str(seat["name"]) for seat in rosters[int(night["id"])])
        print(f"  {number:>2}. {_local(night['created'])}  {players}  (--night {night['key']})")
    if not sys.stdin.isatty():
        print("Choose one with --night KEY.", file=sys.stderr)
        return None
    answer = input(f"Number (1-{len(nights)}): ").strip()
    if not answer.isdigit() or not 1 <= int(answer) <= len(nights):
        print("No night chosen.", file=sys.stderr)
        return None
    return nights[int(answer) - 1]


def _local(stamp: str) -> str:
    """A stored UTC time as the laptop's local date and time."""
    when = datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone()
    return when.strftime("%a %Y-%m-%d %H:%M")


# How `companion serve` runs gevent's server (bench/floor.py serves its floor with the
# same): no access log (a line per poll would be most of the work), a backlog for a
# room of phones arriving at once.
SERVE_SETTINGS: dict[str, Any] = {"log": None, "backlog": 2048}


def serve(args: argparse.Namespace) -> int:
    folder = _data_or_exit(args.data)
    if folder is None:
        return 2
    monkey.patch_all()  # before anything opens a socket or a thread-local
    if args.public_url:
        public = args.public_url.rstrip("/")
    else:
        host = lan_address() if args.host in ("0.0.0.0", "") else args.host
        public = f"http://{host}:{args.port}"
    app = ready(create_app({"PUBLIC_URL": public}, data=folder))
    server = connections.Server((args.host, args.port), app, **SERVE_SETTINGS)
    try:
        server.init_socket()
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            print(f"Port {args.port} is already in use. Stop the other program or choose "
                  f"another port: companion serve --port {args.port + 1}", file=sys.stderr)
            return 2
        raise
    # Only once the port is this server's: a second `companion serve` started by
    # mistake, refused its port, must not forget the running server's Wi-Fi code.
    server_started(app)
    print(f"Companion is running. Open {public} on the host's tablet or laptop.", flush=True)
    print(f"The group's data is kept in {folder}", flush=True)
    note = connections.open_files_note(connections.raise_open_files())
    if note:
        print(note, file=sys.stderr, flush=True)
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
    if args.command == "backup":
        return backup(args)
    return 1


if __name__ == "__main__":
    sys.exit(main())
