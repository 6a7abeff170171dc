"""What every response shares: the device cookie, security headers, errors, languages."""

import contextvars
import gzip
import hashlib
import re
import sqlite3
import threading
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import partial, wraps
from pathlib import Path
from typing import Any, TypeVar, cast
from urllib.parse import unquote

import gevent
from babel.dates import format_datetime
from flask import (
    Blueprint,
    Flask,
    Response,
    abort,
    current_app,
    g,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue
from flask_babel import get_locale, get_translations
from flask_wtf.csrf import CSRFError, generate_csrf
from gevent import monkey
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape
from werkzeug.routing import IntegerConverter, Map
from werkzeug.security import safe_join
from werkzeug.wrappers import Response as BaseResponse

from companion import colours, registry, sealed, store
from companion.db import checkpoint, checkpoint_due
from companion.lru import LRU
from companion.tokens import device_id, new_token

bp = Blueprint("web", __name__)
T = TypeVar("T")

LANGUAGES = ("ko", "en")
DEVICE_COOKIE = "device"
YEAR = 365 * 24 * 3600
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{32,64}$")

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)


def device() -> str:
    """This browser's id: the hash of its HttpOnly cookie (made on its first request).
    The database keeps only the hash (tokens.device_id)."""
    if "device" not in g:
        value = request.cookies.get(DEVICE_COOKIE, "")
        g.new_device = not _TOKEN.match(value)
        g.device_cookie = new_token() if g.new_device else value
        g.device = device_id(g.device_cookie)
    return str(g.device)


def form_token() -> str | None:
    """The one-time token of the posted form (a night or a game is made once per token),
    or None when the form has none that looks like one."""
    value = request.form.get("form_token", "")
    return value if _TOKEN.match(value) else None


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
    """A stored time stamp (UTC, companion.db.now()) as the laptop's clock shows it, in
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


def hosted_night(key: str) -> store.Row:
    """The night with this key if this device hosts it; anyone else gets a plain 404."""
    night = store.hosted_night(key, device())
    if night is None:
        abort(404)
    return night


def my_seat() -> store.Row | None:
    """The seat this phone holds in its latest night (or None)."""
    return store.my_seat(device())


def select_locale() -> str | None:
    """The language a person chose on this device, else the browser's, else Korean."""
    chosen = request.cookies.get("lang")
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(LANGUAGES) or current_app.config["LANGUAGE"]


def is_htmx() -> bool:
    return request.headers.get("HX-Request") == "true"


def unchanged(version: int | None) -> bool:
    """True when the screen asking already shows this version of its night.

    Every live region polls its own URL with ``?v=<the version it shows>``; when nothing
    changed the answer is an empty 204 (htmx swaps nothing), before any replay or render.
    """
    return request.args.get("v") == str(version)


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


@bp.get("/favicon.ico")
def favicon() -> Response:
    """Browsers ask for /favicon.ico on their own (a download, a bookmark): the icon."""
    return current_app.send_static_file("favicon.png")


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


@bp.post("/lang")
def set_language() -> BaseResponse:
    """Switch the language on this device; the choice is remembered in a cookie. It
    comes back to the page it was asked from."""
    lang = request.form.get("lang")
    target = request.form.get("next") or ""
    response = redirect(target if code_page(target) else safe_next(target), code=303)
    if lang in LANGUAGES:
        response.set_cookie("lang", lang, max_age=YEAR, samesite="Lax", httponly=True)
    return response


_static_versions: dict[tuple[str, int, int], str] = {}


def static_version(filename: str) -> str:
    """A short hash of a static file, so its URL changes when it does (cached a year). The
    hash is worked out again when the file's change time or size moves, as the gzip cache
    does: under ``flask run --debug`` an edited ``js/live.js`` gets a new URL at once."""
    path = Path(cast(str, current_app.static_folder)) / filename  # create_app sets it
    try:
        stat = path.stat()
    except OSError:
        return "0"
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    version = _static_versions.get(key)
    if version is None:
        try:
            version = hashlib.sha256(path.read_bytes()).hexdigest()[:10]
        except OSError:
            return "0"
        _static_versions[key] = version
    return version


# gzip where it pays: text bodies of at least a kilobyte, to a client that asks for it.
GZIP_MIN_BYTES = 1024
GZIP_TYPES = frozenset({"text/html", "text/css", "text/javascript", "application/javascript",
                        "image/svg+xml", "application/json", "text/plain"})
# path -> (mtime, size, gzipped bytes): one entry per static file
_static_gzip: dict[str, tuple[int, int, bytes]] = {}


