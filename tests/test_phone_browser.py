"""Phones at a glance, in a real browser (static/js/hold.js): a secret held with a finger stays
on screen, inside the viewport, for as long as it is held — after scrolling, through live
refreshes — and hides on release; a live refresh keeps open panels open and typed values
typed; a phone sees a new game start; a phone (and the host) that cannot reach the laptop
says so within 5 seconds and clears it on recovery; rules and back; screen wake lock."""

import signal

import pytest

from bench.browsing import WAIT, claim, host_night, seat_link
from bench.builders import kraken_kraken_first, kraken_setup, store_game
from companion import store
from tests.browsing import box_where
from tests.crazytime_log import after_match_1, law
from tests.crazytime_log import setup as crazytime_setup
from tests.phone_browsing import (
    bump,
    record,
    seat_url,
    table,
    touch_phone,
)

pytestmark = pytest.mark.browser

WHEN = "숫자 6이 나오거나 누군가 웃으면 " * 4  # a long law: the box must still fit
WHAT = "모두 “음메”라고 외치고 손뼉을 두 번 친다 🐄 " * 3



class Finger:
    """One finger on a phone's screen, through Chrome's own touch input (CDP): the page
    gets real touch pointer events, with the browser's implicit pointer capture."""

    def __init__(self, page):
        self.cdp = page.context.new_cdp_session(page)

    def down(self, locator):
        # A live refresh may replace the element between two reads: wait for a box that
        # holds still over two frames, so the finger lands where the button is drawn.
        box = None
        for _ in range(50):
            locator.wait_for(state="visible", timeout=WAIT)
            first = locator.bounding_box()
            locator.page.evaluate("() => new Promise(r => requestAnimationFrame(r))")
            box = locator.bounding_box()
            if box is not None and box == first:
                break
        assert box is not None, "the button never held still"
        self.cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [
            {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}]})

    def up(self):
        self.cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


WATCH = """id => {
  // Every frame from now on: is the secret shown, whole, inside the viewport and on top?
  window.__frames = [];
  window.__watched = id;
  if (window.__watching) return;
  window.__watching = true;
  const check = () => {
    const el = document.getElementById(window.__watched);
    if (!el || el.hidden) return "hidden";
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) return "empty";
    if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth)
      return `outside ${Math.round(r.top)}..${Math.round(r.bottom)} of ${innerHeight}`;
    const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!top || !el.contains(top)) return "covered";
    return "ok";
  };
  document.addEventListener("htmx:afterSwap", () => window.__frames.push("swap"));
  const tick = () => { window.__frames.push(check()); requestAnimationFrame(tick); };
  tick();
}"""


def frames_after_swaps(page, swaps, frames=30):
    """Wait until ``swaps`` live refreshes landed and ``frames`` frames were drawn since."""
    page.wait_for_function(
        """([swaps, frames]) => {
          const f = window.__frames, n = f.filter(x => x === "swap").length;
          return n >= swaps && f.length - f.lastIndexOf("swap") > frames;
        }""", arg=[swaps, frames], timeout=WAIT)
    return [f for f in page.evaluate("window.__frames") if f != "swap"]


def scroll_to_bottom(page):
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    page.wait_for_function("() => scrollY > 0")


# --- hold to see --------------------------------------------------------------------------

