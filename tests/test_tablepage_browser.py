"""The table page by the night's phases, in Chromium on the host's tablet: the seat codes
come first on a fresh night, the count of phones joined follows the claims live, and
once every phone joined the game comes first and the codes wait under "More"."""

import os

import pytest

from bench.browsing import WAIT, host_night, seat_link
from tests.browsing import phone

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("COMPANION_SCREENSHOTS")
NAMES = ["Bartholomew the Unsinkable III", "민준", "Mina"]
assert len(NAMES[0]) == 30


def test_a_fresh_night_shows_the_seat_codes_above_the_fold_on_a_tablet(browser, live_server):
    context = browser.new_context(viewport={"width": 768, "height": 1024}, locale="en-US")
    host = context.new_page()
    host_night(host, live_server.url, NAMES)
    assert host.locator(".joined-count").first.inner_text() == "0 of 3 phones joined"
    first = host.locator(".seat-card img").first
    first.wait_for(timeout=WAIT)
    box = first.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 1024  # the whole code, unscrolled
    assert host.title() == "The night's table · Companion"
    if SHOTS:
        host.screenshot(path=f"{SHOTS}/table-fresh-768.png")
    context.close()


def test_the_count_follows_the_claims_and_the_game_comes_first_once_all_joined(
        browser, live_server):
    context = browser.new_context(viewport={"width": 768, "height": 1024}, locale="en-US")
    host = context.new_page()
    night_url = host_night(host, live_server.url, NAMES[1:])
    phones = [phone(browser, seat_link(host, 0), locale="en-US")]
    host.get_by_text("1 of 2 phones joined").wait_for(timeout=WAIT)  # live, no reload
    phones.append(phone(browser, seat_link(host, 1), locale="en-US"))
    host.locator("details.night-seats").wait_for(state="attached", timeout=WAIT)
    assert not host.locator(".seat-card img").first.is_visible()  # folded under "More"
    summary = host.locator("details.night-seats > summary")
    assert "2 of 2 phones joined" in summary.inner_text()
    top = host.locator("a[role=button].new-game").first.bounding_box()
    more = host.locator("#night-more-title").bounding_box()
    assert top is not None and more is not None and top["y"] < more["y"]

    host.goto(night_url + "/new/skullking")
    host.locator("main form button[type=submit]").last.click()
    host.wait_for_url("**/g/1")
    host.goto(night_url)
    card = host.locator(".running-game")
    assert "Skull King" in card.locator(".running-title").inner_text()
    assert "Round 1 of" in card.locator(".running-progress").inner_text()
    assert card.bounding_box()["y"] < host.locator(".start-games").bounding_box()["y"]
    if SHOTS:
        host.screenshot(path=f"{SHOTS}/table-running-768.png", full_page=True)
    card.get_by_role("button", name="Go to the game").click()
    host.wait_for_url("**/g/1")
    for page in phones:
        page.context.close()
    context.close()
