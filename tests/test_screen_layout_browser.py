"""The room's screen laid out for a TV: at 16:9 (1920×1080, and a 1280×720 laptop) the
blocks stand in columns and every game in every phase (its start, mid-round, a round or
match just over, its end; and the lobby before the first game) fits the screen without
scrolling, nothing cut at its bottom or right, with 8 players and names of 30
characters, in English and Korean, in the type sizes static/screen.css and the games'
stylesheets set (under "The room's screen"); on a portrait tablet (768×1024) it is one
column. No size is ever wider than its viewport."""

import pytest

from bench.builders import store_game
from bench.layout_night import NAMES as LONG
from bench.layout_night import make_night, show_on_phones
from tests.browsing import WORDS_BROKEN
from tests.screen_browsing import (
    CUT,
    LAPTOP,
    MEASURE,
    PHASES,
    SIZES,
    TABLET,
    TV,
    night_on_screen,
    skullking_ten_rounds,
)
from tests.screen_browsing import screen as screen  # noqa: F401 (a fixture)

pytestmark = pytest.mark.browser



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


@pytest.mark.parametrize("size", [TV, LAPTOP])
def test_a_whole_skull_king_game_fits_a_tv_in_columns(screen, size):
    """The round and its bids | the chart of every round, the larger share | the
    standings. The score table is the phones': beside a chart a third of the screen,
    the bids and the standings, its ten rows would be too small to read from the sofa."""
    page = screen("skullking", size)
    assert page.locator(".sk-chart g.sk-series").count() == 8
    # the start and the nine rounds scored, each a mark on every line
    assert page.locator(".sk-chart .sk-series").first.locator(".sk-marker").count() == 10
    assert page.locator(".sk-screen-bids li").count() == 8
    assert not page.locator(".sk-wide").is_visible()
    seen = measure(page, ".sk-screen-now", ".sk-standings", ".sk-chart-box")
    assert seen["width"] <= seen["innerWidth"] == size[0]
    assert seen["height"] <= seen["innerHeight"] == size[1], seen
    boxes = seen["boxes"]
    assert side_by_side(boxes[".sk-screen-now"], boxes[".sk-chart-box"]), boxes
    assert side_by_side(boxes[".sk-chart-box"], boxes[".sk-standings"]), boxes
    for box in boxes.values():  # every block whole on the screen
        assert 0 <= box["top"] and box["bottom"] <= size[1] and box["right"] <= size[0], boxes
    for selector, px in SIZES.items():  # the sizes follow the width
        assert font_px(page, selector) >= px * size[0] / TV[0] - .5, selector
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

@pytest.mark.parametrize("size", [TABLET])
def test_a_portrait_screen_shows_one_column(screen, size):
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




#: Each word of a table's head that is drawn on two lines ("Ma/tch 1", "Hour/s"): a
#: head may wrap between its words, never inside one. A player's name is not a word
#: here (a 30-letter name with no space may break, or is cut).
BROKEN_WORDS = """() => {
  const found = [];
  for (const th of document.querySelectorAll('#live thead th')) {
    if (!th.offsetWidth) continue;
    const texts = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    for (let node; (node = texts.nextNode());) {
      if (node.parentElement.closest('.player')) continue;
      for (const word of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const lines = new Set([...range.getClientRects()].filter(r => r.width)
          .map(r => Math.round(r.top)));
        if (lines.size > 1) found.push(`"${word[0]}" of "${th.textContent.trim()}"`);
      }
    }
  }
  return found;
}"""


@pytest.mark.parametrize("size", [TV, LAPTOP])
def test_every_game_in_every_phase_fits_a_tv_and_a_laptop(screen, size):
    cut, broken = [], []
    for label in ["lobby", *PHASES]:
        for lang in ("en", "ko"):
            page = screen(label, size, lang)
            seen = measure(page)
            overflow = page.evaluate(CUT)
            if seen["height"] > size[1] or seen["width"] > size[0] or overflow:
                cut.append(f"{label} {lang}: {seen['width']}×{seen['height']} {overflow[-3:]}")
            broken += [f"{label} {lang}: {word}" for word in page.evaluate(BROKEN_WORDS)]
    assert not cut, "\n".join(cut)
    assert not broken, "\n".join(broken)  # and no word of a table's head breaks inside


#: Each label of the chart: its size on the screen, in px (its font size in the SVG's
#: units times the SVG's scale).
CHART_LABELS = """() => [...document.querySelectorAll('.sk-chart text')].map(t => {
    const svg = t.ownerSVGElement;
    return parseFloat(getComputedStyle(t).fontSize) * svg.getBoundingClientRect().width
      / svg.viewBox.baseVal.width; })"""


@pytest.mark.parametrize("label", ["skullking-mid", "skullking-end"])
def test_the_charts_labels_are_28_px_or_more_on_a_tv(screen, label):
    page = screen(label, TV)
    sizes = page.evaluate(CHART_LABELS)
    assert sizes and min(sizes) >= 28, sizes


