"""Serving the app: the command line (``companion serve``, ``host-link``, ``backup``,
``doctor``), how connections are held, the café's gunicorn worker, the WSGI entry, where
files live, and gevent's patches, applied first when this process serves."""
