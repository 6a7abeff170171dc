"""Skull King's house rules in real browsers (docs/rules.md#skull-king-house-rules): chosen
on the start form on a 768 × 1024 tablet; a missed bid with a bonus that counts; an
adjustment through the htmx form, a refused one that keeps what was typed, both undone;
a 390 px phone shows the house rules line without scrolling sideways."""

import pytest

from bench.browsing import WAIT, host_night, seat_link, start_game, trick_chip
from tests.browsing import box_where, phone
from tests.skullking_browsing import (
    TABLET,
    Hand,
    no_horizontal_scroll,
    round_title,
    stepper,
    tap_bid,
    totals,
)

pytestmark = pytest.mark.browser


def points(host, round_, seat):
    cell = host.locator(f".sk-cell[data-round='{round_}'][data-seat='{seat}']")
    return int(cell.get_attribute("data-points"))


def test_house_rules_on_the_tablet_and_a_phone(browser, live_server):
    host = browser.new_context(viewport=TABLET, locale="en-US").new_page()
    night_url = host_night(host, live_server.url, ["Mina", "Jo", "Sun"])
    link = seat_link(host, 1)
    start_game(host, night_url, way="custom", rounds="2,2", missed_bonuses="1",
               adjustments="1")
    line = host.locator(".sk-host > .sk-house")
    assert "Bonuses count on a missed bid" in line.inner_text()
    assert "Adjustments" in line.inner_text()
    assert line.is_visible()

    # Round 1: Mina bids 2, takes 1 trick, with a Pirate taken by her Skull King: the
    # bonus counts on the missed bid (−10 + 30).
    hand = Hand(host)
    round_title(host, 1, 2)
    for seat, bid in ((0, 2), (1, 0), (2, 0)):
        tap_bid(hand, seat, bid)
    hand.tap(host.locator(".sk-yoho"))
    host.locator(".sk-result-form").wait_for(timeout=WAIT)
    hand.tap(trick_chip(host, 0, 1))
    hand.tap(trick_chip(host, 1, 1))
    hand.tap(host.locator(".sk-trick-row[data-seat='0'] .sk-more"))
    hand.tap(stepper(host, 0, "pirates_by_skull_king-0"))
    hand.tap(host.locator(".sk-score-btn"))
    round_title(host, 2, 2)
    assert points(host, 1, 0) == 20
    assert totals(host) == [20, -20, 20]

    # An adjustment that is not a whole number is refused at its form, keeping the reason.
    host.locator(".sk-adjust-box summary").click()
    form = host.locator("form.sk-adjust-form")
    form.locator("select[name=adjust-seat]").select_option("1")
    form.locator("input[name=amount]").fill("ten")
    form.locator("input[name=reason]").fill("Misdeal")
    form.locator("button[type=submit]").click()
    refusal = host.locator("form.sk-adjust-form .sk-refusal")
    refusal.wait_for(timeout=WAIT)
    assert "is not a whole number" in refusal.inner_text()
    assert host.locator("form.sk-adjust-form input[name=reason]").input_value() == "Misdeal"
    assert host.locator(".sk-refusal").count() == 1  # at the adjustment only, not the bids
    assert totals(host) == [20, -20, 20]

    # The same, with −30: Jo's round and total move, the list says why.
    host.locator("form.sk-adjust-form input[name=amount]").fill("-30")
    host.locator("form.sk-adjust-form button[type=submit]").click()
    host.locator(".sk-adjustments li", has_text="Misdeal").wait_for(timeout=WAIT)
    assert totals(host) == [20, -50, 20]
    assert "incl. −30 adjusted" in host.locator(
        ".sk-cell[data-round='1'][data-seat='1']").inner_text()
    host.locator(".history summary").click()
    assert "Jo adjusted −30 points in round 1: Misdeal" in host.locator(".history").inner_text()
    assert "Bonuses count on a missed bid" in host.locator(".history").inner_text()

    # A 390 px phone shows the house rules line, with no sideways scroll.
    page = phone(browser, link, locale="en-US")
    house = page.locator(".sk-standings .sk-house")
    house.wait_for(timeout=WAIT)
    assert "Bonuses count on a missed bid" in house.inner_text()
    box_where(house, lambda box: box["x"] >= 0 and box["x"] + box["width"] <= 390)
    assert no_horizontal_scroll(page)

    # Both undone: the adjustment, then round 1's result (the bonus goes with it).
    host.locator("form:has(button:has-text('Undo')) button").first.click()
    host.locator(".sk-adjustments").wait_for(state="detached", timeout=WAIT)
    assert totals(host) == [20, -20, 20]
    host.locator("form:has(button:has-text('Undo')) button").first.click()
    host.locator(".sk-result-form").wait_for(timeout=WAIT)
    round_title(host, 1, 2)
    assert totals(host) == [0, 0, 0]
