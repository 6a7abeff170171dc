"""Companion: a light Flask app in the middle of a real board-game table.

The package itself loads nothing: importing a pure module (a game's rules, the core) loads
neither Flask nor gevent nor the database (tests/test_layers.py). The app factory is
``companion.app.create_app``. The one exception is the first line below, for the server.
"""

# Before any other import: when this process is `companion serve`, gevent patches the
# standard library here (companion/serving/gevent_first.py says why). Otherwise it loads
# nothing.
from companion.serving import gevent_first  # noqa: F401
