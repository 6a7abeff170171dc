"""A night with all three games ending, read off the tally page in Chromium and checked
against the tally a careful scorekeeper wrote on paper."""


import pytest

from bench.browsing import WAIT, host_night
from bench.builders import (
    crazytime_game,
    kraken_game,
    kraken_kraken_first,
    skullking_hand,
    store_game,
)

pytestmark = pytest.mark.browser

ROLES = ["explorer", "skeleton", "explorer"]

# The paper tally. Kraken token series: the Explorers (Ann, Cy) lose three games in a
# row: Ann 3, Bo 0, Cy 3 tokens, Bo wins the series. Skull King: Ann 10, Bo 30, Cy 30.
# Crazy Time: hours Ann 4, Bo 2; match 4 penalties 5, 5, 1, 1; Cy and Di share first.
PAPER = {
    "players": {"Ann": ("5", "0", "0"), "Bo": ("5", "4", "1"), "Cy": ("5", "2", "0"),
                "Di": ("1", "1", "0")},
    "tokens": {"Ann": "3", "Bo": "0", "Cy": "3"},
    "skullking": {"Bo": ("30", "1"), "Cy": ("30", "1"), "Ann": ("10", "3")},
    "crazytime": [("1", "Cy", "0", "1", "-1"), ("1", "Di", "0", "1", "-1"),
                  ("3", "Ann", "4", "5", "-1"), ("4", "Bo", "2", "5", "-3")],
}


def cells(row):
    return tuple(t.strip() for t in row.locator("th, td").all_inner_texts())


def test_a_night_of_three_games_ends_on_the_tally_as_on_paper(browser, live_server):
    context = browser.new_context(viewport={"width": 1024, "height": 900}, locale="en-US")
    page = context.new_page()
    url = host_night(page, live_server.url, ["Ann", "Bo", "Cy", "Di"])
    key = url.rstrip("/").rsplit("/", 1)[1]
    device = next(c["value"] for c in context.cookies() if c["name"] == "device")
    for number in (1, 2, 3):
        store_game(live_server.app, device, key,
               kraken_game(number, ROLES, kraken_kraken_first(), "series"))
    store_game(live_server.app, device, key, skullking_hand(4))
    store_game(live_server.app, device, key, crazytime_game(5))

    page.goto(f"{url}/tally")
    summary = page.locator(".tally-summary tbody tr")
    assert {cells(summary.nth(i))[0]: cells(summary.nth(i))[1:]
            for i in range(summary.count())} == PAPER["players"]
    series = page.locator(".tally-series tbody tr")
    assert {cells(series.nth(i))[0]: cells(series.nth(i))[1]
            for i in range(series.count())} == PAPER["tokens"]
    assert page.locator(".tally-series .tally-verdict .winners").inner_text() == "Bo"
    sk = page.locator(".tally-skullking tbody tr")
    assert {cells(sk.nth(i))[0]: cells(sk.nth(i))[1:] for i in range(sk.count())} \
        == PAPER["skullking"]
    ct = page.locator(".tally-crazytime tbody tr")
    assert [cells(ct.nth(i)) for i in range(ct.count())] == PAPER["crazytime"]
    games = page.locator(".tally-games > li")
    assert games.count() == 5
    assert "won by Cy, Di" in games.nth(4).inner_text()
    assert page.locator("svg.tally-chart").count() == 4

    # A game left running shows as in progress, live, without reloading.
    store_game(live_server.app, device, key,
           kraken_game(6, ROLES, kraken_kraken_first()[:1]))
    page.locator(".tally-games > li").nth(5).wait_for(timeout=WAIT)
    assert "in progress" in page.locator(".tally-games > li").nth(5).inner_text()
    context.close()
