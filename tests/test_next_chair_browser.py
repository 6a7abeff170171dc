"""What the next chair sees: a phone's secret bid is never drawn differently from the other
choices on its grid (the button tapped keeps the focus, and a touch screen's hover,
through the refresh)."""

import pytest

from bench.browsing import WAIT, claim, host_night, seat_link, start_game
from tests.phone_browsing import touch_phone

pytestmark = pytest.mark.browser

#: What tells one button from another at a glance.
LOOKS = """buttons => buttons.map(b => {
  const s = getComputedStyle(b);
  return [s.backgroundColor, s.color, s.borderColor, s.boxShadow, s.outlineStyle,
          s.outlineColor, s.opacity, s.fontWeight, s.transform, s.filter].join(' | ');
})"""


def looks(page):
    return page.locator(".sk-my-bid-form button[name=bid]").evaluate_all(LOOKS)


@pytest.mark.parametrize("touch", [True, False], ids=["finger", "mouse"])
def test_a_bid_tapped_looks_like_every_other_choice_on_its_phone(browser, live_server, touch):
    host = browser.new_context(locale="en-US").new_page()
    night_url = host_night(host, live_server.url, ["Mina", "Jo", "Sun"])
    link = seat_link(host, 0)
    start_game(host, night_url, way="custom", rounds="3,3")
    if touch:
        page = touch_phone(browser, link)
    else:
        page = browser.new_context(locale="en-US", viewport={"width": 390, "height": 844}
                                   ).new_page()
        page.goto(link)
        claim(page)
    grid = page.locator(".sk-my-bid-form button[name=bid]")
    grid.first.wait_for(timeout=WAIT)
    before = looks(page)
    assert len(set(before)) == 1
    button = page.locator(".sk-my-bid-form button[name=bid][value='2']")
    if touch:
        button.tap()
    else:
        button.click()  # the mouse stays over it: hovered, and focused
    page.locator(".sk-sent").wait_for(timeout=WAIT)
    page.locator(".sk-my-bid-form legend", has_text="Change your bid").wait_for(timeout=WAIT)
    after = looks(page)
    assert len(set(after)) == 1, after
    # a keyboard still sees where it is
    page.keyboard.press("Tab")
    focused = page.evaluate("() => document.activeElement.matches(':focus-visible')")
    assert focused