#: Five players: four of 30 characters with spaces to break at (two alike but for their
#: last word, one in Hangul), and one short.
FIVE = ["Bartholomew the Unsinkable Pir", "Bartholomew the Unsinkable Sam",
        "Maximiliana Catherine Rosewood", "김민준 박서연 이도윤 김민준 박서연 이도윤 김민준 박서",
        "Jo"]
assert all(len(name) == 30 for name in FIVE[:4])

#: Skull King's phases with a chart: tricks being played (bids revealed), the next
#: round's bidding once a round is scored, the last round played, the end.
CHARTED = {"skullking-mid": (4, True), "skullking-round-over": (5, False),
           "skullking": (9, True), "skullking-end": (10, False)}


@pytest.fixture(scope="module")
def five(browser, module_live_server):
    """The room's screen of a night of :data:`FIVE`, with their Skull King game in
    each phase of :data:`CHARTED`."""
    games = {label: skullking_ten_rounds(scored, revealed, players=5)
             for label, (scored, revealed) in CHARTED.items()}
    with night_on_screen(browser, module_live_server, FIVE, games) as show:
        yield show


#: The chart as drawn: its box, each word's size in px (its font size in the SVG's units
#: times the SVG's scale), and each line's name at its end (its lines, in order) with the
#: player's name as the standings hold it (whole, whatever they show).
CHART = """() => {
  const svg = document.querySelector('.sk-chart');
  if (!svg) return null;
  const box = svg.getBoundingClientRect(), scale = box.width / svg.viewBox.baseVal.width;
  const named = seat => document.querySelector(`.sk-rank[data-seat="${seat}"] .sk-rank-name`);
  return {
    width: box.width, height: box.height,
    sizes: [...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize)
                                                      * scale),
    ends: [...svg.querySelectorAll('.sk-series')].map(g => {
      const end = g.querySelector('.sk-end'), rows = end.querySelectorAll('tspan');
      return {name: named(g.dataset.seat).textContent.trim(),
              rows: rows.length ? [...rows].map(r => r.textContent) : [end.textContent]};
    }),
  };
}"""


@pytest.mark.parametrize("size", [TV, LAPTOP])
@pytest.mark.parametrize("players", [8, 5])
def test_skull_king_s_chart_takes_a_third_of_the_screen_and_names_every_player(
        request, size, players):
    """The chart is read from the sofa in every phase that draws it: at least a third of
    the screen, every word 28 px or more at 1920 px wide (in proportion below), each
    player's name whole at their line's end (on as many lines as it needs: "Bartholomew
    t…" named two players), and nothing past the screen's edges; in English and Korean,
    light and dark, with 8 players (four of 30 characters with no space) and 5 (of 30
    characters with spaces)."""
    show = request.getfixturevalue("screen" if players == 8 else "five")
    least = 28 * size[0] / TV[0]
    problems = []
    for theme in ("light", "dark"):
        for label in CHARTED:
            for lang in ("en", "ko"):
                page = show(label, size, lang, theme)
                where = f"{players} players, {label} {lang} {theme}"
                chart = page.evaluate(CHART)
                if chart is None:
                    problems.append(f"{where}: no chart")
                    continue
                if chart["width"] * chart["height"] < size[0] * size[1] / 3:
                    problems.append(f"{where}: the chart is {chart['width']:.0f}×"
                                    f"{chart['height']:.0f}, less than a third of {size}")
                small = [round(px, 1) for px in chart["sizes"] if px < least - .5]
                if small or not chart["sizes"]:
                    problems.append(f"{where}: words of {small} px")
                problems += [f"{where}: {end['name']} drawn as {end['rows']}"
                             for end in chart["ends"] if not whole(end)]
                seen = measure(page)
                if seen["width"] > size[0] or seen["height"] > size[1]:
                    problems.append(f"{where}: the page is {seen['width']}×{seen['height']}")
                problems += [f"{where}: past the edge: {cut}" for cut in page.evaluate(CUT)]
    assert len({end["name"] for end in chart["ends"]}) == players
    assert not problems, "\n".join(problems)


def whole(end):
    """Whether a line's name at its end (its ``rows``, "★ " first for the leader) is the
    player's whole name, broken only between its lines."""
    drawn = "".join(end["rows"]).removeprefix("★ ")
    return drawn.replace(" ", "") == end["name"].replace(" ", "")


def test_marks_are_a_fill_and_a_weight_never_an_underline(screen):
    page = screen("skullking-mid", TV)
    marked = page.eval_on_selector_all(
        ".sk-score th.leader, .sk-score tr.current th .sk-rno, .sk-score tr.current td",
        """els => els.map(e => ({line: getComputedStyle(e).textDecorationLine,
                                  weight: getComputedStyle(e).fontWeight,
                                  fill: getComputedStyle(e).backgroundColor}))""")
    assert marked and all(m["line"] == "none" for m in marked), marked
    heads = [m for m in marked if m["weight"] != "400"]
    assert heads and all(int(m["weight"]) >= 700 for m in heads), marked
    cells = page.eval_on_selector_all(
        ".sk-score th.leader, .sk-score tr.current > *",
        "els => els.map(e => getComputedStyle(e).backgroundColor)")
    page_fill = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    assert cells and all(c not in ("rgba(0, 0, 0, 0)", page_fill) for c in cells), cells


