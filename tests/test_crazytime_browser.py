"""A whole Crazy Time game in a real browser, from the first match to the final places:
a host tablet and five phones joined by their QR codes, the blue side, a starting law and
secret laws.

Hand calculation (seats 0–4 = Mina, Jo, Sun, Ann, Lee):
  match 1 (6):  2 2 1 1 0  -> Lee wins 1h                 hours 0 0 0 0 1
  match 2 (8):  0 3 3 2 0  -> Mina and Lee win 2h         hours 2 0 0 0 3
  match 3 (10): 3 1 2 1 3  -> Jo and Ann win 3h           hours 2 3 0 3 3
  match 4 (12): 1 2 0 2 7  -> scores 1 1 0 1 -4
  places: Mina 1st (score 1, one match-4 penalty); Jo and Ann share 2nd (score 1, two
  each); Sun 4th (0); Lee 5th (-4): standard competition ranking (docs/rules.md#ranking).
"""

import pytest

from bench.browsing import WAIT, host_night, seat_link
from tests.browsing import phone

pytestmark = pytest.mark.browser

NAMES = ["Mina", "Jo", "Sun", "Ann", "Lee"]
LAWS = {  # name -> (when, what): the secret texts to look for in every page's HTML
    "Echo": ("ECHO-WHEN a card shows 12", "ECHO-WHAT say echo"),
    "Moon": ("MOON-WHEN a moon card", "MOON-WHAT howl"),
    "Tide": ("TIDE-WHEN the hour hand points down", "TIDE-WHAT clap"),
    "Kettle": ("KETTLE-WHEN someone calls 5", "KETTLE-WHAT whistle"),
}


def html_has(page, text):
    return page.evaluate("t => document.documentElement.outerHTML.includes(t)", text)


def wait_html(page, text, present=True):
    page.wait_for_function("([t, p]) => document.documentElement.outerHTML.includes(t) === p",
                           arg=[text, present], timeout=WAIT)


def tap(host, seat, reason=None):
    """One penalty tap on the host's tablet; waits until the tablet shows it."""
    left = host.locator("[data-tokens-left]").get_attribute("data-tokens-left")
    if reason:
        host.locator(".ct-penalty-form select[name=reason]").select_option(label=reason)
    host.locator(f"button[data-penalty-seat='{seat}']").click()
    host.wait_for_function(
        "n => !document.querySelector(`[data-tokens-left='${n}']`)", arg=left, timeout=WAIT)


def play(host, counts, reasons=None):
    reasons = dict(reasons or {})
    for seat, n in enumerate(counts):
        for _ in range(n):
            tap(host, seat, reasons.pop(seat, None))


def enter_law(page, name):
    when, what = LAWS[name]
    form = page.locator(".ct-law-form form")
    form.wait_for(timeout=WAIT)
    form.locator("input[name=name]").fill(name)
    form.locator("input[name=when]").fill(when)
    form.locator("input[name=what]").fill(what)
    form.locator("button[type=submit]").click()


def check_secrecy(host, phones, name, knowers):
    """The law's cards are in the HTML of exactly the knowers' phones, never the host's."""
    when, what = LAWS[name]
    for seat, page in enumerate(phones):
        wait_html(page, name)
        if seat in knowers:
            wait_html(page, when)
        else:
            page.wait_for_timeout(0)
        assert html_has(page, when) == (seat in knowers), (name, NAMES[seat])
        assert html_has(page, what) == (seat in knowers), (name, NAMES[seat])
    wait_html(host, name)
    assert not html_has(host, when) and not html_has(host, what)


def next_match(host, match):
    host.locator(".ct-next-button").click()
    host.locator("[data-match]").filter(has_text=f"{match} of 4").wait_for(timeout=WAIT)


