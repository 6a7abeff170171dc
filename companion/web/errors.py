"""Error pages: every refused or failed request answers with a page that says what happened,
and records nothing."""

import logging
import re
import sqlite3
from collections.abc import Callable
from typing import Any

from flask import (
    Response,
    current_app,
    render_template,
    request,
)
from flask.typing import ResponseReturnValue

from companion import store
from companion.web.i18n import _
from companion.web.identity import device, is_htmx

#: A path's segment that may be a token (a seat, host, screen or TV code, a night's key:
#: 32 to 64 characters of the tokens' alphabet after a slash).
TOKEN_IN_PATH = re.compile(r"(?<=/)[A-Za-z0-9_-]{32,64}(?![A-Za-z0-9_-])")


def masked(text: str) -> str:
    """``text`` with every token in a path written "…": ``/s/…``."""
    return TOKEN_IN_PATH.sub("…", text)


class MaskedTokens(logging.Filter):
    """A log record's message and traceback with the tokens of its paths masked: Flask
    logs a failed request as "Exception on /s/<the seat's token> [GET]", and a token in
    a terminal or a log file is a seat or a host for whoever reads it."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = masked(record.getMessage()), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = masked(record.exc_text)
        return True


#: The one filter, given to the app's logger and werkzeug's (``flask run``'s request
#: lines): a logger keeps a filter once however many apps are made.
MASKED_TOKENS = MaskedTokens()


def error_page(message: str, status: int, **extra: Any) -> tuple[str, int]:
    return render_template("error.html", message=message, status=status, **extra), status


#: How a form that carries typed text answers a refused form token (CSRF): its page
#: again, with what was typed and the reason (None: the plain error page). Registered by
#: the blueprints that own such forms (:func:`keeps_typed`), by endpoint.
KeepTyped = Callable[[str], ResponseReturnValue | None]


_keeps_typed: dict[str, KeepTyped] = {}


def keeps_typed(*endpoints: str) -> Callable[[KeepTyped], KeepTyped]:
    """Register ``answer(message)`` for these endpoints' forms: when their CSRF token is
    refused (a page open too long, a browser that lost its session), the page comes back
    with what was typed in it, and nothing is recorded. The answer must not write, and
    returns None when the request is not one it can answer (the plain error page then)."""
    def register(answer: KeepTyped) -> KeepTyped:
        for endpoint in endpoints:
            _keeps_typed[endpoint] = answer
        return answer
    return register


def csrf_error(_error: Exception) -> ResponseReturnValue:
    keep = _keeps_typed.get(request.endpoint or "")
    answer = keep(_("This page was open too long or came from elsewhere, so nothing was "
                    "recorded. What you typed is kept below: check it and send it again.")
                  ) if keep is not None else None
    if answer is not None:
        return answer
    return error_page(
        _("This page was open too long or came from elsewhere. Reload it and try again."),
        400,
    )


def bad_request(_error: Exception) -> ResponseReturnValue:
    return error_page(_("That request could not be read. Reload the page and try again."),
                      400)


def forbidden(_error: Exception) -> ResponseReturnValue:
    return error_page(_("Only the host device can do that."), 403)


# A host's address: the night's key comes first (/n/<key>, /n/<key>/g/3 …).
_HOST_PATH = re.compile(r"^/n/([^/]+)")


def not_found(_error: Exception) -> ResponseReturnValue:
    if request.path.startswith(f"{current_app.static_url_path}/"):
        # a missing asset: a few bytes of text, no page, no form token, no cookie
        return Response("Not found\n", 404, mimetype="text/plain")
    host_path = _HOST_PATH.match(request.path)
    if host_path and store.hosted_night(host_path.group(1), device()) is None:
        # A night's address on a device that does not host it: perhaps the host's own
        # browser, which lost its cookies. The same page whether the night exists or not.
        return error_page(_("There is nothing here."), 404, host_link=True,
                          host_code_minutes=store.HOST_CODE_MINUTES)
    return error_page(_("There is nothing here."), 404)


def not_allowed(_error: Exception) -> ResponseReturnValue:
    return error_page(_("There is nothing here."), 405)


def too_large(_error: Exception) -> ResponseReturnValue:
    return error_page(_("That was too much text to send."), 413)


def arrived_too_slowly(_error: Exception) -> ResponseReturnValue:
    """A request's body stopped arriving (companion/serving/connections.py: each read has a
    timeout): nothing of it was used."""
    return error_page(_("What was sent stopped arriving, so nothing was recorded. "
                        "Try again."), 408)


def not_stored(error: sqlite3.OperationalError) -> ResponseReturnValue:
    """The database refused (disk full, read-only file, locked too long): say so.

    Nothing was stored (every write is one transaction, rolled back), and what was
    stored before is untouched. An htmx form gets the message on top of its #live
    region, keeping the page it came from; a poll gets nothing to swap.
    """
    current_app.logger.error("database error on %s %s: %s", request.method,
                             request.endpoint, error)
    if request.method == "GET":
        text = _("The table's records could not be read just now. Try again in a moment.")
    else:
        text = _("This could not be stored: the laptop's disk may be full or the "
                 "database cannot be written. Everything recorded before is safe. "
                 "Make room and try again.")
    if is_htmx():
        response = current_app.make_response(
            (render_template("_error.html", error=text), 503))
        if request.method == "GET":
            response.headers["HX-Reswap"] = "none"
        else:
            response.headers["HX-Retarget"] = "#live"
            response.headers["HX-Reswap"] = "afterbegin"
        return response
    return error_page(text, 503)


def server_error(_error: Exception) -> ResponseReturnValue:
    return error_page(_("Something went wrong. Nothing was recorded; try again."), 500)
