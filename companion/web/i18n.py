"""Languages: the language route and cookie, a request's catalog looked up once, and dates as the
laptop's clock shows them."""

import re
import unicodedata
from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote

from babel.dates import format_datetime
from flask import (
    current_app,
    g,
    redirect,
    request,
    url_for,
)
from flask_babel import get_locale, get_translations
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup
from werkzeug.wrappers import Response as BaseResponse

from companion import store
from companion.web.http import YEAR

LANGUAGES = ("ko", "en")


#: How a stored time reads in each language, as Babel patterns (CLDR's medium forms,
#: "2026. 3. 14. 오후 7:05:00" and "Mar 14, 2026, 7:05:00 PM", read as machine output at a
#: table). The year is left out within the laptop's current year, as a phone's own
#: messages and calendar do; an older night shows it.
WHEN = {
    "ko": {"datetime": "M월 d일(E) a h:mm", "datetime_year": "y년 M월 d일(E) a h:mm",
           "date": "M월 d일(E)", "date_year": "y년 M월 d일(E)", "time": "a h:mm"},
    "en": {"datetime": "EEE d MMM, h:mm a", "datetime_year": "EEE d MMM y, h:mm a",
           "date": "EEE d MMM", "date_year": "EEE d MMM y", "time": "h:mm a"},
}


def _when(stamp: str, part: str) -> str:
    """A stored time stamp (UTC, ``store.connection.now()``) as the laptop's clock shows it, in
    the request's language: its date and time, its date, or its time of day. Text that is
    no such stamp is shown as it is."""
    try:
        moment = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except (TypeError, ValueError):
        return str(stamp)
    # The laptop's own zone, as the table reads the clock on the wall (Flask-Babel's
    # formatters would move it to their configured zone, UTC), in the request's language
    # (Korean, the default, outside a request).
    moment = moment.astimezone()
    locale = get_locale()
    language = locale.language if locale and locale.language in WHEN else "ko"
    if part != "time" and moment.year != datetime.now().astimezone().year:
        part += "_year"
    return format_datetime(moment, WHEN[language][part], locale=language)


def local_time(stamp: str) -> str:
    """A stored time stamp's date and time: "3월 14일(토) 오후 7:05", "Sat 14 Mar, 7:05 PM"."""
    return _when(stamp, "datetime")


def local_date(stamp: str) -> str:
    """A stored time stamp's date: "3월 14일(토)", "Sat 14 Mar"."""
    return _when(stamp, "date")


def local_clock(stamp: str) -> str:
    """A stored time stamp's time of day: "오후 7:05", "7:05 PM"."""
    return _when(stamp, "time")


def select_locale() -> str | None:
    """The language a person chose on this device, else the browser's, else Korean."""
    chosen = request.cookies.get("lang")
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(LANGUAGES) or current_app.config["LANGUAGE"]


def _plain_path(text: str) -> bool:
    """One "/" then no second "/" or "\\" (a browser reads "//" and "/\\" as another
    site), no seat or host link, no whitespace or control character (a browser drops a
    tab or line break, so "/\\t/x" is "//x"; a line break cannot go in a header)."""
    return (text.startswith("/") and not text.startswith(("//", "/\\", "/s/", "/h/"))
            and not any(c.isspace() or c == "\\" or unicodedata.category(c)[0] == "C"
                        for c in text))


def safe_next(target: str | None) -> str:
    """A local path to go back to, never another site (and never a seat or host link).

    Checked as sent and once percent-decoded ("/%73/<token>" is the seat link
    "/s/<token>"); anything else goes to the start page."""
    if not target or not _plain_path(target) or not _plain_path(unquote(target)):
        return url_for("nights.index")
    return target


_CODE_PAGE = re.compile(r"^/([sh])/([A-Za-z0-9_-]{32,64})$")


def code_page(target: str) -> bool:
    """Whether ``target`` is the question a real seat or host code opens ("Are you …?",
    "Become a host?"): a language switch there comes back to it, since its GET takes
    nothing (only answering it does). Any other seat or host link is not a way back."""
    found = _CODE_PAGE.match(target)
    if found is None:
        return False
    kind, token = found.groups()
    if kind == "s":
        return store.seat_by_token(token) is not None
    return store.host_invite(token) is not None


def set_language() -> BaseResponse:
    """Switch the language on this device; the choice is remembered in a cookie. It
    comes back to the page it was asked from."""
    lang = request.form.get("lang")
    target = request.form.get("next") or ""
    response = redirect(target if code_page(target) else safe_next(target), code=303)
    if lang in LANGUAGES:
        response.set_cookie("lang", lang, max_age=YEAR, samesite="Lax", httponly=True)
    return response


def request_catalog() -> Any:
    """This request's catalog, looked up once (flask-babel looks it up on every string)."""
    translations = g.get("_translations")
    if translations is None:
        translations = g._translations = get_translations()
    return translations


def gettext(string: str, **variables: Any) -> str:
    """flask-babel's ``gettext`` with the request's catalog looked up once, not per call.

    (A host's history describes every event of the game: flask-babel's own lookup of
    locale and domain on each line was half the time of a write's answer.)
    """
    text = request_catalog().ugettext(string)
    return text % variables if variables else text


def ngettext(singular: str, plural: str, num: int, **variables: Any) -> str:
    """The plural form for ``num`` in the request's language, as :func:`gettext` looks
    it up (``num`` is one of the variables)."""
    text: str = request_catalog().ungettext(singular, plural, num)
    return text % {"num": num, **variables}


# Jinja's new-style gettext, with the catalog read from the render's context (put there
# once per render) instead of through Flask's context locals on every string: a phone's
# fragment has two dozen strings, and those lookups were a fifth of its render.
def _rendered(context: Context, text: str, variables: dict[str, Any]) -> str:
    """As Jinja's own: trusted text, escaped variables, "%%" is "%"."""
    if context.eval_ctx.autoescape:
        text = Markup(text)
    return text % variables


@pass_context
def render_gettext(context: Context, string: str, **variables: Any) -> str:
    catalog = context.get("translations") or request_catalog()
    return _rendered(context, catalog.ugettext(string), variables)


@pass_context
def render_ngettext(context: Context, singular: str, plural: str, num: int, **variables: Any
              ) -> str:
    variables.setdefault("num", num)
    catalog = context.get("translations") or request_catalog()
    return _rendered(context, catalog.ungettext(singular, plural, num), variables)


_ = gettext
