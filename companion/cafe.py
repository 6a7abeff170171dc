"""The café setup's worker: ``gunicorn -k companion.cafe.Worker "companion.wsgi:app"``.

gunicorn's ``gevent_pywsgi`` worker (gevent's own WSGI server in each worker, as
``companion serve`` runs it) with the same hold on connections as ``companion serve``
(companion/connections.py): deadlines for each request's head and body, a timeout for
each write, at most ``PER_ADDRESS`` connections from one client address, and the
open-files soft limit raised to the hard limit in each worker.
Needs gunicorn (``pip install 'companion[cafe]'``). Its master process does what a server
does once at its start (:meth:`Worker.check_config`).
"""

from __future__ import annotations

from typing import Any

from gunicorn.workers.ggevent import GeventPyWSGIWorker, PyWSGIHandler, PyWSGIServer

from companion import connections, create_app, server_started


class Handler(connections.Handler, PyWSGIHandler):
    """The head's deadline of :class:`companion.connections.Handler`, with gunicorn's
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
        (``companion.wsgi``'s, from the same ``COMPANION_*`` settings)."""
        server_started(create_app())

    def init_process(self) -> None:
        connections.raise_open_files()
        super().init_process()
