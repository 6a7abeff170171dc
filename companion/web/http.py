"""What every response carries: security and cache headers, the device cookie, gzip, static
files at addresses that change with their content, and a refusal's status, which a
browser is told in a header instead (``quiet_refusal``)."""

import gzip
import hashlib
import os
from pathlib import Path
from typing import Any, cast

from flask import (
    Response,
    current_app,
    g,
    request,
)
from werkzeug.routing import IntegerConverter, Map
from werkzeug.security import safe_join
from werkzeug.wrappers import Response as BaseResponse

from companion import store
from companion.web import sealed
from companion.web.identity import DEVICE_COOKIE

YEAR = 365 * 24 * 3600

#: A view's answer: a response (a redirect, a file), or a page or fragment with its
#: status, or a page.
Answer = BaseResponse | tuple[str, int] | str


CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)


def favicon() -> Response:
    """Browsers ask for /favicon.ico on their own (a download, a bookmark): the icon."""
    return current_app.send_static_file("favicon.png")


_static_versions: dict[tuple[str, int, int], str] = {}


def static_version(filename: str) -> str:
    """A short hash of a static file, so its URL changes when it does (cached a year). The
    hash is worked out again when the file's change time or size moves, as the gzip cache
    does: under ``flask run --debug`` an edited ``js/live.js`` gets a new URL at once."""
    # A plain string and os.stat, not a Path: this runs for every static URL of every page
    # drawn, and making the Path was two thirds of its time (13 µs a call here, now 6 µs).
    path = os.path.join(cast(str, current_app.static_folder), filename)  # create_app sets it
    try:
        stat = os.stat(path)
    except OSError:
        return "0"
    key = (path, stat.st_mtime_ns, stat.st_size)
    version = _static_versions.get(key)
    if version is None:
        try:
            with open(path, "rb") as file:
                version = hashlib.sha256(file.read()).hexdigest()[:10]
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
    or size (companion/web/sealed.py); without gzip, only its markers go. Returns whether
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


class SqliteInt(IntegerConverter):
    """An ``<int:…>`` URL segment SQLite can hold: a bigger number is a plain 404.

    (Werkzeug's own accepts any length; SQLite raises OverflowError past 2**63 - 1,
    which was a 500 for a URL such as /n/<key>/g/99999999999999999999.)
    """

    def __init__(self, map: Map, fixed_digits: int = 0, min: int | None = None,
                 max: int | None = 2**63 - 1, signed: bool = False) -> None:
        super().__init__(map, fixed_digits, min, max, signed)


def version_static(endpoint: str, values: dict[str, Any]) -> None:
    if endpoint == "static" and "filename" in values and "v" not in values:
        values["v"] = static_version(values["filename"])


def checkpoint_later(response: Response) -> Response:
    """After a write's answer is sent, fold the WAL back if it has grown (the store's
    ``fold_wal``): the request says when, the store how."""
    if request.method == "POST" and response.status_code != 503:
        path = current_app.config["DATABASE"]
        response.call_on_close(lambda: store.fold_wal(path))
    return response


def cacheable(response: Response) -> Response:
    """Let the asking browser keep ``response`` for good (``private``: never a shared
    cache): for answers whose address carries a digest of their content, so that a
    change of content is a new address. Answers 304 to a request that has it already
    (its ETag)."""
    g.cacheable = True
    response.make_conditional(request)
    return response


#: The answers that refuse what a person asked and say why in the page drawn for them:
#: a stale form or a question first (409), a field the rules refuse (422).
REFUSALS = frozenset({409, 422})

#: The header a refusal answered 200 keeps its own status in, for tools and tests.
REFUSED_HEADER = "X-Refused"


def _from_a_browser() -> bool:
    """Whether a person's browser asked: htmx (``HX-Request``), or the browser itself
    opening a page (``Sec-Fetch-Mode: navigate``: a form posted without JavaScript, a
    scanned QR code, a link)."""
    return (request.headers.get("HX-Request") == "true"
            or request.headers.get("Sec-Fetch-Mode") == "navigate")


def quiet_refusal(response: Response) -> Response:
    """A refusal drawn for a person is answered 200 to their browser, its own status in
    ``X-Refused``; any other client (a script, curl, a test) keeps the 409 or 422.

    Why: the page already says what was refused, and htmx swaps 4xx answers as it does
    200s (templates/base.html's responseHandling), but Chromium's console logs every 4xx
    as "Failed to load resource", which buries a real error among the table's ordinary
    refusals. Runs after the headers (companion/web/__init__.py), which saw the refusal's
    own status: its body is what it was, never cached.
    Nothing else changes: a refusal records nothing whatever its status."""
    if response.status_code in REFUSALS and response.mimetype == "text/html":
        response.vary.update(("HX-Request", "Sec-Fetch-Mode"))
        if _from_a_browser():
            response.headers[REFUSED_HEADER] = str(response.status_code)
            response.status_code = 200
    return response


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
