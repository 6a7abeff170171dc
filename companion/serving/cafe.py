"""The café setup's worker:
``gunicorn -c python:companion.serving.cafe "companion.serving.wsgi:app"``.

gunicorn's ``gevent_pywsgi`` worker (gevent's own WSGI server in each worker, as
``companion serve`` runs it) with the same hold on connections as ``companion serve``
(companion/serving/connections.py): deadlines for each request's head and body, a timeout for
each write, at most ``PER_ADDRESS`` connections from one client address, and the
open-files soft limit raised to the hard limit in each worker.
Needs gunicorn (``pip install 'companion-table[cafe]'``). Its master process does what a server
does once at its start (:meth:`Worker.check_config`).

As a gunicorn configuration module (``-c python:companion.serving.cafe``) it names this worker,
and its master ends a stop (Ctrl+C) with one line saying where the nights are kept.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from gunicorn.workers.ggevent import GeventPyWSGIWorker, PyWSGIHandler, PyWSGIServer

from companion.app import create_app, server_started
from companion.laptop.paths import data_folder
from companion.serving import connections

#: gunicorn's settings when this module is its configuration (``-c python:…``).
worker_class = "companion.serving.cafe.Worker"


class Handler(connections.Handler, PyWSGIHandler):
    """The head's deadline of :class:`companion.serving.connections.Handler`, with gunicorn's
    access log and environ."""


class Server(connections.Bounded, PyWSGIServer):
    """Each connection with the timeouts and the bound per client address of
    ``companion serve``."""


class Worker(GeventPyWSGIWorker):
    server_class = Server
    wsgi_handler = Handler

    @classmethod
    def check_config(cls, cfg: Any, log: Any) -> None:
        """Run by gunicorn's master once as it starts, before it makes any worker (and
        never when it makes one again): the server's start (``companion.server_started``:
        the Wi-Fi codes not remembered are forgotten), on the app the workers will serve
        (``companion.serving.wsgi``'s, from the same ``COMPANION_*`` settings)."""
        server_started(create_app())

    def init_process(self) -> None:
        connections.raise_open_files()
        super().init_process()  # returns when the worker has stopped serving (SIGTERM)
        self._end()

    def handle_quit(self, sig: int, frame: Any) -> None:
        """Ctrl+C (SIGINT, which a terminal sends every worker too) and the master's
        SIGQUIT: stop at once, as gunicorn does, but without its ``sys.exit`` from a
        greenlet, which gevent prints as a failure with its traceback."""
        self.alive = False
        self.cfg.worker_int(self)
        self._end()

    @staticmethod
    def _end() -> None:
        """Leave the process without the interpreter's shutdown. gunicorn's worker is
        patched for gevent after the master imported ``logging``, so the shutdown's
        clean-up of logging's handlers called gevent's already-cleared thread functions
        ("Exception ignored in: <function _removeHandlerRef …> … TypeError"). Every
        write was committed when it was answered (SQLite, docs/security.md): nothing
        is waiting to be saved."""
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def database() -> str:
    """The database the café's workers use (``companion.app.create_app``'s choice)."""
    return os.environ.get("COMPANION_DATABASE") or str(data_folder() / "companion.sqlite")


def on_exit(_server: Any) -> None:
    """gunicorn's hook, in its master, once every worker has ended."""
    print(f"Companion stopped. Every night is saved in {database()}", flush=True)
