"""Every game's page on the host's tablet has its title in one size: Skull King's was
half the others'."""

import pytest

from bench.builders import store_game
from bench.layout_night import crazytime, kraken, make_night, skullking

pytestmark = pytest.mark.browser

NAMES = ["Mina", "Jo", "Sun", "Ann", "Lee", "Kim", "Bo", "Dan"]


def test_every_game_s_title_has_the_same_size_on_the_tablet(browser, live_server):
    context = browser.new_context(viewport={"width": 768, "height": 1024}, locale="en-US")
    page = context.new_page()
    key = make_night(page, live_server.url, NAMES)
    device = next(c["value"] for c in context.cookies() if c["name"] == "device")
    sizes = {}
    for kind, game in [("kraken", kraken(["empty"])), ("skullking", skullking(1, False)),
                       ("crazytime", crazytime([], {1: 1}))]:
        number = store_game(live_server.app, device, key, game).number
        page.goto(f"{live_server.url}/n/{key}/g/{number}")
        sizes[kind] = page.eval_on_selector("#live h1",
                                            "e => parseFloat(getComputedStyle(e).fontSize)")
    assert sizes["skullking"] == sizes["kraken"] == sizes["crazytime"], sizes
