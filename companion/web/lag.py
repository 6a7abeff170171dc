"""How late this process's loop runs, and the pages told to slow down while it lags
(docs/architecture.md, "Overload"; the decisions are companion/core/overload.py's).

Under gevent (``companion serve``, the café's workers) one greenlet per process sleeps
``TICK`` seconds again and again and notes how late it wakes: every request the loop
runs before it is in that lateness, so it is the wait a request that arrives now will
have. The measurement is this process's own (each café worker has its loop and its
lag), a measurement and not shared state: no process needs another's. Under a threaded
server (the tests' in-process server, ``flask run``) nothing is measured, and the
process always keeps up.

While the process lags:

* every answer to htmx says ``X-Slow-Down: <seconds>``: the page polls no more often
  than that, asks again no sooner for a refresh that did not land, and waits that much
  longer for an answer before it says the laptop cannot be reached (static/js/live.js);
* a live refresh (a GET from htmx) is answered 429 with ``Retry-After`` before any work
  once the lag is past ``overload.SHED_MS``: the page asks again after it, and a write,
  never turned away, finds a shorter queue;
* every stream frame carries a longer ``retry:``, and past ``overload.SHED_MS`` a new
  stream is answered with "busy" and a ``retry:`` (companion/table/push.py).
"""

from __future__ import annotations

import os
import time

import gevent
from flask import Response, request
from gevent import monkey

from companion.core import overload
from companion.core.overload import Lag

#: How often the loop's lag is sampled (s).
TICK = 0.05
#: The header that tells a page how long to wait before it polls or reconnects.
HEADER = "X-Slow-Down"


class Gauge:
    """This process's loop lag: a greenlet started with the first request (again in a
    forked child, which has its own loop)."""

    def __init__(self) -> None:
        self.lag = Lag()
        self._pid = 0

    def start(self) -> None:
        if self._pid != os.getpid() and monkey.is_module_patched("socket"):
            self._pid = os.getpid()
            self.lag = Lag()
            gevent.spawn(self._loop, self._pid)

    def _loop(self, pid: int) -> None:
        last = time.monotonic()
        while self._pid == pid:
            gevent.sleep(TICK)
            now = time.monotonic()
            self.lag = self.lag.after((now - last - TICK) * 1000, now - last)
            last = now


_gauge = Gauge()


def current() -> Lag:
    """This process's lag now (never behind where nothing measures it)."""
    _gauge.start()
    return _gauge.lag


def hint_seconds() -> int:
    """How long a page should wait before it polls or reconnects (0: as usual)."""
    return overload.hint_seconds(current())


def is_refresh() -> bool:
    """A GET from htmx: a live region's refresh (its poll, or its fetch after a change)."""
    return request.method == "GET" and bool(request.headers.get("HX-Request"))


def shed() -> Response | None:
    """Before any work: a live refresh while the process is far behind is answered
    "come back in n s" (429, never a 5xx), so the queue shrinks and writes go through."""
    lag = current()
    if not is_refresh() or not overload.sheds_refresh(lag):
        return None
    wait = str(overload.hint_seconds(lag))
    return Response(status=429, headers={"Retry-After": wait, HEADER: wait,
                                         "Cache-Control": "no-store"})


def tell(response: Response) -> Response:
    """Every answer to htmx says how long to wait while the process lags."""
    wait = hint_seconds()
    if wait and request.headers.get("HX-Request"):
        response.headers[HEADER] = str(wait)
    return response
