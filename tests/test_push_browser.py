"""Live push in a real browser against `companion serve` (gevent): a phone sees a change
the moment it is recorded, without waiting for a poll; it comes back after the server
restarts; and with its stream blocked, polling still delivers."""

import time

import pytest

from bench.browsing import WAIT, claim, host_night, seat_link
from tests.browsing import phone

pytestmark = pytest.mark.browser



def start_kraken(host, players=3):
    host.locator("a[href$='/new/kraken']").first.click()
    for i in range(players):
        box = host.locator(f"input[name=seat{i}]")
        if not box.is_checked():
            box.check()
    host.locator("form[data-action=game-new] button[type=submit]").last.click()
    host.wait_for_url("**/g/*")


def give_marker(host, seat_index=1):
    host.locator("form[data-action=kraken-marker] button[name=seat]").nth(seat_index).click()


def live_requests(page):
    """Every GET of the page's live region, with when it was sent."""
    seen = []
    page.on("request", lambda r: seen.append((time.monotonic(), r.url))
            if "/me/live" in r.url else None)
    return seen


@pytest.fixture
def pushing(server_process):
    # Polls every 30 s: whatever a phone shows within a few seconds came by push.
    server_process.env = {"COMPANION_POLL_SECONDS": "30"}
    return server_process.start()


def test_a_change_reaches_the_phone_by_push_not_by_poll(browser, pushing):
    host = browser.new_context(locale="en-US").new_page()
    host_night(host, pushing.url, ["Ann", "Bo", "Cy"])
    ann = phone(browser, seat_link(host, 0), locale="en-US")
    ann.wait_for_function("() => document.documentElement.dataset.push === 'open'", timeout=WAIT)
    start_kraken(host)
    ann.locator(".game-panel").wait_for(timeout=WAIT)  # the new game, pushed
    asked = live_requests(ann)
    before = time.monotonic()
    give_marker(host)
    ann.wait_for_function(
        "() => /Bo/.test(document.querySelector('[data-k=marker]')?.textContent || '')",
        timeout=WAIT)
    took = time.monotonic() - before
    # one refresh, asked right after the write (a poll would have waited 30 s)
    assert len(asked) == 1 and asked[0][0] - before < took
    assert took < 10


#: Notes the document's readyState as each EventSource is made (before the page's
#: scripts run).
NOTE_STREAMS = """(() => {
    const Native = window.EventSource;
    window.streamsOpened = [];
    window.EventSource = function (url, options) {
        window.streamsOpened.push(document.readyState);
        return new Native(url, options);
    };
    window.EventSource.prototype = Native.prototype;
})()"""


#: A phone unlocked while its page loads: the page hears it is visible before its load.
WAKE_WHILE_LOADING = """document.addEventListener("DOMContentLoaded", () => {
    document.dispatchEvent(new Event("visibilitychange"));
})"""


def test_a_stream_opens_once_its_page_has_loaded(browser, pushing):
    """On the host's page (its QR codes) and a phone's, and on a phone woken while its
    page loads: a stream opened while its page still loads can keep a WebKit page loading
    as long as it is open (Safari's wheel turning, a WebDriver waiting), so each opens
    once, after the page's load."""
    context = browser.new_context(locale="en-US")
    context.add_init_script(NOTE_STREAMS)
    host = context.new_page()
    host_night(host, pushing.url, ["Ann", "Bo", "Cy"])
    phone_context = browser.new_context(viewport={"width": 390, "height": 844},
                                        locale="en-US")
    phone_context.add_init_script(NOTE_STREAMS)
    ann = phone_context.new_page()
    ann.goto(seat_link(host, 0))
    claim(ann)
    woken_context = browser.new_context(viewport={"width": 390, "height": 844},
                                        locale="en-US")
    woken_context.add_init_script(NOTE_STREAMS)
    woken_context.add_init_script(WAKE_WHILE_LOADING)
    bo = woken_context.new_page()
    bo.goto(seat_link(host, 1))
    claim(bo)
    for page in (host, ann, bo):
        page.wait_for_function("() => document.documentElement.dataset.push === 'open'",
                               timeout=WAIT)
        assert page.evaluate("window.streamsOpened") == ["complete"], page.url


def test_a_phone_comes_back_after_the_server_restarts(browser, pushing):
    host = browser.new_context(locale="en-US").new_page()
    host_night(host, pushing.url, ["Ann", "Bo", "Cy"])
    ann = phone(browser, seat_link(host, 0), locale="en-US")
    start_kraken(host)
    ann.locator(".game-panel").wait_for(timeout=WAIT)
    ann.wait_for_function("() => document.documentElement.dataset.push === 'open'", timeout=WAIT)
    pushing.kill()
    ann.wait_for_function("() => document.documentElement.dataset.push === 'retrying'",
                          timeout=WAIT)
    pushing.start()
    ann.wait_for_function("() => document.documentElement.dataset.push === 'open'", timeout=WAIT)
    host.reload()
    give_marker(host)
    ann.wait_for_function(
        "() => /Bo/.test(document.querySelector('[data-k=marker]')?.textContent || '')",
        timeout=WAIT)


def test_with_its_stream_blocked_a_phone_still_learns_by_polling(browser, server_process):
    server_process.env = {"COMPANION_POLL_SECONDS": "1"}
    server_process.start()
    host = browser.new_context(locale="en-US").new_page()
    host_night(host, server_process.url, ["Ann", "Bo", "Cy"])
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    context.route("**/me/stream*", lambda route: route.abort())  # a proxy that drops streams
    ann = context.new_page()
    ann.goto(seat_link(host, 0))
    ann.locator("form[data-action=seat-claim] button").click()
    ann.wait_for_url("**/me")
    start_kraken(host)
    ann.locator(".game-panel").wait_for(timeout=WAIT)
    give_marker(host)
    ann.wait_for_function(
        "() => /Bo/.test(document.querySelector('[data-k=marker]')?.textContent || '')",
        timeout=WAIT)
    assert ann.evaluate("document.documentElement.dataset.push") != "open"
