"""Layouts that survive real names: a night of eight players named with 30 characters
(Korean, emoji, wide letters, no spaces), every page of it at 320, 390, 768 and 1100 px,
on the host and on a phone, in Korean and in English. No page is wider than its viewport,
no word that titles a table's row or column breaks inside,
nothing inside a page scrolls sideways (tables are stacked cards on phones, not scroll
boxes, but the tally's few-column tables, a line a player, and the statistics' table of
every figure), no name spills out of its card, and every chart label lies inside its
chart."""

import re

import pytest

from bench.browsing import claim
from bench.builders import ev, store_game
from bench.layout_night import (
    MATCH,
    MEASURE,
    NAMES,
    crazytime,
    kraken,
    make_night,
    seat_url,
    show_on_phones,
    skullking,
)
from companion.skullking import rules as sk
from tests.browsing import WORDS_BROKEN

pytestmark = pytest.mark.browser

WIDTHS = (320, 390, 768, 1100)



def store_night(app, device, key):
    """Every game of the night in the states its pages show; returns {label: number}."""
    games = {
        "kraken-play": kraken(["empty", "treasure", "empty", "empty", "treasure", "empty",
                               "empty", "empty", "empty", "treasure"]),
        "kraken-end": kraken(["empty", "treasure", "empty", "treasure", "kraken"]),
        "skullking-mid": skullking(1, True),
        "skullking-end": skullking(2, False),
        "crazytime-play": crazytime([MATCH], {1: 3, 2: 1}),
        "crazytime-end": crazytime([MATCH, MATCH, MATCH, {0: 1, 1: 1, 2: 2, 3: 2, 4: 2,
                                                          5: 2, 6: 2}]),
    }
    numbers = {}
    for label, game in games.items():
        numbers[label] = store_game(app, device, key, game).number
    return numbers


def open_all(page, url):
    """Open ``url``, every panel open, the fonts in."""
    response = page.goto(url)
    assert response.ok, (url, response.status)
    page.evaluate("document.fonts.ready")
    # every panel but the header's "⋯", whose open summary covers the page (a tap closes it)
    page.evaluate(
        "document.querySelectorAll('details:not(.page-menu)').forEach(d => d.open = true)")


def look(page, url):
    """Open ``url``, every panel open, the fonts in; what is too wide on it."""
    open_all(page, url)
    return page.evaluate(MEASURE, page.viewport_size["width"])


def passed(host, night):
    """The host passes the tablet to seat 1: the page a player without a phone sees, of
    the game the phones show last (Crazy Time's end)."""
    open_all(host, night)
    with host.expect_navigation():
        host.locator("form[action$='/pass/1'] button").click()
    host.locator("[data-pass-open]").click()  # the player opens their page
    host.locator("[data-pass-seat]").wait_for()
    host.evaluate("document.fonts.ready")


@pytest.mark.parametrize("locale", ["ko-KR", "en-US"])
def test_no_page_of_a_night_of_long_names_is_wider_than_its_screen(browser, live_server,
                                                                    locale):
    base = live_server.url
    host_context = browser.new_context(viewport={"width": 1100, "height": 900},
                                       locale=locale)
    host = host_context.new_page()
    key = make_night(host, base, NAMES)
    device = next(c["value"] for c in host_context.cookies() if c["name"] == "device")
    games = store_night(live_server.app, device, key)
    night = f"{base}/n/{key}"
    phone_context = browser.new_context(viewport={"width": 390, "height": 844},
                                        locale=locale, has_touch=True)
    phone = phone_context.new_page()
    phone.goto(seat_url(live_server.app, base, key, 0))
    claim(phone)

    host_pages = [night, f"{night}/sheet", f"{night}/tally", f"{base}/history",
                  f"{base}/stats", f"{base}/"]
    host_pages += [f"{night}/g/{number}" for number in games.values()]
    host_pages += [f"{night}/g/{games['skullking-end']}/skullking/correct/1"]
    host_pages += [f"{night}/new/{kind}" for kind in ("kraken", "skullking", "crazytime")]
    host_pages += [f"{base}/rules/{kind}" for kind in ("kraken", "skullking", "crazytime")]

    # Each page is opened once and measured at every width: a page's layout follows the
    # viewport as it changes (no script reads the width: static/js/ asks no media query).
    wide = []

    def at_every_width(page, where):
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            wide.extend((width, where, found) for found in page.evaluate(MEASURE, width))

    for url in host_pages:
        open_all(host, url)
        at_every_width(host, url.removeprefix(base))
    for label, number in games.items():
        show_on_phones(live_server.app, key, number)
        open_all(phone, base + "/me")
        at_every_width(phone, f"/me ({label})")
    for url in ("/me/tally", "/rules/kraken"):
        open_all(phone, base + url)
        at_every_width(phone, url)
    passed(host, night)
    at_every_width(host, "pass the tablet")
    assert not wide, "\n".join(f"{w} px {url}: {found}" for w, url, found in wide)
    host.goto(f"{night}/tally")  # the charts were measured: a name per bar, and 4 charts
    assert host.locator("svg.tally-chart").count() == 4
    assert host.locator("svg.tally-chart text.label").count() == 4 * 8 - 1


