"""The TV carries the whole night (docs/guide.md, "How a night goes"): between games and
at the end, the finished game's board and tonight's tally take turns on the room's
screen: each finished game with its winners, the players by games won, the night's
picture and a code to take it home, all of it on the screen at 1920×1080 and 1280×720
without scrolling, in type read from the sofa. While a game runs, the game alone."""

import pytest

from bench.builders import store_game
from bench.layout_night import NAMES as LONG
from bench.layout_night import kraken, make_night, show_on_phones, skullking
from tests.screen_browsing import AT, CUT

pytestmark = pytest.mark.browser

NAMES = ["Mina", "Jo", "Sun", "Ann", "Lee", "Kim", "Bo", "Dan"]
#: The same night with four names of 30 characters and no space to break at.
LONG_NAMES = [LONG[0], "Jo", LONG[2], "Ann", LONG[3], "Kim", LONG[4], "Dan"]



@pytest.fixture(params=["short names", "long names"])
def night(browser, live_server, request):
    live_server.app.config["END_HELD"] = False  # a Kraken end shows at once
    context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-US")
    page = context.new_page()
    key = make_night(page, live_server.url,
                     NAMES if request.param == "short names" else LONG_NAMES)
    device = next(c["value"] for c in context.cookies() if c["name"] == "device")

    def add(game):
        number = store_game(live_server.app, device, key, game).number
        show_on_phones(live_server.app, key, number)
        return number

    return page, f"{live_server.url}/n/{key}/screen", add


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
def test_between_games_the_tv_shows_tonight_s_tally_and_picture(night, size):
    page, url, add = night
    add(kraken(["empty", "treasure", "empty", "treasure", "kraken"]))  # the Skeletons win
    add(skullking(2, False))  # both rounds played: Mina and Jo lead
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(url)
    page.evaluate("document.fonts.ready")
    tally = page.locator(".screen-tonight")
    board = page.locator(".screen-turn-board")
    page.evaluate(AT, 5000)  # the game's board first
    assert board.is_visible() and not tally.is_visible()
    page.evaluate(AT, 25000)  # then tonight's tally
    assert tally.is_visible() and not board.is_visible()
    games = page.locator(".screen-tonight-games li")
    assert games.count() == 2
    assert "No Touch Kraken" in games.nth(0).inner_text()
    assert "Skull King" in games.nth(1).inner_text()
    assert page.locator(".screen-tonight-games li").nth(1).locator(".pc-orange, .player"
                                                                   ).count() >= 1
    wins = page.locator(".screen-tonight-wins li")
    assert wins.count() == 8
    picture = page.locator(".screen-tonight-picture img")
    page.wait_for_function("img => img.complete && img.naturalWidth > 0",
                           arg=picture.element_handle())
    assert picture.bounding_box()["height"] >= size[1] / 3  # the picture, not a stamp
    assert page.locator(".screen-tonight-qr svg").is_visible()
    # all of it on the screen, nothing cut, the type read from the sofa
    assert page.evaluate("document.documentElement.scrollHeight") <= size[1]
    assert page.evaluate(CUT) == []
    rem = size[0] / 60
    for selector in (".screen-tonight h2", ".screen-tonight-games li",
                     ".screen-tonight-wins li", ".screen-tonight-picture figcaption"):
        px = page.eval_on_selector(selector, "e => parseFloat(getComputedStyle(e).fontSize)")
        assert px >= .875 * rem - .5, (selector, px)
    # where no animation runs, one turn shows, not both on top of each other
    page.evaluate("document.getAnimations().forEach((a) => a.cancel())")
    assert board.is_visible() and not tally.is_visible()


def test_while_a_game_runs_the_tv_shows_the_game_alone(night):
    page, url, add = night
    add(kraken(["empty", "treasure", "empty", "treasure", "kraken"]))
    add(kraken(["empty", "treasure", "empty", "treasure", "kraken"]))
    add(skullking(1, False))  # round 2 to bid
    page.goto(url)
    assert page.locator(".screen-tonight").count() == 0
    assert page.locator(".sk-screen").is_visible()
