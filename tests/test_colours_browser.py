"""Players' colours in a real browser: the roster hands out distinct colours and swaps
two when one is taken, the host changes one on the seat card, and the player's phone
wears it in its header at once."""

import pytest

from bench.browsing import WAIT, seat_link
from tests.browsing import phone

pytestmark = pytest.mark.browser



def player_colour(locator):
    """The colour a page draws for an element's player (its --player), as rgb(…)."""
    return locator.evaluate(
        "e => getComputedStyle(e).getPropertyValue('--player').trim()")


def test_the_roster_swaps_a_taken_colour_and_the_phone_wears_its_own(browser, live_server):
    host = browser.new_context(locale="en-US", viewport={"width": 768, "height": 1024}).new_page()
    host.goto(live_server.url + "/")
    names = host.locator("form.roster input[name=name]")
    colours = host.locator("form.roster select[name=colour]")
    for i, name in enumerate(["Ann", "Bo", "Cy"]):
        names.nth(i).fill(name)
    assert [colours.nth(i).input_value() for i in range(3)] == ["orange", "sky", "green"]
    # Ann takes Cy's green: Cy gets Ann's orange, so no two share one
    colours.nth(0).select_option("green")
    assert [colours.nth(i).input_value() for i in range(3)] == ["green", "sky", "orange"]
    swatch = host.locator("form.roster [data-swatch]").nth(2)
    assert "pc-orange" in swatch.get_attribute("class")
    host.locator("form.roster button[type=submit]:not([data-add-seat])").click()
    host.wait_for_url("**/n/**")
    cards = host.locator(".seat-card")
    assert [player_colour(cards.nth(i)) for i in range(3)] == ["#009E73", "#56B4E9", "#E69F00"]

    ann = phone(browser, seat_link(host, 0), locale="en-US")
    head = ann.locator(".seat-head")
    assert player_colour(head) == "#009E73"
    # the host gives Ann pink from her seat card; her phone follows without a reload
    card = cards.nth(0)
    card.locator("details.seat-more summary").click()
    card.locator("select[name=colour]").select_option("pink")
    card.get_by_role("button", name="Change colour").click()
    host.wait_for_function(
        "() => document.querySelector('.seat-card').classList.contains('pc-pink')",
        timeout=WAIT)
    ann.wait_for_function(
        "() => document.querySelector('.seat-head').classList.contains('pc-pink')",
        timeout=WAIT)
    assert player_colour(ann.locator(".seat-head")) == "#CC79A7"
    # the table list on her phone shows everyone with their colour, by name
    dots = ann.locator(".table-list li.player")
    assert dots.all_inner_texts() == ["Ann", "Bo", "Cy"]
    assert [player_colour(dots.nth(i)) for i in range(3)] == ["#CC79A7", "#56B4E9", "#E69F00"]
