"""The floor: a bare Flask "hello" app, served exactly like Companion.

Whatever Companion costs per request on top of this is ours; this is the stack's own cost.
Under `companion serve`'s server (gevent) it runs with `companion serve`'s settings, taken
from where `companion serve` takes them (``SERVE_SETTINGS`` in companion/serving/cli.py), so the
two cannot drift apart. bench/bench.py reads them and passes them on (``--settings``),
so that the floor's process does not import the companion package (some 13 MB that
would count in the floor's memory).

    python bench/floor.py --port 8770                        # gevent, as `companion serve`
    gunicorn -w 2 -k gevent_pywsgi "bench.floor:create_app()"       # as the café setup
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from flask import Flask

app = Flask(__name__)


@app.get("/")
def hello() -> str:
    return "hello"


def create_app() -> Flask:
    return app


def serve_settings() -> dict[str, Any]:
    """`companion serve`'s server settings."""
    from companion.serving import cli  # the whole companion package: only where needed

    return dict(cli.SERVE_SETTINGS)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="A bare Flask app under gevent, with `companion serve`'s settings.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--settings", type=json.loads,
                        help="companion.serving.cli.SERVE_SETTINGS as JSON "
                             "(default: read from there)")
    args = parser.parse_args(argv)
    settings = serve_settings() if args.settings is None else args.settings

    from gevent import monkey

    monkey.patch_all()  # as `companion serve` does, first thing
    import socket

    from gevent.pywsgi import WSGIServer

    class Server(WSGIServer):
        """As companion.serving.cli.Server: Nagle's algorithm off on each connection."""

        def handle(self, sock: socket.socket, address: Any) -> None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            super().handle(sock, address)

    # The same server as companion.serving.cli.serve, with the same settings.
    Server((args.host, args.port), app, **settings).serve_forever()


if __name__ == "__main__":
    main()
