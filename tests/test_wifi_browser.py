"""The Wi-Fi join code in a real browser, against `companion serve` with live push: the
host types the network on the table page, its code shows there and, by push, large on
the room's screen; both pictures scan to the exact WIFI: text; the hotspot how-to opens
from a link to #hotspot."""

import os

import pytest

from bench.browsing import WAIT, decode_qr, host_night
from companion.core import wifi

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SHOTS = os.environ.get("COMPANION_SCREENSHOTS")
#: 30 characters (and bytes: a name is at most 32 bytes, so a Korean one is shorter; the
#: route's tests scan Korean names), with every character the format escapes and a quote.
SSID = "Board;Games, 2F: \\\"Jo's\" 5GHz!"
PASSWORD = "pa;ss,wo:rd\\\"q'x"


def scan(page, selector):
    image = page.locator(selector)
    image.wait_for(timeout=WAIT)
    page.wait_for_function("img => img.complete && img.naturalWidth > 0",
                           arg=image.element_handle(), timeout=WAIT)
    return decode_qr(image.screenshot())


@pytest.fixture
def pushing(server_process):
    # Polls every 30 s: what the screen shows within seconds came by push.
    server_process.env = {"COMPANION_POLL_SECONDS": "30"}
    return server_process.start()


def test_the_host_sets_the_wifi_and_the_table_page_and_the_rooms_screen_show_it(
        browser, pushing):
    assert len(SSID) == len(SSID.encode()) == 30
    host = browser.new_context(locale="en-US", viewport={"width": 1100, "height": 900}
                               ).new_page()
    night_url = host_night(host, pushing.url, ["Mina", "Jo", "Sun"])
    host.locator("[data-action=screen-invite] button").click()
    host.wait_for_url("**/screens")
    tv = browser.new_context(locale="ko-KR", viewport={"width": 1920, "height": 1080}
                             ).new_page()
    tv.goto(decode_qr(host.locator("figure.qr-large").screenshot()))
    tv.locator("[data-action=screen-code] button").click()
    tv.wait_for_url("**/screen")
    tv.wait_for_function("() => document.documentElement.dataset.push === 'open'",
                         timeout=WAIT)
    assert tv.locator(".screen-wifi").count() == 0

    host.goto(night_url)
    host.locator("details.wifi-form summary").click()
    host.locator("[data-action=wifi-set] input[name=ssid]").fill(SSID)
    host.locator("[data-action=wifi-set] input[name=password]").fill("short")
    host.locator("[data-action=wifi-set] button[type=submit]").click()
    host.locator(".wifi [role=alert]", has_text="8 to 63 characters").wait_for(timeout=WAIT)
    assert host.locator("[data-action=wifi-set] input[name=ssid]").input_value() == SSID
    assert host.locator("[data-action=wifi-set] input[name=password]").input_value() == ""

    host.locator("[data-action=wifi-set] input[name=password]").fill(PASSWORD)
    host.locator("[data-action=wifi-set] button[type=submit]").click()
    expected = wifi.join_code(wifi.Network(SSID, PASSWORD))
    assert scan(host, ".wifi-card img") == expected
    assert host.locator(".wifi-name").inner_text() == SSID
    assert PASSWORD not in host.content()
    assert scan(tv, ".screen-wifi img") == expected  # came by push (polls every 30 s)
    assert SSID in tv.locator(".screen-wifi-name").inner_text()
    assert PASSWORD not in tv.content()
    if SHOTS:
        host.screenshot(path=f"{SHOTS}/wifi-host.png", full_page=True)
        tv.screenshot(path=f"{SHOTS}/wifi-screen.png")

    host.locator("[data-action=wifi-shown] button").click()
    tv.locator(".screen-wifi").wait_for(state="detached", timeout=WAIT)


def test_a_link_to_hotspot_opens_the_how_to(browser, pushing):
    host = browser.new_context(locale="ko-KR", viewport={"width": 390, "height": 844}
                               ).new_page()
    night_url = host_night(host, pushing.url, ["Mina", "Jo", "Sun"])
    assert not host.locator("#hotspot").is_visible()
    host.goto(night_url + "#hotspot")
    host.locator("#hotspot").wait_for(state="visible", timeout=WAIT)
    assert "모바일 핫스팟" in host.locator("#hotspot").inner_text()
    assert host.evaluate("document.documentElement.scrollWidth") <= 390
