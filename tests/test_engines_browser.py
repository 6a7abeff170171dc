"""A phone night in WebKit (Safari's engine) and in Firefox, through Selenium: the host and
two phones, each a browser of the engine under test with cookies of its own, against
`companion serve` (gevent, live push on; polls slowed to 30 s, so whatever a screen shows
within a few seconds came by push).

The walk: the host makes the night; each phone scans its seat's QR code (decoded from a
screenshot of the host's screen) and answers "Are you …?"; No Touch Kraken starts on the
phones, a phone holds "hold to see" and sees its own role only while held; the host gives
the action marker and a phone shows it without reloading; a Skull King game where a phone
taps its bid and its screen says the bid was sent, and the phones see the revealed bids
and their result; a Crazy Time law entered on one phone and held on another (its text
shown only while held); the tally's picture loads on a phone and on the host. The phones
are 390 × 844 CSS pixels (tests/engines.py says how each engine's window gets that
narrow), and no phone screen scrolls sideways.

Engine differences (see tests/engines.py):
- the hold is a finger (a WebDriver touch pointer) in Firefox; WebKitGTK's driver turns
  touch actions into mouse events, so in WebKit the page sees a mouse press (pointerType
  "mouse"): the test checks the pointer type each engine delivers;
- console errors are read through WebDriver BiDi in Firefox (from the first byte of each
  page); WebKitGTK's driver has no way to read the console, so there a script armed in
  the page after each navigation collects errors from then on.

Skipped (with the reason) only when an engine is not installed: `.ci/run` installs both.
"""

import json
import os
import re
import shutil
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bench.browsing import decode_qr
from companion.store.connection import uri
from tests.engines import ENGINES, Device, Display, missing

pytestmark = [
    pytest.mark.browser, pytest.mark.engines,
    # Selenium's own WebKitGTK driver still sets an address it deprecated
    pytest.mark.filterwarnings("ignore:setting remote_server_addr:DeprecationWarning"),
]

NAMES = ["Ann", "지혜", "Minsu", "Bo"]  # Ann and 지혜 have phones; the others bid on the tablet
PHONE = (390, 844)
HOST = (1100, 900)
LAW = {"name": "Moon", "when": "MOON-WHEN a moon card shows", "what": "MOON-WHAT everyone howls"}
ROLE_WORDS = {"explorer": "Explorer", "skeleton": "Skeleton"}


# --- fixtures ----------------------------------------------------------------------------

@pytest.fixture(scope="session")
def x_display():
    """An X display for WebKitGTK: an Xvfb of this test process's own."""
    if not shutil.which("Xvfb"):
        yield os.environ["DISPLAY"]  # missing() saw one
        return
    display = Display()
    yield display.name
    display.stop()


@pytest.fixture
def pushing(server_process):
    # Polls every 30 s: whatever a phone shows within a few seconds came by push.
    server_process.env = {"COMPANION_POLL_SECONDS": "30"}
    return server_process.start()


@pytest.fixture
def devices(request, tmp_path):
    made = []

    def make(engine, name, size):
        display = request.getfixturevalue("x_display") if engine == "webkit" else None
        home = tmp_path / f"{engine}-{name}"  # its own profile and cookies
        home.mkdir()
        device = Device(engine, name, home, display=display, width=size[0], height=size[1])
        made.append(device)
        return device

    yield make
    # together: Firefox takes seconds to shut down, and the three of them waited in turn
    with ThreadPoolExecutor(len(made) or 1) as pool:
        list(pool.map(Device.quit, made))


# --- what the server dealt (read as the table's laptop would: from its database) --------

def current_setup(database, key):
    with sqlite3.connect(uri(database, "ro"), uri=True) as connection:
        row = connection.execute(
            "SELECT g.setup FROM games g JOIN nights n ON n.id = g.night_id "
            "WHERE n.key = ? ORDER BY g.number DESC LIMIT 1", (key,)).fetchone()
    return json.loads(row[0])


# --- the steps ---------------------------------------------------------------------------

def make_night(host, base_url):
    host.go(base_url + "/")
    inputs = host.js("return [...document.querySelectorAll('form.roster input[name=name]')]")
    assert len(inputs) >= len(NAMES)
    for element, name in zip(inputs, NAMES, strict=False):
        element.send_keys(name)
    assert [e.get_property("value") for e in inputs[:len(NAMES)]] == NAMES
    host.click("form.roster button[type=submit]:not([data-add-seat])", navigates=True)
    host.wait("return location.pathname.startsWith('/n/')", what="the night's page")
    host.arm()
    return host.url()


