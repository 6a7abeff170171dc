"""A phone's big moments and its polish, in a real browser: a game's end takes the whole
phone in the player's colour ("You won!", a kind "You lost"), once: a tap closes it and it
does not come back on a refresh or a reload; Crazy Time's winners are told to leave the room
the same way; after Skull King's "Yo-ho-ho!" a phone can hold up its own bid, big; the
header's "⋯" switches language and theme; a big number stays on one line; a long Latin name
breaks between its words on the host's tiles; and each moment said big passes axe in both
themes (the pages under them: tests/test_a11y_browser.py)."""

import pytest

from bench.browsing import WAIT
from bench.builders import ev, kraken_kraken_first, kraken_setup, store_game
from companion.skullking import rules as sk
from tests.browsing import axe_violations
from tests.crazytime_log import after_match_1
from tests.crazytime_log import setup as crazytime_setup
from tests.phone_browsing import bump, record, seat_url, table, touch_phone

pytestmark = pytest.mark.browser

LONG = "Bartholomew the Unsinkable III"
NAMES = [LONG, "Jo", "민준", "Ann", "박서준"]


def serious(page, where):
    return [f"{where}: {v['id']} {v['nodes'][0]['target']}" for v in axe_violations(page)]


def themed(page, theme):
    page.evaluate(f"localStorage.setItem('theme', '{theme}')")
    page.reload()


def test_a_win_and_a_loss_are_said_big_once_and_a_tap_closes_them(browser, live_server):
    host, url, key, device = table(browser, live_server, names=NAMES)
    # Jo (seat 1) is the Skeleton and the Kraken comes up: Jo wins, the Explorers lose
    store_game(live_server.app, device, key, {
        "kind": "kraken", "setup": kraken_setup(["explorer", "skeleton", "explorer", "explorer"]),
        "events": kraken_kraken_first()})
    winner = touch_phone(browser, seat_url(live_server, key, 1))
    loser = touch_phone(browser, seat_url(live_server, key, 0), width=320, height=640,
                        locale="ko-KR")
    found = []
    for phone, said, colour in ((winner, "You won!", "pc-sky"), (loser, "졌습니다.", "pc-orange")):
        big = phone.locator(".takeover[data-open]")
        big.wait_for(timeout=WAIT)
        assert said in big.inner_text() and colour in big.get_attribute("class")
        box = big.bounding_box()  # the whole phone
        size = phone.viewport_size
        assert (box["x"], box["y"], box["width"], box["height"]) == (
            0, 0, size["width"], size["height"])
        for theme in ("light", "dark"):
            themed(phone, theme)
            phone.locator(".takeover[data-open]").wait_for(timeout=WAIT)
            found += serious(phone, f"{said} {theme}")
    assert not found, "\n".join(found)
    assert loser.locator(".takeover[data-open] .takeover-kind").is_visible()  # said kindly
    assert winner.locator(".takeover-kind").count() == 0

    # a tap anywhere closes it into the page's own box, which says it once more, small
    winner.locator(".takeover[data-open]").tap(position={"x": 30, "y": 30})
    winner.locator(".takeover[data-open]").wait_for(state="detached", timeout=WAIT)
    result = winner.locator("[data-result=won]")
    assert result.is_visible() and not winner.locator(".takeover-close").is_visible()
    # neither a live refresh nor a reload brings it back for this game end
    winner.evaluate("document.addEventListener('htmx:afterSwap', () => window.__swapped = true)")
    bump(live_server, key)
    winner.wait_for_function("() => window.__swapped === true", timeout=WAIT)
    assert winner.locator(".takeover[data-open]").count() == 0
    winner.reload()
    winner.locator("[data-result=won]").wait_for(timeout=WAIT)
    assert winner.locator(".takeover[data-open]").count() == 0
    # the loser's is its own: still open until it is tapped (by its button, a keyboard's way)
    loser.reload()
    loser.locator(".takeover[data-open] .takeover-close").click()
    loser.locator(".takeover[data-open]").wait_for(state="detached", timeout=WAIT)


def test_crazy_times_winners_phones_say_leave_the_room_with_a_door(browser, live_server):
    host, url, key, device = table(browser, live_server, names=NAMES)
    number = store_game(live_server.app, device, key, {
        "kind": "crazytime", "setup": crazytime_setup(side="blue"),
        "events": after_match_1()}).number
    out = touch_phone(browser, seat_url(live_server, key, 3))  # Ann won match 1
    stays = touch_phone(browser, seat_url(live_server, key, 0))
    big = out.locator(".takeover[data-open].takeover-leave")
    big.wait_for(timeout=WAIT)
    assert "You won match 1: leave the room now!" in big.inner_text()
    assert out.locator(".takeover[data-open] .ct-door").is_visible()
    found = []
    for theme in ("light", "dark"):
        themed(out, theme)
        out.locator(".takeover[data-open]").wait_for(timeout=WAIT)
        found += serious(out, f"leave {theme}")
    assert not found, "\n".join(found)
    assert stays.locator(".takeover").count() == 0
    # "1 of 4" (a big number) stays on one line in its 390 px tile
    match = stays.locator(".stats .big-number").first
    assert match.inner_text() == "1 of 4"
    assert match.evaluate("e => e.getBoundingClientRect().height"
                          " < 1.6 * parseFloat(getComputedStyle(e).fontSize)")
    # the law made, the winners come back: the takeover goes, and the line calls them in
    record(live_server, device, key, number, "law",
           {"name": "Moon", "when": "A six", "what": "Say moo"})
    out.locator(".takeover").wait_for(state="detached", timeout=WAIT)
    assert out.locator(".ct-back").is_visible() and out.locator(".ct-leave").count() == 0
    assert "Come back in: the new law is called Moon." in out.locator(".ct-back").inner_text()


