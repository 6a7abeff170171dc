"""No Touch Kraken in real browsers: four phones each see only their own role
behind hold-to-reveal, the host records a game to its end, and everyone sees the reveal."""

import pytest

from bench.browsing import WAIT, host_night, seat_link
from tests.browsing import ROLE_WORDS, dealt_roles, phone, roles_in

pytestmark = pytest.mark.browser

NAMES = ["Mina", "Jo", "Sun", "Ann"]
def test_four_phones_each_see_only_their_role_and_everyone_sees_the_end(browser, live_server):
    host = browser.new_context(locale="en-US").new_page()
    night_url = host_night(host, live_server.url, NAMES)
    phones = [phone(browser, seat_link(host, i), locale="en-US") for i in range(4)]

    host.goto(night_url + "/new/kraken")
    host.locator("form.kraken-new button[type=submit]").click()
    host.wait_for_url("**/g/1")
    roles = dealt_roles(live_server.app, host.url)

    for position, page in enumerate(phones):
        button = page.locator("[data-hold=role-secret]")
        button.wait_for(timeout=WAIT)
        secret = page.locator("#role-secret")
        assert secret.is_hidden()
        button.hover()
        page.mouse.down()
        assert secret.is_visible()
        assert secret.locator(".secret").inner_text() == ROLE_WORDS[roles[str(position)]]
        page.mouse.up()
        assert secret.is_hidden()
        assert button.get_attribute("aria-pressed") == "false"

    # the host sees "seen ✓" for every seat, and never a role
    host.locator('[data-seen="3"] .status.claimed').wait_for(timeout=WAIT)
    assert host.locator(".kraken-seen .status.claimed").count() == 4
    assert roles_in(host.content()) == []
    for position, page in enumerate(phones):
        assert roles_in(page.content()) == [ROLE_WORDS[roles[str(position)]]]
        assert "Explorer" not in page.title() and "Skeleton" not in page.title()

    # the host records a game: Sun was at sea last; two taps per action
    host.locator(".kraken-marker button", has_text="Sun").click()
    host.locator(".kraken-reveal").wait_for()
    assert host.locator('.kraken-reveal input[value="2"]').is_disabled()  # Sun's own card
    for seat, card in [(3, "Empty box"), (0, "Treasure"), (1, "Kraken")]:
        host.locator(".kraken-reveal label.tap", has_text=NAMES[seat]).click()
        host.locator(".kraken-reveal .card-buttons button", has_text=card).click()
        if card != "Kraken":
            host.locator(f'.kraken-glance [data-front="{seat}"]').filter(
                has_text="4").wait_for(timeout=WAIT)
            assert host.locator('[data-k="marker"]').inner_text() == NAMES[seat]
    host.locator(".kraken-end").wait_for(timeout=WAIT)
    assert "The Skeletons win!" in host.locator(".kraken-end").inner_text()

    # everyone sees the reveal of every role, the unused one too
    for page in phones:
        page.locator(".takeover[data-open]").click()  # the end is said big first: a tap
        page.locator(".kraken-end").wait_for(timeout=WAIT)
        for position in range(4):
            cell = page.locator(f'[data-role="{position}"]')
            assert cell.inner_text() == ROLE_WORDS[roles[str(position)]]
        assert page.locator(".unused-role").count() == 1
        assert page.locator("[data-hold]").count() == 0


def test_the_reveal_form_works_without_javascript(browser, live_server):
    host = browser.new_context(locale="en-US", java_script_enabled=False).new_page()
    night_url = host_night(host, live_server.url, ["Mina", "Jo", "Sun"])
    host.goto(night_url + "/new/kraken")
    host.locator("form.kraken-new button[type=submit]").click()
    host.locator(".kraken-marker button", has_text="Mina").click()
    host.locator(".kraken-reveal label.tap", has_text="Jo").click()
    host.locator(".kraken-reveal .card-buttons button", has_text="Treasure").click()
    assert host.locator('[data-revealed="treasure"]').inner_text() == "1"
    assert host.locator('[data-k="marker"]').inner_text() == "Jo"
    assert roles_in(host.content()) == []


def test_a_role_held_open_stays_open_while_the_page_refreshes(browser, live_server):
    host = browser.new_context(locale="en-US").new_page()
    night_url = host_night(host, live_server.url, NAMES)
    mina = phone(browser, seat_link(host, 0), locale="en-US")
    host.goto(night_url + "/new/kraken")
    host.locator("form.kraken-new button[type=submit]").click()
    host.wait_for_url("**/g/1")
    roles = dealt_roles(live_server.app, host.url)

    button = mina.locator("[data-hold=role-secret]")
    button.wait_for(timeout=WAIT)
    button.hover()
    mina.mouse.down()
    # while Mina holds, the table moves on (her own "seen" and the host's marker)
    host.locator(".kraken-marker button", has_text="Sun").click()
    mina.locator('[data-k="marker"]', has_text="Sun").wait_for(timeout=WAIT)
    secret = mina.locator("#role-secret")
    assert secret.is_visible()
    assert secret.locator(".secret").inner_text() == ROLE_WORDS[roles["0"]]
    mina.mouse.up()
    assert secret.is_hidden()
