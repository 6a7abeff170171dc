"""Accessibility of every page of a night: axe-core finds no serious or
critical violation on any host, phone or screen page, in a light and in a dark colour
scheme and in a theme chosen against the device's; and the controls used in play
(buttons, summary toggles, links in a game's panel) are at least 44 px tall on a 390 px
phone.

The browser tests' axe scans are here, one for each kind of page in each scheme, width
and theme, rather than at the end of the tests that walk a game (those reached the same
pages again): the other two are a phone's ending said big (tests/test_takeovers_browser.py)
and Kraken's Special cards (tests/test_kraken_specials_browser.py), which no page here
draws. A page is loaded once and scanned in each scheme and width it is checked in: the
scheme's media query and a resize redraw it as a load at that size would (the server
draws the same markup at every width), and a scan after a reload cost three times one
without (0.58 s of CPU to load a page, 0.11 s to put axe in it, 0.42 s to scan it)."""

import pytest

from bench.browsing import claim, host_night, seat_link
from bench.builders import store_game
from bench.layout_night import MATCH, crazytime, kraken, make_night, seat_url, show_on_phones
from bench.layout_night import skullking as layout_skullking
from tests.browsing import COLOUR_RULES, axe_violations, phone
from tests.screen_browsing import AT

pytestmark = pytest.mark.browser

NAMES = ["김민준", "Alice", "박서연", "Bob", "이도윤", "Chloé", "최지우", "Dan"]
#: The colour schemes every page is scanned in, and the widths of the host's pages.
SCHEMES = ("light", "dark")
WIDTHS = (1100, 768, 390)


def skullking(rounds_played, reveal_next):
    """Every player bids 1 and only the first ones win a trick: the others score negative
    points (the red numbers)."""
    return layout_skullking(rounds_played, reveal_next, bid=lambda seat, number: 1,
                            next_bid=0)


GAMES = {
    "kraken-play": (kraken(["empty", "treasure", "empty", "empty", "treasure", "empty"]), True),
    "kraken-end": (kraken(["empty", "treasure", "empty", "treasure", "kraken"]), False),
    "skullking-play": (skullking(1, True), True),
    "skullking-end": (skullking(2, False), False),
    "crazytime-play": (crazytime([MATCH], {1: 3, 2: 1}), True),
    "crazytime-end": (crazytime([MATCH, MATCH, MATCH, {0: 1, 1: 1, 2: 2, 3: 2, 4: 2, 5: 2,
                                                      6: 2}]), False),
}

#: What is used in play and too small for a finger: a button, a summary toggle, a link in
#: a game's panel or its controls, shorter than 44 px (links inside a sentence excepted).
SMALL = """() => {
  const where = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
    + (typeof e.className === 'string' && e.className
       ? '.' + e.className.trim().split(/\\s+/).join('.') : '')
    + ' "' + e.textContent.trim().slice(0, 30) + '"';
  const controls = 'main :is(button, summary, input[type=submit], [role=button],'
    + ' .game-panel a, .game-links a, .log-controls a, #live a, details a)';
  const found = [];
  for (const e of document.querySelectorAll(controls)) {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(e).visibility === 'hidden') continue;
    if (e.tagName === 'A' && e.closest('p, li') && e.closest('p, li').textContent.trim()
        !== e.textContent.trim()) continue;  // a link inside a sentence
    if (r.height < 43.5) found.push(`${where(e)} is ${Math.round(r.height)} px tall`);
  }
  return found;
}"""


def lines(page, rules=None):
    """The serious and critical violations axe finds in the page as it is now (only
    ``rules`` when given), as lines."""
    found = []
    for v in axe_violations(page, rules=rules):
        node = v["nodes"][0]
        found.append(f"{v['impact']} {v['id']}: {len(v['nodes'])} nodes, e.g. {node['target']}"
                     f" {node['html'][:200]} {node.get('failureSummary', '')[:160]!r}")
    return found


def load(page, url, *, open_panels=False):
    """Open ``url``, its panels opened when asked."""
    response = page.goto(url)
    assert response.ok, (url, response.status)
    if open_panels:
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")


