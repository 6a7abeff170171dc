"""A table in a real browser, shared by the browser tests and the benches that drive one
(bench/wifi.py, bench/phone_memory.py, bench/screenshots.py): Chromium as they launch it;
the host makes a night on the start page, phones read their seat's code and claim it, the
host starts Skull King and taps a trick; and a phone's wrong wall clock."""

import io

from bench.layout_night import make_night

#: Debian's Chromium: Playwright drives it, never a browser of its own download.
CHROMIUM = "/usr/bin/chromium"

#: The features Playwright turns off itself (its ``chromiumSwitches``, at the version
#: constraints.txt pins). Chromium reads only the last ``--disable-features`` it is given,
#: so a list of our own must carry these too (tests/test_chromium_args_browser.py fails
#: when Playwright's list has a name this one lacks).
PLAYWRIGHT_DISABLED = (
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding",
    "ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin", "OptimizationHints", "NetworkTimeServiceQuerying",
    "AimEnabled", "PreconnectToSearch", "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
)

#: The address bar's drop-down, which this Chromium draws as web pages of its own
#: (chrome://omnibox-popup.top-chrome/, two of them in a renderer process) and starts for
#: every window, headless too: Playwright opens a window for each context, and the
#: drop-down nobody sees cost 40 % of a new page's CPU (0.48 → 0.29 s; a sample of 32
#: browser tests used 18 % less CPU without it).
UNSEEN = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup")

#: Chromium's switches for the tests and benches: headless, as root (no sandbox), with
#: no GPU; and nothing that would reach the internet, which a table's network lacks
#: (without these, Chromium's connections out are refused many at a time here).
CHROMIUM_ARGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-features=" + ",".join(PLAYWRIGHT_DISABLED + UNSEEN),
)

#: How long a browser test waits for what a page should come to show, in ms. A wait ends
#: as soon as the page shows it, so the bound costs nothing when all is well: it only says
#: when to give up. It is not a speed: where the product promises a time (a lost laptop
#: said within 5 s, a silent one within 35 s), the test says that time itself. A run of
#: the browser stage on a box three times slower than usual (its four workers and their
#: browsers keeping a load of 12 on two cores) took 17 minutes, and waits of 15 and 20 s
#: ran out there while the page was on its way.
WAIT = 60_000


def create_night(page, base_url, names):
    """Type the names on the host screen and start the night; returns the night's URL."""
    page.goto(base_url + "/")
    inputs = page.locator("form.roster input[name=name]")
    for i, name in enumerate(names):
        if not inputs.nth(i).is_visible():  # the roster starts with 4 seats
            page.locator("form.roster [data-add-seat]").click()
        inputs.nth(i).fill(name)
    page.locator("form.roster button[type=submit]:not([data-add-seat])").click()
    page.wait_for_url("**/n/**")
    return page.url


def host_night(page, base_url, names):
    """The night :func:`create_night` makes, with the start page's form posted as it
    would be rather than typed in (bench/layout_night.py, ``make_night``), then its page
    opened; returns the night's URL. For the tests whose subject is what follows: typing
    the names and starting the night cost 0.8 s of CPU (the start page, each field and the
    submit drawn), this a quarter of that; the form itself is the start page's own tests'
    (tests/test_start_page_browser.py, tests/test_names_browser.py) and the first walk's
    (tests/test_night_browser.py)."""
    page.goto(f"{base_url}/n/{make_night(page, base_url, names)}")
    return page.url


def decode_qr(png_bytes):
    """The text of the QR code in a screenshot (zxing-cpp)."""
    import zxingcpp
    from PIL import Image

    results = zxingcpp.read_barcodes(Image.open(io.BytesIO(png_bytes)))
    assert results, "no QR code found in the screenshot"
    return results[0].text


def seat_link(page, position):
    """Decode seat ``position``'s QR from a screenshot of the host's table screen."""
    from playwright.sync_api import Error

    for attempt in range(5):  # the live region may be swapped while we look
        try:
            image = page.locator(".seat-card").nth(position).locator("img")
            image.scroll_into_view_if_needed()
            page.wait_for_function(
                "img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
            return decode_qr(image.screenshot())
        except (Error, AssertionError):
            if attempt == 4:
                raise
            page.wait_for_timeout(300)


def claim(page):
    """Answer a seat code's question, if the page asks it."""
    answer = page.locator("form[data-action=seat-claim] button")
    if answer.count():
        answer.click()
        page.wait_for_url("**/me")


# --- Skull King on the host's tablet ---------------------------------------------------

def start_game(host, night_url, **options):
    """Start a Skull King game through the form; in the 2021 edition unless ``edition``
    says."""
    options.setdefault("edition", "2021")
    host.goto(night_url + "/new/skullking")
    for name, value in options.items():
        if name == "way":
            host.select_option("select[name=way]", value)
        elif name == "rounds":
            host.fill("input[name=rounds]", value)
        elif name in ("edition", "scoring"):
            host.check(f"input[name={name}][value='{value}']")
        else:
            host.check(f"input[name={name}]")
    host.locator("form.sk-new button[type=submit]").click()
    host.wait_for_url("**/g/*")
    return host.url


def trick_chip(host, seat, value):
    """The chip on seat ``seat``'s row of the tricks form that says it won ``value``."""
    return host.locator(f".sk-trick-row[data-seat='{seat}'] "
                        f"label.sk-chip:has(input[name='won-{seat}'][value='{value}'])")


# --- a phone's wall clock -------------------------------------------------------------

#: A wrong wall clock: Date.now() and new Date() run ``skew`` ms off. performance.now()
#: and performance.timeOrigin are left true, so a page's flip can be read in true time.
SKEW = """(() => {
  const skew = %d;
  const RealDate = Date;
  const realNow = RealDate.now.bind(RealDate);
  class SkewedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) { super(realNow() + skew); } else { super(...args); }
    }
    static now() { return realNow() + skew; }
  }
  window.Date = SkewedDate;
})();"""
