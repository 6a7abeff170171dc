"""bench/screenshots.py's night and its phone pages: none is wider than a 320 px phone
(the script prints the same lines when it makes the pictures)."""

import pytest

from bench.screenshots import Night, too_wide_at_320

pytestmark = pytest.mark.browser


def test_the_screenshots_phone_pages_fit_320_px(browser, live_server):
    night = Night(browser, live_server.url, live_server.app)
    lines = too_wide_at_320(browser, night)
    assert len(lines) == 6
    assert all(line.endswith(": ok") for line in lines), "\n".join(lines)
