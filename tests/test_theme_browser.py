"""The colour theme: Auto follows the device's setting, Light and Dark are chosen with the
header's switch and remembered on the device (static/theme.js, run before the body is
drawn, so a chosen theme never flashes the other); each game draws its own accent and
sign. (Its pages pass axe in a theme chosen against the device's:
tests/test_a11y_browser.py.)"""

import pytest

from bench.builders import store_game
from bench.layout_night import MATCH, crazytime, kraken, make_night
from bench.layout_night import skullking as layout_skullking

pytestmark = pytest.mark.browser

NAMES = ["김민준", "Alice", "박서연", "Bob", "이도윤", "Chloé"]

#: The theme when <body> is made, before anything of the page can be painted: an init
#: script watches the document being parsed and writes down <html>'s data-theme then.
AT_FIRST_PAINT = """new MutationObserver((changes, observer) => {
  if (!document.body) return;
  window.themeAtBody = document.documentElement.getAttribute('data-theme') || 'none';
  observer.disconnect();
}).observe(document, {childList: true, subtree: true});"""

#: The page's background, as lightness 0 (black) to 1 (white).
LIGHTNESS = """() => {
  // painted on a canvas and read back: a colour computed as color(srgb 0.1 0.1 0.1) (the
  // screen's tint is a color-mix()) reads as rgb() 0-255 there, as an rgb() colour does
  const paint = document.createElement('canvas').getContext('2d');
  paint.fillStyle = getComputedStyle(document.documentElement).backgroundColor;
  paint.fillRect(0, 0, 1, 1);
  const [r, g, b] = paint.getImageData(0, 0, 1, 1).data;
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}"""


@pytest.fixture
def table(browser, live_server):
    """A night with a game of each kind: its base URL, key and the games' numbers; and
    page(scheme) opens a page as the night's host on a device in that colour scheme."""
    base = live_server.url
    context = browser.new_context(viewport={"width": 1100, "height": 900}, locale="en-US")
    first = context.new_page()
    key = make_night(first, base, NAMES)
    device = next(c["value"] for c in context.cookies() if c["name"] == "device")
    games = {kind: store_game(live_server.app, device, key, game).number for kind, game in (
        ("kraken", kraken(["empty", "treasure"])),
        ("skullking", layout_skullking(1, True)),
        ("crazytime", crazytime([MATCH])))}
    state = context.storage_state()
    context.close()

    def page(scheme, width=1100):
        other = browser.new_context(viewport={"width": width, "height": 900}, locale="en-US",
                                    color_scheme=scheme, storage_state=state)
        opened = other.new_page()
        opened.add_init_script(AT_FIRST_PAINT)
        return opened

    return {"base": base, "key": key, "games": games, "page": page}


def open_menu(page):
    """Open the header's "⋯", where the switch is (templates/base.html)."""
    page.locator(".page-menu > summary").click()
    page.locator("[data-theme-switch]").wait_for()


def pressed(page):
    return page.locator("[data-theme-choice][aria-pressed=true]").get_attribute(
        "data-theme-choice")


def test_auto_follows_the_device_and_a_choice_is_remembered_before_the_first_paint(table):
    page = table["page"]("light")
    night = f"{table['base']}/n/{table['key']}"
    page.goto(night)
    switch = page.locator("[data-theme-switch]")
    assert not switch.is_visible()  # behind the "⋯"
    open_menu(page)
    assert switch.is_visible() and switch.locator("button").count() == 3
    assert pressed(page) == "auto" and page.evaluate(LIGHTNESS) > .8

    page.get_by_role("button", name="Dark").click()
    page.wait_for_function("() => document.documentElement.dataset.theme === 'dark'")
    assert pressed(page) == "dark" and page.evaluate(LIGHTNESS) < .2
    # another page, and this one again: dark from the first paint on
    for url in (f"{table['base']}/history", night):
        page.goto(url)
        assert page.evaluate("window.themeAtBody") == "dark", url
        assert pressed(page) == "dark" and page.evaluate(LIGHTNESS) < .2
    # theme.js is the first script of <head>, before every stylesheet, and not deferred
    assert page.evaluate("""() => {
      const s = document.querySelector('head script[src*="theme.js"]');
      const css = document.querySelector('head link[rel=stylesheet]');
      return !s.defer && !s.async
        && !!(s.compareDocumentPosition(css) & Node.DOCUMENT_POSITION_FOLLOWING);
    }""")

    open_menu(page)
    page.get_by_role("button", name="Auto").click()
    page.wait_for_function("() => !document.documentElement.hasAttribute('data-theme')")
    page.reload()
    assert page.evaluate("window.themeAtBody") == "none"
    assert pressed(page) == "auto" and page.evaluate(LIGHTNESS) > .8


def test_light_chosen_on_a_dark_device_and_a_phone_sized_switch(table):
    page = table["page"]("dark", width=320)
    page.goto(f"{table['base']}/n/{table['key']}")
    assert page.evaluate(LIGHTNESS) < .2  # Auto: the device's dark
    open_menu(page)
    light = page.get_by_role("button", name="Light")
    assert light.is_visible()
    assert page.locator(".theme-word").first.bounding_box()["width"] <= 1  # signs only
    light.click()
    page.wait_for_function("() => document.documentElement.dataset.theme === 'light'")
    assert page.evaluate(LIGHTNESS) > .8
    assert page.evaluate("document.documentElement.scrollWidth") <= 320


def test_the_rooms_screen_has_no_switch_and_keeps_the_devices_choice(table):
    page = table["page"]("light", width=1920)
    page.goto(f"{table['base']}/n/{table['key']}")
    open_menu(page)
    page.get_by_role("button", name="Dark").click()
    page.goto(f"{table['base']}/n/{table['key']}/screen")
    assert page.locator("button, [data-theme-switch]").count() == 0
    assert page.evaluate("window.themeAtBody") == "dark" and page.evaluate(LIGHTNESS) < .2


#: Each game's title: its accent (a custom property), and the sign drawn before it.
IDENTITY = """() => {
  const h1 = document.querySelector('main h1');
  const before = getComputedStyle(h1, '::before'), after = getComputedStyle(h1, '::after');
  return {accent: getComputedStyle(h1).getPropertyValue('--game-accent').trim(),
          sign: before.content !== 'none' && (before.maskImage || before.webkitMaskImage),
          band: after.maskImage || after.webkitMaskImage};
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_each_game_has_its_own_accent_and_sign(table, scheme):
    page = table["page"](scheme)
    seen = {}
    for kind, number in table["games"].items():
        page.goto(f"{table['base']}/n/{table['key']}/g/{number}")
        seen[kind] = page.evaluate(IDENTITY)
        assert seen[kind]["sign"].startswith('url("data:image/svg+xml'), seen
        assert seen[kind]["band"].startswith('url("data:image/svg+xml'), seen
    assert len({s["accent"] for s in seen.values()}) == 3, seen
    assert len({s["sign"] for s in seen.values()}) == 3, seen
