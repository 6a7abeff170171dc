"""The web layer's plumbing, one module a concern: who is asking (``identity``), the names
the app answers to (``hosts``), languages and dates (``i18n``), headers, gzip, static
files and refusals told quietly to a browser (``http``), work beside the loop
(``offload``), what templates are given (``templating``), error pages (``errors``) and
pages whose size tells nothing of their secrets (``sealed``). ``init_app`` wires them
into an app; callers import what they use from its module."""

import logging
import sqlite3

from flask import Blueprint, Flask
from flask_wtf.csrf import CSRFError

from companion import store
from companion.core import colours
from companion.core.tokens import new_token
from companion.web import errors, hosts, http, i18n, sealed, templating

bp = Blueprint("web", __name__)

# Registered in this order: after-request hooks run last-registered first, so the
# headers (and gzip) are set before a write's checkpoint is scheduled, and a refusal
# turns 200 for a browser only once the headers have seen its status.
bp.add_url_rule("/favicon.ico", view_func=http.favicon)
bp.add_url_rule("/lang", view_func=i18n.set_language, methods=["POST"])
bp.app_url_defaults(http.version_static)
bp.after_app_request(http.checkpoint_later)
bp.after_app_request(http.quiet_refusal)
bp.after_app_request(http.headers)
bp.app_context_processor(templating.globals_)
bp.app_errorhandler(CSRFError)(errors.csrf_error)
bp.app_errorhandler(400)(errors.bad_request)
bp.app_errorhandler(403)(errors.forbidden)
bp.app_errorhandler(404)(errors.not_found)
bp.app_errorhandler(405)(errors.not_allowed)
bp.app_errorhandler(413)(errors.too_large)
bp.app_errorhandler(TimeoutError)(errors.arrived_too_slowly)
bp.app_errorhandler(sqlite3.OperationalError)(errors.not_stored)
bp.app_errorhandler(500)(errors.server_error)


def init_app(app: Flask) -> None:
    app.url_map.converters["int"] = http.SqliteInt  # before any blueprint adds its routes
    app.register_blueprint(bp)
    # First of every request's checks, before the forms' CSRF and anything that reads
    # or writes: a name not the app's gets a plain 400.
    app.before_request_funcs.setdefault(None, []).insert(0, hosts.known_host)
    app.logger.addFilter(errors.MASKED_TOKENS)  # tokens are never written to a log
    logging.getLogger("werkzeug").addFilter(errors.MASKED_TOKENS)
    app.jinja_env.filters["stored"] = sealed.stored
    app.jinja_env.filters["local_time"] = i18n.local_time
    app.jinja_env.filters["local_date"] = i18n.local_date
    app.jinja_env.filters["local_clock"] = i18n.local_clock
    app.jinja_env.filters["bdi"] = templating.bdi
    app.jinja_env.globals.update(
        _=i18n.render_gettext, gettext=i18n.render_gettext, ngettext=i18n.render_ngettext,
        shared=templating.shared, game_title=templating.game_title,
        game_players=templating.game_players,
        game_kinds=store.known_games, game_assets=templating.game_assets,
        secret=sealed.secret, new_form_token=new_token, hue=templating.hue,
        palette=colours.PALETTE, who=templating.who, players=templating.players,
        next_step=templating.next_step, moment_of=templating.moment_of)
