"""A latecomer at a real table: the host adds them on the tablet and their seat code
appears at once in the form's answer; their phone scans it and sees the table, never a
running game's secret."""

import html
import re

import pytest

from bench.browsing import WAIT, decode_qr, host_night
from tests.browsing import ROLE_WORDS, phone, roles_in

pytestmark = pytest.mark.browser


def test_the_host_adds_a_latecomer_whose_phone_joins_by_the_new_code(browser, live_server):
    host = browser.new_context(locale="en-US", viewport={"width": 768, "height": 1024}
                               ).new_page()
    night_url = host_night(host, live_server.url, ["Mina", "Jo", "Sun"])
    host.goto(night_url + "/new/kraken")
    host.locator("form.kraken-new button[type=submit]").click()
    host.wait_for_url("**/g/1")
    host.goto(night_url)
    join = host.locator(".seat-join")
    join.locator("summary").click()
    join.locator("input[name=name]").fill("Bartholomew Montgomery-Smithe")
    with host.expect_response(lambda r: r.request.method == "POST"
                              and r.url.endswith("/seats")) as sent:
        join.locator("button[type=submit]").click()
    # the new seat's code comes in the form's answer, where the host tapped (read from
    # the answer itself: the night's live refresh, told of the same write, may land just
    # after it and draw the table without the answer's line)
    added = re.search(r'<figure class="seat-join-added[^"]*"[^>]*>\s*<img src="([^"]+)"',
                      sent.value.text())
    assert added, "the latecomer's code is not in the form's answer"
    host.locator(".seat-card").nth(3).wait_for(state="attached", timeout=WAIT)
    assert host.locator(".seat-card").count() == 4
    assert host.evaluate("document.documentElement.scrollWidth") <= 768
    drawn = host.context.new_page()
    drawn.goto(live_server.url + html.unescape(added.group(1)))

    late = phone(browser, decode_qr(drawn.screenshot()), locale="en-US")
    late.locator(".kraken-glance").wait_for(timeout=WAIT)
    assert "You are not playing this game" in late.content()
    assert roles_in(late.content()) == []
    assert late.locator("[data-hold]").count() == 0
    assert set(ROLE_WORDS.values()).isdisjoint(late.title().split())