def test_a_phones_own_skull_king_tiles_share_one_row(browser, live_server):
    """Last round, total and rank side by side at 390 and 320 px (the rank sat alone on a
    row), with four-character figures ("-100", "-200") held by their tiles."""
    base = live_server.url
    host = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    key = make_night(host, base, NAMES[:5])
    device = next(c["value"] for c in host.context.cookies() if c["name"] == "device")
    events = []
    for number in (1, 2):  # seat 0 bids all ten tricks and takes none: -100 a round
        events += [ev("bid", seat=s, round=number, bid=10 if s < 2 else 0) for s in range(5)]
        events += [ev("reveal_bids", round=number), ev("result", round=number, results={
            str(s): {"won": 10 if s == 1 else 0} for s in range(5)})]
    game = store_game(live_server.app, device, key, {"kind": "skullking", "events": events,
                      "setup": sk.start(list(range(5)), {"way": "custom",
                                                        "rounds": [10, 10, 10]})})
    show_on_phones(live_server.app, key, game.number)
    phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    phone.goto(seat_url(live_server.app, base, key, 0))
    claim(phone)
    for locale in ("en", "ko"):
        phone.context.add_cookies([{"name": "lang", "value": locale, "url": base}])
        phone.goto(base + "/me")
        assert phone.locator("[data-my-total]").inner_text() == "-200"
        for width in (390, 320):
            phone.set_viewport_size({"width": width, "height": 844})
            phone.evaluate("document.fonts.ready")
            tops = phone.eval_on_selector_all(
                ".sk-me > div", "tiles => tiles.map(t => t.getBoundingClientRect().top)")
            assert len(tops) == 3 and max(tops) - min(tops) < 1, (locale, width, tops)
            found = phone.evaluate(MEASURE, width)
            assert not [f for f in found if "stats" in f], (locale, width, found)
            clipped = phone.eval_on_selector_all(".sk-me dd", """dds => dds.filter(
                d => d.scrollWidth > d.clientWidth + 1).map(d => d.textContent)""")
            assert not clipped, (locale, width, clipped)


