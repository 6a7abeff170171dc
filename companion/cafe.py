"""The café setup's worker: ``gunicorn -c python:companion.cafe "companion.wsgi:app"``.

gunicorn's ``gevent_pywsgi`` worker (gevent's own WSGI server in each worker, as
``companion serve`` runs it) with the same hold on connections as ``companion serve``
(companion/connections.py): a deadline for each request's head, a timeout for each read
and write, and the open-files soft limit raised to the hard limit in each worker.
Needs gunicorn (``pip install 'companion[cafe]'``).

As a gunicorn configuration module (``-c python:companion.cafe``) it names this worker,
and its master ends a stop (Ctrl+C) with one line saying where the nights are kept.
"""

from __future__ import annotations

import os
import socket
import sys
from typing import Any

from gunicorn.workers.ggevent import GeventPyWSGIWorker, PyWSGIHandler, PyWSGIServer

from companion import connections
from companion.places import data_folder

#: gunicorn's settings when this module is its configuration (``-c python:…``).
worker_class = "companion.cafe.Worker"


class Handler(connections.Handler, PyWSGIHandler):
    """The head's deadline of :class:`companion.connections.Handler`, with gunicorn's
    access log and environ."""


class Server(PyWSGIServer):
    """Each connection with the read and write timeout of ``companion serve``."""

    def handle(self, sock: socket.socket, address: Any) -> None:
        sock.settimeout(connections.READ_SECONDS)
        super().handle(sock, address)


class Worker(GeventPyWSGIWorker):
    server_class = Server
    wsgi_handler = Handler

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
    """The database the café's workers use (``companion.create_app``'s choice)."""
    return os.environ.get("COMPANION_DATABASE") or str(data_folder() / "companion.sqlite")


def on_exit(_server: Any) -> None:
    """gunicorn's hook, in its master, once every worker has ended."""
    print(f"Companion stopped. Every night is saved in {database()}", flush=True)
