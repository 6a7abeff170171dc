"""Names in a real browser: a name field counts its characters near the 30 a name may
have and says when a name is longer, the field cutting nothing; the host renames a player
on the tablet and the player's phone follows; a long name breaks between its words on a
320 px phone's claim page, in either script and either language."""

import re

import pytest

from bench.browsing import WAIT, claim, host_night
from companion import store
from tests.browsing import WORDS_BROKEN
from tests.phone_browsing import night_key, seat_url, touch_phone

pytestmark = pytest.mark.browser

LONG = "Bartholomew the Unsinkable Pirate"  # 33 characters


def test_the_start_page_counts_a_long_name_and_refuses_it_saying_so(browser, live_server):
    host = browser.new_context(viewport={"width": 768, "height": 1024},
                               locale="en-US").new_page()
    host.goto(live_server.url + "/")
    field = host.locator("form.roster input[name=name]").first
    count = host.locator("#roster-0-count")
    field.fill("Mina")
    assert count.is_hidden()  # a short name says nothing
    field.fill(LONG[:24])
    count.wait_for(timeout=WAIT)
    assert count.inner_text() == "24 of at most 30 characters"
    field.fill(LONG)
    assert field.input_value() == LONG  # nothing cut
    assert count.inner_text() == "33 characters: a name has at most 30"
    assert field.get_attribute("aria-invalid") == "true"
    host.locator("form.roster input[name=name]").nth(1).fill("Jo")
    host.locator("form.roster button[type=submit]:not([data-add-seat])").click()
    host.locator(".notice.error").wait_for(timeout=WAIT)
    assert "has 33 characters: a name has at most 30" in host.locator(".notice.error").inner_text()
    assert host.locator("form.roster input[name=name]").first.input_value() == LONG
    assert "/n/" not in host.url


def test_the_host_renames_a_player_and_their_phone_follows(browser, live_server):
    host = browser.new_context(viewport={"width": 768, "height": 1024},
                               locale="en-US").new_page()
    night_url = host_night(host, live_server.url, ["Bartholomew the Unsinkable Pir", "Jo"])
    key = night_key(night_url)
    phone = touch_phone(browser, seat_url(live_server, key, 0))
    phone.locator(".seat-head .seat-name", has_text="Unsinkable Pir").wait_for(timeout=WAIT)

    card = host.locator(".seat-card").first
    card.locator("details.seat-more > summary").click()
    name = card.locator("form.seat-rename input[name=name]")
    name.fill("Bartholomew the Unsinkable")
    card.locator("form.seat-rename button[type=submit]").click()
    renamed = re.compile(r"^\s*Bartholomew the Unsinkable\s*$")
    host.locator(".seat-card .seat-name", has_text=renamed).wait_for(timeout=WAIT)
    phone.locator(".seat-head .seat-name", has_text=renamed).wait_for(timeout=WAIT)
    with live_server.app.test_request_context():
        assert store.names(store.night_by_key(key)["id"])[0] == "Bartholomew the Unsinkable"


@pytest.mark.parametrize("locale", ["en-US", "ko-KR"])
def test_a_long_name_breaks_between_its_words_on_a_320_px_claim_page(
        browser, live_server, locale):
    names = ["Bartholomew the Unsinkable Pir", "바르톨로뮤 불침선의 해적단 선장님",
             "Maximilian Alexander Habsburg"]
    host = browser.new_context(locale="en-US").new_page()
    key = night_key(host_night(host, live_server.url, names))
    for position, name in enumerate(names):
        context = browser.new_context(viewport={"width": 320, "height": 640}, locale=locale,
                                      has_touch=True, is_mobile=True)
        page = context.new_page()
        page.goto(seat_url(live_server, key, position))
        page.locator(".claim-page h1").wait_for(timeout=WAIT)
        assert page.evaluate(WORDS_BROKEN, ".claim-page") == [], name
        assert page.evaluate("document.documentElement.scrollWidth") <= 320
        claim(page)
        assert page.evaluate(WORDS_BROKEN, ".seat-head") == [], name
        context.close()