def _gzipped_static(filename: str) -> bytes | None:
    """A static file compressed once per process (and again only if the file changes)."""
    path = safe_join(cast(str, current_app.static_folder), filename)
    if path is None:
        return None
    try:
        stat = Path(path).stat()
        cached = _static_gzip.get(path)
        if cached is None or cached[:2] != (stat.st_mtime_ns, stat.st_size):
            data = gzip.compress(Path(path).read_bytes(), compresslevel=9, mtime=0)
            cached = _static_gzip[path] = (stat.st_mtime_ns, stat.st_size, data)
    except OSError:
        return None
    return cached[2]


def _seal(response: Response) -> bool:
    """A page that carries a secret: compressed around the secret, whatever its status
    or size (companion/sealed.py); without gzip, only its markers go. Returns whether
    the response was such a page."""
    if response.is_streamed or response.direct_passthrough or response.mimetype != "text/html":
        return False
    body = response.get_data()
    if not sealed.has_secret(body):
        return False
    if "gzip" in request.headers.get("Accept-Encoding", ""):
        response.set_data(sealed.gzip(body))
        response.headers["Content-Encoding"] = "gzip"
    else:
        response.set_data(sealed.plain(body))
    response.vary.add("Accept-Encoding")
    return True


def compress(response: Response) -> Response:
    """gzip the response body if the client accepts it and it is worth it."""
    if _seal(response):
        return response
    if (response.status_code != 200 or response.mimetype not in GZIP_TYPES
            or "Content-Encoding" in response.headers
            or "gzip" not in request.headers.get("Accept-Encoding", "")):
        return response
    if request.endpoint == "static":
        if (response.content_length or 0) < GZIP_MIN_BYTES:
            return response
        data = _gzipped_static((request.view_args or {}).get("filename", ""))
        if data is None:
            return response
        response.close()  # the file send_file opened
        response.direct_passthrough = False
        etag, weak = response.get_etag()
        if etag:
            response.set_etag(etag + "-gzip", bool(weak))  # a bool whenever there is an etag
    else:
        if response.is_streamed or response.direct_passthrough:
            return response
        body = response.get_data()
        if len(body) < GZIP_MIN_BYTES:
            return response
        data = gzip.compress(body, compresslevel=6, mtime=0)
    response.set_data(data)
    response.headers["Content-Encoding"] = "gzip"
    response.vary.add("Accept-Encoding")
    return response


def _translations() -> Any:
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
    text = _translations().ugettext(string)
    return text % variables if variables else text


def ngettext(singular: str, plural: str, num: int, **variables: Any) -> str:
    """The plural form for ``num`` in the request's language, as :func:`gettext` looks
    it up (``num`` is one of the variables)."""
    text: str = _translations().ungettext(singular, plural, num)
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
def _gettext(context: Context, string: str, **variables: Any) -> str:
    catalog = context.get("translations") or _translations()
    return _rendered(context, catalog.ugettext(string), variables)


@pass_context
def _ngettext(context: Context, singular: str, plural: str, num: int, **variables: Any
              ) -> str:
    variables.setdefault("num", num)
    catalog = context.get("translations") or _translations()
    return _rendered(context, catalog.ungettext(singular, plural, num), variables)


_ = gettext

_shared = LRU(1024, 32 * 1024 * 1024, len)  # at most 32 MB of HTML


@pass_context
def shared(context: Context, name: str) -> Markup:
    """A fragment every screen of the table shows alike, rendered once and reused.

    For what the host and all the phones show the same way (the table at a glance, the
    token series): no secret, no form, nothing of the viewer's own. It is rendered once
    per night version, game position and language in this process, then reused for
    each device that asks — a table's nine screens ask for the same one after a change.
    The key holds all such a fragment may show: the night's version (names, the other
    games), the game and its log position, the language.
    """
    night, game = context["night"], context["game"]
    key = (current_app.config["DATABASE"], night["key"], night["version"], game.id,
           game.length, str(get_locale()), name)
    html = _shared.get(key)
    if html is None:
        html = Markup(context.environment.get_template(name).render(context.get_all()))
        _shared.put(key, html)
    return html


def _night_id(context: Context) -> int | None:
    """The night a page is about: its ``night``, or the night of its ``seat`` or
    ``game``."""
    if context.get("night"):
        return int(context["night"]["id"])
    for name in ("seat", "game"):
        value = context.get(name)
        if isinstance(value, dict) and "night_id" in value:
            return int(value["night_id"])
        if value is not None and hasattr(value, "night_id"):
            return int(value.night_id)
    return None