@pytest.mark.parametrize("width, height, locale", [(390, 844, "en-US"), (320, 640, "ko-KR")])
def test_a_held_law_stays_in_the_viewport_through_scrolling_and_refreshes(
        browser, live_server, width, height, locale):
    host, url, key, device = table(browser, live_server)
    # match 1 is over; 민수's (LONG's) phone knows the new law, "Moon"
    store_game(live_server.app, device, key, {
        "kind": "crazytime", "setup": crazytime_setup(side="blue"),
        "events": after_match_1(law("Moon", WHEN, WHAT))})
    page = touch_phone(browser, seat_url(live_server, key, 0), width=width, height=height,
                       locale=locale)
    button = page.locator("[data-hold=ct-laws-secret]")
    secret = page.locator("#ct-laws-secret")
    finger = Finger(page)

    # the button at the top of the screen: the law shows below it, whole
    button.evaluate("b => b.scrollIntoView({block: 'start'})")
    finger.down(button)
    page.evaluate(WATCH, "ct-laws-secret")
    assert WHAT.split()[0] in secret.inner_text()
    page.wait_for_function("() => window.__frames.length > 10")
    # every frame drawn shows it whole (a live refresh landing meanwhile, which a slow
    # machine's late first poll can bring, is marked "swap" and changes nothing)
    assert set(page.evaluate("window.__frames")) - {"swap"} == {"ok"}
    finger.up()
    assert secret.is_hidden()

    # scrolled down, the button at the bottom of the screen: held while the table plays on
    scroll_to_bottom(page)
    # (scrolled and measured in one step: a live refresh may replace the button between two)
    page.wait_for_function("""h => {
      const b = document.querySelector("[data-hold=ct-laws-secret]");
      b.scrollIntoView({block: "end"});
      return b.getBoundingClientRect().top > h / 2;
    }""", arg=height, timeout=WAIT)
    finger.down(button)
    page.evaluate(WATCH, "ct-laws-secret")
    record(live_server, device, key, 1, "next_match", {})  # match 2 begins: the page changes
    page.locator(".ct-seat[data-phase=play]").wait_for(timeout=WAIT)
    frames = frames_after_swaps(page, 1)
    record(live_server, device, key, 1, "penalty", {"seat": 1})
    frames_after_swaps(page, 2)
    bump(live_server, key)
    frames = frames_after_swaps(page, 3)
    assert len(frames) > 40 and set(frames) == {"ok"}, sorted(set(frames))
    assert page.locator("[data-hold=ct-laws-secret]").get_attribute("aria-pressed") == "true"
    assert WHAT.split()[0] in secret.inner_text()
    finger.up()
    assert secret.is_hidden()
    assert page.locator("[data-hold=ct-laws-secret]").get_attribute("aria-pressed") == "false"

    # released during a refresh's quiet time, it stays hidden through the next refreshes
    bump(live_server, key, seat=2)
    page.evaluate("document.addEventListener('htmx:afterSwap', () => window.__swapped = true)")
    page.wait_for_function("() => window.__swapped === true", timeout=WAIT)
    assert secret.is_hidden()


def test_a_held_role_stays_shown_when_a_refresh_replaces_the_button(browser, live_server):
    host, url, key, device = table(browser, live_server)
    store_game(live_server.app, device, key, {
        "kind": "kraken", "events": [],
        "setup": kraken_setup(["skeleton", "explorer", "explorer", "explorer", "skeleton"])})
    page = touch_phone(browser, seat_url(live_server, key, 0), width=320, height=640)
    button = page.locator("[data-hold=role-secret]")
    finger = Finger(page)
    scroll_to_bottom(page)
    button.scroll_into_view_if_needed()
    finger.down(button)
    page.evaluate(WATCH, "role-secret")
    record(live_server, device, key, 1, "marker", {"seat": 2})
    frames = frames_after_swaps(page, 1)
    assert set(frames) == {"ok"}, sorted(set(frames))
    assert page.locator("#role-secret .secret").inner_text() == "Skeleton"
    finger.up()
    assert page.locator("#role-secret").is_hidden()


# --- live refreshes keep what the person was doing -----------------------------------------

