"""The night the layout tests and bench/screenshots.py look at: eight players of
30-character names (Hangul, emoji, full-width letters, none with a space to break at),
every game stored in each state a page shows, and what is too wide on a page, measured
as a person sees it."""

import re
from urllib.parse import quote

from bench.builders import ev, kraken_setup
from companion import store
from companion.crazytime import rules as ct
from companion.skullking import rules as sk

EMOJI = "🙂🐙🏴\u200d☠️🎲🃏🦑⚓🌊💀👑🧭🗺️🍀🎯🦜🐳"


def thirty(text):
    """``text`` repeated and cut to 30 characters (code points, as the server counts)."""
    return (text * 30)[:30]


#: Eight names of 30 characters, none with a space to break at.
NAMES = [thirty("김민준"), thirty(EMOJI), "A" + "a" * 29, thirty("박서연의이름은아주길어요"),
         "W" * 30, thirty("ＦＵＬＬＷＩＤＴＨ"), thirty("이도윤🙂Kim"), thirty("M_")]
assert all(len(name) == 30 for name in NAMES) and len(set(NAMES)) == 8


#: The same as a person sees it: what may make a page wider than its viewport, or
#: spill out of its box.
MEASURE = """width => {
  const found = [];
  const doc = document.documentElement;
  if (window.innerWidth !== width) found.push(`the viewport is ${window.innerWidth} px`);
  if (doc.scrollWidth > window.innerWidth) found.push(`page ${doc.scrollWidth} px wide`);
  const where = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
    + (typeof e.className === 'string' && e.className
       ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
  // Nothing scrolls sideways inside the page (a table in a scroll box is not a layout),
  // but the statistics' table of every figure: a table is its point (a column a figure,
  // sorted by any), and its names stay in view as it scrolls.
  for (const e of document.body.querySelectorAll('*')) {
    const style = getComputedStyle(e);
    if (!['auto', 'scroll'].includes(style.overflowX) || e.matches('.stats-scroll')) continue;
    if (e.clientWidth > 1 && e.scrollWidth > e.clientWidth + 1)
      found.push(`${where(e)} scrolls sideways (${e.scrollWidth} in ${e.clientWidth} px)`);
  }
  // Phones: a score table is a stack of cards, not rows of cells side by side; but a
  // table of a few short columns (.keep-rows: the tally's), which must fit as it is.
  if (width < 768)
    for (const table of document.querySelectorAll('table.score:not(.keep-rows)')) {
      const row = table.querySelector('tbody tr');
      if (row && row.offsetWidth && getComputedStyle(row).display === 'table-row')
        found.push(`${where(table)} is not stacked`);
    }
  // Every box a name sits in holds it: seat cards, stacked rows, tiles, player cards.
  const boxes = 'main, .seat-card, .sheet-grid li, table.score tr, .tap-grid > *,'
    + ' .sk-player-card, .sk-row, .stats > div, .kraken-tables > *, .phone-result, .tally-night';
  const spills = new Map();
  for (const box of document.querySelectorAll(boxes)) {
    const outer = box.getBoundingClientRect();
    if (!outer.width) continue;
    for (const e of box.querySelectorAll('*')) {
      const r = e.getBoundingClientRect();
      // An element laid out against the viewport (a takeover, static/js/panels.js) is
      // not held by its box: the page's own width checks it.
      if (!r.width || !r.height || getComputedStyle(e).position === 'absolute'
          || e.closest('.takeover[data-open]')) continue;
      // (what the statistics' table holds scrolls inside its own box, not the page's)
      if (!box.closest('.stats-scroll') && e.closest('.stats-scroll')) continue;
      if (r.right > outer.right + 3 || r.left < outer.left - 3) {
        const what = `${where(e)} spills out of ${where(box)}`;
        if (!spills.has(what)) spills.set(what, `${Math.round(r.left)}..${Math.round(r.right)}`
          + ` in ${Math.round(outer.left)}..${Math.round(outer.right)}`);
        break;
      }
    }
  }
  spills.forEach((example, what) => found.push(`${what} (${example})`));
  // A word that titles a table's row or column never breaks inside ("Treasur/e"); a
  // player's 30-character name may.
  for (const cell of document.querySelectorAll('table.score :is(th, td)')) {
    const text = cell.textContent.trim();
    if (!text || /\\s/.test(text) || [...text].length > 12 || !cell.offsetWidth) continue;
    const range = document.createRange();
    range.selectNodeContents(cell);
    const lines = new Set([...range.getClientRects()].filter(r => r.width)
      .map(r => Math.round(r.top)));
    if (lines.size > 1) found.push(`"${text}" breaks inside in ${where(cell)}`);
  }
  // Every word of a chart lies inside its chart (nothing clipped at an edge).
  for (const svg of document.querySelectorAll('svg')) {
    const outer = svg.getBoundingClientRect();
    if (!outer.width) continue;
    const out = [...svg.querySelectorAll('text')].map(t => t.getBoundingClientRect())
      .filter(r => r.left < outer.left - 1 || r.right > outer.right + 1);
    if (out.length)
      found.push(`${where(svg)}: ${out.length} words outside it (${Math.round(out[0].left)}..`
        + `${Math.round(out[0].right)} in ${Math.round(outer.left)}..${Math.round(outer.right)})`);
  }
  return found;
}"""