def seat_link(host, position):
    """Decode seat ``position``'s QR code from a screenshot of the host's table screen: the
    window's, cut to the code (WebKitGTK's driver paints an element's own screenshot from
    the wrong place on this page: black where the code is)."""
    import io

    from PIL import Image
    from selenium.common.exceptions import StaleElementReferenceException

    for attempt in range(5):  # the live region may be swapped while we look
        try:
            box = host.wait(
                """const img = document.querySelectorAll('.seat-card')[arguments[0]]
                     ?.querySelector('img');
                   if (!img || !img.complete || !img.naturalWidth) return null;
                   img.scrollIntoView({block: 'center'});
                   const r = img.getBoundingClientRect(), k = devicePixelRatio;
                   return [r.left * k, r.top * k, r.right * k, r.bottom * k];""",
                position, what=f"seat {position}'s QR code")
            window = Image.open(io.BytesIO(host.driver.get_screenshot_as_png()))
            cut = window.crop(tuple(round(v) for v in box))
            png = io.BytesIO()
            cut.save(png, format="PNG")
            return decode_qr(png.getvalue())
        except (StaleElementReferenceException, AssertionError):
            if attempt == 4:
                raise
            time.sleep(0.3)


def fits(device, where):
    scroll_width, inner_width = device.fits()
    assert scroll_width <= inner_width, \
        f"{device.engine} {device.name}: {where} scrolls sideways ({scroll_width} > {inner_width})"


def claim(phone, link, name):
    phone.go(link)
    assert phone.text("h1") == f"Are you {name}?"
    fits(phone, "the seat's question")
    phone.click("form[data-action=seat-claim] button", navigates=True)
    phone.wait("return location.pathname === '/me'", what="my page")
    phone.arm()
    assert phone.text(".seat-name") == name
    phone.wait("return document.documentElement.dataset.push === 'open'",
               what="the live stream open")


def every_seat(host):
    for seat in range(len(NAMES)):
        if not host.js(f"return document.querySelector('input[name=seat{seat}]').checked"):
            host.click(f"input[name=seat{seat}]")


def start(host, night_url, kind, fill):
    """Start a game through its start form; answer "start it, the other stays unfinished"
    when the host is asked."""
    host.go(f"{night_url}/new/{kind}")
    fill(host)
    host.click(f"form[action$='/new/{kind}'] button[type=submit]", navigates=True)
    page = host.wait("""return document.querySelector('form[data-action=game-start-confirm]')
                          ? 'ask' : /\\/g\\/\\d+$/.test(location.pathname) ? 'game' : null""",
                     what="the game or the question")
    if page == "ask":
        host.arm()
        assert "is still running" in host.text("h1"), host.text("h1")
        host.click("form[data-action=game-start-confirm] button[type=submit]", navigates=True)
        host.wait("return /\\/g\\/\\d+$/.test(location.pathname)", what="the game's page")
    host.arm()


def watch_pointer(phone):
    phone.js("""window.__pointers = [];
                if (!window.__watchingPointers) {
                  window.__watchingPointers = true;
                  document.addEventListener('pointerdown',
                                            e => window.__pointers.push(e.pointerType), true);
                }""")


def hold_and_see(phone, button, secret, *, expect):
    """Hold ``button``: ``secret`` shows while held, with every text of ``expect`` in it,
    and hides when the finger lifts."""
    assert not phone.shown(secret), f"{secret} shown before the hold"
    assert no_long_press_menu(phone, button), f"{button} selects text or opens a callout"
    watch_pointer(phone)
    with phone.finger(button):
        phone.wait_for(secret)
        shown = phone.text(secret)
        time.sleep(0.6)  # a finger that stays down: no pointercancel, no long-press menu
        assert phone.shown(secret), f"{secret} hid while the finger was still down"
        pressed = phone.js("return document.querySelector(arguments[0])"
                           ".getAttribute('aria-pressed')", button)
    phone.gone(secret)
    for text in expect:
        assert text in shown, (phone.engine, secret, shown)
        assert text not in phone.text("body"), f"{text!r} still on screen after the release"
    assert pressed == "true"
    kind = phone.js("return window.__pointers")
    assert kind == ["touch" if phone.touch else "mouse"], kind
    return shown


