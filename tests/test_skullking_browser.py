"""Skull King in real browsers: secret bids from three phones, "Yo-ho-ho!" on the tablet,
results entered on the host, a correction of round 1, and the final table by hand."""

import re

import pytest

from tests.browsing import axe_violations, create_night, phone, seat_link

pytestmark = pytest.mark.browser

TIMEOUT = 8000


def phone_bids(page, value):
    page.locator(f".sk-my-bid-form button[name=bid][value='{value}']").click()
    page.locator(".sk-my-bid").wait_for(timeout=TIMEOUT)
    assert page.locator(".sk-my-bid").inner_text() == f"✓ You bid {value}"


def enter_results(host, won, extra=None):
    for seat, value in won.items():
        host.fill(f"input[name=won-{seat}]", str(value))
    for name, value in (extra or {}).items():
        host.fill(f"input[name={name}]", str(value))
    host.locator(".sk-result-form button[type=submit]").click()


def test_secret_phone_bids_results_a_correction_and_the_final_table(browser, live_server):
    host = browser.new_context(locale="en-US").new_page()
    night_url = create_night(host, live_server.url, ["Mina", "Jo", "Sun"])
    links = [seat_link(host, position) for position in range(3)]
    phones = [phone(browser, link, locale="en-US") for link in links]

    host.goto(night_url + "/new/skullking")
    host.select_option("select[name=way]", "custom")
    host.fill("input[name=rounds]", "1,2,3")
    host.locator("form.sk-new button[type=submit]").click()
    host.wait_for_url("**/g/1")
    assert "Round 1 of 3" in host.locator("#sk-round-title").inner_text()

    # (won, extra results) per round; bids come from the phones
    plan = [
        ({0: 1, 1: 0, 2: 0}, {0: 1, 1: 0, 2: 0}, {}),
        ({0: 1, 1: 1, 2: 0}, {0: 1, 1: 0, 2: 1}, {}),
        ({0: 2, 1: 1, 2: 0}, {0: 2, 1: 1, 2: 0}, {"pirates_by_skull_king-0": 1}),
    ]
    for number, (bids, won, extra) in enumerate(plan, start=1):
        for seat, page in enumerate(phones):
            page.locator(".sk-my-bid-form").wait_for(timeout=TIMEOUT)
            phone_bids(page, bids[seat])
        # the tablet shows who has bid, never what
        host.locator(".sk-who-bid li.done").nth(2).wait_for(timeout=TIMEOUT)
        assert host.locator(".sk-bid-value").count() == 0
        assert phones[0].locator(".sk-bids").count() == 0
        host.locator(".sk-yoho").click()
        host.locator(".sk-bid-value").first.wait_for(timeout=TIMEOUT)
        assert host.locator(".sk-bid-value").all_inner_texts() == [str(bids[s]) for s in range(3)]
        # every phone now sees every bid
        phones[2].locator(".sk-bids").wait_for(timeout=TIMEOUT)
        assert re.search(rf"Mina: {bids[0]}\b", phones[2].locator(".sk-bids").inner_text())
        if number == 1:
            assert axe_violations(host) == []
            # a refused result is explained and nothing is recorded
            enter_results(host, {0: 1, 1: 1, 2: 0})
            host.locator(".notice.error").wait_for(timeout=TIMEOUT)
            assert "add up to 2, not 1" in host.locator(".notice.error").inner_text()
        enter_results(host, won, extra)
        if number < 3:
            host.locator("#sk-round-title", has_text=f"Round {number + 1} of 3").wait_for(
                timeout=TIMEOUT)

    host.locator(".sk-over").wait_for(timeout=TIMEOUT)
    # before the correction: Mina 20+20+70, Jo 10−10+20, Sun 10−20+30
    assert host.locator(".sk-totals td[data-seat]").all_inner_texts() == ["110", "20", "20"]

    # correct round 1: Mina missed her trick and Jo took it
    host.locator("a[aria-label='Correct round 1']").click()
    host.wait_for_url("**/skullking/correct/1")
    assert host.input_value("input[name=bid-0]") == "1"
    assert host.input_value("input[name=won-0]") == "1"
    host.fill("input[name=won-0]", "0")
    host.fill("input[name=won-1]", "1")
    host.locator(".sk-correct-form button[type=submit]").click()
    host.wait_for_url("**/g/1")

    # by hand: Mina −10+20+70 = 80, Jo −10−10+20 = 0, Sun 10−20+30 = 20
    assert host.locator(".sk-totals td[data-seat]").all_inner_texts() == ["80", "0", "20"]
    ranks = {host.locator(".sk-rank").nth(i).get_attribute("data-seat"):
             host.locator(".sk-rank").nth(i).get_attribute("data-rank") for i in range(3)}
    assert ranks == {"0": "1", "2": "2", "1": "3"}
    assert "Winner: Mina" in host.locator(".sk-over").inner_text()
    assert host.locator("svg.sk-chart polyline").count() == 3

    # the phones follow: Jo's own total and rank, and the whole table
    jo = phones[1]
    # (Jo's total was 0 after round 2 too, so wait for the rank only the correction gives)
    jo.locator("[data-my-rank]", has_text=re.compile(r"^3$")).wait_for(timeout=TIMEOUT)
    assert jo.locator("[data-my-total]").inner_text() == "0"
    assert jo.locator(".sk-totals td").all_inner_texts() == ["80", "0", "20"]
