"""Phones at the table, in real browsers against `companion serve` with live push: every
answer shows what was just done, every screen reaches the night's latest version and none
is left behind, a silent laptop is noticed, and an idle phone is left to sleep."""

import re
import signal
import sqlite3
import time

import pytest

from bench.browsing import WAIT, claim, host_night, seat_link, start_game, trick_chip
from tests.browsing import phone
from tests.skullking_browsing import round_title

pytestmark = pytest.mark.browser

NAMES = ["Mina", "Jo", "Sun", "Ann", "Lee"]
#: The JavaScript that reads the version a page's live region shows.
SHOWN = "() => Number((/[?&]v=(-?\\d+)/.exec(document.getElementById('live')" \
        "?.getAttribute('hx-get') || '') || [0, -1])[1])"


def latest(server):
    """The night's version in the laptop's database now."""
    with sqlite3.connect(server.database) as db:
        return db.execute("select max(version) from nights").fetchone()[0]


def reach(pages, version, lags, since):
    """Wait until every page shows ``version`` (or newer); note how long each took. A
    page left behind would wait for the minute's safety net: the wait here is shorter."""
    for page in pages:
        page.wait_for_function(f"v => ({SHOWN})() >= v", arg=version, timeout=10000)
        lags.append(time.monotonic() - since)


def answered_version(response):
    found = re.search(r'id="live"[^>]*hx-get="[^"]*\?v=(\d+)"', response.text())
    assert found, response.text()[:300]
    return int(found.group(1))


@pytest.fixture
def pushing(server_process):
    # Polls every 30 s and a safety net of a minute: whatever a screen shows within
    # seconds came by push or by the page's own asking, never by a poll.
    server_process.env = {"COMPANION_POLL_SECONDS": "30"}
    return server_process.start()


def test_five_phones_bid_and_change_bids_for_three_rounds_and_no_screen_is_left_behind(
        browser, pushing):
    host = browser.new_context(locale="en-US", viewport={"width": 768, "height": 1024}
                               ).new_page()
    night_url = host_night(host, pushing.url, NAMES)
    phones = [phone(browser, seat_link(host, seat), locale="en-US") for seat in range(5)]
    for page in phones:
        page.wait_for_function("() => document.documentElement.dataset.push === 'open'",
                               timeout=WAIT)
    start_game(host, night_url, way="custom", rounds="1,2,3")
    screens = [host, *phones]
    lags = []
    for number in (1, 2, 3):
        round_title(host, number, 3)
        for page in phones:
            page.locator(".sk-phone-round", has_text=f"Round {number} of").wait_for(
                timeout=WAIT)
        for seat, page in enumerate(phones):
            for bid in (0, 1):  # a bid, then a change of mind
                form = page.locator(".sk-my-bid-form")
                with page.expect_response(lambda r: r.request.method == "POST"
                                          and r.url.endswith("/me/skullking/bid")) as told:
                    form.locator(f"button[name=bid][value='{bid}']").click()
                made = latest(pushing)
                # the answer is drawn at the version its own write made
                assert answered_version(told.value) == made
                page.locator(".sk-sent").wait_for(timeout=WAIT)
                assert page.locator(".sk-bids-in").inner_text().startswith(f"{seat + 1} of 5")
                reach(screens, made, lags, time.monotonic())
        host.locator(".sk-bids-in", has_text="5 of 5 bids in").wait_for(timeout=WAIT)
        host.locator(".sk-yoho").click()
        for page in phones:  # every phone opens the bids: each one's changed bid, 1
            page.locator(".sk-bids").wait_for(timeout=WAIT)
            assert re.search(r"Lee: 1\b", page.locator(".sk-bids").inner_text())
        for seat in range(5):
            trick_chip(host, seat, number if seat == 0 else 0).click()
        host.locator(".sk-score-btn").click()
    host.locator(".sk-over").wait_for(timeout=WAIT)
    reach(screens, latest(pushing), lags, time.monotonic())
    print(f"screens reached the latest version in at most {max(lags) * 1000:.0f} ms "
          f"({len(lags)} screens after {3 * 5 * 2} bids)")


