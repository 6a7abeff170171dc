"""Chromium as the tests and benches launch it (bench/browsing.py's CHROMIUM_ARGS): the
features Playwright turns off stay off under our own list, since Chromium reads only the
last ``--disable-features`` it is given; and a new context opens no window dressing
(the address bar's drop-down, drawn as pages of its own) beside its page."""

import psutil
import pytest

from bench.browsing import UNSEEN

pytestmark = pytest.mark.browser


def command_lines():
    """The command lines of the processes under this test process (Playwright's driver and
    the browser it started), those that ended while we looked left out."""
    for process in psutil.Process().children(recursive=True):
        try:
            yield process.cmdline()
        except psutil.Error:
            continue


def test_playwrights_own_disabled_features_stay_off_and_no_drop_down_starts(browser):
    # The browser's own process: the one Playwright started with its pipe, under this test
    # process (Playwright's driver runs it).
    [argv] = [argv for argv in command_lines()
              if "--remote-debugging-pipe" in argv and not any(a.startswith("--type=")
                                                              for a in argv)]
    lists = [a.removeprefix("--disable-features=").split(",") for a in argv
             if a.startswith("--disable-features=")]
    assert len(lists) == 2, lists  # Playwright's, then ours, which is the one read
    playwrights, ours = lists
    assert set(playwrights) <= set(ours), set(playwrights) - set(ours)
    assert set(UNSEEN) <= set(ours)

    context = browser.new_context()
    context.new_page().goto("data:text/html,<p>hi</p>")
    cdp = browser.new_browser_cdp_session()
    urls = [t["url"] for t in cdp.send("Target.getTargets")["targetInfos"]]
    cdp.detach()
    context.close()
    assert not [url for url in urls if url.startswith("chrome://")], urls