def drawn_with(page, selector):
    """The fonts Chromium draws ``selector``'s text with (its families, CDP)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    assert node, selector
    return {f["familyName"] for f in
            cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]}


def test_the_rabbit_is_drawn_from_the_bundled_emoji_on_the_host_and_the_phone(
        browser, live_server):
    """This machine has no emoji font: 🐇 is drawn from the app's Noto Emoji subset on
    the host's page and on the rabbit's phone, not as an empty box."""
    base = live_server.url
    host = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    key = make_night(host, base, NAMES)
    device = next(c["value"] for c in host.context.cookies() if c["name"] == "device")
    number = store_game(live_server.app, device, key, crazytime([])).number
    show_on_phones(live_server.app, key, number)
    host.goto(f"{base}/n/{key}/g/{number}")
    host.evaluate("document.fonts.ready")
    assert "🐇" in host.locator("tr[data-seat='6'] th").inner_text()
    assert "Noto Emoji" in drawn_with(host, "tr[data-seat='6'] th")
    phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    phone.goto(seat_url(live_server.app, base, key, 6))
    claim(phone)
    phone.evaluate("document.fonts.ready")
    rabbit = ".crazytime small"
    assert "🐇" in phone.locator(rabbit).first.inner_text()
    assert "Noto Emoji" in drawn_with(phone, rabbit)


def test_a_phones_own_name_breaks_only_between_its_words(browser, live_server):
    base = live_server.url
    host = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    key = make_night(host, base, ["Bartholomew Fitzgerald Smithso", "Mina", "Jo"])
    phone = browser.new_context(viewport={"width": 320, "height": 640}).new_page()
    phone.goto(seat_url(live_server.app, base, key, 0))
    claim(phone)
    for width in (320, 390):
        phone.set_viewport_size({"width": width, "height": 640})
        phone.evaluate("document.fonts.ready")
        assert phone.evaluate(WORDS_BROKEN, ".seat-head .seat-name") == [], width


#: Every visible button holds its words: none is wider than the screen, none clips its
#: label (a Korean label may be far longer than its English).
BUTTONS = """() => {
  const found = [];
  for (const b of document.querySelectorAll('button, [role=button]')) {
    const r = b.getBoundingClientRect();
    if (!r.width || getComputedStyle(b).visibility === 'hidden') continue;
    const label = b.textContent.trim().replace(/\\s+/g, ' ');
    if (r.left < -1 || r.right > window.innerWidth + 1)
      found.push(`"${label}" runs off the screen (${Math.round(r.left)}..${Math.round(r.right)})`);
    if (b.scrollWidth > b.clientWidth + 1)
      found.push(`"${label}" clips its words (${b.scrollWidth} in ${b.clientWidth} px)`);
  }
  return found;
}"""


def test_the_korean_buttons_longer_than_their_english_fit_a_320_px_phone(browser, live_server):
    """The import question's two buttons, a tablet seat's "휴대폰으로 바꾸기(새 코드)", and the
    become-host question with its date, in Korean on the narrowest phone."""
    base = live_server.url
    context = browser.new_context(viewport={"width": 320, "height": 800}, locale="ko-KR")
    host = context.new_page()
    key = make_night(host, base, NAMES)
    night = f"{base}/n/{key}"
    host.goto(night)
    host.locator("details.seat-more summary").first.click()
    with host.expect_response(lambda r: r.url.endswith("/tablet")):
        host.get_by_role("button", name="태블릿으로 바꾸기(코드 없음)").first.click()
    host.locator("[data-action=seat-tablet] button",
                 has_text="휴대폰으로 바꾸기(새 코드)").wait_for(state="attached")
    seen = {"night": look(host, night) + host.evaluate(BUTTONS)}
    assert host.get_by_role("button", name="휴대폰으로 바꾸기(새 코드)").is_visible()

    raw = host.request.get(f"{night}/export.json").body()
    host.goto(base + "/history")
    host.locator(".tally-import summary").click()  # the import is folded under the nights
    host.locator(".tally-import input[type=file]").set_input_files(
        files=[{"name": "night.json", "mimeType": "application/json", "buffer": raw}])
    host.locator(".tally-import button[type=submit]").click()
    host.locator(".import-question").wait_for()
    for label in ("가져오지 않고 그대로 두기", "파일 내용으로 바꾸기"):
        assert host.get_by_role("button", name=label).is_visible(), label
    host.evaluate("document.fonts.ready")
    seen["import question"] = (host.evaluate(MEASURE, 320) + host.evaluate(BUTTONS))

    invite = host.request.post(f"{night}/hosts", form={"csrf_token": re.search(
        r'name="csrf_token" value="([^"]*)"', host.request.get(night).text()).group(1)})
    link = re.search(r"/h/[A-Za-z0-9_-]{32,64}", invite.text()).group(0)
    other = browser.new_context(viewport={"width": 320, "height": 800},
                                locale="ko-KR").new_page()
    seen["become host"] = look(other, base + link) + other.evaluate(BUTTONS)
    assert re.search(r"\d+월 \d+일\([월화수목금토일]\) 모임을", other.locator("h1").inner_text())

    problems = [f"{page}: {found}" for page, found_all in seen.items() for found in found_all]
    assert not problems, "\n".join(problems)