class Finger:
    """A finger on a phone's screen: a touch (through the DevTools protocol, which
    Playwright's one-shot tap has no way to hold) or a mouse button."""

    def __init__(self, page, kind):
        self.page = page
        self.cdp = page.context.new_cdp_session(page) if kind == "touch" else None

    def down(self, x, y):
        if self.cdp:
            self.cdp.send("Input.dispatchTouchEvent",
                          {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
        else:
            self.page.mouse.move(x, y)
            self.page.mouse.down()

    def up(self):
        if self.cdp:
            self.cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        else:
            self.page.mouse.up()


@pytest.mark.parametrize("kind", ["touch", "mouse"])
def test_a_tap_under_way_when_another_phone_s_bid_refreshes_the_page_is_not_lost(
        browser, pushing, kind):
    """Mina's button is pressed when Jo's bid refreshes her page. With a mouse (a
    laptop, a trackpad) the browser clicks only where the press began: had the refresh
    replaced the region, the button pressed would be gone by the release, no click would
    come, and the press would do nothing (it did, before the page held refreshes through
    a press). A touch is clicked where the finger lifts, and was never lost so; it is
    tried too, to keep it so. The refresh is morphed in under the press, which keeps the
    button pressed (docs/architecture.md, "idiomorph"), however long it is held; the bid
    is sent, and then her page shows Jo's too."""
    host = browser.new_context(locale="en-US", viewport={"width": 768, "height": 1024}
                               ).new_page()
    night_url = host_night(host, pushing.url, NAMES)
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US",
                                  has_touch=kind == "touch", is_mobile=kind == "touch")
    mina = context.new_page()
    mina.goto(seat_link(host, 0))
    claim(mina)
    jo = phone(browser, seat_link(host, 1), locale="en-US")
    for page in (mina, jo):
        page.wait_for_function("() => document.documentElement.dataset.push === 'open'",
                               timeout=WAIT)
    start_game(host, night_url, way="custom", rounds="1,2")
    for page in (mina, jo):
        page.locator(".sk-phone-round", has_text="Round 1 of").wait_for(timeout=WAIT)
    box = mina.locator(".sk-my-bid-form button[name=bid][value='1']").bounding_box()
    finger = Finger(mina, kind)
    finger.down(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    with mina.expect_response(lambda r: "/me/live" in r.url) as refreshed:
        jo.locator(".sk-my-bid-form button[name=bid][value='0']").click()
    assert refreshed.value.ok  # Jo's bid reached Mina's page while her finger was down
    jo.locator(".sk-sent").wait_for(timeout=WAIT)
    if kind == "mouse":
        # A slow hand: a mouse button held for a second and a half is a click all the
        # same (the page took a press held past a second as over, and swapped the
        # refresh in under it).
        mina.wait_for_timeout(1500)
    with mina.expect_response(lambda r: r.request.method == "POST"
                              and r.url.endswith("/me/skullking/bid")) as told:
        finger.up()
    assert told.value.ok and "x-refused" not in told.value.headers  # recorded, not refused
    mina.locator(".sk-sent").wait_for(timeout=WAIT)
    mina.locator(".sk-bids-in", has_text="2 of 5").wait_for(timeout=WAIT)
    host.locator(".sk-bids-in", has_text="2 of 5 bids in").wait_for(timeout=WAIT)


@pytest.mark.parametrize(("kind", "pressed"),
                         [("touch", "bid"), ("mouse", "bid"), ("mouse", "name")])
def test_a_tap_under_way_when_the_scorekeeper_s_last_tap_is_answered_is_not_lost(
        browser, pushing, kind, pressed):
    """On the tablet the scorekeeper taps Mina's bid and is already pressing Jo's when
    the answer to Mina's comes back (a quick hand, a slow laptop: the answer is held back
    here until the press has begun). Had it replaced the region then, the button pressed
    would be gone by the release, and a mouse would click nothing (it did not, before
    the page held answers through a press). Morphed in, it keeps the button pressed;
    Jo's bid is sent, and its answer shows both. A touch is tried too, to keep it so. A
    press that sends nothing (on Jo's name) shows the answer, with no refresh asked for
    it after the release."""
    context = browser.new_context(locale="en-US", viewport={"width": 768, "height": 1024},
                                  has_touch=kind == "touch", is_mobile=kind == "touch")
    host = context.new_page()
    night_url = host_night(host, pushing.url, NAMES)
    start_game(host, night_url, way="custom", rounds="1,2")
    host.wait_for_function("() => document.documentElement.dataset.push === 'open'",
                           timeout=WAIT)
    # every write's answer reaching the page, counted as htmx is about to swap it
    host.evaluate("""() => document.addEventListener("htmx:beforeSwap", e => {
        if (e.detail.requestConfig.verb === "post") {
            window.answered = (window.answered || 0) + 1;
        }
    })""")
    held = []
    host.route("**/skullking/bid",
               lambda route: route.continue_() if held else held.append(route))
    row = {seat: host.locator(f".sk-bid-form[data-seat='{seat}']") for seat in (0, 1)}
    with host.expect_request("**/skullking/bid"):
        row[0].locator("button[name=bid][value='1']").click()
    target = {"bid": "button[name=bid][value='0']", "name": ".sk-name"}[pressed]
    box = row[1].locator(target).bounding_box()
    finger = Finger(host, kind)
    finger.down(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    held[0].fulfill(response=held[0].fetch())  # Mina's bid is answered under the finger
    host.wait_for_function("() => window.answered === 1", timeout=WAIT)
    if pressed == "name":
        # Refreshes asked after the release: none, the answer already showed the bid.
        refreshes, lifted = [], []
        host.on("request", lambda r: refreshes.append(r.url)
                if lifted and "/live" in r.url else None)
        finger.up()
        lifted.append(True)
        host.locator(".sk-bids-in", has_text="1 of 5 bids in").wait_for(timeout=WAIT)
        row[0].locator(".done").wait_for(timeout=WAIT)
        assert refreshes == []  # the answer held, not a refresh after it
        return
    with host.expect_request(lambda r: r.method == "POST"
                             and r.url.endswith("/skullking/bid"), timeout=WAIT) as sent:
        finger.up()
    assert "seat=1" in sent.value.post_data
    host.locator(".sk-bids-in", has_text="2 of 5 bids in").wait_for(timeout=WAIT)
    for seat in (0, 1):
        row[seat].locator(".done").wait_for(timeout=WAIT)


def test_a_silent_laptop_is_said_within_35_seconds_and_a_broken_stream_at_once(
        browser, server_process):
    """With the app's own heartbeat (20 s): the laptop asleep (its server stopped, every
    connection hanging) is said on the phone within 35 s of its last word; a stream that
    breaks (the server gone) is checked at once."""
    server = server_process.start()
    host = browser.new_context(locale="en-US").new_page()
    host_night(host, server.url, ["Mina", "Jo", "Sun"])
    page = phone(browser, seat_link(host, 0), locale="en-US")
    page.wait_for_function("() => document.documentElement.dataset.push === 'open'",
                           timeout=WAIT)
    assert page.locator("#live").get_attribute("data-heartbeat") == "20"
    mark = "[data-offline-mark]"

    # asleep: no answer, no error; only the silence tells
    page.wait_for_timeout(500)
    asleep = time.monotonic()
    server.process.send_signal(signal.SIGSTOP)
    try:
        page.locator(mark).wait_for(timeout=40000)
        said = time.monotonic() - asleep
    finally:
        server.process.send_signal(signal.SIGCONT)
    assert said <= 35, f"said after {said:.1f} s"
    page.locator(mark).wait_for(state="detached", timeout=WAIT)
    page.wait_for_function("() => document.documentElement.dataset.push === 'open'",
                           timeout=WAIT)

    # gone: its stream breaks, and the page checks then
    gone = time.monotonic()
    server.kill()
    page.locator(mark).wait_for(timeout=10000)
    print(f"silent laptop said after {said:.1f} s; a broken stream after "
          f"{time.monotonic() - gone:.1f} s")


def test_a_stream_that_ends_its_life_is_no_alarm(browser, server_process):
    """A stream whose life is over says "bye" and reopens: nothing says the table
    cannot be reached, and the page asks for nothing it does not need."""
    server_process.env = {"COMPANION_PUSH_STREAM_SECONDS": "2",
                          "COMPANION_POLL_SECONDS": "30"}
    server = server_process.start()
    host = browser.new_context(locale="en-US").new_page()
    host_night(host, server.url, ["Mina", "Jo", "Sun"])
    page = phone(browser, seat_link(host, 0), locale="en-US")
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/me/live" in r.url else None)
    streams = []
    page.on("request", lambda r: streams.append(r.url) if "/me/stream" in r.url else None)
    page.wait_for_timeout(7000)  # three or four lives
    assert len(streams) >= 2
    assert page.locator("[data-offline-mark]").count() == 0
    assert asked == []
