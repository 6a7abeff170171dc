"""Companion: a light Flask app in the middle of a real board-game table."""

import gc
import secrets
from pathlib import Path

from flask import Flask, current_app, request
from flask_babel import Babel
from flask_wtf.csrf import CSRFProtect

from companion import db as database

ROOT = Path(__file__).resolve().parent.parent
LANGUAGES = ("ko", "en")

babel = Babel()
csrf = CSRFProtect()


def select_locale():
    """The language a person chose on this device, else the browser's, else Korean."""
    chosen = request.cookies.get("lang")
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(LANGUAGES) or current_app.config["LANGUAGE"]


def _secret_key(instance):
    """SECRET_KEY lives in instance/, made on first run, never in the code."""
    path = Path(instance) / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(48))
        path.chmod(0o600)
    return path.read_text().strip()


def ready(app):
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


def create_app(test_config=None):
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
    )
    app.config.from_prefixed_env("COMPANION")
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(app.instance_path)

    database.migrate(app.config["DATABASE"])
    babel.init_app(app, locale_selector=select_locale)
    csrf.init_app(app)

    from companion import web

    web.init_app(app)

    from companion import games, nights, tally
    from companion.crazytime import views as crazytime_views
    from companion.kraken import views as kraken_views
    from companion.skullking import views as skullking_views

    app.register_blueprint(nights.bp)
    app.register_blueprint(games.bp)
    app.register_blueprint(tally.bp)
    for module in (kraken_views, skullking_views, crazytime_views):
        app.register_blueprint(module.bp)
    return app