def test_a_whole_blue_game_with_five_phones_and_secret_laws(browser, live_server):
    host = browser.new_context(locale="en-US", viewport={"width": 1024, "height": 1300}
                               ).new_page()
    night_url = host_night(host, live_server.url, NAMES)
    phones = [phone(browser, seat_link(host, i), locale="en-US") for i in range(5)]

    # start: blue side, the harder start
    host.goto(night_url + "/new/crazytime")
    assert host.locator(".ct-new input[type=checkbox][name^=seat]:checked").count() == 5
    host.locator("input[name=side][value=blue]").check()
    host.locator("input[name=starting_law]").check()
    host.locator(".ct-new button[type=submit]").click()
    host.wait_for_url("**/g/1")
    assert host.locator("[data-tokens-left]").get_attribute("data-tokens-left") == "6"

    # the rabbit: Lee is the youngest and gets one of the three extra cards
    host.locator(".ct-deal button", has_text="Lee").click()
    # (the rabbit's choice folds into one line: "Lee holds the rabbit …")
    host.locator(".ct-deal summary", has_text="Lee holds the rabbit").wait_for(timeout=WAIT)
    assert "12 each; one more for Lee, Mina, Jo" in host.locator(".ct-deal").inner_text()

    # the starting law, entered on Jo's phone: everyone knows it
    enter_law(phones[1], "Echo")
    host.locator(".ct-penalty-form").wait_for(timeout=WAIT)
    check_secrecy(host, phones, "Echo", {0, 1, 2, 3, 4})

    # the tick-tock button counts one syllable a second in a live region
    host.locator("[data-ticktock]").click()
    out = host.locator("[data-ticktock-out]")
    assert out.get_attribute("aria-live") == "assertive"
    host.wait_for_function(
        "() => document.querySelector('[data-ticktock-out]').textContent.includes('Tock')",
        timeout=2500)
    host.locator("[data-ticktock]").click()  # somebody played: it stops

    # match 1: Lee wins and leaves; Mina, Jo, Sun, Ann make "Moon" on Sun's phone
    play(host, [2, 2, 1, 1, 0], reasons={0: "Wrong call", 2: "Echo"})
    assert "Lee wins the match and takes the 1h token" in host.locator(".ct-result").inner_text()
    phones[4].locator(".ct-leave").wait_for(timeout=WAIT)
    assert phones[0].locator(".ct-leave").count() == 0
    enter_law(phones[2], "Moon")
    host.locator(".ct-next-button").wait_for(timeout=WAIT)
    check_secrecy(host, phones, "Moon", {0, 1, 2, 3})

    # the table tells Lee the law: from now on Lee's phone has it, behind hold-to-reveal
    host.locator(".ct-learn select[name=seat]").select_option(label="Lee")
    host.locator(".ct-learn select[name=law]").select_option(label="Moon")
    host.locator(".ct-learn button[type=submit]").click()
    wait_html(phones[4], LAWS["Moon"][0])
    secret = phones[4].locator("#ct-laws-secret")
    assert secret.is_hidden()
    phones[4].locator("[data-hold=ct-laws-secret]").hover()
    phones[4].mouse.down()
    assert LAWS["Moon"][1] in secret.inner_text()
    phones[4].mouse.up()
    assert secret.is_hidden()
    check_secrecy(host, phones, "Moon", {0, 1, 2, 3, 4})

    # match 2: Mina and Lee win; the law is entered on the tablet
    next_match(host, 2)
    play(host, [0, 3, 3, 2, 0], reasons={1: "Moon"})
    assert "Mina, Lee win the match and take the 2h token" in host.locator(
        ".ct-result").inner_text()
    enter_law(host, "Tide")
    host.locator(".ct-next-button").wait_for(timeout=WAIT)
    check_secrecy(host, phones, "Tide", {1, 2, 3})

    # match 3: Jo and Ann win; Lee enters the law on their phone
    next_match(host, 3)
    play(host, [3, 1, 2, 1, 3])
    phones[1].locator(".ct-leave").wait_for(timeout=WAIT)
    phones[3].locator(".ct-leave").wait_for(timeout=WAIT)
    enter_law(phones[4], "Kettle")
    host.locator(".ct-next-button").wait_for(timeout=WAIT)
    check_secrecy(host, phones, "Kettle", {0, 2, 4})
    for name in ("Moon", "Tide"):  # the earlier laws are still where they were
        check_secrecy(host, phones, name, {"Moon": {0, 1, 2, 3, 4}, "Tide": {1, 2, 3}}[name])

    # match 4: the final standings against the hand calculation
    next_match(host, 4)
    play(host, [1, 2, 0, 2, 7])
    table = host.locator(".ct-final .ct-standings tbody tr")
    table.first.wait_for(timeout=WAIT)
    rows = [[cell.strip() for cell in table.nth(i).inner_text().split("\t")]
            for i in range(table.count())]
    assert rows == [
        ["1", "Mina", "2", "1", "1"],
        ["2 (shared)", "Jo", "3", "2", "1"],
        ["2 (shared)", "Ann", "3", "2", "1"],
        ["4", "Sun", "0", "0", "0"],
        ["5", "Lee", "3", "7", "-4"],
    ]
    # every law is revealed to everyone, with who made it
    for page in phones + [host]:
        for when, what in LAWS.values():
            wait_html(page, when)
            assert html_has(page, what)
    phones[0].locator(".takeover[data-open]").click()  # the end is said big first: a tap
    phones[0].locator(".ct-final").wait_for(timeout=WAIT)
    assert "Made by Mina, Sun, Lee." in phones[0].locator(".ct-final").inner_text()
