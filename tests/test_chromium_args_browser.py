"""Chromium as the tests and benches launch it (bench/browsing.py's CHROMIUM_ARGS): the
features Playwright turns off stay off under our own list, since Chromium reads only the
last ``--disable-features`` it is given; and a new context opens no window dressing
(the address bar's drop-down, drawn as pages of its own) beside its page."""

import os
from pathlib import Path

import pytest

from bench.browsing import UNSEEN

pytestmark = pytest.mark.browser


def descendants(pid):
    """The processes under ``pid`` (through /proc), with their command lines."""
    children = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue  # gone while we looked
        children.setdefault(parent, []).append((int(entry.name), argv))
    found, queue = [], [pid]
    while queue:
        for child, argv in children.get(queue.pop(), []):
            found.append([a.decode(errors="replace") for a in argv if a])
            queue.append(child)
    return found


def test_playwrights_own_disabled_features_stay_off_and_no_drop_down_starts(browser):
    # The browser's own process: the one Playwright started with its pipe, under this test
    # process (Playwright's driver runs it).
    [argv] = [argv for argv in descendants(os.getpid())
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
