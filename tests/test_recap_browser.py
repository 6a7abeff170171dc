"""The recap picture on the tally, in Chromium at a phone's width: a game that finishes
brings the night's picture, a plain image that loads and fits the screen (a phone saves
it with a long-press)."""

import pytest

from bench.browsing import WAIT, host_night
from bench.builders import kraken_all_treasure, kraken_game, store_game
from companion import store

pytestmark = pytest.mark.browser

ROLES = ["explorer", "skeleton", "explorer"]


def test_a_game_that_finishes_brings_the_picture_at_390_px(browser, live_server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="ko-KR")
    page = context.new_page()
    url = host_night(page, live_server.url, ["민준", "서연 🐙", "지호"])
    key = url.rstrip("/").rsplit("/", 1)[1]
    device = next(c["value"] for c in context.cookies() if c["name"] == "device")
    events = kraken_all_treasure()
    running = store_game(live_server.app, device, key, kraken_game(1, ROLES, events[:-1]))

    page.goto(f"{url}/tally")
    assert page.locator(".tally-recap").count() == 0  # running: no picture

    with live_server.app.test_request_context(headers={"Cookie": f"device={device}"}):
        last = events[-1]
        store.record(running, last["type"], last["data"], pos=running.pos, device=device)
    image = page.locator(".tally-recap img.recap-night")
    image.wait_for(timeout=WAIT)
    image.scroll_into_view_if_needed()
    page.wait_for_function("img => img.complete && img.naturalWidth > 0",
                           arg=image.element_handle(), timeout=WAIT)
    assert page.evaluate("img => img.naturalWidth", image.element_handle()) == 1080
    assert image.bounding_box()["width"] <= 390
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    context.close()
