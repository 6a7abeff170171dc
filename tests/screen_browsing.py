"""The room's screen in a browser, shared by the screen's browser tests: its sizes, a
night with a game of each kind in every phase the screen shows (the ``screen`` fixture),
and what the page is checked for (anything cut at the TV's edges, animations held)."""

import os
from contextlib import contextmanager

import pytest

from bench.builders import ev, store_game
from bench.layout_night import MATCH, crazytime, kraken, make_night, show_on_phones
from bench.layout_night import NAMES as LONG
from companion.skullking import rules as sk

#: A folder to save each screen's picture in (COMPANION_SCREENSHOTS), to look at it.
SHOTS = os.environ.get("COMPANION_SCREENSHOTS")
#: Eight players, four of them with 30-character names that have no space to break at.
NAMES = [LONG[0], "Mina", LONG[2], "Jo", LONG[3], "Sun", LONG[4], "Ann"]
TV, LAPTOP, TABLET = (1920, 1080), (1280, 720), (768, 1024)

#: The type sizes static/screen.css and static/skullking.css set, in px at 1920 px wide
#: (1 rem = 32 px there), a half pixel below for rounding: {selector: px}. (Skull King's
#: score table is not drawn on a TV: its size is the portrait screen's.)
SIZES = {"body": 32, ".screen-title": 64, ".sk-screen-facts": 40, ".sk-screen-bids": 48,
         ".sk-standings h3": 48, ".sk-ranks": 40}

#: What may make the page scroll: its sizes, and the boxes of the blocks named.
MEASURE = """selectors => ({
  width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight,
  innerWidth: window.innerWidth, innerHeight: window.innerHeight,
  boxes: Object.fromEntries(selectors.map(s => {
    const e = document.querySelector(s);
    const r = e && e.getBoundingClientRect();
    return [s, r && {top: r.top, bottom: r.bottom, left: r.left, right: r.right}];
  })),
})"""


