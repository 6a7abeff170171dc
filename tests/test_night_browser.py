"""The night in a real browser: a host screen, phones from decoded QR codes, live updates."""

import pytest

from bench.browsing import WAIT, create_night, host_night, seat_link
from tests.browsing import phone

pytestmark = pytest.mark.browser

FIVE = ["민수", "Jo", "지혜 🙂", "Ann", "박서준"]


def test_five_phones_join_by_scanning_their_codes_and_follow_the_host(browser, live_server):
    host = browser.new_context(locale="en-US").new_page()
    night_url = create_night(host, live_server.url, FIVE)
    phones = []
    for position, name in enumerate(FIVE):
        link = seat_link(host, position)
        assert link.startswith(live_server.url + "/s/")
        page = phone(browser, link, locale="en-US")
        assert page.locator(".seat-name").inner_text() == name
        assert "/s/" not in page.url  # the seat token leaves the address bar once claimed
        phones.append(page)

    # the host sees every claim without reloading: all joined, the codes fold under "More"
    host.locator("details.night-seats > summary", has_text="5 of 5 phones joined").wait_for(
        timeout=WAIT)
    host.locator("details.night-seats > summary").click()
    host.locator(".status.claimed").nth(4).wait_for(timeout=WAIT)

    # a third device opening a claimed code is refused and learns nothing of the seat
    other = phone(browser, seat_link(host, 1), locale="en-US")
    assert "already taken" in other.content()
    assert "Jo" not in other.locator("main").inner_text()

    # every phone follows the host: a game starts and each phone shows it within seconds
    host.goto(night_url + "/new/crazytime")
    host.locator("main form button[type=submit]").last.click()
    host.wait_for_url("**/g/1")
    for page in phones:
        page.locator(".game-panel").wait_for(timeout=WAIT)


def test_passing_the_tablet_leaves_nothing_of_the_seat_behind(browser, live_server):
    host = browser.new_context(locale="en-US").new_page()
    night_url = host_night(host, live_server.url, ["Mina", "Jo", "Sun"])
    host.get_by_role("button", name="Pass the tablet to Jo").click()
    assert host.get_by_text("Give the tablet to Jo").is_visible()
    assert not host.locator("[data-pass-seat]").is_visible()
    host.get_by_role("button", name="I am Jo: show my page").click()
    assert host.locator("[data-pass-seat] .seat-name").inner_text() == "Jo"
    host.get_by_role("button", name="Done: give the tablet back to the host").click()
    host.wait_for_url(night_url)
    assert host.locator("[data-pass-seat]").count() == 0
    host.go_back()
    assert host.locator("[data-pass-seat]").count() == 0
    assert "I am Jo" not in host.content()


def test_a_korean_browser_sees_korean(browser, live_server):
    host = browser.new_context(locale="ko-KR").new_page()
    host.goto(live_server.url + "/")
    assert host.locator("html").get_attribute("lang") == "ko"
    assert "모임 시작" in host.content()
    assert "Start the night" not in host.content()


def test_a_phone_page_survives_a_server_restart(browser, server_process):
    server_process.start()
    host = browser.new_context(locale="en-US").new_page()
    night_url = host_night(host, server_process.url, ["Mina", "Jo", "Sun", "Ann"])
    jo = phone(browser, seat_link(host, 1), locale="en-US")
    server_process.kill()
    jo.wait_for_timeout(1500)  # the phone polls into a dead server
    server_process.start()
    host.goto(night_url + "/new/crazytime")
    host.locator("main form button[type=submit]").last.click()
    host.wait_for_url("**/g/1")
    jo.locator(".game-panel").wait_for(timeout=WAIT)
    assert jo.locator(".seat-name").inner_text() == "Jo"


def test_a_form_sent_while_the_laptop_is_away_says_nothing_was_recorded(browser, server_process):
    server_process.start()
    host = browser.new_context(locale="en-US").new_page()
    night_url = host_night(host, server_process.url, ["Mina", "Jo", "Sun", "Ann"])
    host.goto(night_url + "/new/kraken")
    host.locator("main form button[type=submit]").last.click()
    host.wait_for_url("**/g/1")
    server_process.kill()
    host.locator(".kraken-marker button", has_text="Sun").click()
    notice = host.locator(".notice.unreachable")
    notice.wait_for(timeout=WAIT)
    assert "nothing was recorded" in notice.inner_text()
