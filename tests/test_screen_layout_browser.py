"""The room's screen laid out for a TV: at 16:9 (1920×1080) the blocks stand in columns
and a whole game of Skull King (8 players, 10 rounds, names of 30 characters) fits the
screen without scrolling, in the type sizes static/screen.css sets; at 1280×720 and on a
portrait tablet (768×1024) it is one column. Crazy Time and Kraken fit 1920×1080 too.
No size is ever wider than its viewport."""

import os

import pytest

from companion.skullking import rules as sk
from tests.conftest import store_game
from tests.test_layout_browser import MATCH, crazytime, kraken, make_night, show_on_phones
from tests.test_layout_browser import NAMES as LONG
from tests.test_stats import ev

pytestmark = pytest.mark.browser

#: A folder to save each screen's picture in (COMPANION_SCREENSHOTS), to look at it.
SHOTS = os.environ.get("COMPANION_SCREENSHOTS")
#: Eight players, four of them with 30-character names that have no space to break at.
NAMES = [LONG[0], "Mina", LONG[2], "Jo", LONG[3], "Sun", LONG[4], "Ann"]
TV, LAPTOP, TABLET = (1920, 1080), (1280, 720), (768, 1024)

#: The type sizes static/screen.css sets, in px at 1920 px wide (1 rem = 32 px there), a
#: half pixel below for rounding: {selector: px}.
SIZES = {"body": 32, ".screen-title": 64, ".sk-screen-facts": 40, ".sk-screen-bids": 48,
         ".sk-standings h3": 48, ".sk-ranks": 48, "table.sk-score td": 36,
         ".sk-score thead th": 28}

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


