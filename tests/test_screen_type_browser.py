"""Type read from the sofa: on the room's screen at 1920×1080 and at 1280×720, every word
drawn, in every game in every phase (and tonight's tally between games), is at least
28 px at 1920 px wide (.875 rem; the sizes follow the width), in English and Korean.
static/screen.css says so in its opening lines; a TV's 20 px chart labels or 13 px notes
were read from nowhere."""

import pytest

from tests.screen_browsing import AT, LAPTOP, PHASES, TV
from tests.screen_browsing import screen as screen  # noqa: F401 (a fixture)

pytestmark = pytest.mark.browser

#: Every drawn text (an element's own words, or an SVG text) smaller than ``px``: where
#: and how big.
SMALL = """px => {
  const found = [];
  const where = e => e.tagName.toLowerCase() + (typeof e.className === 'string' && e.className
    ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
  for (const e of document.querySelectorAll('#live *')) {
    const own = [...e.childNodes].some(n => n.nodeType === 3 && n.data.trim());
    if (!own || !e.checkVisibility({visibilityProperty: true})) continue;
    let size = parseFloat(getComputedStyle(e).fontSize);
    const svg = e.closest('svg');
    if (svg) {  // an SVG's words are drawn at its scale
      const box = svg.getBoundingClientRect(), view = svg.viewBox.baseVal;
      if (view && view.width) size *= box.width / view.width;
    }
    if (size < px - .5)
      found.push(`${where(e)} "${e.textContent.trim().slice(0, 30)}" ${size.toFixed(1)} px`);
  }
  return found;
}"""


@pytest.mark.parametrize("size", [TV, LAPTOP])
def test_every_word_on_the_screen_is_read_from_the_sofa(screen, size):  # noqa: F811
    least = 28 * size[0] / TV[0]
    small = []
    for label in ["lobby", *PHASES]:
        for lang in ("en", "ko"):
            page = screen(label, size, lang)
            small += [f"{label} {lang}: {s}" for s in page.evaluate(SMALL, least)]
            if label.endswith("-end"):
                page.evaluate(AT, 25000)
                small += [f"{label} {lang} (tonight): {s}"
                          for s in page.evaluate(SMALL, least)]
    assert not small, "\n".join(sorted(set(small))[:60])


#: Each element of ``selector`` drawn on more lines than one: its text.
WRAPPED = """selector => [...document.querySelectorAll(selector)].filter(e => {
  const range = document.createRange();
  range.selectNodeContents(e);
  return new Set([...range.getClientRects()].filter(r => r.width > 1)
    .map(r => Math.round(r.bottom))).size > 1;
}).map(e => e.textContent.trim())"""


@pytest.mark.parametrize("size", [TV, LAPTOP])
def test_skull_king_s_round_column_says_its_count_on_one_line(screen, size):  # noqa: F811
    wrapped = []
    for label in ("skullking-start", "skullking-round-over"):
        for lang in ("en", "ko"):
            page = screen(label, size, lang)
            assert page.locator(".sk-bids-in").is_visible()
            wrapped += [f"{label} {lang}: {text}" for text in page.evaluate(WRAPPED,
                                                                             ".sk-bids-in")]
            # the round's end said once: by the narrator, not again in the column
            assert page.locator(".sk-screen-now .screen-hero").count() == 0
    assert not wrapped, wrapped


@pytest.mark.parametrize("size", [TV, LAPTOP])
def test_a_game_s_title_stands_still_through_its_phases(screen, size):  # noqa: F811
    """The title and its game's number do not move as the narrator's line grows (a
    list of who has not bid yet) or shrinks."""
    for game in ("kraken", "skullking", "crazytime"):
        boxes = {}
        for label in [p for p in PHASES if p.startswith(game)]:
            page = screen(label, size, "ko")
            boxes[label] = [page.locator(s).bounding_box()
                            for s in (".screen-title", ".screen-title small")]
        assert len({str(b) for b in boxes.values()}) == 1, boxes