@pass_context
def hue(context: Context, seat: int | None) -> str:
    """The class of a player's colour (``pc-<key>``, static/app.css) on the page's night,
    or "" where there is no such seat: from the page's ``colours`` (its night's board)
    when it has them, else read once per request."""
    if seat is None:
        return ""
    board_colours = context.get("colours")  # a screen drawn from its night's board
    if board_colours is not None:
        colour = board_colours.get(int(seat))
        return f"pc-{colour}" if colour else ""
    night_id = _night_id(context)
    if night_id is None:
        return ""
    known: dict[int, dict[int, str]] = g.setdefault("colours", {})
    if night_id not in known:
        known[night_id] = store.colours(night_id)
    colour = known[night_id].get(int(seat))
    return f"pc-{colour}" if colour else ""


def game_title(kind: str) -> Any:
    """A game's title, for the templates."""
    return registry.get(kind).title


def game_assets(*kinds: str) -> Markup:
    """The ``<link>`` and ``<script>`` tags of these games' own CSS and JS: a page loads
    only the games it can show (base.html's ``assets`` block)."""
    tags = []
    for kind in kinds:
        for name in registry.get(kind).assets:
            url = escape(url_for("static", filename=name))
            tags.append(f'<link rel="stylesheet" href="{url}">' if name.endswith(".css")
                        else f'<script src="{url}" defer></script>')
    return Markup("".join(tags))


class SqliteInt(IntegerConverter):
    """An ``<int:…>`` URL segment SQLite can hold: a bigger number is a plain 404.

    (Werkzeug's own accepts any length; SQLite raises OverflowError past 2**63 - 1,
    which was a 500 for a URL such as /n/<key>/g/99999999999999999999.)
    """

    def __init__(self, map: Map, fixed_digits: int = 0, min: int | None = None,
                 max: int | None = 2**63 - 1, signed: bool = False) -> None:
        super().__init__(map, fixed_digits, min, max, signed)


@bp.app_url_defaults
def version_static(endpoint: str, values: dict[str, Any]) -> None:
    if endpoint == "static" and "filename" in values and "v" not in values:
        values["v"] = static_version(values["filename"])


@bp.after_app_request
def checkpoint_later(response: Response) -> Response:
    """After a write's answer is sent, fold the WAL back if it has grown (db.py)."""
    if request.method == "POST" and response.status_code != 503:
        path = current_app.config["DATABASE"]
        response.call_on_close(lambda: fold_wal(path))
    return response


def fold_wal(path: str) -> None:
    """Checkpoint the WAL if it is due, off the loop; the size is read here, so a write
    that leaves little in the WAL (nearly all) hands nothing to another thread."""
    if checkpoint_due(path):
        off_the_loop(checkpoint, path)


def bdi(name: Any) -> Markup:
    """A name as a page shows it: isolated, so that a name written right to left, or
    ending in a digit or a mark, does not reorder the words around it ("Ann: 3")."""
    return Markup("<bdi>%s</bdi>") % name


def who(seats: Any, names: Any) -> Markup:
    """The players of ``seats`` by name, each isolated (:func:`bdi`), comma-separated."""
    return Markup(", ").join(bdi(names.get(seat, "?")) for seat in seats)


def beside_the_loop(work: Callable[..., T], *args: Any) -> T:
    """``work(*args)``'s answer, worked out where other requests go on meanwhile: under
    gevent in a thread of gevent's pool (the interpreter switches threads every few
    milliseconds, so the loop's greenlets keep answering while a long computation runs;
    on the loop itself, checking one upload stopped every table for its whole length).
    Elsewhere each request has its thread, and it runs there. The thread sees the
    request's context (its app's games, companion/registry.py) as the request does."""
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


def costly(view: Callable[..., T]) -> Callable[..., T]:
    """A view whose answer may take a tenth of a second or more on a long night (an
    export, a picture, the tally, the statistics): worked out beside the loop, so other
    tables' requests go on meanwhile, and one at a time for each client address, so that
    four requests at once from one guest cost four turns, not four threads at once
    (docs/security.md)."""
    @wraps(view)
    def answer(*args: Any, **kwargs: Any) -> T:
        if g.get("costly"):  # called by another costly view: already its turn
            return view(*args, **kwargs)
        g.costly = True
        try:
            with one_at_a_time(request.remote_addr or ""):
                return beside_the_loop(partial(view, *args, **kwargs))
        finally:
            g.costly = False
    return answer


def off_the_loop(work: Callable[..., Any], *args: Any) -> None:
    """``work(*args)`` where it stops no other request: under gevent (``companion
    serve``, the café's workers), in a thread of gevent's pool, since SQLite's copy and
    fsyncs (up to ~30 ms for a checkpoint here) would stop every greenlet of the worker
    while they ran; elsewhere each request has its thread, and it runs there."""
    if monkey.is_module_patched("threading"):
        gevent.get_hub().threadpool.spawn(work, *args)
    else:
        work(*args)


