"""The host's table page says "no phone has reached this laptop yet" once its seat codes
have been on screen for a minute with no phone arriving, and not after a reload starts
the minute over; "Phones can't open it?" fits a phone's width (static/js/panels.js,
templates/table/_reach.html). The page's clock is Playwright's: no test waits a minute."""

import os
from pathlib import Path

import pytest

from bench.browsing import WAIT, host_night, seat_link

pytestmark = pytest.mark.browser

#: A folder to save the host page's pictures in (COMPANION_SCREENSHOTS), to look at them.
SHOTS = os.environ.get("COMPANION_SHOTS") or os.environ.get("COMPANION_SCREENSHOTS")
NAMES = ["민수", "Jo", "지혜", "Ann"]


def test_the_notice_waits_a_minute_across_reloads_and_goes_when_a_phone_arrives(
        browser, live_server):
    context = browser.new_context(locale="en-US", viewport={"width": 1100, "height": 900})
    host = context.new_page()
    host.clock.install()
    host_night(host, live_server.url, NAMES)
    notice = host.locator("[data-reach-wait]")
    assert notice.count() == 1 and notice.is_hidden()
    host.clock.fast_forward("00:40")
    assert notice.is_hidden()
    host.reload()  # the minute goes on from the first time the codes were shown
    host.clock.fast_forward("00:25")
    notice.wait_for(state="visible", timeout=WAIT)
    assert "No phone has reached this laptop yet." in notice.inner_text()

    link = seat_link(host, 0)
    phone = browser.new_context(locale="en-US").new_page()
    phone.goto(link)  # the question "Are you …?" is enough: the phone reached the laptop
    host.reload()
    assert host.locator("[data-reach-wait]").count() == 0
    phone.context.close()
    context.close()


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("width", [1100, 390])
def test_phones_cant_open_it_fits_the_page(browser, live_server, lang, width):
    live_server.app.config["OTHER_URLS"] = ["http://192.168.137.1:8765",
                                            "http://10.8.0.2:8765"]
    context = browser.new_context(locale="ko-KR" if lang == "ko" else "en-US",
                                  viewport={"width": width, "height": 900})
    host = context.new_page()
    host.clock.install()
    host_night(host, live_server.url, NAMES)
    host.clock.fast_forward("01:05")
    host.locator("[data-reach-wait]").wait_for(state="visible", timeout=WAIT)
    host.locator("#reach summary").click()
    images = host.locator(".reach-addresses img")
    assert images.count() == 2
    for i in range(2):
        images.nth(i).scroll_into_view_if_needed()
        host.wait_for_function("img => img.complete && img.naturalWidth > 0",
                               arg=images.nth(i).element_handle())
    scrolls = host.evaluate("document.documentElement.scrollWidth > window.innerWidth")
    assert not scrolls, "the page scrolls sideways"
    if SHOTS:
        host.locator(".reach").scroll_into_view_if_needed()
        host.screenshot(path=str(Path(SHOTS) / f"reach-{lang}-{width}.png"), full_page=True)
    context.close()