def scan(page, url, *, open_panels=False):
    """Open ``url`` and run axe on it; the serious and critical violations as lines."""
    load(page, url, open_panels=open_panels)
    return lines(page)


def in_each_scheme(page, where):
    """The page scanned in the light and the dark colour scheme, as lines saying where:
    every rule in the first, and in the other the rules a scheme can change (the rest
    read the same markup and would answer the same; a whole scan costs three times one
    of those)."""
    found = []
    for scheme in SCHEMES:
        page.emulate_media(color_scheme=scheme)
        rules = COLOUR_RULES if scheme != SCHEMES[0] else None
        found += [f"{scheme} {where}: {v}" for v in lines(page, rules)]
    return found


@pytest.fixture
def night(browser, live_server):
    """A night of eight players with every game in the states its pages show: the host's
    browser context and the night's key, the games' numbers and a claimed seat's URL."""
    base = live_server.url
    context = browser.new_context(viewport={"width": 1100, "height": 900}, locale="ko-KR")
    host = context.new_page()
    key = make_night(host, base, NAMES)
    device = next(c["value"] for c in context.cookies() if c["name"] == "device")
    numbers = {label: store_game(live_server.app, device, key, game).number
               for label, (game, _) in GAMES.items()}
    state = context.storage_state()
    context.close()
    return {"key": key, "numbers": numbers, "host_state": state,
            "seat": seat_url(live_server.app, base, key, 1)}


def contexts(browser, night, scheme, width, motion="no-preference"):
    host = browser.new_context(viewport={"width": width, "height": 900}, locale="ko-KR",
                               color_scheme=scheme, storage_state=night["host_state"],
                               reduced_motion=motion)
    phone = browser.new_context(viewport={"width": 390, "height": 844}, locale="ko-KR",
                                color_scheme=scheme, has_touch=True)
    phone_page = phone.new_page()
    phone_page.goto(night["seat"])
    claim(phone_page)
    return host, phone, phone_page


def host_urls(base, key, games):
    """Every page of the night the host opens."""
    home = f"{base}/n/{key}"
    urls = [home, f"{home}/sheet", f"{home}/tally", f"{base}/history", f"{base}/stats",
            f"{base}/"]
    urls += [f"{home}/g/{number}" for number in games.values()]
    urls += [f"{home}/new/{kind}" for kind in ("kraken", "skullking", "crazytime")]
    urls += [f"{base}/rules/{kind}" for kind in ("kraken", "skullking", "crazytime")]
    return urls


def test_no_host_page_of_a_night_has_a_serious_axe_violation(browser, live_server, night):
    """Every page the host opens, at a desktop's, a tablet's and a phone's width, in both
    colour schemes. The host's browser asks for reduced motion: the scan reads colours at
    rest, which are the same, and a scheme's switch then repaints at once, not through
    Pico's 0.2 s colour transition on every element, whose frames were a third of this
    test's work (a reveal's flip, the one animation of a host's page, ends in the colours
    it is then scanned in)."""
    base = live_server.url
    host, phone, _ = contexts(browser, night, "light", WIDTHS[0], motion="reduce")
    host_page = host.new_page()
    found = []
    for url in host_urls(base, night["key"], night["numbers"]):
        load(host_page, url, open_panels=True)
        for width in WIDTHS:
            host_page.set_viewport_size({"width": width, "height": 900})
            found += in_each_scheme(host_page, f"{width} px {url.removeprefix(base)}")
    host.close()
    phone.close()
    assert not found, "\n".join(found)