#: How an element answers a long press: its text selection and (WebKit only, as on iOS)
#: its callout, read from the engine's own computed style.
LONG_PRESS = """const style = getComputedStyle(document.querySelector(arguments[0]));
  return [style.userSelect || style.webkitUserSelect, style.webkitTouchCallout || null];"""


def no_long_press_menu(phone, css):
    """A hold-to-see button: a long press selects nothing, and where the engine has
    iOS's callout (copy, look up, save), opens none."""
    select, callout = phone.js(LONG_PRESS, css)
    return select == "none" and (callout is None or callout == "none")


def kraken(host, phones, night_url, database):
    key = night_url.rsplit("/", 1)[1]
    start(host, night_url, "kraken", every_seat)
    for phone in phones:  # the new game arrives by push
        phone.wait_for("[data-hold=role-secret]")
    roles = current_setup(database, key)["roles"]
    for seat, phone in enumerate(phones):
        fits(phone, "Kraken")
        role = ROLE_WORDS[roles[str(seat)]]
        shown = hold_and_see(phone, "[data-hold=role-secret]", "#role-secret", expect=[role])
        assert shown.split()[0] == role, shown  # its own role, the one dealt to its seat


def push_refresh(host, phone):
    """The host gives the action marker; the phone shows it within seconds, same page."""
    marker = phone.text("[data-k=marker]") or ""
    seat = next(i for i, name in enumerate(NAMES) if name not in marker)
    phone.js("window.__samePage = true;")
    assert phone.js("return document.documentElement.dataset.push") == "open"
    before = time.monotonic()
    host.click("form[data-action=kraken-marker] button[name=seat]", index=seat)
    phone.wait_for("[data-k=marker]", text=NAMES[seat], timeout=10)
    took = time.monotonic() - before
    assert phone.js("return window.__samePage === true"), "the phone reloaded"
    assert took < 5, f"{phone.engine}: the marker took {took:.1f} s (a poll waits 30 s)"
    return took


def skull_king(host, phones, night_url):
    def one_round(page):
        from selenium.webdriver.support.ui import Select

        Select(page.wait_for("select[name=way]")).select_by_value("custom")
        page.type("input[name=rounds]", "1")

    start(host, night_url, "skullking", one_round)
    bids = {0: 1, 1: 0}
    waits = []
    for seat, phone in enumerate(phones):
        phone.wait_for(".sk-my-bid-form button[name=bid][value='1']")
        fits(phone, "Skull King's bidding")
        assert not phone.shown(".sk-sent")
        before = time.monotonic()
        phone.click(f".sk-my-bid-form button[name=bid][value='{bids[seat]}']")
        # the answer shows "Bid sent ✓" (a bounded wait: the live push corrects an answer
        # that showed the page from before the bid within about a second)
        phone.wait_for(".sk-sent", text="Bid sent")
        waits.append(time.monotonic() - before)
        phone.wait_for(".sk-bids-in", text=f"{seat + 1} of 4 bids in")
        assert not phone.shown("#sk-my-bid")
    phones[0].wait_for(".sk-bids-in", text="2 of 4 bids in")  # 지혜's bid reached Ann too
    hold_and_see(phones[0], "[data-hold=sk-my-bid]", "#sk-my-bid", expect=["You bid 1"])

    # Minsu's and Bo's bids on the tablet; "Yo-ho-ho!" reveals them all on the phones
    for seat in (2, 3):
        host.click(f"form.sk-bid-form[data-seat='{seat}'] button[name=bid][value='0']")
        host.wait_for(f"form.sk-bid-form[data-seat='{seat}'] .done")
    host.wait_for(".sk-bids-in", text="4 of 4 bids in")
    assert not host.shown(".sk-bid-value")
    host.click(".sk-yoho")
    host.wait_for(".sk-result-form")
    for phone in phones:
        phone.wait_for(".sk-bids", text="Ann: 1")
        assert "지혜: 0" in phone.text(".sk-bids")
    for seat, won in {0: 1, 1: 0, 2: 0, 3: 0}.items():
        host.click(f"label.sk-chip:has(input[name='won-{seat}'][value='{won}'])")
    host.click(".sk-score-btn")
    host.wait_for(".sk-over")
    # Ann bid 1 and took it (20), the others bid 0 with one card and took none (10 each)
    phones[0].wait_for("[data-result=won]", text="You won!")
    phones[1].wait_for("[data-result=lost]", text="The winner: Ann")
    for phone in phones:  # the end is said big first, over the page: a tap closes it
        phone.click(".takeover[data-open]")
        phone.gone(".takeover[data-open]")
    assert phones[0].text("[data-my-total]") == "20"
    assert phones[1].text("[data-my-total]") == "10"
    for phone in phones:
        fits(phone, "Skull King's result")
    return waits


