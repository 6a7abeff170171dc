"""Back/forward cache and history: after a Kraken role is hidden again, Back and Forward
never show it without a new hold, and a passed tablet leaves no role behind."""

import pytest

from bench.browsing import WAIT, host_night, seat_link
from tests.browsing import ROLE_WORDS, dealt_roles, phone, roles_in

pytestmark = pytest.mark.browser

NAMES = ["Mina", "Jo", "Sun", "Ann"]


def start_kraken(browser, live_server):
    host = browser.new_context(locale="en-US").new_page()
    night_url = host_night(host, live_server.url, NAMES)
    link = seat_link(host, 0)
    host.goto(night_url + "/new/kraken")
    host.locator("form.kraken-new button[type=submit]").click()
    host.wait_for_url("**/g/1")
    roles = dealt_roles(live_server.app, night_url)
    return host, night_url, link, roles


def hold_and_release(page):
    button = page.locator("[data-hold=role-secret]")
    button.wait_for(timeout=WAIT)
    button.hover()
    page.mouse.down()
    assert page.locator("#role-secret").is_visible()
    page.mouse.up()
    assert page.locator("#role-secret").is_hidden()


def assert_hidden(page):
    secret = page.locator("#role-secret")
    secret.wait_for(state="attached", timeout=WAIT)
    assert secret.is_hidden()
    assert page.locator("[data-hold=role-secret]").get_attribute("aria-pressed") == "false"


def test_back_and_forward_never_show_a_hidden_role(browser, live_server):
    host, night_url, link, roles = start_kraken(browser, live_server)
    page = phone(browser, link, locale="en-US")
    page.wait_for_url("**/me")
    hold_and_release(page)
    for _ in range(3):
        page.goto(live_server.url + "/rules/kraken")
        page.go_back()
        page.wait_for_url("**/me")
        assert_hidden(page)
        page.go_forward()
        page.wait_for_url("**/rules/kraken")
        assert page.locator("#role-secret").count() == 0
        page.go_back()
        assert_hidden(page)
    # a hold still works afterwards, and shows this phone's role
    hold_and_release(page)
    assert roles_in(page.content()) == [ROLE_WORDS[roles["0"]]]


def test_leaving_while_holding_does_not_bring_the_role_back(browser, live_server):
    host, night_url, link, roles = start_kraken(browser, live_server)
    page = phone(browser, link, locale="en-US")
    page.wait_for_url("**/me")
    button = page.locator("[data-hold=role-secret]")
    button.hover()
    page.mouse.down()
    assert page.locator("#role-secret").is_visible()
    page.goto(live_server.url + "/rules/kraken")  # navigates away mid-hold
    page.mouse.up()
    page.go_back()
    page.wait_for_url("**/me")
    assert_hidden(page)
    page.reload()
    assert_hidden(page)


def test_a_hidden_tab_hides_the_role(browser, live_server):
    host, night_url, link, roles = start_kraken(browser, live_server)
    page = phone(browser, link, locale="en-US")
    page.wait_for_url("**/me")
    page.locator("[data-hold=role-secret]").hover()
    page.mouse.down()
    assert page.locator("#role-secret").is_visible()
    page.evaluate("""() => {
        Object.defineProperty(document, 'visibilityState', {value: 'hidden', configurable: true});
        document.dispatchEvent(new Event('visibilitychange'));
    }""")
    assert page.locator("#role-secret").is_hidden()


def test_the_host_cannot_go_back_to_a_passed_seats_role(browser, live_server):
    host, night_url, link, roles = start_kraken(browser, live_server)
    host.goto(night_url)
    # with a game running, the seats are folded under "More"
    host.evaluate("""() => {
      const form = document.querySelector("form[action$='/pass/1']");
      for (let d = form.closest('details'); d; d = d.parentElement.closest('details')) {
        d.open = true;
      }
    }""")
    host.locator("form[action$='/pass/1'] button").first.click()
    host.locator("[data-pass-open]").click()
    hold_and_release(host)
    host.locator("a[data-replace]").first.click()  # "Done", at the top: back to the game
    host.wait_for_url(night_url + "/g/1")
    assert roles_in(host.content()) == []
    host.go_back()
    host.wait_for_load_state()
    # whatever Back lands on, no role is on screen and none is in the page
    assert roles_in(host.content()) == []
    assert host.locator("#role-secret").count() == 0
