"""Skull King in a real browser: a phone's bid, the scorekeeper's taps on the tablet
(each one counted, and each scroll a person would need first), and the rows, steppers
and totals the tests read back. The start form and a trick's chip, which the Wi-Fi bench
taps too, are in bench/browsing.py."""

from bench.browsing import WAIT
from tests.browsing import box_where

TABLET = {"width": 768, "height": 1024}


class Hand:
    """The scorekeeper's finger on the tablet: every tap is counted, and so is every
    scroll gesture a person would need first (the target not wholly on screen)."""

    def __init__(self, page):
        self.page = page
        self.taps = 0
        self.scrolls = 0

    def tap(self, locator):
        locator.wait_for(state="visible", timeout=WAIT)
        box = box_where(locator)
        view = self.page.viewport_size
        if (box["y"] < 0 or box["y"] + box["height"] > view["height"]
                or box["x"] < 0 or box["x"] + box["width"] > view["width"]):
            self.scrolls += 1
            locator.scroll_into_view_if_needed()
        self.taps += 1
        locator.click()


def phone_bids(page, value, number=None):
    """A phone bids (in round ``number``, once its page shows that round's bidding)."""
    if number is not None:
        page.locator(".sk-phone-round", has_text=f"Round {number} of").wait_for(
            timeout=WAIT)
    page.locator(f".sk-my-bid-form button[name=bid][value='{value}']").click()
    page.locator(".sk-sent").wait_for(timeout=WAIT)


def round_title(host, number, of):
    host.locator("#sk-round-title", has_text=f"Round {number} of {of}").wait_for(
        timeout=WAIT)


def tap_bid(hand, seat, value):
    """One tap on a player's bid row; the row then shows only ✓."""
    hand.tap(hand.page.locator(f"form.sk-bid-form[data-seat='{seat}'] "
                               f"button[name=bid][value='{value}']"))
    hand.page.locator(f"form.sk-bid-form[data-seat='{seat}'] .done").wait_for(timeout=WAIT)


def stepper(host, seat, field, step="1"):
    return host.locator(f".sk-trick-row[data-seat='{seat}'] "
                        f"[data-stepper]:has(input[name='{field}']) [data-step='{step}']")


def totals(host):
    return [int(t) for t in host.locator(".sk-totals td[data-seat]").all_inner_texts()]


def no_horizontal_scroll(page):
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