def cacheable(response: Response) -> Response:
    """Let the asking browser keep ``response`` for good (``private``: never a shared
    cache): for answers whose address carries a digest of their content, so that a
    change of content is a new address. Answers 304 to a request that has it already
    (its ETag)."""
    g.cacheable = True
    response.make_conditional(request)
    return response


@bp.after_app_request
def headers(response: Response) -> Response:
    if g.get("new_device") and g.get("device"):
        response.set_cookie(
            DEVICE_COOKIE, g.device_cookie, max_age=YEAR, httponly=True, samesite="Lax"
        )
    h = response.headers
    h.setdefault("Content-Security-Policy", CSP)
    h["Referrer-Policy"] = "no-referrer"
    h["X-Content-Type-Options"] = "nosniff"
    h["X-Frame-Options"] = "DENY"
    if request.endpoint == "static" and response.status_code in (200, 206, 304):
        h["Cache-Control"] = f"public, max-age={YEAR}, immutable"
    elif g.get("cacheable") and response.status_code in (200, 304):
        # An answer at an address that names its content (a digest in it): the browser
        # of whoever may see it keeps it, and no shared cache does.
        h["Cache-Control"] = f"private, max-age={YEAR}, immutable"
        h.add("Vary", "Cookie")
    else:
        h["Cache-Control"] = "no-store"
        h.add("Vary", "Cookie")
    return compress(response)


@bp.app_context_processor
def globals_() -> dict[str, Any]:
    return {"languages": LANGUAGES, "htmx": is_htmx(), "get_locale": get_locale,
            "translations": _translations(),
            # over Flask-WTF's own processor, registered before this one
            "csrf_token": sealed_csrf_token}


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


@bp.app_errorhandler(CSRFError)
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


@bp.app_errorhandler(400)
def bad_request(_error: Exception) -> ResponseReturnValue:
    return error_page(_("That request could not be read. Reload the page and try again."),
                      400)


@bp.app_errorhandler(403)
def forbidden(_error: Exception) -> ResponseReturnValue:
    return error_page(_("Only the host device can do that."), 403)


# A host's address: the night's key comes first (/n/<key>, /n/<key>/g/3 …).
_HOST_PATH = re.compile(r"^/n/([^/]+)")


@bp.app_errorhandler(404)
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


@bp.app_errorhandler(405)
def not_allowed(_error: Exception) -> ResponseReturnValue:
    return error_page(_("There is nothing here."), 405)


@bp.app_errorhandler(413)
def too_large(_error: Exception) -> ResponseReturnValue:
    return error_page(_("That was too much text to send."), 413)


@bp.app_errorhandler(TimeoutError)
def arrived_too_slowly(_error: Exception) -> ResponseReturnValue:
    """A request's body stopped arriving (companion/connections.py: each read has a
    timeout): nothing of it was used."""
    return error_page(_("What was sent stopped arriving, so nothing was recorded. "
                        "Try again."), 408)


@bp.app_errorhandler(sqlite3.OperationalError)
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


@bp.app_errorhandler(500)
def server_error(_error: Exception) -> ResponseReturnValue:
    return error_page(_("Something went wrong. Nothing was recorded; try again."), 500)


def sealed_csrf_token() -> Markup:
    """Flask-WTF's form token, kept out of the page's compression (companion/sealed.py):
    a token that changes every second would otherwise change a compressed page's size
    by a byte or two, blurring the sizes that must be equal (and a token compressed
    beside text a visitor chose is what a BREACH-style guess needs)."""
    return sealed.stored(generate_csrf())


def init_app(app: Flask) -> None:
    app.url_map.converters["int"] = SqliteInt  # before any blueprint adds its routes
    app.register_blueprint(bp)
    app.jinja_env.filters["stored"] = sealed.stored
    app.jinja_env.filters["local_time"] = local_time
    app.jinja_env.filters["local_date"] = local_date
    app.jinja_env.filters["local_clock"] = local_clock
    app.jinja_env.filters["bdi"] = bdi
    app.jinja_env.globals.update(_=_gettext, gettext=_gettext, ngettext=_ngettext,
                                 shared=shared, game_title=game_title,
                                 game_kinds=registry.kinds, game_assets=game_assets,
                                 secret=sealed.secret, new_form_token=new_token, hue=hue,
                                 palette=colours.PALETTE, who=who)


__all__ = ["abort", "device", "is_htmx", "new_token", "safe_next"]
