"""The night in a real browser: a host screen, phones from decoded QR codes, live updates."""

import pytest

from tests.browsing import axe_violations, create_night, phone, seat_link

pytestmark = pytest.mark.browser


def test_a_phone_joins_by_scanning_its_seat_code_and_follows_the_host(browser, live_server):
    host = browser.new_context(locale="en-US").new_page()
    create_night(host, live_server.url, ["Mina", "Jo", "Sun", "Ann", "Lee"])
    link = seat_link(host, 1)
    assert link.startswith(live_server.url + "/s/")

    jo = phone(browser, link, locale="en-US")
    assert jo.locator(".seat-name").inner_text() == "Jo"
    assert "/s/" not in jo.url  # the seat token leaves the address bar once claimed

    # the host sees the claim without reloading
    host.locator(".seat-card").nth(1).locator(".status.claimed").wait_for(timeout=5000)

    # a third device opening the same code is refused and learns nothing of the seat
    other = phone(browser, link, locale="en-US")
    assert "already taken" in other.content()
    assert "Jo" not in other.locator("main").inner_text()

    # the phone follows the host: a game starts and the phone shows it within seconds
    host.goto(host.url.split("/n/")[0] + "/n/" + host.url.split("/n/")[1].split("/")[0]
              + "/new/crazytime")
    host.locator("form button[type=submit]").last.click()
    jo.locator(".game-panel").wait_for(timeout=5000)


def test_a_korean_browser_sees_korean(browser, live_server):
    host = browser.new_context(locale="ko-KR").new_page()
    host.goto(live_server.url + "/")
    assert host.locator("html").get_attribute("lang") == "ko"
    assert "게임의 밤" in host.content()


def test_the_host_screen_has_no_serious_accessibility_violations(browser, live_server):
    host = browser.new_context(locale="en-US").new_page()
    create_night(host, live_server.url, ["Mina", "Jo", "Sun"])
    assert axe_violations(host) == []
