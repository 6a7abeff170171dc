"""Helpers for the browser tests: phones, axe, the roles dealt, a page's requests (what a
bench shares with them, a night made and its codes read, is in bench/browsing.py)."""

import collections
import os
import re
import time
import urllib.parse
from pathlib import Path

from bench.browsing import WAIT, claim

AXE = Path(__file__).parent / "vendor" / "axe-4.14.1.min.js"


def box_where(locator, holds=lambda box: True, *, timeout=WAIT):
    """``locator``'s bounding box once ``holds(box)`` is true, read again until then: a
    live refresh can replace the element between Playwright finding it and measuring it
    (the box is then None) or move it for a moment. Fails with the last box read."""
    deadline = time.monotonic() + timeout / 1000
    while True:
        box = locator.bounding_box(timeout=timeout)
        if box is not None and holds(box):
            return box
        if time.monotonic() > deadline:
            raise AssertionError(f"{locator}'s box {box} never held")
        locator.page.wait_for_timeout(50)


#: Waits (up to 5 s) for the page's animations that end to end: an entrance (a phone's
#: ending popping up, a banner on the screen) caught half-faded has colours it never rests
#: in. Endless ones (a pulse) are not waited for.
SETTLE = """() => Promise.race([
  Promise.all(document.getAnimations()
    .filter(a => isFinite(a.effect && a.effect.getComputedTiming().endTime))
    .map(a => a.finished.catch(() => null))),
  new Promise(done => setTimeout(done, 5000))])"""


#: axe's rules whose answer a colour scheme can change: every other rule reads markup,
#: names and what is shown, which no stylesheet of ours changes with the scheme.
COLOUR_RULES = ("color-contrast", "link-in-text-block")


def axe_violations(page, *, impact=("serious", "critical"), rules=None):
    """Run axe-core in the page once its animations have ended (only ``rules`` when
    given); return the serious and critical violations. axe is put in a page once: a
    page scanned again (resized, or in the other colour scheme) keeps it."""
    page.evaluate(SETTLE)
    if page.evaluate("typeof axe === 'undefined'"):
        page.evaluate(AXE.read_text())  # evaluated by the driver: the page's CSP stays on
    options = {"resultTypes": ["violations"]}
    if rules:
        options["runOnly"] = {"type": "rule", "values": list(rules)}
    result = page.evaluate("async options => await axe.run(document, options)", options)
    return [v for v in result["violations"] if v["impact"] in impact]


def phone(browser, url, *, locale="ko-KR"):
    """A new phone (browser context, 390 px wide) that opens ``url``; a seat's code asks
    "are you …?", and the player answers yes."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale=locale)
    page = as_a_phone(context.new_page())
    page.goto(url)
    claim(page)
    return page


#: How many times slower than this box a phone's main thread runs in the browser tests
#: of a table's phones (Chrome's own CPU throttling, as bench/wifi.py --cpu): 1 unless a
#: run asks, e.g. ``COMPANION_TEST_PHONE_CPU=4`` for a mid-range Android, 6 an old one.
PHONE_CPU = float(os.environ.get("COMPANION_TEST_PHONE_CPU") or 1)


def as_a_phone(page, cpu=None):
    """``page``, its main thread slowed ``cpu`` times (PHONE_CPU unless given); the CDP
    session that holds the throttling is kept on the page, for as long as it lives."""
    rate = PHONE_CPU if cpu is None else cpu
    if rate > 1:
        page.companion_cdp = page.context.new_cdp_session(page)
        page.companion_cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
    return page


ROLE_WORDS = {"explorer": "Explorer", "skeleton": "Skeleton"}


def roles_in(html):
    """The Kraken role words a page shows as text (English pages)."""
    return re.findall(r">\s*(Explorer|Skeleton)\s*<", html)


def dealt_roles(app, night_url):
    """The roles the server dealt in the night's current game (read from the database,
    since no page may show them)."""
    from companion import store

    key = night_url.split("/n/")[1].split("/")[0]
    with app.test_request_context():
        return store.current_game(store.night_by_key(key)["id"]).setup["roles"]


def trail(page, keep=60):
    """Note the page's last ``keep`` requests as they are sent and as they end (seconds
    from now, method, path and query, "sent", a status or a failure) in ``page.trail``:
    for a failure to say what the page was doing. A stream ends when its answer starts."""
    start = time.monotonic()
    page.trail = collections.deque(maxlen=keep)

    def note(request, how):
        where = urllib.parse.urlsplit(request.url)
        page.trail.append(f"{time.monotonic() - start:7.1f} s  {request.method} "
                          f"{where.path}{'?' + where.query if where.query else ''}  {how}")

    page.on("request", lambda request: note(request, "sent"))
    page.on("response", lambda response: note(response.request, response.status))
    page.on("requestfailed", lambda request: note(request, request.failure))
    return page


#: Each word of the text of every element ``selector`` finds that is drawn on two lines
#: (a word broken inside itself): a page.evaluate script, given the selector.
WORDS_BROKEN = """selector => {
  const found = [];
  for (const box of document.querySelectorAll(selector)) {
    const texts = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    for (let node; (node = texts.nextNode());)
      for (const word of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        if (new Set([...range.getClientRects()].filter(r => r.width)
                      .map(r => Math.round(r.top))).size > 1) found.push(word[0]);
      }
  }
  return found;
}"""
