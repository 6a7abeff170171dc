"""The floor: a bare Flask "hello" app, served exactly like Companion.

Whatever Companion costs per request on top of this is ours; this is the stack's own cost.
Under waitress it runs with `companion serve`'s settings, taken from where `companion
serve` takes them (``SERVE_SETTINGS`` and the default thread count in companion/cli.py),
so the two cannot drift apart. bench/bench.py reads them and passes them on
(``--settings``), so that the floor's process does not import the companion package
(some 13 MB that would count in the floor's memory).

    python bench/floor.py --port 8770                        # waitress, as `companion serve`
    gunicorn -w 5 -k gthread --threads 2 "bench.floor:create_app()"   # as the café setup
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


def serve_settings() -> tuple[dict[str, Any], int]:
    """`companion serve`'s waitress settings and default number of threads."""
    from companion import cli  # the whole companion package: only where needed

    return dict(cli.SERVE_SETTINGS), cli.build_parser().parse_args(["serve"]).threads


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="A bare Flask app under waitress, with `companion serve`'s settings.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--threads", type=int,
                        help="waitress threads (default: `companion serve`'s default)")
    parser.add_argument("--settings", type=json.loads,
                        help="companion.cli.SERVE_SETTINGS as JSON (default: read from there)")
    args = parser.parse_args(argv)
    settings, threads = args.settings, args.threads
    if settings is None or threads is None:
        served, default_threads = serve_settings()
        settings = served if settings is None else settings
        threads = default_threads if threads is None else threads

    from waitress import create_server

    # The same call as companion.cli.serve, with the same settings.
    server = create_server(app, host=args.host, port=args.port, threads=threads, **settings)
    server.run()


if __name__ == "__main__":
    main()
