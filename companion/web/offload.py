"""Work that would stop the loop, done beside it: costly views one at a time per client address."""

import contextvars
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial, wraps
from typing import Any, TypeVar, cast

import gevent
from flask import (
    g,
    has_request_context,
    request,
)
from gevent import monkey

T = TypeVar("T")


def beside_the_loop(work: Callable[..., T], *args: Any) -> T:
    """``work(*args)``'s answer, worked out where other requests go on meanwhile: under
    gevent in a thread of gevent's pool (the interpreter switches threads every few
    milliseconds, so the loop's greenlets keep answering while a long computation runs;
    on the loop itself, checking one upload stopped every table for its whole length).
    Elsewhere each request has its thread, and it runs there. The thread sees the
    request's context (its app, and so its games: ``store.known_games``) as the request
    does."""
    if not monkey.is_module_patched("threading"):
        return work(*args)
    context = contextvars.copy_context()

    def outcome() -> tuple[bool, Any]:
        # An exception comes back as a value: gevent's pool would print the traceback of
        # every refused upload before handing it on.
        try:
            return True, context.run(work, *args)
        except Exception as error:
            return False, error

    done, value = gevent.get_hub().threadpool.apply(outcome)
    if not done:
        raise value
    return cast(T, value)


#: The client addresses with a costly answer under way in this process, each with its
#: lock and how many of its requests hold or wait for it. Touched only on the loop (a
#: greenlet never yields inside these few lines), like the spare connections of db.py.
_turns: dict[str, list[Any]] = {}


@contextmanager
def one_at_a_time(key: str) -> Iterator[None]:
    """Hold ``key``'s turn (a client address's): a second costly request from it waits
    for the first to be answered. Its lock is made when first asked for, so that under
    gevent it is gevent's (a lock made before ``companion serve`` patched would stop
    the loop while it waits)."""
    turn = _turns.setdefault(key, [threading.Lock(), 0])
    turn[1] += 1
    try:
        with turn[0]:
            yield
    finally:
        turn[1] -= 1
        if not turn[1]:
            del _turns[key]


def in_turn(work: Callable[..., T], *args: Any) -> T:
    """``work(*args)`` beside the loop and in the client address's turn (one at a time
    for each address): what a costly view does, for a piece of a view (a QR code drawn
    when it is not kept). Inside a costly view's turn, or outside a request, it just
    runs."""
    if not has_request_context() or g.get("costly"):
        return work(*args)
    g.costly = True
    try:
        with one_at_a_time(request.remote_addr or ""):
            return beside_the_loop(work, *args)
    finally:
        g.costly = False


def costly(view: Callable[..., T]) -> Callable[..., T]:
    """A view whose answer may take a tenth of a second or more on a long night (an
    export, a picture, the tally, the statistics): worked out beside the loop, so other
    tables' requests go on meanwhile, and one at a time for each client address, so that
    four requests at once from one guest cost four turns, not four threads at once
    (docs/security.md)."""
    @wraps(view)
    def answer(*args: Any, **kwargs: Any) -> T:
        return in_turn(partial(view, *args, **kwargs))
    return answer


def later(seconds: float, work: Callable[..., Any], *args: Any) -> None:
    """``work(*args)`` in ``seconds``, beside every request: under gevent a greenlet
    that starts then, elsewhere a timer's thread. Nothing waits for it, and a server
    that stops before then never runs it."""
    if monkey.is_module_patched("threading"):
        gevent.spawn_later(seconds, work, *args)
    else:
        timer = threading.Timer(seconds, work, args)
        timer.daemon = True
        timer.start()
