"""The start page says what the app is, naming its games, and numbers the seats once:
"Seat 1", not "1. Seat 1"."""

import pytest

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("locale, seat, games", [
    ("en-US", "Seat 1", ("No Touch Kraken", "Skull King", "Crazy Time")),
    ("ko-KR", "1번 자리", ("노 터치 크라켄", "스컬킹", "크레이지 타임")),
])
def test_the_start_page_says_what_it_is_and_numbers_each_seat_once(
        browser, live_server, locale, seat, games):
    page = browser.new_context(viewport={"width": 768, "height": 1024}, locale=locale
                               ).new_page()
    page.goto(live_server.url + "/")
    what = page.locator(".app-what")
    box = what.bounding_box()
    assert box and box["y"] < 300  # under the title, before anything to do
    for name in games:
        assert name in what.inner_text()
    first = page.locator("form.roster li").first
    assert first.evaluate("li => getComputedStyle(li).listStyleType") == "none"
    assert first.locator(".roster-name").inner_text().strip().startswith(seat)