def skullking_ten_rounds(scored=9, revealed=True, players=8):
    """``players`` players (eight by default), the standard ten rounds (8 cards at most,
    for 8 players): by default nine scored, the tenth's bids revealed, so the screen
    shows the round, every bid and a full table while the game runs; ``scored`` rounds
    scored, and the next's bids ``revealed`` (or none made)."""
    seats = range(players)
    setup = sk.start(list(seats), {"way": "standard"})
    events = []
    for index, round_ in enumerate(setup["rounds"], 1):
        if index > scored + 1 or (index == scored + 1 and not revealed):
            break
        cards = round_["cards"] if isinstance(round_, dict) else round_
        won = [cards // players + (1 if seat < cards % players else 0) for seat in seats]
        bids = [min(cards, (w + seat) % 3) if seat % 2 else w for seat, w in enumerate(won)]
        events += [ev("bid", seat=seat, round=index, bid=b) for seat, b in enumerate(bids)]
        events.append(ev("reveal_bids", round=index))
        if index <= scored:
            events.append(ev("result", round=index,
                             results={str(s): {"won": w} for s, w in enumerate(won)}))
    return {"kind": "skullking", "setup": setup, "events": events}


#: Every game in every phase the screen shows: its start, mid-round, a round (or match)
#: just over, and its end.
PHASES = {
    "kraken-start": lambda: kraken([]),
    "kraken-mid": lambda: kraken(["empty", "treasure", "empty"]),
    "kraken-round-over": lambda: kraken(["empty", "treasure", "empty", "empty", "treasure",
                                         "empty", "empty", "empty"]),
    "kraken-end": lambda: kraken(["empty", "treasure", "empty", "treasure", "kraken"]),
    "skullking-start": lambda: skullking_ten_rounds(0, False),
    "skullking-mid": lambda: skullking_ten_rounds(4, True),
    "skullking-round-over": lambda: skullking_ten_rounds(5, False),
    "skullking-end": lambda: skullking_ten_rounds(10, False),
    "crazytime-start": lambda: crazytime([]),
    "crazytime-mid": lambda: crazytime([MATCH], {1: 3, 2: 1}),
    "crazytime-match-over": lambda: crazytime_match_over(),
    "crazytime-end": lambda: crazytime([MATCH, MATCH, MATCH, {0: 1, 1: 1, 2: 2, 3: 2,
                                                              4: 2, 5: 2, 6: 2}]),
}


def crazytime_match_over():
    """Match 2 just won, its law not made yet."""
    game = crazytime([MATCH])
    game["events"] += [ev("penalty", seat=seat, reason="wrong_call")
                       for seat, count in MATCH.items() for _ in range(count)]
    return game


@pytest.fixture(scope="module")
def screen(browser, module_live_server):
    """The night's host looking at the room's screen (a host may: identity.viewed_night),
    with a Skull King, a Crazy Time and a Kraken game stored; show(label, size) makes
    that game current and opens the screen at that size. A module's tests share it: each
    test's show() sets the game, the size, the language and the theme it looks at, and
    opens the page afresh (a night of its own for each test cost 1–1.5 s of CPU, in some
    thirty tests)."""
    games = {label: make() for label, make in PHASES.items()} | {
        "skullking": skullking_ten_rounds(),
        "crazytime": crazytime([MATCH] * 3, {1: 1, 2: 1}),
        "kraken": kraken(["empty", "treasure", "empty", "empty", "treasure", "empty",
                          "empty"]),
    }
    with night_on_screen(browser, module_live_server, NAMES, games) as show:
        yield show


@contextmanager
def night_on_screen(browser, live_server, names, games):
    """A night of ``names`` with ``games`` ({label: game}) stored, and one with no game
    yet (the "lobby"), seen by their host on the room's screen: returns show(label, size,
    lang, theme), which makes that game current and opens the screen at that size, in
    that language and theme; show.bump(label) changes the night (the same game shown
    again), so every screen refreshes. The host's browser context closes at the end."""
    context = browser.new_context(viewport={"width": TV[0], "height": TV[1]}, locale="en-US")
    page = context.new_page()
    key = make_night(page, live_server.url, names)
    lobby = make_night(page, live_server.url, names)  # no game yet
    device = next(c["value"] for c in context.cookies() if c["name"] == "device")
    numbers = {label: store_game(live_server.app, device, key, game).number
               for label, game in games.items()}

    def show(label, size, lang="en", theme="light"):
        if label != "lobby":
            show_on_phones(live_server.app, key, numbers[label])
        context.add_cookies([{"name": "lang", "value": lang, "url": live_server.url}])
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.goto(f"{live_server.url}/n/{lobby if label == 'lobby' else key}/screen")
        if page.evaluate("localStorage.getItem('theme') || 'light'") != theme:
            page.evaluate(f"localStorage.setItem('theme', '{theme}')")
            page.reload()
        page.evaluate("document.fonts.ready")
        if SHOTS:
            page.screenshot(path=f"{SHOTS}/screen-{label}-{size[0]}x{size[1]}-{lang}-"
                                 f"{theme}.png", full_page=True, animations="disabled")
        return page
    show.bump = lambda label: show_on_phones(live_server.app, key, numbers[label])
    yield show
    context.close()


#: Every element of the page that is drawn and lies (partly) past the viewport's bottom
#: or right edge: a TV cannot scroll.
CUT = """() => [...document.querySelectorAll('body *')].filter(el => {
    const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    return r.width > 1 && r.height > 1 && s.visibility !== 'hidden'
      && s.clipPath === 'none' && (r.bottom > window.innerHeight + .5
                                   || r.right > window.innerWidth + .5);
  }).map(el => el.tagName + '.' + el.className + ' '
         + (el.textContent || '').trim().slice(0, 40))"""


#: Every animation of the page set to ``ms`` into its run (the turns last 20 s each).
AT = "ms => document.getAnimations().forEach(a => { a.pause(); a.currentTime = ms; })"
