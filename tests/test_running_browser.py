"""The running game in a real browser: starting another game asks first and names the
running one, the host resumes it from the table screen and the phone follows; a Kraken
token series goes on across a Crazy Time game (docs/rules.md#kraken-series)."""

import re

import pytest

from bench.browsing import WAIT, host_night, seat_link
from tests.browsing import phone

pytestmark = pytest.mark.browser

NAMES = ["Mina", "Jo", "Sun", "Ann"]


def start(host, night_url, kind):
    host.goto(f"{night_url}/new/{kind}")
    host.locator("main form[action$='/new/" + kind + "'] button[type=submit]").click()


def game_on(page, title):
    """Wait until the phone's game panel shows ``title``."""
    page.locator(".game-panel h2", has_text=title).wait_for(timeout=WAIT)


def end_kraken(host):
    """Record a Kraken game to its end: Mina takes the marker, Jo's card is the Kraken."""
    host.locator(".kraken-marker button", has_text="Mina").click()
    host.locator(".kraken-reveal label.tap", has_text="Jo").click()
    host.locator(".kraken-reveal .card-buttons button", has_text="Kraken").click()
    host.locator(".kraken-end").wait_for(timeout=WAIT)


def test_starting_a_game_asks_first_and_the_host_resumes_the_running_one(browser, live_server):
    host = browser.new_context(locale="en-US").new_page()
    night_url = host_night(host, live_server.url, NAMES)
    jo = phone(browser, seat_link(host, 1), locale="en-US")

    start(host, night_url, "crazytime")
    host.wait_for_url("**/g/1")
    game_on(jo, "Crazy Time")

    # another game while Crazy Time runs: the host is asked, and nothing starts yet
    start(host, night_url, "kraken")
    question = host.locator(".confirm-start")
    question.wait_for()
    assert "Game #1 (Crazy Time) is still running" in question.inner_text()
    assert "stays unfinished" in question.inner_text()
    assert "/g/" not in host.url
    jo.wait_for_timeout(1500)
    assert "Crazy Time" in jo.locator(".game-panel h2").inner_text()

    host.get_by_role("button", name="Start No Touch Kraken; game #1 stays unfinished").click()
    host.wait_for_url("**/g/2")
    game_on(jo, "No Touch Kraken")

    # the table screen: Kraken is on the phones, Crazy Time can be resumed
    host.get_by_role("link", name="The night's table").first.click()
    host.wait_for_url(night_url)
    assert "on the phones" in host.locator('li[data-game="2"]').inner_text()
    assert "in play" in host.locator('li[data-game="1"]').inner_text()
    host.locator('li[data-game="1"] button', has_text="Resume").click()
    host.wait_for_url("**/g/1")
    assert host.locator(".shown-elsewhere").count() == 0
    game_on(jo, "Crazy Time")

    # and back to the Kraken game, from its own page
    host.goto(f"{night_url}/g/2")
    assert "The phones show game #1 (Crazy Time)" in host.locator(".shown-elsewhere").inner_text()
    host.locator(".shown-elsewhere button").click()
    host.wait_for_url("**/g/2")
    game_on(jo, "No Touch Kraken")


def tokens(page):
    return {int(seat): int(n) for seat, n in re.findall(
        r'data-tokens="(\d)">(\d)<', page.content())}


def test_a_token_series_goes_on_across_another_game(browser, live_server):
    host = browser.new_context(locale="en-US").new_page()
    night_url = host_night(host, live_server.url, NAMES)

    host.goto(f"{night_url}/new/kraken")
    host.get_by_label("Start a new token series").check()
    host.locator("form.kraken-new button[type=submit]").click()
    host.wait_for_url("**/g/1")
    end_kraken(host)
    after_one = tokens(host)
    assert sum(after_one.values()) > 0

    # a game of Crazy Time in between, left running
    start(host, night_url, "crazytime")
    host.wait_for_url("**/g/2")

    # the first game's "next game" still works: asked first, then game #3 of the series
    host.goto(f"{night_url}/g/1")
    host.locator("form.kraken-next button").click()
    host.locator(".confirm-start").wait_for()
    host.locator(".confirm-start button[type=submit]").click()
    host.wait_for_url("**/g/3")
    assert "1 game counted" in host.locator(".kraken-series").inner_text()
    assert tokens(host) == after_one
    end_kraken(host)
    after_two = tokens(host)
    assert sum(after_two.values()) > sum(after_one.values())
    assert "2 games counted" in host.locator(".kraken-series").inner_text()

    # the start form offers to go on with it too
    host.goto(f"{night_url}/new/kraken")
    assert host.get_by_label(re.compile(r"Continue the token series of games #1, #3")).count() == 1

    # the tally counts both games of the series, not the Crazy Time game between them
    host.goto(f"{night_url}/tally")
    series = host.locator(".tally-series")
    assert "2 finished games counted" in series.inner_text()
    assert "1 game unfinished" not in series.inner_text()
