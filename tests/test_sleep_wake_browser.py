"""Phones that sleep and come back, against `companion serve` (gevent, live push): a
phone whose page the browser froze (screen locked) while the table moved on shows the
table's state at once when it is unlocked, without a reload and without losing what was
typed; and a page left and gone back to shows the table as it is.

A locked phone is played by Chromium itself: the page is hidden and frozen
(`Page.setWebLifecycleState`: its timers, events and network stop, as Chrome does to a
hidden page), then resumed and shown again. Playwright's own pages cannot be hidden
(its focus emulation keeps every page visible), so the phone is a Chromium of its own,
attached over CDP without Playwright's defaults (:func:`own_chromium`); that Chromium
also keeps the back/forward cache on, which Playwright's launch turns off."""

import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from bench.browsing import WAIT, claim, host_night, seat_link
from bench.servers import STARTS_WITHIN_S
from tests.phone_browsing import (
    watch,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: How soon a woken page must show what changed: it asks at once (about 0.1 s here);
#: without that it would wait for the stream's reconnection, the poll (30 s below) or
#: the safety net (60 s). Bounded with room for a busy machine, not a measurement.
SHOWN_MS = 3000
#: The server's heartbeat here (PUSH_HEARTBEAT; 20 s as served): shorter, so that a sleep
#: past it and past the silence it sets takes seconds, not a minute and more.
HEARTBEAT_S = 5
#: The long sleep: longer than a heartbeat and than the silence after which a page says
#: it can't reach the table (1.5 heartbeats and a second: 8.5 s). The stream outlives it
#: (PUSH_STREAM_SECONDS, 3¾ to 5 minutes as served): the heartbeats the server sent
#: meanwhile wait in the frozen page, and the page's timers run before they are read.
ASLEEP_S = 3 * HEARTBEAT_S + 1


@contextmanager
def own_chromium(playwright, launch_args, tmp_path):
    """A Chromium of its own (Debian's), attached without Playwright's default overrides
    (no focus emulation: its pages can be hidden and frozen), in a 390 × 844 window with
    English pages. One device: its pages share their cookies."""
    profile = tmp_path / "chromium-profile"
    process = subprocess.Popen(
        ["/usr/bin/chromium", *launch_args["args"], "--remote-debugging-port=0",
         f"--user-data-dir={profile}", "--window-size=390,844", "--lang=en-US",
         "--accept-lang=en-US", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port = _devtools_port(profile / "DevToolsActivePort")
        browser = playwright.chromium.connect_over_cdp(f"http://127.0.0.1:{port}",
                                                       no_defaults=True)
        try:
            yield browser
        finally:
            browser.close()
    finally:
        process.kill()
        process.wait(timeout=10)


def _devtools_port(path: Path) -> int:
    deadline = time.monotonic() + STARTS_WITHIN_S
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return int(path.read_text().split()[0])
        time.sleep(0.1)
    raise RuntimeError("Chromium did not open its DevTools port")


@pytest.fixture
def phone_browser(playwright, browser_type_launch_args, tmp_path):
    with own_chromium(playwright, browser_type_launch_args, tmp_path) as browser:
        yield browser


@pytest.fixture
def pushing(server_process):
    # Polls every 30 s: a woken page that shows a change within seconds asked for it.
    # Streams' lives as served; heartbeats every HEARTBEAT_S.
    server_process.env = {"COMPANION_POLL_SECONDS": "30",
                          "COMPANION_PUSH_HEARTBEAT": str(HEARTBEAT_S)}
    return server_process.start()


class Sleeper:
    """A phone's page that can be locked (hidden, then frozen) and unlocked (resumed,
    then visible), as Chrome on a phone does."""

    def __init__(self, page):
        self.page = page
        self.cdp = page.context.new_cdp_session(page)
        self.locked_at = None

    def lock(self):
        # (focus emulation, turned on at unlock, is what shows the page: off, it is hidden)
        self.cdp.send("Emulation.setFocusEmulationEnabled", {"enabled": False})
        self.cdp.send("Page.setWebLifecycleState", {"state": "frozen"})
        self.locked_at = time.monotonic()

    def unlock(self):
        self.cdp.send("Page.setWebLifecycleState", {"state": "active"})
        self.cdp.send("Emulation.setFocusEmulationEnabled", {"enabled": True})


def seated_phone(browser, link):
    page = browser.contexts[0].pages[0]
    page.goto(link)
    claim(page)
    page.wait_for_function("() => document.documentElement.dataset.push === 'open'",
                           timeout=WAIT)
    return page


def start_crazytime_with_starting_law(host, night_url):
    host.goto(night_url + "/new/crazytime")
    host.locator("input[name=starting_law]").check()
    host.locator(".ct-new button[type=submit]").click()
    host.wait_for_url("**/g/1")


def pick_rabbit(host, name):
    """Give ``name`` the rabbit; once given, the choice is one folded line (opened here to
    change it) that names who holds it."""
    folded = host.locator(".ct-rabbit:not([open]) summary")
    if folded.count():
        folded.click()
    host.locator(".ct-deal button", has_text=name).click()
    host.locator(".ct-rabbit summary", has_text=name).wait_for(timeout=WAIT)


def same_document(page):
    return page.evaluate("""() => window.__sameDocument === true &&
      performance.getEntriesByType('navigation').length === 1""")


def streams_opened(page):
    opened = []
    page.on("request", lambda r: opened.append(r.url) if "/me/stream" in r.url else None)
    return opened


def transition(page, name):
    """The page's own pagehide or pageshow, as for a page the browser keeps."""
    page.evaluate("n => window.dispatchEvent(new PageTransitionEvent(n, {persisted: true}))",
                  name)


LAW_FIELD = ".ct-law-form input[name=name]"
RABBIT = "() => document.querySelector('#live').textContent.includes('🐇')"


def test_a_phone_locked_while_the_table_moves_on_shows_it_at_once_and_keeps_its_typing(
        browser, phone_browser, pushing):
    host = browser.new_context(locale="en-US", viewport={"width": 1024, "height": 1300}
                               ).new_page()
    night_url = host_night(host, pushing.url, ["Ann", "Bo", "Cy", "Di"])
    ann = seated_phone(phone_browser, seat_link(host, 0))
    phone = Sleeper(ann)
    watch(ann)
    opened = streams_opened(ann)

    # a short sleep: the game starts meanwhile
    phone.lock()
    start_crazytime_with_starting_law(host, night_url)
    time.sleep(2)
    phone.unlock()
    ann.locator(f"[data-game='1'] {LAW_FIELD}").wait_for(timeout=SHOWN_MS)

    # Ann types half of the starting law's name, and the phone locks for longer than the
    # silence; the host picks her as the one who starts meanwhile
    ann.locator(LAW_FIELD).click()
    ann.keyboard.type("Half a la")
    opened.clear()
    phone.lock()
    pick_rabbit(host, "Ann")
    time.sleep(max(0.0, ASLEEP_S - (time.monotonic() - phone.locked_at)))
    phone.unlock()
    unlocked = time.monotonic()
    ann.wait_for_function(RABBIT, timeout=SHOWN_MS)
    print(f"asleep {unlocked - phone.locked_at:.0f} s: the change showed "
          f"{(time.monotonic() - unlocked) * 1000:.0f} ms after unlocking")

    field = ann.locator(LAW_FIELD)
    assert field.input_value() == "Half a la"
    assert ann.evaluate("() => document.activeElement.name") == "name"
    assert ann.evaluate("() => document.activeElement.selectionStart") == len("Half a la")
    assert same_document(ann)
    # its silence while it slept was not taken for a laptop gone
    assert ann.evaluate("window.__offline") == 0
    # and it streams again, on a stream opened since it woke
    ann.wait_for_function("() => document.documentElement.dataset.push === 'open'",
                          timeout=WAIT)
    assert opened


def test_a_page_gone_back_to_shows_the_table_as_it_is(browser, phone_browser, pushing):
    """Chromium keeps no Companion page in its back/forward cache (each is sent with
    `Cache-Control: no-store`, for the secrets on it): going back loads the page afresh,
    with the table as it is. A browser that does keep it (pagehide, then pageshow with
    persisted) refreshes it at once, keeping what was typed: that half is played by the
    page's own events, the stream closed in between as a kept page's is."""
    host = browser.new_context(locale="en-US", viewport={"width": 1024, "height": 1300}
                               ).new_page()
    night_url = host_night(host, pushing.url, ["Ann", "Bo", "Cy", "Di"])
    ann = seated_phone(phone_browser, seat_link(host, 0))
    watch(ann)
    ann.evaluate("() => window.addEventListener('pageshow', e => window.__kept = e.persisted)")

    # to the tally and back: the game started meanwhile
    ann.locator("a[href$='/me/tally']").click()
    ann.wait_for_url("**/me/tally")
    start_crazytime_with_starting_law(host, night_url)
    ann.go_back(wait_until="commit")
    ann.locator(f"[data-game='1'] {LAW_FIELD}").wait_for(timeout=SHOWN_MS)
    assert ann.evaluate("window.__sameDocument") is None  # a fresh page, not a kept one
    assert ann.evaluate("performance.getEntriesByType('navigation')[0].type") == "back_forward"

    # kept by a browser that keeps it: away (its stream closes), the host picks the
    # rabbit, and back
    watch(ann)
    opened = streams_opened(ann)
    ann.locator(LAW_FIELD).fill("Half a la")
    transition(ann, "pagehide")
    assert ann.evaluate("document.documentElement.dataset.push") is None
    pick_rabbit(host, "Ann")
    time.sleep(1)
    assert not ann.evaluate(RABBIT)  # nothing told it: its stream is closed
    transition(ann, "pageshow")
    ann.wait_for_function(RABBIT, timeout=SHOWN_MS)
    assert ann.locator(LAW_FIELD).input_value() == "Half a la"
    assert same_document(ann)
    ann.wait_for_function("() => document.documentElement.dataset.push === 'open'",
                          timeout=WAIT)
    assert opened


def test_a_page_whose_timers_slept_asks_at_once_and_says_nothing_of_the_silence(
        browser, pushing):
    """A browser that says nothing when it sleeps (no resume, no visibilitychange): the
    page's own timers find they are ASLEEP_S late, as its clock jumped."""
    host = browser.new_context(locale="en-US").new_page()
    host_night(host, pushing.url, ["Ann", "Bo", "Cy", "Di"])
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    context.clock.install()  # the page's time flows as ever, until it jumps
    ann = context.new_page()
    ann.goto(seat_link(host, 0))
    claim(ann)
    ann.wait_for_function("() => document.documentElement.dataset.push === 'open'",
                          timeout=WAIT)
    watch(ann)
    opened = streams_opened(ann)
    asked = []
    ann.on("request", lambda r: asked.append(r.url) if "/me/live" in r.url else None)
    ann.clock.fast_forward(ASLEEP_S * 1000)
    ann.wait_for_function("() => document.documentElement.dataset.push === 'open'",
                          timeout=WAIT)
    ann.wait_for_timeout(500)
    assert opened and asked  # a new stream, and the region refreshed
    assert ann.evaluate("window.__offline") == 0


def test_a_refresh_on_its_way_as_the_phone_locks_is_not_taken_for_a_laptop_gone(
        browser, phone_browser, pushing):
    """A refresh sent just before the phone locked is answered, or given up on, only once
    the page is unlocked, long after its few seconds ran out: that says nothing of the
    laptop (the page slept, not the laptop: the time asleep is not counted as waiting),
    and the page asks again instead of saying it can't reach the table."""
    host = browser.new_context(locale="en-US").new_page()
    host_night(host, pushing.url, ["Ann", "Bo", "Cy", "Di"])
    ann = seated_phone(phone_browser, seat_link(host, 0))
    phone = Sleeper(ann)
    watch(ann)
    ann.evaluate("""() => { window.__given_up = 0;
      document.body.addEventListener('htmx:sendAbort', () => { window.__given_up += 1; }); }""")
    # the first refresh is held on its way and never answered (an unrouted request would
    # go on to the server, and its answer could land before its time-out); later ones pass
    held, passed = [], []
    ann.route("**/me/live*", lambda route: (passed.append(route) or route.continue_())
              if held else held.append(route))
    ann.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")
    deadline = time.monotonic() + SHOWN_MS / 1000
    while not held and time.monotonic() < deadline:
        ann.wait_for_timeout(50)
    assert held, "the page did not refresh"

    phone.lock()
    time.sleep(12)  # longer than the refresh's few seconds, and than a tick's lateness
    phone.unlock()
    # the held refresh is given up on only after it waited a few seconds awake
    ann.wait_for_function("() => window.__given_up >= 1", timeout=WAIT)
    ann.wait_for_function("() => document.documentElement.dataset.push === 'open'",
                          timeout=WAIT)
    deadline = time.monotonic() + WAIT / 1000
    while not passed and time.monotonic() < deadline:
        ann.wait_for_timeout(50)
    assert passed, "the woken page did not ask again"
    assert ann.evaluate("window.__offline") == 0
