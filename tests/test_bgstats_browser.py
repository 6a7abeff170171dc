"""Log in BG Stats on the tally, in Chromium at a phone's width: a game that finishes
gets its link and a QR code a camera reads back to that link (docs/bgstats.md)."""

import json
from urllib.parse import unquote, urlsplit

import pytest

from bench.browsing import WAIT, decode_qr, host_night
from bench.builders import kraken_all_treasure, kraken_game, store_game
from companion import store

pytestmark = pytest.mark.browser

ROLES = ["explorer", "skeleton", "explorer"]


def test_a_game_that_finishes_gets_its_link_and_qr_code_at_390_px(browser, live_server):
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="ko-KR")
    page = context.new_page()
    url = host_night(page, live_server.url, ["민준", "서연", "지호"])
    key = url.rstrip("/").rsplit("/", 1)[1]
    device = next(c["value"] for c in context.cookies() if c["name"] == "device")
    events = kraken_all_treasure()
    running = store_game(live_server.app, device, key,
                         kraken_game(1, ROLES, events[:-1]))

    page.goto(f"{url}/tally")
    assert page.locator(".tally-games > li").count() == 1
    assert page.locator(".tally-bgstats").count() == 0  # running: no link, no code

    # The last Treasure is found: the game ends, and the tally shows it live.
    with live_server.app.test_request_context(headers={"Cookie": f"device={device}"}):
        last = events[-1]
        store.record(running, last["type"], last["data"], pos=running.pos, device=device)
    link = page.locator(".tally-bgstats a.bgstats-link")
    link.wait_for(timeout=WAIT)
    assert "BG Stats에 기록" in link.inner_text()
    href = link.get_attribute("href")
    play = json.loads(unquote(urlsplit(href).query.removeprefix("data=")))
    assert [(p["name"], p["role"], p["winner"]) for p in play["players"]] == \
        [("민준", "탐험대", True), ("서연", "스켈레톤", False), ("지호", "탐험대", True)]

    code = page.locator(".tally-bgstats .bgstats-qr img")
    code.scroll_into_view_if_needed()
    # The code is an image of its own, fetched when it comes into view.
    page.wait_for_function("img => img.complete && img.naturalWidth > 0",
                           arg=code.element_handle())
    assert code.bounding_box()["width"] <= 390
    assert decode_qr(code.screenshot()) == href
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    context.close()
