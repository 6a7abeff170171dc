"""A phone or a tablet over real HTTP without a browser: its own cookies, CSRF on, no
redirect followed; and a night made by such a host. Shared by bench/hostile.py and the
tests that play against a real server process (tests/over_http.py)."""

import http.cookiejar
import re
import sqlite3
import urllib.error
import urllib.parse
import urllib.request

from bench.builders import NAMES


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Device:
    """One phone or tablet: its own cookie jar (device cookie, session with CSRF)."""

    def __init__(self, base):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            _NoRedirect, urllib.request.HTTPCookieProcessor(self.jar))
        self.csrf = None

    def request(self, method, path, data=None, headers=None, timeout=15):
        body = None
        headers = {"Accept-Language": "en", **(headers or {})}
        if data is not None:
            body = urllib.parse.urlencode(data, doseq=True).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        request = urllib.request.Request(self.base + path, data=body, method=method,
                                         headers=headers)
        try:
            with self.opener.open(request, timeout=timeout) as response:
                status, head, text = response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            status, head, text = error.code, error.headers, error.read()
        text = text.decode("utf-8", "replace")
        found = re.search(r'"X-CSRFToken": "([^"]+)"', text)
        if found:
            self.csrf = found.group(1)
        return status, head, text

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def claim(self, token):
        """Scan a seat's code and answer "yes, it's me": the status of the answer."""
        self.get(f"/s/{token}")
        return self.post(f"/s/{token}")[0]

    def post(self, path, data=None, *, htmx=False, **kw):
        """A form post with the CSRF token of the last page this device read."""
        if self.csrf is None:
            self.get("/")
        headers = {"X-CSRFToken": self.csrf}
        if htmx:
            headers["HX-Request"] = "true"
        return self.request("POST", path, data=data or {}, headers=headers, **kw)


def create_night(base, names=NAMES, database=None):
    """The host's tablet makes a night; returns (host device, night key, seat tokens).

    The seat tokens are only in the QR codes, so they are read from ``database`` if given.
    """
    host = Device(base)
    host.get("/")
    status, head, _ = host.post("/nights", {"name": names})
    assert status == 303, status
    key = head["Location"].rstrip("/").rsplit("/", 1)[1]
    tokens = []
    if database is not None:
        conn = sqlite3.connect(database)
        tokens = [r[0] for r in conn.execute(
            "select s.token from seats s join nights n on n.id = s.night_id "
            "where n.key = ? order by s.position", [key])]
        conn.close()
    return host, key, tokens
