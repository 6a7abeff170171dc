"""`companion serve`: run the app for the table under gevent, on the LAN; `companion
backup`: a copy of the group's data while it runs; `companion doctor`: why phones may
not reach the laptop.

gevent's server gives each connection a greenlet, not a thread: it holds every phone's
open live-push stream (companion/live/streams.py) at the cost of a little memory each, on
Windows, macOS and Linux alike. ``companion serve`` has the standard library patched for
gevent (sockets, threads, sleep) before anything else is imported
(companion/serving/gevent_first.py).
"""

import argparse
import contextlib
import errno
import os
import platform
import signal
import socket
import sqlite3
import sys
import time
import webbrowser
from collections.abc import Callable
from contextlib import closing
from dataclasses import replace
from datetime import datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import gevent
from flask import Flask
from gevent import monkey
from sqlite_utils import Database

from companion import store
from companion.app import create_app, ready, server_started
from companion.laptop import addresses, awake, console, doctor, places
from companion.laptop.paths import (
    DataFolderError,
    data_folder,
    prepare,
    refuse_network_folder,
)
from companion.laptop.words import gettext as _
from companion.pictures.qr import BLOCKS, text
from companion.serving import connections, quiet_exit

DEFAULT_PORT = 8765  # 5000 is AirPlay's on macOS


def lan_address() -> str:
    """The address phones most likely reach this machine at (companion/laptop/addresses.py:
    read from its interfaces, no packet sent)."""
    return addresses.best(addresses.interfaces())


def installed_version() -> str:
    try:
        return version("companion-table")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


def _data_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", metavar="DIR",
                        help=_("the folder of the group's data (default: COMPANION_DATA, "
                               "else instance/ in a checkout, else the user's data folder)"))


def _help_option(parser: argparse.ArgumentParser) -> None:
    """``-h``, said in the terminal's language (argparse's own words would be English)."""
    parser.add_argument("-h", "--help", action="help", help=_("print this help and stop"))


def _port_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=_("the port `companion serve` listens on (default %(port)s)",
                               port=DEFAULT_PORT))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion", add_help=False,
        description=_("A board-game table companion. With no command, it serves the table "
                      "and opens its start page."))
    _help_option(parser)
    parser.add_argument("--version", action="version",
                        version=f"companion {installed_version()}",
                        help=_("print the version and stop"))
    sub = parser.add_subparsers(dest="command", required=True, title=_("commands"))
    serve = sub.add_parser("serve", help=_("serve the app to the table"), add_help=False)
    _help_option(serve)
    _data_option(serve)
    serve.add_argument("--host", default="0.0.0.0",
                       help=_("address to listen on (default: every interface, so phones "
                              "reach it)"))
    _port_option(serve)
    serve.add_argument("--public-url",
                       help=_("the address phones should use, if not this machine's LAN "
                              "address"))
    serve.add_argument("--open", action="store_true",
                       help=_("open the start page in this computer's browser"))
    serve.add_argument("--quiet", action="store_true", help=_("print only the address"))
    link = sub.add_parser(
        "host-link", help=_("print a one-time link (and QR) that makes a device a host again"),
        add_help=False)
    _help_option(link)
    link.add_argument("--night", help=_("the night's key (default: the latest night)"))
    link.add_argument("--public-url", help=_("the address phones and tablets use"))
    _port_option(link)
    _data_option(link)
    backup = sub.add_parser(
        "backup", help=_("copy the group's data to a file, safely while the server runs"),
        add_help=False)
    _help_option(backup)
    backup.add_argument("file", nargs="?",
                        help=_("where to write the copy (default: backups/ in the data "
                               "folder)"))
    _data_option(backup)
    check = sub.add_parser(
        "doctor", help=_("say why phones may not reach this computer, and what to do"),
        add_help=False)
    _help_option(check)
    _port_option(check)
    return parser


def backup(args: argparse.Namespace) -> int:
    """A consistent copy of the database while the server may be writing to it (SQLite's
    online backup: the copy is the database as of one moment), without the Wi-Fi codes:
    a backup is a file that travels, and no password goes with it. Restoring is putting
    the copy back as ``companion.sqlite`` while the server is stopped (docs/guide.md)."""
    folder = data_folder(args.data)
    source = Path(os.environ.get("COMPANION_DATABASE") or folder / "companion.sqlite")
    try:
        refuse_network_folder(source.parent)  # SQLite takes no share's address
    except DataFolderError as error:
        print(_(error.template, **error.values), file=sys.stderr)
        return 2
    if not source.is_file():
        print(_("There is no data to back up in %(folder)s.", folder=folder), file=sys.stderr)
        return 2
    target = Path(args.file) if args.file else (
        folder / "backups" / time.strftime("companion-%Y%m%d-%H%M%S.sqlite"))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            print(_("%(file)s exists already: name another file.", file=target),
                  file=sys.stderr)
            return 2
        with closing(sqlite3.connect(store.uri(source, "ro"), uri=True)) as src, \
                closing(sqlite3.connect(target)) as copy:
            src.backup(copy)
            store.forget_unremembered(Database(copy), everything=True)
    except (OSError, sqlite3.Error) as error:
        print(_("Could not write the backup to %(file)s: %(error)s", file=target,
                error=error), file=sys.stderr)
        return 2
    print(_("Backed up %(database)s to %(file)s", database=source, file=target))
    return 0