def test_phone_and_screen_pages_pass_axe_and_controls_in_play_are_44_px_tall(
        browser, live_server, night):
    """A phone's page in each game's states, its ending both said big and closed, its
    tally, and the room's screen at a TV's size (the host may look), in both colour
    schemes; then, on the same night, the controls used in play on a 390 px phone: the
    host's game page, the table page and the phone's."""
    base, key, games = live_server.url, night["key"], night["numbers"]
    host, phone, phone_page = contexts(browser, night, "light", 1920)
    host_page = host.new_page()
    found = []
    for label, number in games.items():
        show_on_phones(live_server.app, key, number)
        load(phone_page, base + "/me", open_panels=True)
        found += in_each_scheme(phone_page, f"phone /me ({label})")
        ending = phone_page.locator(".takeover[data-open]")
        if ending.count():  # an end is said big first; a tap closes it onto the page
            ending.click()
            ending.wait_for(state="detached")
            found += in_each_scheme(phone_page, f"phone /me ({label}, closed)")
    load(phone_page, base + "/me/tally")
    found += in_each_scheme(phone_page, "phone /me/tally")
    # the room's screen at a TV's size, each game on it in turn
    host_page.set_viewport_size({"width": 1920, "height": 1080})
    for label, number in games.items():
        show_on_phones(live_server.app, key, number)
        load(host_page, f"{base}/n/{key}/screen")
        found += in_each_scheme(host_page, f"screen ({label})")
    assert not found, "\n".join(found)

    host_page.emulate_media(color_scheme="light")
    phone_page.emulate_media(color_scheme="light")
    host_page.set_viewport_size({"width": 390, "height": 900})
    small = []
    for label, (_, playing) in GAMES.items():
        if not playing:
            continue
        for page, url, who in ((host_page, f"{base}/n/{key}/g/{games[label]}", "host"),
                               (host_page, f"{base}/n/{key}", "table"),
                               (phone_page, f"{base}/me", "phone")):
            show_on_phones(live_server.app, key, games[label])
            page.goto(url)
            small += [f"{who} {label}: {what}" for what in page.evaluate(SMALL)]
            page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
            small += [f"{who} {label} (opened): {what}" for what in page.evaluate(SMALL)]
    host.close()
    phone.close()
    assert not small, "\n".join(dict.fromkeys(small))


def test_a_fresh_nights_table_page_and_a_phone_pass_axe(browser, live_server):
    """Before any game: the host's table page with every seat's code, and a phone that
    has just claimed its seat."""
    host = browser.new_context(locale="en-US").new_page()
    host_night(host, live_server.url, ["Mina", "Jo", "Sun"])
    assert axe_violations(host) == []
    page = phone(browser, seat_link(host, 0))
    assert axe_violations(page) == []


# --- a theme chosen with the switch ---------------------------------------------------
# The theme chosen with the header's switch against the device's setting (Pico's
# [data-theme] rules over its prefers-color-scheme ones): the host's pages, a phone's in
# each game's states (Kraken's ending said big: its "Tap to close" over the player's
# colour), and the room's screen with each game (the stats' labels on the game's tint)
# and tonight's tally after each end.


@pytest.mark.parametrize("device, theme", [("light", "dark"), ("dark", "light")])
def test_pages_in_a_theme_chosen_against_the_device_pass_axe(browser, live_server, night,
                                                            device, theme):
    base, key, games = live_server.url, night["key"], night["numbers"]
    host, phone, mine = contexts(browser, night, device, 1100)
    for context in (host, phone):
        context.add_init_script(f"localStorage.setItem('theme', '{theme}')")
    page = host.new_page()
    night_url = f"{base}/n/{key}"
    found = []
    for url in [f"{base}/", night_url, f"{night_url}/tally", f"{base}/rules/skullking",
                *(f"{night_url}/g/{number}" for number in games.values())]:
        found += [f"{url.removeprefix(base)}: {v}" for v in scan(page, url, open_panels=True)]
        assert page.evaluate("document.documentElement.dataset.theme") == theme
    page.set_viewport_size({"width": 1920, "height": 1080})
    for label, number in games.items():
        show_on_phones(live_server.app, key, number)
        found += [f"phone ({label}): {v}" for v in scan(mine, base + "/me")]
        if label == "kraken-end":  # the ending takes the phone over, its button in view
            assert mine.locator(".takeover[data-open] .takeover-close").is_visible()
        found += [f"screen ({label}): {v}" for v in scan(page, f"{night_url}/screen")]
        if label.endswith("-end"):  # and tonight's tally, its turn after the board's
            page.evaluate(AT, 25000)
            assert page.locator(".screen-tonight").is_visible()
            found += [f"screen ({label}, tonight): {v}" for v in lines(page)]
    assert mine.evaluate("document.documentElement.dataset.theme") == theme
    assert not found, "\n".join(found)
