"""The room's big screen in a real browser at 1920×1080, against `companion serve` with
live push: opened by the screen code's QR, it shows what the host does as it happens,
in large type, with no control on it."""

import os
import time

import pytest

from bench.browsing import WAIT, decode_qr, host_night, seat_link, start_game
from tests.browsing import phone
from tests.skullking_browsing import round_title, tap_bid

pytestmark = pytest.mark.browser

#: A folder to save the screen's picture in (COMPANION_SCREENSHOTS), to look at it.
SHOTS = os.environ.get("COMPANION_SCREENSHOTS")
NAMES = ["Mina", "Jo", "Sun", "Ann"]


@pytest.fixture
def pushing(server_process):
    # Polls every 30 s: what the screen shows within seconds came by push.
    server_process.env = {"COMPANION_POLL_SECONDS": "30"}
    return server_process.start()


class Hand:
    """tests.skullking_browsing's tap_bid wants a hand that taps on a page."""

    def __init__(self, page):
        self.page = page

    def tap(self, locator):
        locator.click()


#: The smallest type of the screen's text, outside the chart (an SVG scaled to its box).
SMALLEST = """() => Math.min(...[...document.querySelectorAll('main *')]
  .filter(el => !el.closest('svg') && el.getBoundingClientRect().width
    && [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()))
  .map(el => parseFloat(getComputedStyle(el).fontSize)))"""


def font_px(page, selector):
    return page.eval_on_selector(
        selector, "el => parseFloat(getComputedStyle(el).fontSize)")


def test_the_screen_opened_by_its_code_shows_the_hosts_change_live_in_large_type(
        browser, pushing):
    host = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 900}
                               ).new_page()
    night_url = host_night(host, pushing.url, NAMES)
    host.locator("[data-action=screen-invite] button").click()
    host.wait_for_url("**/screens")
    link = decode_qr(host.locator("figure.qr-large").screenshot())
    assert "/t/" in link

    tv = browser.new_context(locale="en-US", viewport={"width": 1920, "height": 1080}
                             ).new_page()
    errors = []
    tv.on("pageerror", lambda error: errors.append(str(error)))
    tv.goto(link)
    tv.locator("[data-action=screen-code] button").click()
    tv.wait_for_url("**/screen")
    assert tv.title() == "The room's screen · Companion"
    tv.wait_for_function("() => document.documentElement.dataset.push === 'open'",
                         timeout=WAIT)
    assert tv.locator("form, button, input, select").count() == 0

    start_game(host, night_url, way="custom", rounds="1,2")
    since = time.monotonic()
    tv.locator(".sk-screen-facts", has_text="Round 1 of 2").wait_for(timeout=WAIT)
    assert time.monotonic() - since < 10  # by push: the poll is every 30 s
    assert tv.locator("[data-bids-in='0']").is_visible()
    # the game's start is told on the screen without a script error
    assert errors == []

    round_title(host, 1, 2)
    since = time.monotonic()
    tap_bid(Hand(host), 0, 1)
    tv.locator("[data-bids-in='1']").wait_for(timeout=WAIT)
    assert time.monotonic() - since < 10
    assert tv.locator(".sk-screen-bids").count() == 0  # a bid, never before Yo-ho-ho

    # legible from three metres at 1920×1080 (docs/architecture.md: the type sizes)
    assert font_px(tv, "body") >= 31.5
    assert font_px(tv, ".screen-title") >= 63
    assert font_px(tv, "table.sk-score td") >= 35
    assert tv.evaluate(SMALLEST) >= 27.5
    assert tv.locator("form, button, input, select").count() == 0

    # "Yo-ho-ho!": the screen counts with the phones and shows the bids on the last word.
    for seat in (1, 2, 3):
        tap_bid(Hand(host), seat, 0)
    host.locator(".sk-yoho").click()
    tv.wait_for_function(
        "() => document.documentElement.hasAttribute('data-reveal-flipped')", timeout=WAIT)
    bids = tv.locator(".sk-screen-bids")
    bids.wait_for(timeout=WAIT)
    assert bids.is_visible() and bids.locator("li").count() == len(NAMES)
    if SHOTS:
        tv.screenshot(path=f"{SHOTS}/screen-revealed.png")

    # A new game while the screen is open (Crazy Time's parts carry their own headings):
    # the screen follows it with no script error and no notice pushing its board down.
    top = tv.locator(".screen-title").bounding_box()["y"]
    host.goto(night_url + "/new/crazytime")
    host.locator("form.ct-new button[type=submit]").last.click()
    # Skull King is not over: the host starts Crazy Time and leaves it unfinished
    host.locator("form:has(input[name=leave]) button[type=submit]").click()
    host.wait_for_url("**/g/2")
    tv.locator(".ct-screen").wait_for(timeout=WAIT)
    tv.wait_for_timeout(500)  # a live refresh's afterSwap steps have run
    assert errors == []
    assert tv.locator(".new-game").count() == 0
    assert tv.locator(".screen-title").bounding_box()["y"] == top


def test_the_tv_shows_a_number_the_host_types_and_then_a_lobby_that_fills_live(
        browser, pushing):
    host = browser.new_context(locale="en-US", viewport={"width": 768, "height": 1024}
                               ).new_page()
    night_url = host_night(host, pushing.url, NAMES)
    tv = browser.new_context(locale="en-US", viewport={"width": 1920, "height": 1080}
                             ).new_page()
    errors = []
    tv.on("pageerror", lambda error: errors.append(str(error)))
    tv.goto(pushing.url + "/screen")  # the short address, typed once with the remote
    number = tv.locator("[data-screen-number]")
    number.wait_for(timeout=WAIT)
    digits = number.inner_text().replace(" ", "")
    assert len(digits) == 6 and digits.isdigit()
    assert night_url.rsplit("/", 1)[1] not in tv.content()  # nothing of the night
    if SHOTS:
        tv.screenshot(path=f"{SHOTS}/screen-number.png")

    # a wrong number: refused with a message, and the TV still waits
    wrong = f"{(int(digits) + 1) % 1000000:06d}"
    form = host.locator("form[data-action=screen-pair]")
    form.locator("input[name=number]").fill(wrong)
    form.locator("button").click()
    host.locator(".notice.error", has_text="No screen shows that number now").wait_for()
    assert tv.locator("[data-screen-number]").is_visible()

    host.goto(night_url)
    form.locator("input[name=number]").fill(number.inner_text())
    form.locator("button").click()
    host.wait_for_url(night_url)
    assert "A screen, since" in host.content()
    tv.wait_for_url("**/n/*/screen", timeout=WAIT)  # the TV asked, and went
    # it says whose night it joined, over the board's corner, with the way back
    joined = tv.locator(".screen-joined")
    assert "Not our table? New number" in joined.inner_text()
    box = joined.bounding_box()
    assert box["x"] + box["width"] <= 1920 and box["y"] + box["height"] <= 1080

    # the lobby: every player waiting, then a phone joins and its name fills in
    lobby = tv.locator(".screen-lobby")
    lobby.wait_for(timeout=WAIT)
    assert lobby.locator(".lobby-seat").count() == len(NAMES)
    assert lobby.locator(".lobby-seat.joined").count() == 0
    phone(browser, seat_link(host, 1), locale="en-US")
    tv.locator(".lobby-seat.joined[data-seat='1']").wait_for(timeout=WAIT)
    assert lobby.locator(".lobby-seat.joined").count() == 1
    assert "1 of 4 players are here" in lobby.inner_text()
    if SHOTS:
        tv.screenshot(path=f"{SHOTS}/screen-lobby.png")
    assert errors == []