def _data_or_exit(chosen: str | None) -> Path | None:
    """The data folder, made and writable; None after saying why not."""
    try:
        return prepare(data_folder(chosen))
    except DataFolderError as error:
        print(_(error.template, **error.values), file=sys.stderr)
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
    print(_("Open this once, within %(minutes)s minutes, on the device that should host "
            "the night of %(date)s:", minutes=store.HOST_CODE_MINUTES,
            date=night["created"][:10]))
    print(link)
    drawn = qr_text(link)
    print(drawn if drawn else _("(This window cannot draw its QR code: type the link.)"),
          flush=True)
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
        print(_("There is no such night yet."), file=sys.stderr)
        return None
    if len(nights) == 1:
        return nights[0]
    rosters = store.rosters([int(n["id"]) for n in nights])
    print(_("Which night should this device host again?"))
    for number, night in enumerate(nights, 1):
        players = ", ".join(str(seat["name"]) for seat in rosters[int(night["id"])])
        print(f"  {number:>2}. {_local(night['created'])}  {players}  (--night {night['key']})")
    if not sys.stdin.isatty():
        print(_("Choose one with --night KEY."), file=sys.stderr)
        return None
    answer = input(_("Number (1-%(last)s): ", last=len(nights))).strip()
    if not answer.isdigit() or not 1 <= int(answer) <= len(nights):
        print(_("No night chosen."), file=sys.stderr)
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


#: How many other addresses the table page offers (with a QR code each); `companion
#: doctor` lists them all.
OTHER_URLS_SHOWN = 5


#: The ``--host`` values that listen on every network (IPv4's, IPv6's with IPv4 too).
EVERY_INTERFACE = ("0.0.0.0", "", "::")


def _addresses(args: argparse.Namespace,
               found: list[addresses.Interface]) -> tuple[str, list[str]]:
    """The base URL printed and put in the QR codes, and the other candidates (none
    when the host gave ``--public-url`` or a ``--host`` to listen on)."""
    if args.public_url:
        return args.public_url.rstrip("/"), []
    if args.host not in EVERY_INTERFACE:
        return addresses.base_url(args.host, args.port), []
    return addresses.urls(found, args.port)


def _stop_on_signals(server: connections.Server,
                     finished: Callable[[], bool]) -> console.WindowsConsole | None:
    """Ctrl+C (SIGINT), SIGTERM and a closed terminal (SIGHUP) stop the server:
    ``serve_forever`` returns, and no KeyboardInterrupt crosses gevent's loop (which
    prints it as a failure of its hub).
    Where gevent cannot watch a signal, Ctrl+C still arrives as KeyboardInterrupt, and
    the hub is told it is no error to print. On Windows, Ctrl+Break, closing the window,
    logging off and shutting down stop it as Ctrl+C does, and QuickEdit is off while it
    serves (companion/laptop/console.py): the console returned is given back at the stop.
    """
    hub = gevent.get_hub()
    hub.NOT_ERROR = (*hub.NOT_ERROR, KeyboardInterrupt)
    # SIGHUP: a Mac's or Linux's terminal window was closed (there is none on Windows).
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        try:
            gevent.signal_handler(getattr(signal, name), server.stop)
        except (AttributeError, ValueError, OSError, NotImplementedError):
            continue
    window = console.windows_console()
    if window is not None:
        window.quick_edit_off()
        # Windows calls the handler on a thread of its own: the stop is handed to the
        # loop's thread, and the handler waits with a real sleep, not gevent's.
        window.on_stop(lambda: hub.loop.run_callback_threadsafe(server.stop), finished,
                       monkey.get_original("time", "sleep"))
    return window


def qr_text(link: str) -> str | None:
    """The link's QR code for the terminal: in block characters where they come out
    square, in ASCII where the stream cannot encode them; None in a console that would
    draw the blocks stretched (a classic East Asian Windows console:
    companion/laptop/console.py), where an ASCII code would be too big to fit."""
    if console.can_print(BLOCKS) and not console.can_draw_blocks(BLOCKS):
        return None
    return text(link, plain=not console.can_print(BLOCKS))


#: Windows' "access denied" for a port (WSAEACCES): Hyper-V, WSL and Docker reserve
#: ranges of ports (``netsh interface ipv4 show excludedportrange protocol=tcp``).
WSAEACCES = 10013


