"""What happens next, live: a phone bids and the tablet's "waiting for" loses that name
without a reload; the room's screen follows it."""

import pytest

from bench.browsing import WAIT, host_night, seat_link, start_game
from tests.browsing import phone
from tests.skullking_browsing import TABLET, phone_bids

pytestmark = pytest.mark.browser


def test_a_phone_bids_and_the_tablets_waiting_for_loses_that_name(browser, live_server):
    context = browser.new_context(locale="en-US", viewport=TABLET)
    host = context.new_page()
    night_url = host_night(host, live_server.url,
                             ["Mina", "Alex", "Bartholomew the Unsinkable III"])
    alex = phone(browser, seat_link(host, 1), locale="en-US")
    start_game(host, night_url, way="custom", rounds="2,3")
    line = host.locator(".next-step")
    line.filter(has_text="waiting for Mina, Alex and Bartholomew the Unsinkable III "
                         "to bid").wait_for(timeout=WAIT)
    host.evaluate("document.querySelector('.next-step').dataset.before = 'yes';"
                  "window.sameDocument = true")
    phone_bids(alex, 1, 1)
    line.filter(has_text="waiting for Mina and Bartholomew the Unsinkable III to bid"
                ).wait_for(timeout=WAIT)
    assert "Alex" not in line.inner_text()
    # the line was swapped by the live region, not by a reload of the page
    assert host.evaluate("() => !document.querySelector('.next-step').dataset.before")
    assert host.evaluate("() => window.sameDocument === true")
    assert host.evaluate("() => document.querySelectorAll('.next-step .player').length") == 3

    # the room's screen (a host may look at it) says the same, large, beside the title
    tv = context.new_page()
    tv.set_viewport_size({"width": 1920, "height": 1080})
    tv.goto(night_url + "/screen")
    shown = tv.locator(".screen-game .next-step")
    shown.filter(has_text="waiting for Mina and Bartholomew the Unsinkable III to bid"
                 ).wait_for(timeout=WAIT)
    assert shown.evaluate("e => parseFloat(getComputedStyle(e).fontSize)") >= 39.5
    title = tv.locator(".screen-title").bounding_box()
    box = shown.bounding_box()
    assert box["x"] >= title["x"] + title["width"] and box["y"] < title["y"] + title["height"]
