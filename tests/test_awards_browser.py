"""Awards on the tally and head to head on the statistics page, in Chromium at a phone's
width, with names of 30 characters: nothing runs off the side of the screen."""

import pytest

from bench.browsing import host_night
from bench.builders import kraken_game, kraken_kraken_first, skullking_hand, store_game
from tests.browsing import box_where

pytestmark = pytest.mark.browser

NAMES = ["Annabelle Wolkenstein-Hartmann", "Bartholomew Okonkwo-Fairweathr",
         "Cyrillus Vanderbilt-Montgomery"]
assert all(len(name) == 30 for name in NAMES)

OVERFLOW = "document.documentElement.scrollWidth"


def test_an_award_on_the_tally_and_head_to_head_on_stats_at_390_px(browser, live_server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = context.new_page()
    url = host_night(page, live_server.url, NAMES)
    key = url.rstrip("/").rsplit("/", 1)[1]
    device = next(c["value"] for c in context.cookies() if c["name"] == "device")
    # Skull King (bids 1, 0, 0 then 2, 0, 1; won 1, 0, 0 then 1, 0, 1): Bartholomew bid 0
    # and took no trick in both rounds. Kraken: Bartholomew the Skeleton wins.
    store_game(live_server.app, device, key, skullking_hand(1))
    store_game(live_server.app, device, key,
               kraken_game(2, ["explorer", "skeleton", "explorer"], kraken_kraken_first()))

    page.goto(f"{url}/tally")
    sharp = page.locator(".tally-awards .award-zero-streak")
    sharp.scroll_into_view_if_needed()
    assert sharp.locator(".award-title").inner_text() == "Perfect zero streak"
    assert sharp.locator(".player").all_inner_texts() == NAMES[1:2]
    assert "rounds in a row: 2" in sharp.inner_text()
    box_where(sharp, lambda box: box["x"] + box["width"] <= 390)
    assert page.evaluate(OVERFLOW) <= 390

    page.goto(f"{live_server.url}/stats")
    page.select_option("select[name=a]", label=NAMES[0])
    page.select_option("select[name=b]", label=NAMES[1])
    page.locator(".versus-form button[type=submit]").click()
    page.wait_for_url("**/stats?a=*")
    versus = page.locator(".tally-versus")
    assert "Finished games played together: 2" in versus.inner_text()
    rows = versus.locator(".versus-table tbody tr")
    assert rows.nth(0).locator("th").inner_text() == NAMES[0]
    assert rows.nth(1).locator("td[data-label='Games won']").inner_text() == "2"
    assert page.evaluate(OVERFLOW) <= 390
    context.close()
