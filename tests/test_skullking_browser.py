"""Skull King in real browsers: secret bids from phones, "Yo-ho-ho!" on the tablet, results
tapped on the host, a correction, the final table by hand; a whole round on one 768 × 1024
tablet screen within the tap budget (taps and scroll gestures counted); no horizontal
scroll with eight 30-character names; the chart readable on a 390 px phone."""

import re

import pytest

from bench.browsing import WAIT, host_night, seat_link, start_game, trick_chip
from tests.browsing import box_where, phone
from tests.skullking_browsing import (
    TABLET,
    Hand,
    no_horizontal_scroll,
    phone_bids,
    round_title,
    stepper,
    tap_bid,
    totals,
)

pytestmark = pytest.mark.browser

SIX = ["Mina", "Jo", "Sun", "Ann", "Lee", "Kim"]
#: Eight names of 30 characters (the longest a night takes), Korean and emoji among them.
LONG = [name[:30].ljust(30, "x") for name in (
    "Bartholomew Roberts the Second", "아주 긴 이름을 가진 해적 선장님의 이름이 서른 글자입니다요",
    "Anne Bonny of the Caribbean Se", "Calico Jack Rackham the Third!",
    "Mary Read, Scourge of the Seas", "Edward Teach called Blackbeard",
    "Henry Every, the Arch Pirate 🏴", "Charles Vane, Terror of Nassau")]


def test_secret_phone_bids_results_a_correction_and_the_final_table(browser, live_server):
    host = browser.new_context(locale="en-US").new_page()
    night_url = host_night(host, live_server.url, ["Mina", "Jo", "Sun"])
    links = [seat_link(host, position) for position in range(3)]
    phones = [phone(browser, link, locale="en-US") for link in links]
    start_game(host, night_url, way="custom", rounds="1,2,3")
    round_title(host, 1, 3)

    # (bids, won, bonus steppers to tap) per round; bids come from the phones
    plan = [
        ({0: 1, 1: 0, 2: 0}, {0: 1, 1: 0, 2: 0}, []),
        ({0: 1, 1: 1, 2: 0}, {0: 1, 1: 0, 2: 1}, []),
        ({0: 2, 1: 1, 2: 0}, {0: 2, 1: 1, 2: 0}, [(0, "pirates_by_skull_king-0")]),
    ]
    for number, (bids, won, bonuses) in enumerate(plan, start=1):
        for seat, page in enumerate(phones):
            phone_bids(page, bids[seat], number)
            # the number is only behind "hold to see", until the reveal
            assert page.locator("#sk-my-bid").is_hidden()
            assert page.locator(".sk-bids-in").inner_text().startswith(f"{seat + 1} of 3")
        # the tablet shows who has bid, never what
        host.locator(".sk-bids-in", has_text="3 of 3 bids in").wait_for(timeout=WAIT)
        assert host.locator(".sk-bid-value").count() == 0
        assert phones[0].locator(".sk-bids").count() == 0
        host.locator(".sk-yoho").click()
        host.locator(".sk-bid-value").first.wait_for(timeout=WAIT)
        assert host.locator(".sk-bid-value").all_inner_texts() == [str(bids[s]) for s in range(3)]
        # every phone now sees every bid
        phones[2].locator(".sk-bids").wait_for(timeout=WAIT)
        assert re.search(rf"Mina: {bids[0]}\b", phones[2].locator(".sk-bids").inner_text())
        if number == 1:
            # a refused result is explained beside the score button; nothing is recorded
            trick_chip(host, 1, 1).click()
            host.locator(".sk-score-btn").click()
            host.locator(".sk-actionbar .sk-refusal").wait_for(timeout=WAIT)
            assert "add up to 2, not 1" in host.locator(".sk-actionbar .sk-refusal").inner_text()
            assert host.locator(".notice.error").is_hidden()  # not far away at the top
        for seat, value in won.items():
            trick_chip(host, seat, value).click()
        for seat, field in bonuses:
            host.locator(f".sk-trick-row[data-seat='{seat}'] .sk-more").click()
            stepper(host, seat, field).click()
        host.locator(".sk-score-btn").click()
        if number < 3:
            round_title(host, number + 1, 3)

    host.locator(".sk-over").wait_for(timeout=WAIT)
    # before the correction: Mina 20+20+70, Jo 10−10+20, Sun 10−20+30
    assert totals(host) == [110, 20, 20]

    # correct round 1 (✎ in its first column): Mina missed her trick and Jo took it
    host.locator("a[aria-label='Correct round 1']").first.click()
    host.wait_for_url("**/skullking/correct/1")
    assert host.locator("input[name=bid-0]:checked").get_attribute("value") == "1"
    assert host.locator("input[name=won-0]:checked").get_attribute("value") == "1"
    host.locator("label.sk-chip:has(input[name=won-0][value='0'])").click()
    host.locator("label.sk-chip:has(input[name=won-1][value='1'])").click()
    host.locator(".sk-correct-form .sk-score-btn").click()
    host.wait_for_url("**/g/1")

    # by hand: Mina −10+20+70 = 80, Jo −10−10+20 = 0, Sun 10−20+30 = 20
    assert totals(host) == [80, 0, 20]
    ranks = {host.locator(".sk-rank").nth(i).get_attribute("data-seat"):
             host.locator(".sk-rank").nth(i).get_attribute("data-rank") for i in range(3)}
    assert ranks == {"0": "1", "2": "2", "1": "3"}
    assert "Winner: Mina" in host.locator(".sk-over").inner_text()
    assert host.locator("svg.sk-chart polyline").count() == 3

    # the phones follow: Jo's own total and rank, and the whole table, stacked per player
    jo = phones[1]
    jo.locator(".takeover[data-open]").click()  # the end is said big first: a tap closes it
    # (Jo's total was 0 after round 2 too, so wait for the rank only the correction gives)
    jo.locator("[data-my-rank]", has_text=re.compile(r"^3$")).wait_for(timeout=WAIT)
    assert jo.locator("[data-my-total]").inner_text() == "0"
    assert jo.locator(".sk-wide").is_hidden() and jo.locator(".sk-stacked").is_visible()
    assert [jo.locator(f".sk-player-card[data-seat='{s}'] .sk-card-total strong").inner_text()
            for s in range(3)] == ["80", "0", "20"]