def bind_refused(error: OSError, host: str, port: int) -> str | None:
    """The one line for a port the server could not listen on; None for another error."""
    if error.errno in (errno.EADDRINUSE, 10048):  # 10048: Windows' WSAEADDRINUSE
        return _("Port %(port)s is already in use. Stop the other program or choose "
                 "another port: companion serve --port %(next)s", port=port, next=port + 1)
    if error.errno in (errno.EACCES, WSAEACCES):
        return _("This computer does not let Companion use port %(port)s (Windows keeps "
                 "some ports for Hyper-V, WSL or Docker; below 1024 other systems ask for "
                 "an administrator). Choose another port: companion serve --port %(next)s",
                 port=port, next=port + 1)
    if error.errno == errno.EADDRNOTAVAIL:
        return _("This computer has no address %(host)s to listen on: leave out --host to "
                 "listen on every network.", host=host)
    return None


def _listener(args: argparse.Namespace) -> Any:
    """What the server listens on: ``--host`` and ``--port``; for ``::``, one socket
    for IPv6 and IPv4 alike (Windows would otherwise take IPv6 alone there, and the
    phones' IPv4 addresses would not reach it)."""
    if args.host == "::" and socket.has_dualstack_ipv6():
        return socket.create_server(("::", args.port), family=socket.AF_INET6,
                                    dualstack_ipv6=True, backlog=SERVE_SETTINGS["backlog"])
    return (args.host, args.port)


#: How long a game not finished counts as in progress after its last move, with no
#: device connected (every phone locked, the tablet asleep): a long pause, a meal.
GAME_PAUSE_SECONDS = 2 * 3600


def night_is_live(app: Flask, server: connections.Server) -> bool:
    """Whether the laptop must stay awake (companion/laptop/awake.py): a device holds a
    connection (every open page keeps one: its stream, or its next poll), or a game is in
    progress."""
    if server.connected():
        return True
    with app.app_context():
        return store.game_in_progress(GAME_PAUSE_SECONDS)


def _print_start(args: argparse.Namespace, public: str, others: list[str],
                 found: list[addresses.Interface], folder: Path, database: str) -> None:
    say = _printer(sys.stdout)
    say(_("Companion is running. Open %(url)s on the host's tablet or laptop.", url=public))
    kept = folder if Path(database).parent == folder else database  # COMPANION_DATABASE
    say(_("The group's data is kept in %(folder)s", folder=kept))
    if args.quiet:
        return
    if args.open:
        # The start page is the host's, with every seat's QR code: no console draws one.
        say(_("Its start page is opening in this computer's browser (%(url)s): start the "
              "night there, and each player scans their seat's QR code on its page.",
              url=local_url(args.port)))
    else:
        drawn = qr_text(public)
        say(drawn if drawn else _("This window cannot draw the QR code: type the address "
                                  "above on the tablet. The players' QR codes are on the "
                                  "table page."))
    if others:
        say(_("If phones cannot open it, this computer's other addresses (their QR codes "
              "are on the table page; companion doctor says why phones may not reach it):"))
        for interface in addresses.offered(found):
            if f"http://{interface.address}:{args.port}" in others:
                say(doctor.address_line(interface, args.port))
    say(_("Phones must be on the same Wi-Fi. To stop, press Ctrl+C or close this window: "
          "every night is kept."))


def _printer(stream: Any) -> Callable[[str], None]:
    """A print to ``stream`` that reaches the window at once."""
    return lambda line: print(line, file=stream, flush=True)


#: Loopback addresses: a server listening only there is out of every phone's reach.
LOOPBACK = ("127.0.0.1", "::1", "localhost")


def reach_warnings(host: str, facts: doctor.Facts) -> list[str]:
    """What keeps every phone out, said at start in the terminal (where the host looks
    while the first phone scans): listening on this computer alone, and a network Windows
    treats as Public (its firewall's prompt allowed Private networks only)."""
    warnings = []
    if host in LOOPBACK or host.startswith("127."):
        warnings.append(_("Only this computer can open it: --host %(host)s keeps every "
                          "phone out. Leave out --host to let phones in.", host=host))
    warnings += [_(step.message, **step.params) for step in doctor.advice(facts)
                 if step.key in ("windows-public", "windows-no-rule")]
    return warnings


#: Seconds after the start when Windows' firewall rules are read: the firewall's own
#: question (whose answer makes the rule) pops up as the port opens, and a host who
#: ticked Private only, or closed it, has answered by then.
RULES_READ_AFTER = 10.0


