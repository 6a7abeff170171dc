"""Every host screen says when the laptop cannot be reached: the host's table page (on a
390 px phone), the tally and the room's screen (1920×1080), in Chromium against
`companion serve` with live push. The laptop falls asleep (its server stopped: every
connection hangs, nothing errs) and each page says "Connection lost" within 1.5
heartbeats and a second of silence, and takes it away when the laptop answers again;
the server gone (its streams break) is said at once, and a server started again clears
it."""

import os
import signal
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from bench.browsing import WAIT, decode_qr, host_night
from tests.browsing import trail

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: The server's heartbeat here (PUSH_HEARTBEAT): 5 s, not the 20 s served, so that the
#: silence takes seconds; the served heartbeat's 35 s promise is held on a phone
#: (tests/test_phones_at_the_table_browser.py).
HEARTBEAT_S = 5
#: A silent laptop is said within this long (1.5 heartbeats and a second: 8.5 s at most,
#: and room for a busy machine).
SILENT_S = 12
MARK = "[data-offline-mark]"
SAYS = {"table": "연결이 끊겼습니다. 다시 연결하는 중…",
        "tally": "연결이 끊겼습니다. 다시 연결하는 중…",
        "screen": "Connection lost. Reconnecting…"}
#: A folder to save the pages' pictures in (COMPANION_SCREENSHOTS), to look at them.
SHOTS = os.environ.get("COMPANION_SCREENSHOTS")
PUSH_OPEN = "() => document.documentElement.dataset.push === 'open'"
#: How the mark reads: its type size, and whether it shows whole inside the viewport.
READS = """el => { const box = el.getBoundingClientRect();
  return {px: parseFloat(getComputedStyle(el).fontSize),
          body: parseFloat(getComputedStyle(document.body).fontSize),
          inside: box.top >= 0 && box.left >= 0 && box.right <= innerWidth + 0.5
                  && box.height > 0 && el.scrollWidth <= el.clientWidth,
          text: el.textContent}; }"""


def host_screens(browser, server):
    """The host's table page on a 390 px phone and the host's tally beside it, in Korean
    (the longer words), and the room's screen opened by its code: {name: page}."""
    host = browser.new_context(locale="ko-KR", viewport={"width": 390, "height": 844}
                               ).new_page()
    night_url = host_night(host, server.url, ["Mina", "Jo", "Sun"])
    host.locator("[data-action=screen-invite] button").click()
    host.wait_for_url("**/screens")
    link = decode_qr(host.locator("figure.qr-large").screenshot())
    tv = browser.new_context(locale="en-US", viewport={"width": 1920, "height": 1080}
                             ).new_page()
    tv.goto(link)
    tv.locator("[data-action=screen-code] button").click()
    tv.wait_for_url("**/screen")
    host.goto(night_url)
    # the tally in a tab of its own on the host's device (its cookie)
    tally_context = browser.new_context(locale="ko-KR", viewport={"width": 1280, "height": 900})
    tally_context.add_cookies(host.context.cookies())
    tally = tally_context.new_page()
    tally.goto(night_url + "/tally")
    pages = {"table": host, "tally": tally, "screen": tv}
    for page in pages.values():
        trail(page)
        page.wait_for_function(PUSH_OPEN, timeout=WAIT)
    return pages


def said_within(pages, seconds, since):
    """Wait for every page's mark, at most ``seconds`` after ``since``: when each said it."""
    said = {}
    for name, page in pages.items():
        left = seconds - (time.monotonic() - since)
        page.locator(MARK).wait_for(timeout=max(left, 0.1) * 1000)
        said[name] = time.monotonic() - since
    return said


def cleared(pages):
    """Wait until no page shows the mark; if one still does, say what it asked since."""
    for name, page in pages.items():
        try:
            page.locator(MARK).wait_for(state="detached", timeout=WAIT)
        except PlaywrightTimeoutError:
            push = page.evaluate("() => document.documentElement.dataset.push || 'none'")
            raise AssertionError(f"{name} still says the laptop is gone (its stream: {push}); "
                                 "its last requests:\n" + "\n".join(page.trail)) from None


def test_the_table_page_the_tally_and_the_screen_say_when_the_laptop_is_gone(
        browser, server_process):
    server_process.env = {"COMPANION_PUSH_HEARTBEAT": str(HEARTBEAT_S)}
    server = server_process.start()
    pages = host_screens(browser, server)

    # asleep: no answer, no error; only the silence tells
    asleep = time.monotonic()
    server.process.send_signal(signal.SIGSTOP)
    try:
        said = said_within(pages, SILENT_S, asleep)
        marks = {name: page.locator(MARK).evaluate(READS) for name, page in pages.items()}
        if SHOTS:
            for name, page in pages.items():
                page.screenshot(path=f"{SHOTS}/offline-{name}.png")
    finally:
        server.process.send_signal(signal.SIGCONT)
    for name, mark in marks.items():
        assert mark["text"] == SAYS[name], name
        assert mark["inside"], (name, mark)  # whole, on top, at 390 px as at 1920 px
    # the room reads it from three metres: the size of the screen's headings
    assert marks["screen"]["px"] >= 1.5 * marks["screen"]["body"], marks["screen"]
    cleared(pages)
    for page in pages.values():
        page.wait_for_function(PUSH_OPEN, timeout=WAIT)

    # gone: the streams break, and each page checks then; back: the mark goes
    gone = time.monotonic()
    server.kill()
    broken = said_within(pages, 10, gone)
    server.start()  # the same port and database, as a host starting it again
    cleared(pages)
    print("a silent laptop said after " + ", ".join(f"{n} {s:.1f} s" for n, s in said.items())
          + "; a broken stream after " + ", ".join(f"{n} {s:.1f} s" for n, s in broken.items()))
