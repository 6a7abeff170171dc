"""Colour contrast in the dark theme chosen with the theme switch (not only the device's
setting): axe-core finds no serious or critical violation on a phone's Kraken ending
(its "Tap to close" button over the player's colour) nor on the room's screen in any
game (the stats' labels on the game's tint) nor on tonight's tally there, in the light
theme chosen so either."""

import pytest

from tests.browsing import axe_violations, claim
from tests.conftest import store_game
from tests.layout_night import make_night, seat_url, show_on_phones
from tests.test_a11y_browser import GAMES, NAMES, scan
from tests.test_screen_tonight_browser import AT

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_a_chosen_theme_keeps_the_phone_s_ending_and_the_screen_readable(
        browser, live_server, theme):
    live_server.app.config["END_HELD"] = False  # the ending shows at once
    base = live_server.url
    host = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="ko-KR")
    page = host.new_page()
    key = make_night(page, base, NAMES)
    device = next(c["value"] for c in host.cookies() if c["name"] == "device")
    numbers = {label: store_game(live_server.app, device, key, game).number
               for label, (game, _) in GAMES.items()}
    phone = browser.new_context(viewport={"width": 390, "height": 844}, locale="ko-KR",
                                has_touch=True)
    mine = phone.new_page()
    mine.goto(seat_url(live_server.app, base, key, 1))
    claim(mine)
    for context in (host, phone):
        context.add_init_script(f"localStorage.setItem('theme', '{theme}')")
    found = []
    for label, number in numbers.items():
        show_on_phones(live_server.app, key, number)
        found += [f"phone ({label}): {v}" for v in scan(mine, base + "/me")]
        if label == "kraken-end":  # the ending takes the phone over, its button in view
            assert mine.locator(".takeover[data-open] .takeover-close").is_visible()
        found += [f"screen ({label}): {v}" for v in scan(page, f"{base}/n/{key}/screen")]
        if label.endswith("-end"):  # and tonight's tally, its turn after the board's
            page.evaluate(AT, 25000)
            assert page.locator(".screen-tonight").is_visible()
            found += [f"screen ({label}, tonight): {v['id']} {v['nodes'][0]['target']}"
                      for v in axe_violations(page)]
    assert page.evaluate("document.documentElement.dataset.theme") == theme
    assert not found, "\n".join(found)