def test_a_refresh_keeps_the_hosts_history_open_and_what_was_typed(browser, live_server):
    host, url, key, device = table(browser, live_server)
    store_game(live_server.app, device, key, {
        "kind": "crazytime", "setup": crazytime_setup(side="blue"), "events": after_match_1()})
    host.goto(f"{url}/g/1")
    phone = touch_phone(browser, seat_url(live_server, key, 0))

    # the host opens the history; the player types a law on the phone, not sent yet
    host.locator("details.history summary").click()
    assert host.locator("details.history").evaluate("d => d.open")
    form = phone.locator(".ct-law-form form")
    form.locator("input[name=name]").fill("Moon")
    form.locator("input[name=when]").fill("숫자 6이 나오면")
    form.locator("input[name=when]").focus()

    # another phone sees its role, the table refreshes: nothing the two were doing is lost
    phone.evaluate("document.addEventListener('htmx:afterSwap', () => window.__swapped = true)")
    bump(live_server, key)
    phone.wait_for_function("() => window.__swapped === true", timeout=WAIT)
    form = phone.locator(".ct-law-form form")
    assert form.locator("input[name=name]").input_value() == "Moon"
    assert form.locator("input[name=when]").input_value() == "숫자 6이 나오면"
    assert form.locator("input[name=when]").evaluate("i => i === document.activeElement")

    # the law is sent from Jo's phone: the host's page changes, its history stays open
    record(live_server, device, key, 1, "law", {"name": "Tide", "when": "w", "what": "x"})
    host.locator(".ct-learn").wait_for(timeout=WAIT)
    history = host.locator("details.history")
    assert history.evaluate("d => d.open")
    assert history.locator("li").first.is_visible()
    # a choice made in the host's form, not sent, survives the next refresh too
    host.locator(".ct-learn select[name=seat]").select_option(index=1)
    chosen = host.locator(".ct-learn select[name=seat]").input_value()
    host.evaluate("document.addEventListener('htmx:afterSwap', () => window.__swapped = true)")
    bump(live_server, key, seat=2)
    host.wait_for_function("() => window.__swapped === true", timeout=WAIT)
    assert host.locator(".ct-learn select[name=seat]").input_value() == chosen
    assert host.locator("details.history").evaluate("d => d.open")
    # closed by the host, it stays closed
    host.locator("details.history summary").click()
    host.evaluate("window.__swapped = false")
    bump(live_server, key, seat=4)
    host.wait_for_function("() => window.__swapped === true", timeout=WAIT)
    assert not host.locator("details.history").evaluate("d => d.open")


def test_a_phone_scrolled_down_sees_the_new_game_start_and_its_result(browser, live_server):
    host, url, key, device = table(browser, live_server)
    roles = ["explorer", "skeleton", "explorer", "explorer", "skeleton"]
    store_game(live_server.app, device, key, {
        "kind": "kraken", "setup": kraken_setup(roles), "events": kraken_kraken_first()})
    page = touch_phone(browser, seat_url(live_server, key, 1))
    # the end of the game: Jo (a Skeleton) won with 박서준
    result = page.locator("[data-result]")
    assert result.get_attribute("data-result") == "shared"
    assert result.inner_text().split() == ["You", "won!", "Shared", "with:", "박서준"]

    scroll_to_bottom(page)
    host.goto(url + "/new/crazytime")
    host.locator(".ct-new button[type=submit]").click()
    host.wait_for_url("**/g/2")
    notice = page.locator(".game-panel .new-game")
    notice.wait_for(timeout=WAIT)
    assert notice.inner_text() == "A new game started: Crazy Time"
    box_where(page.locator(".game-panel"), lambda panel: 0 <= panel["y"] < 844 / 2)
    assert page.locator("[data-result]").count() == 0
    # it is said through the next refresh, then fades away: a notice left for rounds was
    # read as news each time
    page.evaluate("document.addEventListener('htmx:afterSwap', () => window.__swapped = true)")
    bump(live_server, key, seat=2)
    page.wait_for_function("() => window.__swapped === true", timeout=WAIT)
    notice.wait_for(state="detached", timeout=WAIT)
    page.evaluate("window.__swapped = false")
    bump(live_server, key)
    page.wait_for_function("() => window.__swapped === true", timeout=WAIT)
    assert page.locator(".new-game").count() == 0  # a refresh does not bring it back

    # the rules of the game on the phone, and the way back to "my page"
    page.locator(".game-links a").click()
    page.wait_for_url("**/rules/crazytime")
    page.locator(".rules-back a").click()
    page.wait_for_url("**/me")
    assert page.locator(".game-panel h2").inner_text() == "Crazy Time"