def test_a_whole_round_on_one_tablet_screen_within_the_tap_budget(browser, live_server):
    """Six players on a 768 × 1024 tablet, no bonuses. All bids on the tablet: at most 8
    taps (6 bids, "Yo-ho-ho!", score) and no scroll per round. Every phone bids: 2 taps
    when everyone made their bid. Each bonus: at most 2 more taps. The counts are in
    docs/guide.md."""
    host = browser.new_context(viewport=TABLET, locale="en-US").new_page()
    night_url = host_night(host, live_server.url, SIX)
    links = [seat_link(host, position) for position in range(6)]
    start_game(host, night_url, way="custom", rounds="1,5,10,10,10")
    hand = Hand(host)
    counts = []

    # rounds 1 to 3 (1, 5 and 10 cards): every bid on the tablet, every bid made
    for number, cards in enumerate((1, 5, 10), start=1):
        round_title(host, number, 5)
        before = (hand.taps, hand.scrolls)
        bids = [(seat + number) % 2 if cards > 1 else int(seat == 0) for seat in range(6)]
        bids[0] += cards - sum(bids)  # the tricks add up to the cards dealt
        for seat, value in enumerate(bids):
            tap_bid(hand, seat, value)
        hand.tap(host.locator(".sk-yoho"))
        host.locator(".sk-result-form").wait_for(timeout=WAIT)
        hand.tap(host.locator(".sk-score-btn"))
        counts.append((hand.taps - before[0], hand.scrolls - before[1]))
    assert counts == [(8, 0)] * 3, counts
    round_title(host, 4, 5)

    # round 4: every phone bids, everyone makes it: "Yo-ho-ho!" and score
    phones = [phone(browser, link, locale="en-US") for link in links]
    for seat, page in enumerate(phones):
        phone_bids(page, 5 if seat == 0 else 1, 4)
    host.locator(".sk-bids-in", has_text="6 of 6 bids in").wait_for(timeout=WAIT)
    before = (hand.taps, hand.scrolls)
    hand.tap(host.locator(".sk-yoho"))
    host.locator(".sk-result-form").wait_for(timeout=WAIT)
    hand.tap(host.locator(".sk-score-btn"))
    round_title(host, 5, 5)
    assert (hand.taps - before[0], hand.scrolls - before[1]) == (2, 0)

    # round 5: phones bid; Sun took one more trick than bid and Ann one fewer (one tap
    # each); Mina took the black 14 and a Pirate with her Skull King (2 taps each)
    for seat, page in enumerate(phones):
        phone_bids(page, 5 if seat == 0 else 1, 5)
    host.locator(".sk-bids-in", has_text="6 of 6 bids in").wait_for(timeout=WAIT)
    hand.tap(host.locator(".sk-yoho"))
    host.locator(".sk-result-form").wait_for(timeout=WAIT)
    before = hand.taps
    hand.tap(host.locator(".sk-trick-row[data-seat='0'] .sk-more"))
    hand.tap(stepper(host, 0, "black_fourteen-0"))
    black = hand.taps - before
    hand.tap(stepper(host, 0, "pirates_by_skull_king-0"))
    second = hand.taps - before - black
    hand.tap(trick_chip(host, 2, 2))
    hand.tap(trick_chip(host, 3, 0))
    # the score button stays in reach, whatever the panels opened above it
    assert host.locator(".sk-actionbar").evaluate("e => getComputedStyle(e).position") == \
        "sticky"
    hand.tap(host.locator(".sk-score-btn"))
    host.locator(".sk-over").wait_for(timeout=WAIT)
    assert (black, second) == (2, 1)  # a first bonus 2 taps, another of that player 1
    assert hand.scrolls == 0
    cells = host.locator(".sk-cell[data-round='5']")
    # Mina 5/5: 100 + 20 + 30; Sun 1/2 and Ann 1/0: −10 each; the others 1/1: 20
    assert [int(cells.nth(s).get_attribute("data-points")) for s in range(6)] == \
        [150, 20, -10, -10, 20, 20]
    print(f"\ntap budget: tablet bids {counts}, phones bid: 2 taps; "
          f"bonus {black} (+{second} for a second of the same player); scrolls {hand.scrolls}")


