"""Accessibility of every page of a night: axe-core finds no serious or
critical violation on any host or phone page, in a light and in a dark colour scheme; and
the controls used in play (buttons, summary toggles, links in a game's panel) are at least
44 px tall on a 390 px phone."""

import pytest

from bench.browsing import claim
from bench.builders import store_game
from bench.layout_night import MATCH, crazytime, kraken, make_night, seat_url, show_on_phones
from bench.layout_night import skullking as layout_skullking
from tests.browsing import axe_violations
from tests.screen_browsing import AT

pytestmark = pytest.mark.browser

NAMES = ["김민준", "Alice", "박서연", "Bob", "이도윤", "Chloé", "최지우", "Dan"]


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


def scan(page, url, *, open_panels=False):
    """Open ``url`` and run axe on it; the serious and critical violations as lines."""
    response = page.goto(url)
    assert response.ok, (url, response.status)
    if open_panels:
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    lines = []
    for v in axe_violations(page):
        node = v["nodes"][0]
        lines.append(f"{v['impact']} {v['id']}: {len(v['nodes'])} nodes, e.g. {node['target']}"
                     f" {node['html'][:200]} {node.get('failureSummary', '')[:160]!r}")
    return lines


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


def contexts(browser, night, scheme, width):
    host = browser.new_context(viewport={"width": width, "height": 900}, locale="ko-KR",
                               color_scheme=scheme, storage_state=night["host_state"])
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


# One test per width and scheme (not one walking all three widths): the walk took a
# minute and a half, and the parts go to different test workers.
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [1100, 768, 390])
def test_no_host_page_of_a_night_has_a_serious_axe_violation(browser, live_server, night,
                                                             scheme, width):
    base = live_server.url
    host, phone, _ = contexts(browser, night, scheme, width)
    host_page = host.new_page()
    found = [f"{width} px {url.removeprefix(base)}: {v}"
             for url in host_urls(base, night["key"], night["numbers"])
             for v in scan(host_page, url, open_panels=True)]
    host.close()
    phone.close()
    assert not found, f"{scheme}:\n" + "\n".join(found)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_phone_or_screen_page_has_a_serious_axe_violation(browser, live_server, night,
                                                            scheme):
    base, key, games = live_server.url, night["key"], night["numbers"]
    host, phone, phone_page = contexts(browser, night, scheme, 1920)
    host_page = host.new_page()
    found = []
    for label, number in games.items():
        show_on_phones(live_server.app, key, number)
        found += [f"phone /me ({label}): {v}"
                  for v in scan(phone_page, base + "/me", open_panels=True)]
    found += [f"phone /me/tally: {v}" for v in scan(phone_page, base + "/me/tally")]
    # the room's screen at a TV's size, each game on it in turn (the host may look)
    host_page.set_viewport_size({"width": 1920, "height": 1080})
    for label, number in games.items():
        show_on_phones(live_server.app, key, number)
        found += [f"screen ({label}): {v}"
                  for v in scan(host_page, f"{base}/n/{key}/screen")]
    host.close()
    phone.close()
    assert not found, f"{scheme}:\n" + "\n".join(found)


def test_controls_used_in_play_are_44_px_tall_on_a_phone(browser, live_server, night):
    base, key, games = live_server.url, night["key"], night["numbers"]
    host, phone, phone_page = contexts(browser, night, "light", 390)
    host_page = host.new_page()
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


# --- a theme chosen with the switch ---------------------------------------------------
# Colour contrast in the dark theme chosen with the theme switch (not only the device's
# setting): axe-core finds no serious or critical violation on a phone's Kraken ending
# (its "Tap to close" button over the player's colour) nor on the room's screen in any
# game (the stats' labels on the game's tint) nor on tonight's tally there, in the light
# theme chosen so either.


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_a_chosen_theme_keeps_the_phone_s_ending_and_the_screen_readable(
        browser, live_server, theme):
    live_server.app.config["END_HELD"] = False  # the ending shows at once
    base = live_server.url
    host = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="ko-KR")
    page = host.new_page()
    key = make_night(page, base, NAMES)
    device = next(c["value"] for c in host.cookies() if c["name"] == "device")
    numbers = {label: store_game(live_server.app, device, key, game).number
               for label, (game, _) in GAMES.items()}
    phone = browser.new_context(viewport={"width": 390, "height": 844}, locale="ko-KR",
                                has_touch=True)
    mine = phone.new_page()
    mine.goto(seat_url(live_server.app, base, key, 1))
    claim(mine)
    for context in (host, phone):
        context.add_init_script(f"localStorage.setItem('theme', '{theme}')")
    found = []
    for label, number in numbers.items():
        show_on_phones(live_server.app, key, number)
        found += [f"phone ({label}): {v}" for v in scan(mine, base + "/me")]
        if label == "kraken-end":  # the ending takes the phone over, its button in view
            assert mine.locator(".takeover[data-open] .takeover-close").is_visible()
        found += [f"screen ({label}): {v}" for v in scan(page, f"{base}/n/{key}/screen")]
        if label.endswith("-end"):  # and tonight's tally, its turn after the board's
            page.evaluate(AT, 25000)
            assert page.locator(".screen-tonight").is_visible()
            found += [f"screen ({label}, tonight): {v['id']} {v['nodes'][0]['target']}"
                      for v in axe_violations(page)]
    assert page.evaluate("document.documentElement.dataset.theme") == theme
    assert not found, "\n".join(found)