CLOSE_BY_TAP = """() => {
  const notice = document.querySelector('.game-panel .new-game');
  if (!notice) return 'never seen';
  notice.querySelector('span').click();  // a tap on its text, not only on its ×
  return document.querySelectorAll('.new-game').length;
}"""


def test_a_tap_closes_the_new_game_notice_for_good(browser, live_server):
    host, url, key, device = table(browser, live_server)
    page = touch_phone(browser, seat_url(live_server, key, 1))
    page.locator(".waiting").wait_for(timeout=WAIT)
    number = store_game(live_server.app, device, key, {
        "kind": "crazytime", "setup": crazytime_setup(list(range(5))), "events": []}).number
    with live_server.app.test_request_context():
        store.set_current_game(store.night_by_key(key)["id"], number)
    notice = page.locator(".game-panel .new-game")
    notice.wait_for(timeout=WAIT)
    # a real button closes it from a keyboard, and says what it does
    close = notice.locator("button.notice-close")
    assert close.get_attribute("type") == "button"
    assert close.get_attribute("aria-label") == "Close this message"
    # one tap anywhere on it, and it is gone at once (checked in the same task as the tap)
    assert page.evaluate(CLOSE_BY_TAP) == 0
    # a refresh within its seconds no longer draws it again
    page.evaluate("document.addEventListener('htmx:afterSwap', () => window.__swapped = true)")
    page.evaluate("window.__swapped = false")
    bump(live_server, key, seat=2)
    page.wait_for_function("() => window.__swapped === true", timeout=WAIT)
    assert page.locator(".new-game").count() == 0


# --- reaching the table --------------------------------------------------------------------

def test_a_phone_that_cannot_reach_the_laptop_says_so_and_clears_it(browser, server_process):
    # A heartbeat of 2 s: a page says a silent stream after 1.5 heartbeats and a second
    # (the app's own 20 s: tests/test_phones_at_the_table_browser.py).
    server_process.env = {"COMPANION_PUSH_HEARTBEAT": "2"}
    server = server_process.start()
    host = browser.new_context(locale="en-US").new_page()
    url = host_night(host, server.url, ["Mina", "Jo", "Sun"])
    link = seat_link(host, 0)
    host.goto(url + "/new/kraken")
    host.locator("form.kraken-new button[type=submit]").click()
    host.wait_for_url("**/g/1")
    phone = browser.new_context(viewport={"width": 320, "height": 640}, locale="ko-KR").new_page()
    phone.goto(link)
    claim(phone)
    mark = "[data-offline-mark]"
    assert phone.locator(mark).count() == 0

    # the laptop's server stops: within 5 seconds both screens say so, on top of the screen
    server.kill()
    phone.locator(mark).wait_for(timeout=5000)
    host.locator(mark).wait_for(timeout=5000)
    assert phone.locator(mark).inner_text() == "연결이 끊겼습니다. 다시 연결하는 중…"
    assert host.locator(mark).inner_text() == "Connection lost. Reconnecting…"
    box_where(phone.locator(mark), lambda box: box["y"] == 0 and box["width"] == 320)
    server.start()
    phone.locator(mark).wait_for(state="detached", timeout=WAIT)
    host.locator(mark).wait_for(state="detached", timeout=WAIT)

    # the laptop asleep: connections hang, no answer comes; a stream silent for 1.5
    # heartbeats and a second is said, within 5 seconds. (Before its stream is open again
    # the phone polls, and a poll gives up after 3 s, every 2 s: 5 s at worst, said
    # with no room to spare on a busy box.)
    phone.wait_for_function("() => document.documentElement.dataset.push === 'open'",
                            timeout=WAIT)
    server.process.send_signal(signal.SIGSTOP)
    try:
        phone.locator(mark).wait_for(timeout=5000)
    finally:
        server.process.send_signal(signal.SIGCONT)
    phone.locator(mark).wait_for(state="detached", timeout=WAIT)
    assert phone.locator("[data-hold=role-secret]").is_visible()


