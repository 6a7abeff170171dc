"""The browser's console stays free of errors on a table's ordinary refusals: a refused
latecomer, Crazy Time's start question while another game runs, a seat code scanned by a
second phone, and a stale tap. Each is drawn in the page for a person, and answered 200 to
a browser (companion/web/http.py, ``quiet_refusal``), so Chromium logs no "Failed to load
resource" for it; nor may any script throw on the way."""

import pytest

from bench.browsing import WAIT, claim, host_night
from tests.phone_browsing import night_key, seat_url

pytestmark = pytest.mark.browser

TABLET = {"width": 768, "height": 1024}
PHONE = {"width": 390, "height": 844}


class Console:
    """Every console error and uncaught script error of the pages it watches."""

    def __init__(self):
        self.errors = []

    def watch(self, page):
        """Note ``page``'s console errors and page errors, with the page's address."""
        page.on("console", lambda message: message.type == "error" and self.errors.append(
            f"{page.url}: console: {message.text}"))
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: error: {error}"))
        return page

    def page(self, browser, viewport):
        """A new device (its own browser context) whose page is watched."""
        context = browser.new_context(viewport=viewport, locale="en-US")
        return self.watch(context.new_page())


def reveal(page, name):
    """Kraken's two taps of a reveal: whose card, then an empty box."""
    page.locator(".kraken-reveal label.tap", has_text=name).click()
    page.locator(".kraken-reveal .card-buttons").get_by_role(
        "button", name="Empty box", exact=True).click()


def nothing_changed(route):
    """A live refresh answered "nothing changed": the page keeps what it shows."""
    route.fulfill(status=204)


def test_a_table_s_refusals_leave_the_console_clean(browser, live_server):
    console = Console()
    host = console.page(browser, TABLET)
    night_url = host_night(host, live_server.url, ["Mina", "Jo", "Sun", "Ann"])
    key = night_key(night_url)

    # Jo's phone takes the seat; a second phone scans the same code (a GET it navigates to)
    jo = console.page(browser, PHONE)
    jo.goto(seat_url(live_server, key, 1))
    claim(jo)
    other = console.page(browser, PHONE)
    other.goto(seat_url(live_server, key, 1))
    other.get_by_text("This seat is already taken").first.wait_for(timeout=WAIT)

    # a Kraken game runs on the phones
    host.goto(night_url + "/new/kraken")
    host.locator("form.kraken-new button[type=submit]").click()
    host.wait_for_url("**/g/1")

    # a latecomer with a name the table already has: refused in the form (htmx)
    host.goto(night_url)
    join = host.locator(".seat-join")
    join.locator("summary").click()
    join.locator("input[name=name]").fill("mina")
    join.locator("button[type=submit]").click()
    join.locator(".refusal", has_text="Two players are called").wait_for(timeout=WAIT)

    # Crazy Time started while Kraken runs: the question first (a form posted without
    # htmx), and the host goes back to the running game
    host.goto(night_url + "/new/crazytime")
    host.locator("form.ct-new button[type=submit]").click()
    question = host.locator(".confirm-start")
    question.wait_for(timeout=WAIT)
    assert "is still running" in question.inner_text()
    question.locator("a", has_text="Back to game #1").click()
    host.wait_for_url("**/g/1")

    # the marker is given; a second tab of the host's, kept on the game as it then was
    # (its refreshes are told nothing changed), reveals a card after the first tab did:
    # the table moved on
    host.locator(".kraken-marker button", has_text="Sun").click()
    host.locator(".kraken-reveal").wait_for(timeout=WAIT)
    stale = console.watch(host.context.new_page())
    stale.route("**/live?*", nothing_changed)
    stale.goto(night_url + "/g/1")
    reveal(host, "Mina")
    host.locator(".kraken-reveal legend", has_text="Mina has the marker").wait_for(timeout=WAIT)
    reveal(stale, "Jo")
    stale.locator(".kraken-reveal .refusal", has_text="The table moved on").wait_for(
        timeout=WAIT)

    for page in (host, jo, other, stale):
        page.wait_for_timeout(300)  # a message logged just after the last answer
    assert console.errors == []
