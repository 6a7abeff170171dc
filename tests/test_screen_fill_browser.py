"""Kraken and Crazy Time fill the room's screen: at 16:9 (1920×1080, and a 1280×720
laptop) each of their boards' blocks stands over the whole height the title leaves, so
in the middle of a game no more than about 15 % of the screen's height is empty under
any of them (they left 25 to 45 % empty, their type at 36 px), and the players' rows
are drawn larger than the 36 px they had; with 8 players and 5 (names of 30 characters),
in English and Korean, with nothing past the screen's edges."""

import pytest

from bench.builders import ev, kraken_setup
from companion.crazytime import rules as ct
from tests.screen_browsing import CUT, LAPTOP, PHASES, TV, night_on_screen
from tests.screen_browsing import screen as screen  # noqa: F401 (a fixture)

pytestmark = pytest.mark.browser

#: The most of the screen's height that may stay empty under a block.
EMPTY = .15

#: The blocks that stand to the board's bottom, each a column of its own: Kraken's
#: cards revealed (under the tiles), the cards in front of each player and the token
#: series (when one runs); Crazy Time's laws in force (under the tiles) and its
#: penalties and hours.
BLOCKS = {"kraken": [".kraken-cards", ".kraken-front", ".kraken-series"],
          "crazytime": [".ct-screen-laws", ".ct-penalty-table"]}

#: The lowest drawn word of each block named (its text's own boxes, not the block's),
#: or null for a block the page does not draw; and the screen's height.
LOWEST = """selectors => ({height: window.innerHeight, lowest: Object.fromEntries(
  selectors.map(s => {
    const block = document.querySelector(s);
    if (!block) return [s, null];
    let bottom = null;
    const texts = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    for (let node; (node = texts.nextNode());) {
      if (!node.data.trim()
          || !node.parentElement.checkVisibility({visibilityProperty: true})) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects())
        if (r.width && r.height) bottom = Math.max(bottom ?? 0, r.bottom);
    }
    return [s, bottom];
  }))})"""

#: Five players: four of 30 characters with spaces to break at (one in Hangul), one short.
FIVE = ["Bartholomew the Unsinkable Pir", "Maximiliana Catherine Rosewood",
        "김민준 박서연 이도윤 김민준 박서연 이도윤 김민준 박서", "Bartholomew the Unsinkable Sam",
        "Jo"]
assert all(len(name) == 30 for name in FIVE[:4])


def kraken_five():
    """Five players' Kraken with a token series, three cards revealed in round 1."""
    setup = kraken_setup(["explorer"] * 3 + ["skeleton"] * 2, "s")
    return {"kind": "kraken", "setup": setup, "events": [ev("marker", seat=0)] + [
        ev("reveal", seat=seat, card=card, special=None)
        for seat, card in ((1, "empty"), (2, "treasure"), (3, "empty"))]}


def crazytime_five():
    """Five players' Crazy Time in match 2: match 1's tokens taken by seats 1 to 4, a law
    made, and three penalties of match 2."""
    takers = [1, 2, 3, 4]
    events = [ev("rabbit", seat=4)]
    events += [ev("penalty", seat=takers[i % 4], reason="wrong_call")
               for i in range(ct.penalty_tokens(1, "purple"))]
    events += [ev("law", name="달빛의 법칙", when="누군가 6을 내면", what="모두 손뼉을 칩니다"),
               ev("next_match")]
    events += [ev("penalty", seat=seat, reason="wrong_call") for seat in (1, 1, 2)]
    return {"kind": "crazytime", "setup": ct.start(list(range(5)), {}), "events": events}


@pytest.fixture(scope="module")
def five(browser, module_live_server):
    """The room's screen of a night of :data:`FIVE`, a Kraken and a Crazy Time game in
    their middle."""
    games = {"kraken-mid": kraken_five(), "crazytime-mid": crazytime_five()}
    with night_on_screen(browser, module_live_server, FIVE, games) as show:
        yield show


def empty_under(page, game):
    """Each block of ``game`` the page draws: the share of the screen's height left empty
    under its lowest word."""
    seen = page.evaluate(LOWEST, BLOCKS[game])
    return {s: (seen["height"] - bottom) / seen["height"]
            for s, bottom in seen["lowest"].items() if bottom is not None}


#: The players' rows of each game's table (the names and counts).
ROWS = {"kraken": ".kraken-front tbody td", "crazytime": ".ct-penalty-table tbody td"}


@pytest.mark.parametrize("size", [TV, LAPTOP])
@pytest.mark.parametrize("players", [8, 5])
def test_kraken_and_crazy_time_fill_the_screen_in_the_middle_of_a_game(
        request, size, players):
    show = request.getfixturevalue("screen" if players == 8 else "five")
    problems = []
    for game in ("kraken", "crazytime"):
        for lang in ("en", "ko"):
            page = show(f"{game}-mid", size, lang)
            where = f"{players} players, {game} {lang}"
            empty = empty_under(page, game)
            if len(empty) < 2:
                problems.append(f"{where}: only {sorted(empty)} drawn")
            problems += [f"{where}: {share:.0%} of the height empty under {block}"
                         for block, share in empty.items() if share > EMPTY]
            # the players' rows drawn larger than the 36 px of before (at 1920 wide)
            px = page.eval_on_selector(ROWS[game],
                                       "e => parseFloat(getComputedStyle(e).fontSize)")
            if px < 40 * size[0] / TV[0]:
                problems.append(f"{where}: the players' rows at {px:.1f} px")
            if page.evaluate("document.documentElement.scrollHeight") > size[1]:
                problems.append(f"{where}: the page scrolls")
            problems += [f"{where}: past the edge: {cut}" for cut in page.evaluate(CUT)]
    assert not problems, "\n".join(problems)


def test_the_board_fills_the_screen_under_a_banner_too(screen):  # noqa: F811
    """A match just won: its banner across the top, the penalties still reach the
    screen's bottom (the board takes what the banner leaves)."""
    assert "crazytime-match-over" in PHASES
    page = screen("crazytime-match-over", TV)
    assert page.locator(".ct-screen .screen-hero").is_visible()
    empty = empty_under(page, "crazytime")
    assert empty[".ct-penalty-table"] <= EMPTY, empty
