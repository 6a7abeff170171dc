"""Phones slower than the laptop, against `companion serve` (gevent, live push): a phone
whose main thread is busy drawing is not told the laptop is gone. Figures are the Wi-Fi
bench's (bench/wifi.py --cpu); nothing here asserts a time."""

import pytest

from bench.browsing import WAIT, claim, host_night, seat_link
from tests.phone_browsing import watch

pytestmark = [pytest.mark.browser, pytest.mark.slow]

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
    host_night(host, pushing.url, ["Ann", "Bo", "Cy", "Di"])
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