def test_a_phone_holds_up_its_own_bid_big_after_yo_ho_ho(browser, live_server):
    host, url, key, device = table(browser, live_server, names=NAMES)
    bids = [2, 0, 3, 1]
    number = store_game(live_server.app, device, key, {
        "kind": "skullking", "setup": sk.start(list(range(4)), {"way": "custom", "rounds": [3]}),
        "events": [ev("bid", by=s, seat=s, round=1, bid=b) for s, b in enumerate(bids)]}).number
    phone = touch_phone(browser, seat_url(live_server, key, 2))
    assert phone.locator("[data-takeover-open]").count() == 0  # before the reveal: none
    assert phone.locator(".sk-bid-secret.secret-card [data-hold]").is_visible()  # the card
    record(live_server, device, key, number, "reveal_bids", {"round": 1})
    button = phone.locator("[data-takeover-open=sk-big-bid]")
    button.wait_for(timeout=WAIT)
    assert phone.locator(".sk-bids").evaluate("e => getComputedStyle(e).listStyleType") == "none"
    found = []
    big = phone.locator("#sk-big-bid.takeover[data-open]")
    for theme in ("dark", "light"):
        themed(phone, theme)
        phone.locator("[data-takeover-open=sk-big-bid]").click()
        big.wait_for(timeout=WAIT)
        assert big.locator("[data-big-bid]").inner_text() == "3"
        assert "민준" in big.inner_text() and "Jo" not in big.inner_text()
        found += serious(phone, f"big bid {theme}")
    assert not found, "\n".join(found)
    # it stays up through a live refresh, until a tap
    phone.evaluate("document.addEventListener('htmx:afterSwap', () => window.__swapped = true)")
    bump(live_server, key)
    phone.wait_for_function("() => window.__swapped === true", timeout=WAIT)
    assert phone.locator("#sk-big-bid.takeover[data-open]").is_visible()
    phone.locator("#sk-big-bid").tap()
    phone.locator("#sk-big-bid").wait_for(state="hidden", timeout=WAIT)


@pytest.mark.parametrize("width", [390, 320])
def test_the_menu_switches_language_and_theme(browser, live_server, width):
    host, url, key, device = table(browser, live_server, names=NAMES)
    phone = touch_phone(browser, seat_url(live_server, key, 1), width=width, height=700)
    menu = phone.locator(".page-menu")
    assert not phone.locator("[data-theme-switch]").is_visible()  # behind the "⋯"
    band = phone.locator(".seat-head").bounding_box()
    assert band["y"] < 90  # the bar is one thin row: the name comes first
    menu.locator("summary").click()
    phone.get_by_role("button", name="Dark").click()
    phone.wait_for_function("() => document.documentElement.dataset.theme === 'dark'")
    assert phone.evaluate("document.documentElement.scrollWidth") <= width
    phone.touchscreen.tap(width // 2, 400)  # a tap outside closes the menu
    phone.wait_for_function("() => !document.querySelector('.page-menu').open")
    menu.locator("summary").click()
    with phone.expect_navigation():
        phone.locator(".page-menu button[lang=ko]").click()
    phone.wait_for_url("**/me")
    assert phone.locator("html").get_attribute("lang") == "ko"
    assert phone.evaluate("document.documentElement.dataset.theme") == "dark"


#: Whether each word of a tile's name lies on one line.
WHOLE_WORDS = """tile => {
  const text = [...tile.querySelectorAll('.player')].map(p => p.firstChild).find(Boolean);
  const broken = [];
  let at = 0;
  for (const word of text.data.split(' ')) {
    const range = document.createRange();
    range.setStart(text, at); range.setEnd(text, at + word.length);
    const lines = new Set([...range.getClientRects()].filter(r => r.width)
      .map(r => Math.round(r.top)));
    if (lines.size > 1) broken.push(word);
    at += word.length + 1;
  }
  return broken;
}"""


def test_a_long_latin_name_breaks_between_its_words_on_the_hosts_tiles(browser, live_server):
    """On a tablet and on a phone (the host's page resized to each at every step)."""
    host, url, key, device = table(browser, live_server, names=NAMES)
    kraken = store_game(live_server.app, device, key, {
        "kind": "kraken",
        "setup": kraken_setup(["explorer", "skeleton", "explorer", "explorer", "explorer"]),
        "events": []}).number
    broken = []

    def whole_words(tile):
        for width in (768, 390):
            host.set_viewport_size({"width": width, "height": 1024})
            broken.extend(f"{width} px: {word}" for word in tile.evaluate(WHOLE_WORDS))

    host.goto(f"{url}/g/{kraken}")
    whole_words(host.locator(".kraken-marker button.pc-tile").first)
    record(live_server, device, key, kraken, "marker", {"seat": 1})
    host.locator(".kraken-reveal label.pc-tile").first.wait_for(timeout=WAIT)
    whole_words(host.locator(".kraken-reveal label.pc-tile").first)
    crazy = store_game(live_server.app, device, key, {
        "kind": "crazytime", "setup": crazytime_setup(side="blue"),
        "events": [ev("rabbit", seat=1), ev("penalty", seat=2, reason="wrong_call")]}).number
    host.goto(f"{url}/g/{crazy}")
    whole_words(host.locator("[data-penalty-seat='0']"))
    assert not broken, broken