def test_a_live_refresh_keeps_what_the_host_opened_and_tapped(browser, live_server):
    from companion import store

    host = browser.new_context(viewport=TABLET, locale="en-US").new_page()
    night_url = host_night(host, live_server.url, SIX[:4])
    start_game(host, night_url, way="custom", rounds="3,3", abilities="1")
    hand = Hand(host)
    for seat in range(4):
        tap_bid(hand, seat, 1 if seat < 3 else 0)
    host.locator(".sk-yoho").click()
    host.locator(".sk-result-form").wait_for(timeout=WAIT)
    host.locator(".sk-trick-row[data-seat='1'] .sk-more").click()
    stepper(host, 1, "mermaids_by_pirate-1").click()
    host.locator(".sk-trick-row[data-seat='1'] label.sk-chip:has(input[name=wager-1][value='10'])"
                 ).click()
    trick_chip(host, 2, 0).click()
    trick_chip(host, 3, 1).click()
    live = host.locator("#live").get_attribute("hx-get")
    key = night_url.rsplit("/", 1)[1]
    with live_server.app.app_context():  # another device records something beside the log
        store.note(store.night_by_key(key)["id"], None, 0, "seen")
    host.wait_for_function("old => document.getElementById('live').getAttribute('hx-get') "
                           "!== old", arg=live, timeout=WAIT)
    assert host.locator("#sk-panel-1").is_visible()
    assert host.input_value("input[name=mermaids_by_pirate-1]") == "1"
    assert host.locator("input[name=wager-1]:checked").get_attribute("value") == "10"
    assert host.locator("input[name=won-2]:checked").get_attribute("value") == "0"
    assert host.locator("[data-sk-sum]").inner_text() == "3"
    host.locator(".sk-score-btn").click()
    round_title(host, 2, 2)
    # Jo bid 1, took 1 with a Mermaid his Pirate took, and won his wager: 20 + 20 + 10
    assert host.locator(".sk-cell[data-round='1'][data-seat='1']").get_attribute(
        "data-points") == "50"


