"""A phone that follows the table through its refreshes, each morphed in (idiomorph),
against `companion serve`: what did not change stays the very same element on the page,
what did is shown, the page's version follows the table's, and a refresh overtaken by
the phone's own write takes nothing of it away (static/js/live.js, live.overtaken)."""

import pytest

from bench.browsing import WAIT, claim, host_night, seat_link, start_game
from tests.browsing import as_a_phone
from tests.skullking_browsing import phone_bids

pytestmark = pytest.mark.browser

SHOWN = """() => Number(/[?&]v=(\\d+)/.exec(
  document.getElementById('live').getAttribute('hx-get'))[1])"""
#: What a bid elsewhere leaves as it was: the phone's head, the table's list, the
#: standings (a JS array of selectors).
KEPT = "['.seat-head', '.table-list', '.sk-standings']"


def bidding(browser, server_process):
    """The host's screen and Ann's phone (390 px, slowed as PHONE_CPU says) of a night of
    three, a Skull King game of two one-card rounds begun: the phone can bid."""
    served = server_process.start()
    host = browser.new_context(locale="en-US").new_page()
    night_url = host_night(host, served.url, ["Ann", "Bo", "Cy"])
    phone = as_a_phone(browser.new_context(locale="en-US",
                                           viewport={"width": 390, "height": 844}).new_page())
    phone.goto(seat_link(host, 0))
    claim(phone)
    start_game(host, night_url, way="custom", rounds="1,1")
    phone.locator(".sk-my-bid-form").wait_for(timeout=WAIT)
    return host, phone


def test_a_phone_keeps_what_did_not_change_and_shows_what_did(browser, server_process):
    host, phone = bidding(browser, server_process)
    phone_bids(phone, 1)
    phone.evaluate(f"""() => {{ for (const sel of {KEPT})
      {{ document.querySelector(sel).__kept = true; }} }}""")
    for seat in (1, 2):
        host.locator(f"form.sk-bid-form[data-seat='{seat}'] button[name=bid][value='0']"
                     ).click()
        host.locator(f"form.sk-bid-form[data-seat='{seat}'] .done").wait_for(timeout=WAIT)
    phone.locator(".sk-bids-in", has_text="3 of 3 bids in").wait_for(timeout=WAIT)
    phone.wait_for_function(f"() => ({SHOWN})() >= {host.evaluate(SHOWN)}", timeout=WAIT)
    assert phone.evaluate(f"""() => {KEPT}.every(
      (sel) => document.querySelector(sel).__kept === true)""")
    # the reveal and the score: the round and the standings change, and show it
    host.locator(".sk-yoho").click()
    phone.locator(".sk-bids").wait_for(timeout=WAIT)
    host.locator(".sk-score-btn").click()
    phone.locator(".sk-phone-round", has_text="Round 2 of 2").wait_for(timeout=WAIT)
    phone.locator("[data-my-total]", has_text="20").wait_for(timeout=WAIT)
    phone.locator(".sk-rank[data-seat='0'][data-total='20']").wait_for(timeout=WAIT)


def test_a_refresh_overtaken_by_the_phone_s_own_bid_does_not_bring_its_form_back(
        browser, server_process):
    """A refresh leaves, the phone bids, the bid's answer ("Bid sent") lands first and
    the refresh's after it: it is older than the page (on a bad phone's Wi-Fi the phone
    showed its bid form again, for good: every later refresh was told its version was
    the laptop's)."""
    host, phone = bidding(browser, server_process)
    held = []

    def hold_the_first(route):
        if held:
            route.continue_()
        else:  # the laptop answers now, and the answer is kept on its way
            held.append((route, route.fetch()))

    phone.route("**/me/live?*", hold_the_first)
    # another player's bid: the phone's refresh for it leaves, and is held
    host.locator("form.sk-bid-form[data-seat='1'] button[name=bid][value='0']").click()
    for _ in range(200):
        if held:
            break
        phone.wait_for_timeout(50)
    assert held, "the phone did not refresh"
    phone.locator(".sk-my-bid-form button[name=bid][value='1']").click()
    phone.locator(".sk-sent").wait_for(timeout=WAIT)
    phone.evaluate("""() => { window.__oob = new Promise((done) => document.addEventListener(
      'htmx:afterRequest', () => setTimeout(done, 100), {once: true})); }""")
    route, answer = held[0]
    route.fulfill(response=answer)
    phone.evaluate("() => window.__oob")
    assert phone.locator(".sk-sent").is_visible()
    assert phone.locator(".sk-bids-in").inner_text() == "2 of 3 bids in"