def make_night(page, base_url, names):
    """The host makes the night (the roster form's fields, however many it shows, are
    posted as the form would be); returns the night's key."""
    html = page.request.get(base_url + "/").text()
    form = html[html.index('class="roster"'):]
    fields = {name: re.search(rf'name="{name}" value="([^"]*)"', form).group(1)
              for name in ("csrf_token", "form_token")}
    body = "&".join([f"{k}={quote(v)}" for k, v in fields.items()]
                    + [f"name={quote(name)}" for name in names])
    response = page.request.post(base_url + "/nights", data=body, max_redirects=0, headers={
        "Content-Type": "application/x-www-form-urlencoded", "Referer": base_url + "/"})
    assert response.status == 303, response.text()[:500]
    return response.headers["location"].rstrip("/").rsplit("/", 1)[1]


KRAKEN_ROLES = ["explorer"] * 5 + ["skeleton"] * 3


def kraken_reveals(cards):
    """The marker at seat 0, then each card revealed in front of the next seat along."""
    events = [ev("marker", seat=0)]
    for index, card in enumerate(cards):
        events.append(ev("reveal", seat=(index + 1) % 8, card=card, special=None))
    return events


def kraken(cards):
    return {"kind": "kraken", "setup": kraken_setup(KRAKEN_ROLES, "s"),
            "events": kraken_reveals(cards)}


def skullking(rounds_played, reveal_next, bid=lambda seat, number: int(seat < number),
              next_bid=1):
    """Eight players, rounds of 1 and 2 cards: each round ``bid(seat, round)``, and only
    the first seats win a trick; the next round's bids are ``next_bid`` if revealed."""
    events = []
    for number in range(1, rounds_played + 1):
        bids = {seat: bid(seat, number) for seat in range(8)}
        events += [ev("bid", seat=s, round=number, bid=b) for s, b in bids.items()]
        events += [ev("reveal_bids", round=number),
                   ev("result", round=number,
                      results={str(s): {"won": int(s < number)} for s in range(8)})]
    if reveal_next:
        number = rounds_played + 1
        events += [ev("bid", seat=s, round=number, bid=next_bid) for s in range(8)]
        events.append(ev("reveal_bids", round=number))
    return {"kind": "skullking", "events": events,
            "setup": sk.start(list(range(8)), {"way": "custom", "rounds": [1, 2]})}


LAW = ("아무도보지않을때만말할수있는법칙", "누군가가시계를가리키면모두가손을들고" * 4,
       "가장늦게손을든사람이벌칙토큰을하나가져갑니다" * 3)


def crazytime(matches, partial=None):
    """Seven of the eight players (Crazy Time takes 4 to 7): whole ``matches`` of
    penalties (a law made after each of the first three), then a ``partial`` one."""
    events = [ev("rabbit", seat=6)]
    for number, penalties in enumerate(matches, 1):
        for seat, count in penalties.items():
            events += [ev("penalty", seat=seat, reason="wrong_call")] * count
        if number < 4:
            events += [ev("law", name=f"{LAW[0]}{number}", when=LAW[1][:200], what=LAW[2][:200]),
                       ev("next_match")]
    for seat, count in (partial or {}).items():
        events += [ev("penalty", seat=seat, reason="wrong_call")] * count
    return {"kind": "crazytime", "setup": ct.start(list(range(7)), {}), "events": events}


MATCH = {0: 0, 1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}


def show_on_phones(app, key, number):
    with app.test_request_context():
        store.set_current_game(store.night_by_key(key)["id"], number)


def seat_url(app, base_url, key, position):
    with app.test_request_context():
        token = store.seats(store.night_by_key(key)["id"])[position]["token"]
    return f"{base_url}/s/{token}"
