"""Live: every screen follows its night as it changes, and the table counts a reveal
together (docs/architecture.md#live-push, "A synchronised reveal").

- ``watcher``: the process's watcher of the nights' versions, which wakes the streams of
  a night that changed (threads and locks, no Flask);
- ``streams``: each live region's Server-Sent Events stream, its routes and its pace;
- ``clock``: the laptop's clock every screen of the table counts by, and the synchronised
  reveal a game declares (``GameDef.reveal``): its moment, ``reveal_at(game)``.

:func:`enabled` says whether this app's pages open streams at all; the count needs them.
"""

from flask import current_app
from gevent import monkey


def enabled() -> bool:
    """Whether this app's pages open streams: ``LIVE_PUSH`` True or False, or "auto"
    (the default): on when gevent has patched the server's sockets (``companion serve``,
    gunicorn's gevent workers), where a stream costs a greenlet, not a thread."""
    setting = current_app.config["LIVE_PUSH"]
    if setting == "auto":
        return monkey.is_module_patched("socket")
    return bool(setting)
