"""Phones slower than the laptop, against `companion serve` (gevent, live push): a phone
whose main thread is busy drawing is not told the laptop is gone, and a phone slowed as a
mid-range Android is (Chrome's own CPU throttling) tells the laptop what it needs, so that
the reveal's lead follows it (companion/core/reveal.py). Figures are the Wi-Fi bench's
(bench/wifi.py --cpu); nothing here asserts a time."""

import json
import sqlite3

import pytest

from bench.browsing import WAIT, claim, create_night, seat_link, start_game
from companion.core.reveal import MOST_MS, lead_ms
from tests.phone_browsing import watch
from tests.skullking_browsing import phone_bids

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: The lead of a quick table (`companion serve`'s REVEAL_LEAD_MS).
DEFAULT_LEAD_MS = 1800
#: How long the page below is kept busy: longer than a refresh's few seconds, all of
#: which its refresh's answer is still on its way.
BUSY_MS = 5000


@pytest.fixture
def pushing(server_process):
    return server_process.start()


def seated(browser, host, seat):
    page = browser.new_context(locale="en-US", viewport={"width": 390, "height": 844}
                               ).new_page()
    page.goto(seat_link(host, seat))
    claim(page)
    page.wait_for_function("() => document.documentElement.dataset.push === 'open'",
                           timeout=WAIT)
    return page


def test_a_phone_busy_drawing_while_its_answer_waits_is_not_told_the_laptop_is_gone(
        browser, pushing):
    host = browser.new_context(locale="en-US").new_page()
    create_night(host, pushing.url, ["Ann", "Bo", "Cy", "Di"])
    ann = seated(browser, host, 0)
    watch(ann)
    held = []
    ann.route("**/me/live*", lambda route: held.append(route))
    ann.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")
    for _ in range(100):
        if held:
            break
        ann.wait_for_timeout(50)
    assert held, "the page did not refresh"
    # the page's main thread is taken (a slow phone drawing a big change) for longer
    # than the refresh's few seconds; its answer comes just after: the page never
    # waited on the network with nothing else to do for those few seconds
    ann.evaluate(f"""() => setTimeout(() => {{
      const end = performance.now() + {BUSY_MS}; while (performance.now() < end) {{}}
    }}, 0)""")
    ann.wait_for_timeout(200)
    ann.wait_for_function("() => true", timeout=WAIT)  # the page is free again
    held[0].continue_()
    ann.unroute("**/me/live*")
    ann.wait_for_timeout(1500)  # a few of its ticks
    assert ann.evaluate("window.__offline") == 0
    assert not ann.locator("[data-offline-mark]").count()


def test_a_slowed_phone_tells_the_laptop_what_it_needs_and_the_reveal_waits_for_it(
        browser, pushing):
    host = browser.new_context(locale="en-US").new_page()
    night_url = create_night(host, pushing.url, ["Ann", "Bo", "Cy"])
    phones = []
    for seat in range(3):
        page = seated(browser, host, seat)
        if seat == 2:  # a mid-range Android
            cdp = page.context.new_cdp_session(page)
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
        phones.append(page)
    start_game(host, night_url, way="custom", rounds="1,1")
    for seat, page in enumerate(phones):
        phone_bids(page, seat % 2, 1)
    host.locator(".sk-bids-in", has_text="3 of 3 bids in").wait_for(timeout=WAIT)
    db = sqlite3.connect(pushing.database)
    try:
        devices = [r[0] for r in db.execute(
            "select device from seats where device is not null order by position")]
        assert len(devices) == 3
        # a need goes with a page's next request: changed bids are changes the others
        # refresh for, which carries what they measured (on a loaded box, a few of them)
        for turn in range(20):
            needs = dict(db.execute("select device, need_ms from reveal_needs"))
            if set(devices) <= set(needs):
                break
            phone_bids(phones[turn % 3], (turn + 1) % 2)
            host.wait_for_timeout(500)
        # the phones measured the changes the others' bids made, and said so (each with
        # its next request: on a box loaded by other tests one may not have asked again
        # yet, so at least one phone, and every need said is a time)
        said = set(devices) & set(needs)
        assert said, needs
        assert all(needs[d] > 0 for d in said)
        host.locator(".sk-yoho").click()
        host.locator("[data-reveal-at]").wait_for(state="attached", timeout=WAIT)
        data = json.loads(db.execute(
            "select data from events where type = 'reveal_bids'").fetchone()[0])
    finally:
        db.close()
    slowest = max(needs.values())
    assert DEFAULT_LEAD_MS <= data["lead_ms"] <= MOST_MS
    assert data["lead_ms"] >= lead_ms([slowest], DEFAULT_LEAD_MS)
    for page in phones:  # and every phone still counts to the moment and opens the bids
        page.locator(".sk-bids").wait_for(timeout=WAIT)
