"""The app a server runs: ``gunicorn "companion.serving.wsgi:app"`` (the café setup).

The factory's app, made ready to serve (``companion.ready``): its templates compiled
and its start-up objects kept out of the garbage collector's way.
"""

from companion.app import create_app, ready

app = ready(create_app())