def _warn_of_reach(args: argparse.Namespace) -> None:
    """Say, within seconds of the start, what keeps phones out (:func:`reach_warnings`):
    Windows' networks are read in the background (PowerShell takes a second), its
    firewall's rules for this program a little later."""
    say = _printer(sys.stderr)
    networks = doctor.networks_read(doctor.COMMAND_SECONDS + 1)
    facts = doctor.Facts(system=platform.system(), port=args.port, networks=networks)
    said = reach_warnings(args.host, facts)
    for line in said:
        say(line)
    if not networks:
        return
    gevent.sleep(RULES_READ_AFTER)
    program, name = doctor.serving_program()
    facts = replace(facts, rules=doctor.read_windows_rules(program), program=name)
    for line in reach_warnings(args.host, facts):
        if line not in said:
            say(line)


def local_url(port: int) -> str:
    """The start page's address on this computer: ``localhost`` is a secure context, where
    the browser lets the page keep the screen awake."""
    return f"http://localhost:{port}/"


#: How many ports after the default one a double-clicked Companion tries.
PORTS_TRIED = 20


def _bound(args: argparse.Namespace, app: Flask) -> connections.Server | str:
    """The server, listening; or the line that says why it cannot. Started with no
    arguments (:func:`double_click`), a taken port moves it to the next free one."""
    wanted = args.port
    last = wanted + (PORTS_TRIED if getattr(args, "next_free", False) else 0)
    while True:
        try:
            server = connections.Server(_listener(args), app, **SERVE_SETTINGS)
            server.init_socket()
        except OSError as error:
            refused = bind_refused(error, args.host, args.port)
            if refused is None:
                raise
            if args.port >= last:
                return refused
            args.port += 1
            continue
        if args.port != wanted:
            _printer(sys.stdout)(_("Port %(port)s is in use: Companion uses port %(next)s.",
                                   port=wanted, next=args.port))
        return server


def serve(args: argparse.Namespace) -> int:
    folder = _data_or_exit(args.data)
    if folder is None:
        return 2
    monkey.patch_all()  # done already (companion/serving/gevent_first.py) unless called in-process
    quiet_exit.install()
    synced = places.sync_service_here(folder)
    if synced:
        print(_(places.SYNCED, folder=folder, service=synced), file=sys.stderr, flush=True)
    found = addresses.interfaces()
    app = ready(create_app({}, data=folder))
    server = _bound(args, app)
    if isinstance(server, str):
        print(server, file=sys.stderr)
        return 2
    public, others = _addresses(args, found)  # the port is known now
    app.config.update(PUBLIC_URL=public, OTHER_URLS=others[:OTHER_URLS_SHOWN])
    # Only once the port is this server's: a second `companion serve` started by
    # mistake, refused its port, must not forget the running server's Wi-Fi code.
    server_started(app)
    stopped: list[bool] = []  # set once the night is saved, for a closing window's wait
    # Before the address is printed: a stop may follow at once.
    window = _stop_on_signals(server, lambda: bool(stopped))
    _print_start(args, public, others, found, folder, app.config["DATABASE"])
    note = connections.open_files_note(connections.raise_open_files())
    if note:
        print(note, file=sys.stderr, flush=True)
    doctor.warm()  # PowerShell's second, in the background, before a page needs it
    gevent.spawn(_warn_of_reach, args)
    if args.open:
        gevent.spawn(webbrowser.open, local_url(args.port))
    holder = awake.inhibitor()
    keeper = gevent.spawn(awake.keep_awake_while, lambda: night_is_live(app, server), holder,
                          float(app.config["AWAKE_CHECK_SECONDS"]),
                          say=_printer(sys.stdout))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        server.stop()
    keeper.kill(timeout=5)  # waits for its release (gevent.kill would only schedule it)
    holder.release()
    if window is not None:
        window.restore()
    database = app.config["DATABASE"]
    store.checkpoint(database)  # the file alone holds every night: ready to copy
    # A closed window has no console left to print to; the night is saved all the same.
    with contextlib.suppress(OSError, ValueError):
        print(_("Companion stopped. Every night is saved in %(database)s", database=database),
              flush=True)
    stopped.append(True)
    return 0


def double_click(parser: argparse.ArgumentParser) -> argparse.Namespace:
    """What ``companion`` with no arguments does (the program, double-clicked): serve on
    the default port or the next free one, and open the start page in the browser."""
    args = parser.parse_args(["serve", "--open"])
    args.next_free = True
    return args


def check(args: argparse.Namespace) -> int:
    """`companion doctor`: the addresses, the port, the firewall and the steps."""
    print(doctor.report(doctor.facts(args.port)), flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    console.forgiving()  # a pipe in cp949 or cp1252 prints "?", never a traceback
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else argv
    args = double_click(parser) if not argv else parser.parse_args(argv)
    if args.command == "serve":
        return serve(args)
    if args.command == "host-link":
        return host_link(args)
    if args.command == "backup":
        return backup(args)
    if args.command == "doctor":
        return check(args)
    return 1


if __name__ == "__main__":
    sys.exit(main())