def skullking_ten_rounds():
    """Eight players, the standard ten rounds (8 cards at most, for 8 players): nine
    scored, the tenth's bids revealed, so the screen shows the round, every bid and a
    full table while the game runs."""
    setup = sk.start(list(range(8)), {"way": "standard"})
    events = []
    for index, round_ in enumerate(setup["rounds"], 1):
        cards = round_["cards"] if isinstance(round_, dict) else round_
        won = [cards // 8 + (1 if seat < cards % 8 else 0) for seat in range(8)]
        bids = [min(cards, (w + seat) % 3) if seat % 2 else w for seat, w in enumerate(won)]
        events += [ev("bid", seat=seat, round=index, bid=b) for seat, b in enumerate(bids)]
        events.append(ev("reveal_bids", round=index))
        if index < len(setup["rounds"]):
            events.append(ev("result", round=index,
                             results={str(s): {"won": w} for s, w in enumerate(won)}))
    return {"kind": "skullking", "setup": setup, "events": events}


@pytest.fixture
def screen(browser, live_server):
    """The night's host looking at the room's screen (a host may: screens.viewed_night),
    with a Skull King, a Crazy Time and a Kraken game stored; show(label, size) makes
    that game current and opens the screen at that size."""
    context = browser.new_context(viewport={"width": TV[0], "height": TV[1]}, locale="en-US")
    page = context.new_page()
    key = make_night(page, live_server.url, NAMES)
    device = next(c["value"] for c in context.cookies() if c["name"] == "device")
    numbers = {
        "skullking": store_game(live_server.app, device, key, skullking_ten_rounds()).number,
        "crazytime": store_game(live_server.app, device, key,
                                crazytime([MATCH] * 3,
                                          {1: 1, 2: 1})).number,
        "kraken": store_game(live_server.app, device, key, kraken(
            ["empty", "treasure", "empty", "empty", "treasure", "empty", "empty"])).number,
    }

    def show(label, size):
        show_on_phones(live_server.app, key, numbers[label])
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.goto(f"{live_server.url}/n/{key}/screen")
        page.evaluate("document.fonts.ready")
        if SHOTS:
            page.screenshot(path=f"{SHOTS}/screen-{label}-{size[0]}x{size[1]}.png",
                            full_page=True)
        return page
    return show


def measure(page, *selectors):
    return page.evaluate(MEASURE, list(selectors))


def font_px(page, selector):
    return page.eval_on_selector(
        selector, "el => parseFloat(getComputedStyle(el).fontSize)")


def side_by_side(a, b):
    """Two boxes share a row: one's top lies within the other's height, and they do not
    overlap sideways."""
    return (a["top"] < b["bottom"] and b["top"] < a["bottom"]
            and (a["right"] <= b["left"] + 1 or b["right"] <= a["left"] + 1))


def test_a_whole_skull_king_game_fits_a_tv_in_columns(screen):
    page = screen("skullking", TV)
    assert page.locator(".sk-score tbody tr").count() == 10
    assert page.locator(".sk-screen-bids li").count() == 8
    seen = measure(page, ".sk-screen-round", ".sk-standings", ".sk-wide", ".sk-chart-box")
    assert seen["width"] <= seen["innerWidth"] == TV[0]
    assert seen["height"] <= seen["innerHeight"] == TV[1], seen
    boxes = seen["boxes"]
    assert side_by_side(boxes[".sk-screen-round"], boxes[".sk-wide"]), boxes
    assert side_by_side(boxes[".sk-standings"], boxes[".sk-chart-box"]) or \
        side_by_side(boxes[".sk-standings"], boxes[".sk-wide"]), boxes
    for box in boxes.values():  # every block whole on the screen
        assert 0 <= box["top"] and box["bottom"] <= TV[1] and box["right"] <= TV[0], boxes
    for selector, px in SIZES.items():
        assert font_px(page, selector) >= px - .5, selector
    # The standings' scores stand in one column, long names and short alike (a name cut
    # with "…" pushed its score to the right edge while the others followed their names),
    # and the revealed bids likewise (a name cut with "…" left a gap before its colon).
    in_one_column(page, ".sk-ranks li", ".sk-rank-name")
    in_one_column(page, ".sk-screen-bids li", ".player")


def in_one_column(page, rows, name):
    """Each of ``rows``' figures (its ``strong``) right of its ``name``, their right
    edges within 1 px of each other."""
    seen = page.eval_on_selector_all(rows, """(rows, name) => rows.map(li => ({
        name: li.querySelector(name).getBoundingClientRect().right,
        figure: li.querySelector("strong").getBoundingClientRect()}))""", name)
    rights = [row["figure"]["right"] for row in seen]
    assert max(rights) - min(rights) <= 1, (rows, rights)
    assert all(row["name"] <= row["figure"]["left"] for row in seen), (rows, seen)

@pytest.mark.parametrize("size", [LAPTOP, TABLET])
def test_a_smaller_or_portrait_screen_shows_one_column(screen, size):
    page = screen("skullking", size)
    seen = measure(page, ".sk-screen-round", ".sk-standings", ".sk-wide", ".sk-chart-box")
    assert seen["width"] <= seen["innerWidth"] == size[0]
    boxes = [seen["boxes"][s] for s in (".sk-screen-round", ".sk-standings", ".sk-wide",
                                        ".sk-chart-box")]
    for upper, lower in zip(boxes, boxes[1:], strict=False):  # each below the one before
        assert upper["bottom"] <= lower["top"] + 1, boxes
    # The same proportions as on the TV: 1 rem is 1/60 of the width, 18 px at least.
    rem = max(18, size[0] / 60)
    assert font_px(page, "body") >= rem - .5
    assert font_px(page, "table.sk-score td") >= 1.125 * rem - .5


@pytest.mark.parametrize("label, beside", [
    ("crazytime", (".ct-screen .stats", ".ct-penalty-table")),
    ("kraken", (".kraken-screen .kraken-glance > .stats", ".kraken-screen .kraken-front")),
])
def test_crazy_time_and_kraken_fit_a_tv(screen, label, beside):
    page = screen(label, TV)
    seen = measure(page, *beside)
    assert seen["width"] <= seen["innerWidth"] == TV[0]
    assert seen["height"] <= seen["innerHeight"] == TV[1], seen
    assert side_by_side(*(seen["boxes"][s] for s in beside)), seen["boxes"]
    assert font_px(page, "body") >= 31.5
