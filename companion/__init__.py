"""Companion: a light Flask app in the middle of a real board-game table."""

import gc
import secrets
from pathlib import Path
from typing import Any

from flask import Flask
from flask_babel import Babel
from flask_wtf.csrf import CSRFProtect

from companion import db, games, nights, registry, tally, web

ROOT = Path(__file__).resolve().parent.parent
LANGUAGES = web.LANGUAGES

babel = Babel()
csrf = CSRFProtect()


def _secret_key(instance: str) -> str:
    """SECRET_KEY lives in instance/, made on first run, never in the code."""
    path = Path(instance) / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(48))
        path.chmod(0o600)
    return path.read_text().strip()


def ready(app: Flask) -> Flask:
    """Make a served app ready before its first request; returns it.

    Done once per server process (``companion serve``, ``companion.wsgi`` for gunicorn):
    every template is compiled, so no player waits for a page's first compile; then the
    objects made so far (the app, its modules and templates: nearly all a worker ever
    holds) are frozen out of the garbage collector's way. A full collection walks every
    tracked object: without the freeze it took ~15 ms about once per 400 requests, and
    every request of that process waited for it.
    """
    for name in app.jinja_env.list_templates():
        app.jinja_env.get_template(name)
    gc.collect()
    gc.freeze()
    return app


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    app = Flask(
        __name__,
        instance_path=str(ROOT / "instance"),
        instance_relative_config=True,
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    app.config.from_mapping(
        DATABASE=str(Path(app.instance_path) / "companion.sqlite"),
        PUBLIC_URL=None,
        BABEL_TRANSLATION_DIRECTORIES=str(Path(__file__).parent / "translations"),
        BABEL_DEFAULT_LOCALE="ko",
        LANGUAGE="ko",  # for a browser that names neither Korean nor English
        WTF_CSRF_TIME_LIMIT=None,
        WTF_CSRF_SSL_STRICT=False,
        SEND_FILE_MAX_AGE_DEFAULT=365 * 24 * 3600,
        MAX_CONTENT_LENGTH=2 * 1024 * 1024,
        SESSION_COOKIE_SAMESITE="Lax",
        POLL_SECONDS=2,
        GAMES=list(registry.INSTALLED),
    )
    app.config.from_prefixed_env("COMPANION")
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(app.instance_path)

    db.migrate(app.config["DATABASE"])
    babel.init_app(app, locale_selector=web.select_locale)
    csrf.init_app(app)
    web.init_app(app)
    app.register_blueprint(nights.bp)
    app.register_blueprint(games.bp)
    app.register_blueprint(tally.bp)
    for game in registry.load(tuple(app.config["GAMES"])).values():
        app.register_blueprint(game.blueprint)
    return app