def test_no_horizontal_scroll_with_eight_players_of_30_characters(browser, live_server):
    """At a tablet's width and a laptop's: the host's page is resized to each at every
    step of one game, rather than the game played once for each."""
    host = browser.new_context(viewport={"width": 1100, "height": 1024},
                               locale="ko-KR").new_page()

    def scrolls_nowhere(step):
        for width in (768, 1100):
            host.set_viewport_size({"width": width, "height": 1024})
            assert no_horizontal_scroll(host), f"{step} at {width} px"

    night_url = host_night(host, live_server.url, LONG)
    game = start_game(host, night_url, way="custom", rounds="8,8", loot="1", abilities="1",
                      kraken="1")
    scrolls_nowhere("bidding")
    for seat in range(8):
        host.locator(f"form.sk-bid-form[data-seat='{seat}'] button[name=bid][value='1']").click()
        host.locator(f"form.sk-bid-form[data-seat='{seat}'] .done").wait_for(timeout=WAIT)
    host.locator(".sk-yoho").click()
    host.locator(".sk-result-form").wait_for(timeout=WAIT)
    for seat in range(8):
        host.locator(f".sk-trick-row[data-seat='{seat}'] .sk-more").click()
    scrolls_nowhere("tricks, every panel open")
    host.locator(".sk-score-btn").click()
    round_title_ko = host.locator("#sk-round-title", has_text="2라운드 / 총 2라운드")
    round_title_ko.wait_for(timeout=WAIT)
    assert host.locator(".sk-score").is_visible()
    scrolls_nowhere("score table")
    edit = host.locator(".sk-score a.sk-edit").first
    table = host.locator(".sk-score")  # ✎ in the round's first column, at either width:
    for width in (768, 1100):
        host.set_viewport_size({"width": width, "height": 1024})
        box_where(edit, lambda box: box["x"] < (t := box_where(table))["x"] + t["width"] / 4)
    host.goto(game + "/skullking/correct/1")
    scrolls_nowhere("correction")
    host.goto(night_url + "/tally")
    scrolls_nowhere("tally")


#: The players' eight colours (Okabe–Ito), as a chart's lines are stroked.
PALETTE = {"rgb(230, 159, 0)", "rgb(86, 180, 233)", "rgb(0, 158, 115)", "rgb(240, 228, 66)",
           "rgb(0, 114, 178)", "rgb(213, 94, 0)", "rgb(204, 121, 167)", "rgb(153, 153, 153)"}


def test_phones_get_a_stacked_table_and_a_chart_they_can_read(browser, live_server):
    """At 390 px and at 320 px (one phone, resized): at 390 px the chart's words are
    12 px or more; each line is named at its end, not by colour alone (Okabe–Ito
    colours, a marker and a stroke each); the leader is marked."""
    host = browser.new_context(viewport=TABLET, locale="ko-KR").new_page()
    night_url = host_night(host, live_server.url, LONG)
    link = seat_link(host, 1)
    start_game(host, night_url, way="custom", rounds="1,1")
    for seat in range(8):
        host.locator(f"form.sk-bid-form[data-seat='{seat}'] button[name=bid]"
                     f"[value='{int(seat == 3)}']").click()
        host.locator(f"form.sk-bid-form[data-seat='{seat}'] .done").wait_for(timeout=WAIT)
    host.locator(".sk-yoho").click()
    host.locator(".sk-score-btn").click()
    host.locator("#sk-round-title", has_text="2라운드 / 총 2라운드").wait_for(timeout=WAIT)

    page = phone(browser, link)
    for width in (390, 320):
        page.set_viewport_size({"width": width, "height": 844})
        page.locator("svg.sk-chart").wait_for(timeout=WAIT)
        assert no_horizontal_scroll(page)
        assert page.locator(".sk-wide").is_hidden()
        assert page.locator(".sk-player-card").count() == 8
        smallest = page.evaluate("""() => {
            const svg = document.querySelector('svg.sk-chart');
            const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
            return Math.min(...[...svg.querySelectorAll('text')].map(
                t => parseFloat(getComputedStyle(t).fontSize) * scale)); }""")
        if width == 390:
            assert smallest >= 12, smallest
        ends = page.locator("svg.sk-chart text.sk-end")
        assert ends.count() == 8
        # Calico Jack (seat 3) bid 1 and took the trick: the one leader
        leader = page.locator("svg.sk-chart .sk-lead text.sk-end").text_content()
        assert leader.startswith("★ Calico")
        strokes = page.evaluate("""() => [...document.querySelectorAll('svg.sk-chart polyline')]
            .map(l => getComputedStyle(l).stroke)""")
        # each line in its player's colour: the eight of the palette, one each
        assert set(strokes) == PALETTE
        # no two lines alike but for their colour: a marker shape and a dash each
        looks = page.evaluate("""() => [...document.querySelectorAll('svg.sk-chart g.sk-series')]
            .map(g => { const d = g.querySelector('.sk-marker').getAttribute('d');
                        const shape = d.includes('a') ? 'circle' : d.includes('h') ? 'square'
                            : d.split('L').length === 3 ? 'triangle' : 'diamond';
                        return shape + ' ' + getComputedStyle(g.querySelector('polyline'))
                            .strokeDasharray; })""")
        assert len(set(looks)) == 8, looks
