"""The table in a real browser against a live server: the host's tablet makes the
night, touch phones claim their seats, and events recorded behind their backs give every
screen's next poll a live refresh."""

from bench.browsing import claim, host_night
from companion import store

LONG = "가나다라마바사아자차카타파하거" + "ABCDEFGHIJKLMNO"  # 30 characters, no spaces
NAMES = [LONG, "Jo", "지혜 🙂", "Ann", "박서준"]


def night_key(url):
    return url.split("/n/")[1].split("/")[0]


def host_device(page):
    return next(c["value"] for c in page.context.cookies() if c["name"] == "device")


def seat_url(server, key, position):
    with server.app.test_request_context():
        night = store.night_by_key(key)
        token = store.seats(night["id"])[position]["token"]
    return f"{server.url}/s/{token}"


def record(server, device, key, number, type_, data):
    """The host records an event in game ``number`` (as its forms would): every screen's
    next poll brings a live refresh."""
    with server.app.test_request_context(headers={"Cookie": f"device={device}"}):
        game = store.game(store.night_by_key(key)["id"], number)
        store.record(game, type_, data, pos=game.pos, device=device)


def bump(server, key, seat=3):
    """Something happened at the table that every screen refreshes for (a phone saw its
    secret), without changing the game."""
    with server.app.test_request_context():
        night = store.night_by_key(key)
        store.note(night["id"], None, seat, "seen")


def table(browser, server, names=NAMES, locale="en-US"):
    host = browser.new_context(locale=locale, viewport={"width": 1100, "height": 900}).new_page()
    url = host_night(host, server.url, names)
    return host, url, night_key(url), host_device(host)


def touch_phone(browser, url, *, width=390, height=844, locale="en-US"):
    """A phone with a touchscreen that opens its seat's code and answers "yes, it's me"."""
    context = browser.new_context(viewport={"width": width, "height": height}, locale=locale,
                                  has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(url)
    claim(page)
    return page


def watch(page):
    """Marks the page: a marker on window (a reload loses it), and a count of the times
    "can't reach the table" showed."""
    page.evaluate("""() => {
      window.__sameDocument = true;
      window.__offline = 0;
      new MutationObserver(() => {
        if (document.querySelector('[data-offline-mark]')) { window.__offline += 1; }
      }).observe(document.documentElement, {childList: true, subtree: true});
    }""")