def crazy_time(host, phones, night_url):
    start(host, night_url, "crazytime", lambda page: page.click("input[name=starting_law]"))
    ann, jihye = phones
    ann.wait_for(".ct-law-form form")
    fits(ann, "Crazy Time's starting law")
    for field in ("name", "when", "what"):
        ann.type(f".ct-law-form input[name={field}]", LAW[field])
    ann.click(".ct-law-form button[type=submit]")
    jihye.wait_for("[data-hold=ct-laws-secret]")
    assert LAW["name"] in jihye.text(".ct-my-laws")
    fits(jihye, "Crazy Time's laws")
    hold_and_see(jihye, "[data-hold=ct-laws-secret]", "#ct-laws-secret",
                 expect=[LAW["when"], LAW["what"]])


def tally_picture(device, where):
    image = device.wait(
        """const img = document.querySelector('.tally-recap img.recap-night');
           if (!img) return null;
           img.scrollIntoView({block: 'center'});
           return img.complete && img.naturalWidth > 0 ? img : null;""",
        what=f"the night's picture on {where}")
    assert device.js("return arguments[0].naturalWidth", image) == 1080
    # the picture keeps its long press: that is how a phone saves it
    select, callout = device.js(LONG_PRESS, ".tally-recap img.recap-night")
    assert callout in (None, "default"), callout
    width = device.js("return arguments[0].getBoundingClientRect().width", image)
    assert 0 < width <= device.js("return innerWidth")


# --- the walk ----------------------------------------------------------------------------

@pytest.mark.parametrize("engine", ENGINES)
def test_a_phone_night(engine, pushing, devices):
    reason = missing(engine)
    if reason:
        pytest.skip(f"{engine}: {reason}")
    host = devices(engine, "host", HOST)
    night_url = make_night(host, pushing.url)
    links = [seat_link(host, position) for position in range(2)]
    assert all(link.startswith(pushing.url + "/s/") for link in links), links
    phones = [devices(engine, "ann", PHONE), devices(engine, "jihye", PHONE)]
    for phone, link, name in zip(phones, links, NAMES, strict=False):
        claim(phone, link, name)
    assert phones[0].text(".seat-name") == "Ann"  # two devices, two cookies: two seats

    kraken(host, phones, night_url, pushing.database)
    push_refresh(host, phones[0])
    skull_king(host, phones, night_url)
    crazy_time(host, phones, night_url)

    phones[0].click(".night-links a", navigates=True)
    phones[0].wait("return location.pathname === '/me/tally'", what="the phone's tally")
    phones[0].arm()
    tally_picture(phones[0], "the phone")
    fits(phones[0], "the tally")
    host.go(night_url + "/tally")
    tally_picture(host, "the host's tally")

    for device in [host, *phones]:
        assert device.errors() == [], (engine, device.name)


def test_ios_callout_is_off_on_hold_buttons_and_on_for_the_pictures():
    """iOS opens a callout (copy, look up, save) on a long press. WebKitGTK has no such
    callout (``-webkit-touch-callout`` is iOS's alone; its computed style reads nothing
    above), so the stylesheets say it: off on the hold-to-see buttons and their secrets,
    on for the recap pictures, whose long press is how a phone saves one."""
    static = Path(__file__).parent.parent / "static"
    app_css = re.sub(r"/\*.*?\*/", "", (static / "app.css").read_text(), flags=re.S)
    rule = re.search(r"\[data-hold\], \[data-secret\] \{([^}]*)\}", app_css)
    assert rule and "-webkit-touch-callout: none" in rule.group(1)
    assert "user-select: none" in rule.group(1)
    tally_css = (static / "tally.css").read_text()
    picture = re.search(r"\.tally-recap img \{([^}]*)\}", tally_css)
    assert picture and "-webkit-touch-callout: default" in picture.group(1)
