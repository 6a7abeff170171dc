"""The floor: a bare Flask "hello" app, served exactly like Companion (issue 7).

Whatever Companion costs per request on top of this is ours; this is the stack's own cost.

    python bench/floor.py --port 8770 --threads 4           # waitress, as `companion serve`
    gunicorn -w 5 -k gthread --threads 2 "bench.floor:create_app()"   # as the café setup
"""

import argparse

from flask import Flask

app = Flask(__name__)


@app.get("/")
def hello():
    return "hello"


def create_app():
    return app


def main(argv=None):
    parser = argparse.ArgumentParser(description="A bare Flask app under waitress.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args(argv)

    from waitress import serve

    # The same settings as companion.cli.serve.
    serve(app, host=args.host, port=args.port, threads=args.threads, connection_limit=2000,
          channel_timeout=60, ident="floor")


if __name__ == "__main__":
    main()