# --- screens kept awake --------------------------------------------------------------------

FAKE_WAKE_LOCK = """
window.__wake = [];
Object.defineProperty(navigator, "wakeLock", {configurable: true, value: {
  request(type) {
    window.__wake.push("request " + type);
    const lock = new EventTarget();
    lock.release = () => { window.__wake.push("release"); lock.dispatchEvent(new Event("release"));
                           return Promise.resolve(); };
    return Promise.resolve(lock);
  }}});
"""
NO_WAKE_LOCK = """
Object.defineProperty(navigator, "wakeLock", {configurable: true, value: undefined});
"""
REFUSED_WAKE_LOCK = """
window.__wake = [];
Object.defineProperty(navigator, "wakeLock", {configurable: true, value: {
  request(type) {
    window.__wake.push("refused");
    return Promise.reject(new DOMException("no", "NotAllowedError"));
  }}});
"""


def set_visibility(page, state):
    page.evaluate("""s => {
        Object.defineProperty(document, 'visibilityState', {value: s, configurable: true});
        document.dispatchEvent(new Event('visibilitychange'));
    }""", state)


def wake_log(page, n):
    page.wait_for_function("n => (window.__wake || []).length >= n", arg=n, timeout=WAIT)
    return page.evaluate("window.__wake")


def test_the_host_screen_and_a_held_secret_keep_the_screen_awake(browser, live_server):
    host, url, key, device = table(browser, live_server)
    store_game(live_server.app, device, key, {
        "kind": "kraken", "events": [],
        "setup": kraken_setup(["skeleton", "explorer", "explorer", "explorer", "skeleton"])})
    host.context.add_init_script(FAKE_WAKE_LOCK)
    for page_url in (url, f"{url}/g/1"):  # the table's page and the game's
        host.goto(page_url)
        assert wake_log(host, 1) == ["request screen"]
        # hidden, the browser lets go; visible again, it is asked for again
        set_visibility(host, "hidden")
        set_visibility(host, "visible")
        assert wake_log(host, 3) == ["request screen", "release", "request screen"]

    # a phone keeps its screen on only while a secret is held
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US",
                                  has_touch=True, is_mobile=True)
    context.add_init_script(FAKE_WAKE_LOCK)
    page = context.new_page()
    page.goto(seat_url(live_server, key, 0))
    claim(page)
    page.locator("[data-hold=role-secret]").wait_for()
    assert page.evaluate("window.__wake") == []
    finger = Finger(page)
    finger.down(page.locator("[data-hold=role-secret]"))
    assert wake_log(page, 1) == ["request screen"]
    finger.up()
    assert wake_log(page, 2) == ["request screen", "release"]


@pytest.mark.parametrize("script", [NO_WAKE_LOCK, REFUSED_WAKE_LOCK], ids=["missing", "refused"])
def test_without_a_wake_lock_nothing_breaks_and_nothing_claims_one(browser, live_server, script):
    host, url, key, device = table(browser, live_server)
    store_game(live_server.app, device, key, {
        "kind": "kraken", "events": [],
        "setup": kraken_setup(["skeleton", "explorer", "explorer", "explorer", "skeleton"])})
    host.context.add_init_script(script)
    errors = []
    host.on("pageerror", lambda e: errors.append(str(e)))
    host.goto(f"{url}/g/1")
    host.locator(".kraken-marker button", has_text="Jo").click()
    host.locator('[data-k="marker"]', has_text="Jo").wait_for(timeout=WAIT)
    text = host.locator("body").inner_text().lower()
    assert "awake" not in text and "wake" not in text and "screen on" not in text
    assert errors == []
