"""The night's tally on a phone, in a real browser: each table a line per player (not a
card a player), one's own line tinted in one's colour and bold, never underlined like a
link, and nothing wider than a 320 px phone, in English and in Korean."""

import pytest

from bench.browsing import WAIT, claim, host_night
from bench.builders import play_evening
from companion import store
from tests.browsing import WORDS_BROKEN

pytestmark = pytest.mark.browser

NAMES = ["Mina", "Jo", "Sun", "Ann", "Bartholomew the Unsinkable"]

#: Each tally table's rows as the phone lays them out: the display of each row and
#: whether the row is the phone's own, with its name's underline and its background.
ROWS = """() => [...document.querySelectorAll('.tally-table tbody tr')].map(tr => ({
  display: getComputedStyle(tr).display,
  me: tr.classList.contains('me'),
  underline: getComputedStyle(tr.querySelector('th')).textDecorationLine,
  background: getComputedStyle(tr.querySelector('th')).backgroundColor,
  weight: Number(getComputedStyle(tr.querySelector('th')).fontWeight),
}))"""


@pytest.mark.parametrize(("width", "locale"), [(390, "en-US"), (320, "ko-KR")])
def test_the_phones_tally_is_a_line_a_player_with_ones_own_tinted(
        browser, live_server, width, locale):
    host = browser.new_context(locale="en-US").new_page()
    key = host_night(host, live_server.url, NAMES).rsplit("/", 1)[1]
    device = next(c["value"] for c in host.context.cookies() if c["name"] == "device")

    class Host:  # the host's cookie, as bench.builders.play reads it
        @staticmethod
        def get_cookie(_name):
            return type("Cookie", (), {"value": device})

    play_evening(live_server.app,
                 type("Night", (), {"app": live_server.app, "host": Host, "key": key}))
    with live_server.app.test_request_context():
        token = store.seats(store.night_by_key(key)["id"])[1]["token"]  # Jo
    context = browser.new_context(viewport={"width": width, "height": 800}, locale=locale,
                                  has_touch=True, is_mobile=True)
    phone = context.new_page()
    phone.goto(f"{live_server.url}/s/{token}")
    claim(phone)
    phone.goto(f"{live_server.url}/me/tally")
    phone.locator(".tally-table").first.wait_for(timeout=WAIT)

    rows = phone.evaluate(ROWS)
    assert rows and {r["display"] for r in rows} == {"table-row"}
    mine = [r for r in rows if r["me"]]
    others = [r for r in rows if not r["me"]]
    assert mine and all(r["underline"] == "none" for r in rows)
    assert all(r["background"] not in ("rgba(0, 0, 0, 0)", "transparent") for r in mine)
    assert all(r["weight"] >= 700 for r in mine)
    assert {r["background"] for r in others} != {r["background"] for r in mine}
    assert phone.evaluate("document.documentElement.scrollWidth") <= width
    assert phone.evaluate(WORDS_BROKEN, ".tally-table tbody th") == []

