"""Way-finding in a real browser: the start page puts the latest night first, and the
roster starts with four seats that "add a seat" grows to eight without leaving the page."""

import pytest

from bench.browsing import WAIT, create_night

pytestmark = pytest.mark.browser



def visible_seats(page):
    return page.locator("form.roster [data-roster-seat]:visible")


def test_add_a_seat_shows_the_next_field_up_to_eight_and_enter_starts_the_night(
        browser, live_server):
    page = browser.new_context(locale="en-US", viewport={"width": 390, "height": 844}).new_page()
    page.goto(live_server.url + "/")
    assert visible_seats(page).count() == 4
    add = page.get_by_role("button", name="+ Add a seat")
    assert add.is_visible()
    names = ["민수", "Jo", "지혜 🙂", "Ann", "박서준", "Lee"]
    inputs = page.locator("form.roster input[name=name]")
    for i, name in enumerate(names[:4]):
        inputs.nth(i).fill(name)
    add.click()
    assert visible_seats(page).count() == 5
    assert page.evaluate("document.activeElement.closest('[data-roster-seat]') !== null")
    page.keyboard.type(names[4])  # the cursor is in the new field
    assert inputs.nth(4).input_value() == "박서준"
    add.click()
    inputs.nth(5).fill(names[5])
    assert page.url == live_server.url + "/"  # no round trip: still the same page
    add.click()
    add.click()
    assert visible_seats(page).count() == 8
    assert not add.is_visible()  # all eight seats show: nothing more to add
    # Enter in a name field starts the night (the button only adds, it never sends)
    inputs.nth(5).press("Enter")
    page.wait_for_url("**/n/**", timeout=WAIT)
    seats = page.locator(".seat-card .seat-name").all_inner_texts()
    assert seats == names


def test_create_night_fills_more_than_four_names(browser, live_server):
    page = browser.new_context(locale="en-US").new_page()
    names = [f"Player {i}" for i in range(8)]
    create_night(page, live_server.url, names)
    assert page.locator(".seat-card .seat-name").all_inner_texts() == names


@pytest.mark.parametrize("width", [390, 1100])
def test_the_latest_night_is_first_on_the_start_page(browser, live_server, width):
    page = browser.new_context(locale="ko-KR", viewport={"width": width, "height": 900}).new_page()
    create_night(page, live_server.url, ["Ann", "Bo", "Cy"])
    night_url = create_night(page, live_server.url, ["Dee", "Eve", "Fay"])
    page.goto(live_server.url + "/")
    latest = page.locator(".latest-night")
    roster = page.locator("form.roster")
    earlier = page.locator("#earlier-nights-title")
    assert latest.is_visible() and latest.bounding_box()["y"] < 600  # on the first screen
    assert (latest.bounding_box()["y"] < roster.bounding_box()["y"]
            < earlier.bounding_box()["y"])
    assert "Dee, Eve, Fay" in latest.inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # a link that looks like a button
    go_on = latest.get_by_role("button", name="이 모임 이어 하기")
    assert go_on.get_attribute("href") == night_url.removeprefix(live_server.url)
    go_on.click()
    page.wait_for_url(night_url, timeout=WAIT)


def test_without_javascript_add_a_seat_comes_back_with_one_more_field(browser, live_server):
    page = browser.new_context(locale="en-US", java_script_enabled=False).new_page()
    names = ["Ann", "Bo", "Cy", "Di", "Ed"]
    night_url = create_night(page, live_server.url, names)
    assert page.locator(".seat-card .seat-name").all_inner_texts() == names
    assert night_url.startswith(live_server.url + "/n/")