def test_a_name_cut_with_an_ellipsis_keeps_its_colour_dots_ring(screen):
    page = screen("crazytime-mid", TV)
    cut = page.eval_on_selector_all(
        "#live .player[class*=pc-]", """els => els.filter(e => getComputedStyle(e).overflow
            !== 'visible').map(e => parseFloat(getComputedStyle(e).paddingLeft))""")
    assert cut and min(cut) >= 1.5, cut  # the ring is 1.5 px outside the dot


def test_the_rounds_facts_never_wrap_mid_phrase(screen):
    page = screen("skullking-mid", TV, "ko")
    lines = page.eval_on_selector_all(".sk-screen-facts .sk-fact", """els => els.map(e =>
        e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight))""")
    assert len(lines) == 4 and max(lines) < 1.5, lines  # each fact on one line, whole


def test_the_rabbit_and_the_trophy_are_drawn_without_an_emoji_font(screen):
    page = screen("crazytime-mid", TV)
    assert page.locator(".ct-rabbit").count() == 1
    page.wait_for_function("""() => [...document.fonts].some(f =>
        f.family.includes('Companion Emoji') && f.status === 'loaded')""")


def test_each_game_tints_the_screen(screen):
    tints = {label: screen(label, TV).evaluate(
        "getComputedStyle(document.documentElement).backgroundColor")
        for label in ("lobby", "kraken-mid", "skullking-mid", "crazytime-mid")}
    assert len(set(tints.values())) == 4, tints


#: A banner's parts that hide some of what they hold (a name cut with "…").
CLIPPED = """selector => [...document.querySelectorAll(selector + ', ' + selector + ' *')]
  .filter(e => { const s = getComputedStyle(e);
    return (s.overflowX !== 'visible' || s.overflowY !== 'visible')
      && (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1); })
  .map(e => e.tagName + ' ' + e.textContent.trim().slice(0, 40))"""

#: Winners with 30-character names: one of words (Crazy Time's winner, seat 0), and the
#: Kraken's three Skeletons (seats 5 to 7): words, Hangul with no space, and the widest
#: Latin letter.
WINNERS = ["Maximiliana Catherine Rosewood", "Mina", "Jo", "Sun", "Ann",
           "Bartholomew Fitzgerald Smithso", LONG[0], "W" * 30]


@pytest.mark.parametrize("size", [TV, LAPTOP])
def test_a_winners_30_letter_name_is_said_whole_in_the_banner(browser, live_server, size):
    live_server.app.config["END_HELD"] = False  # a Kraken end shows at once (its own test)
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    key = make_night(page, live_server.url, WINNERS)
    device = next(c["value"] for c in context.cookies() if c["name"] == "device")
    games = {"crazytime-end": WINNERS[:1], "kraken-end": WINNERS[5:],
             "crazytime-match-over": WINNERS[:1]}
    problems = []
    for label, winners in games.items():
        number = store_game(live_server.app, device, key, PHASES[label]()).number
        show_on_phones(live_server.app, key, number)
        for lang in ("en", "ko"):
            context.add_cookies([{"name": "lang", "value": lang, "url": live_server.url}])
            page.goto(f"{live_server.url}/n/{key}/screen")
            page.evaluate("document.fonts.ready")
            banner = ".screen-hero"
            said = " ".join(page.locator(banner).inner_text().split())
            problems += [f"{label} {lang}: {name} not said" for name in winners
                         if name not in said]
            problems += [f"{label} {lang}: cut {e}" for e in page.evaluate(CLIPPED, banner)]
            problems += [f"{label} {lang}: '{w}' broken" for w in
                         page.evaluate(WORDS_BROKEN, banner)]
            seen = measure(page)
            if seen["height"] > size[1] or page.evaluate(CUT):
                problems.append(f"{label} {lang}: the board no longer fits")
    assert not problems, "\n".join(problems)


def test_a_won_game_has_one_banner_saying_who_won(screen):
    page = screen("kraken-end", TV)
    banner = page.locator(".screen-hero-won")
    assert banner.count() == 1
    assert "Sun" in banner.inner_text() and "Ann" in banner.inner_text()
    assert not page.locator(".kraken-end .winners").is_visible()  # not said twice
    # a live refresh draws the banner again, without its entrance
    assert "hero-seen" not in banner.get_attribute("class")
    screen.bump("kraken-end")
    page.evaluate("htmx.trigger('#live', 'poll-now')")
    page.wait_for_function(
        "() => document.querySelector('.screen-hero-won').classList.contains('hero-seen')")
