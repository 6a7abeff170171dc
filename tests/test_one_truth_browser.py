"""One truth per moment: every line of a screen that speaks of the game's moment ("leave
the room now!", "call them back", "Round 1 over: deal 4 each") carries the moment it is
drawn for (data-moment, its game's ``moment``), and on the host's tablet, the room's
screen and the phones, every one of them that is drawn agrees with the narrator's line,
in every moment of every game. While the screens count to Skull King's bids, the narrator
says the call, not who leads the first trick, until the count's last word; and the TV's
count is in Skull King's crimson, as the phones' is."""

import pytest

from bench.browsing import WAIT, claim, host_night, seat_link, start_game
from bench.builders import ev, kraken_setup, store_game
from bench.layout_night import (
    KRAKEN_ROLES,
    MATCH,
    crazytime,
    kraken,
    make_night,
    seat_url,
    show_on_phones,
    skullking,
)
from companion.crazytime import rules as ct
from tests.skullking_browsing import phone_bids

pytestmark = pytest.mark.browser

NAMES = ["Mina", "Jo", "Sun", "Ann", "Lee", "Kim", "Bo", "Dan"]

#: Every line drawn on the page (not hidden, not out of sight) that names its moment.
MOMENTS = """() => [...document.querySelectorAll('[data-moment]')]
  .filter(e => e.checkVisibility({visibilityProperty: true, opacityProperty: false}))
  .map(e => [e.dataset.moment, e.textContent.replace(/\\s+/g, ' ').trim().slice(0, 80)])"""


def crazytime_after(match_penalties, *more):
    """Crazy Time, the rabbit given, one match's penalties, then ``more`` events."""
    game = crazytime([])
    game["events"] += [ev("penalty", seat=seat, reason="wrong_call")
                       for seat, count in match_penalties.items() for _ in range(count)]
    game["events"] += list(more)
    return game


LAW = ev("law", name="Moonlight", when="an even hour is called", what="clap once")

#: Each game in each of its moments: (label, the stored game, the moment the narrator
#: is drawn for).
WALK = [
    ("kraken: roles", lambda: {"kind": "kraken", "setup": kraken_setup(KRAKEN_ROLES, "s"),
                               "events": []}, "roles"),
    ("kraken: reveal", lambda: kraken(["empty", "treasure"]), "reveal"),
    ("kraken: round over", lambda: kraken(["empty", "treasure", "empty", "empty", "treasure",
                                           "empty", "empty", "empty"]), "round-over"),
    ("kraken: next round", lambda: kraken(["empty", "treasure", "empty", "empty", "treasure",
                                           "empty", "empty", "empty", "empty"]), "reveal"),
    ("kraken: end", lambda: kraken(["empty", "treasure", "empty", "treasure", "kraken"]),
     "finished"),
    ("skull king: bidding", lambda: skullking(0, False), "bidding"),
    ("skull king: tricks", lambda: skullking(0, True), "tricks"),
    ("skull king: next round", lambda: skullking(1, False), "bidding"),
    ("skull king: end", lambda: skullking(2, False), "finished"),
    ("crazy time: play", lambda: crazytime_after({1: 2}), "play"),
    # Mina has no penalty: she wins match 1 and leaves; the rest make the law
    ("crazy time: leave", lambda: crazytime_after(MATCH), "leave"),
    ("crazy time: back", lambda: crazytime_after(MATCH, LAW), "back"),
    ("crazy time: match 2", lambda: crazytime_after(MATCH, LAW, ev("next_match")), "play"),
    # six players with no penalty: fewer than 2 would stay, nobody leaves
    ("crazy time: nobody leaves", lambda: crazytime_after({6: sum(MATCH.values())}), "law"),
    ("crazy time: nobody left, law made",
     lambda: crazytime_after({6: sum(MATCH.values())}, LAW), "back"),
    ("crazy time: end", lambda: crazytime([MATCH, MATCH, MATCH, {0: 1, 1: 1, 2: 2, 3: 2,
                                                                 4: 2, 5: 2, 6: 2}]),
     "finished"),
]


def test_every_line_of_every_screen_agrees_on_the_moment_in_every_game(browser, live_server):
    base = live_server.url
    live_server.app.config["END_HELD"] = False  # a Kraken end shows at once (its own test)
    tv = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-US")
    host = tv.new_page()
    key = make_night(host, base, NAMES)
    device = next(c["value"] for c in tv.cookies() if c["name"] == "device")
    tablet = tv.new_page()
    tablet.set_viewport_size({"width": 768, "height": 1024})
    # Mina (the Crazy Time winner, a Kraken and Skull King player) and Jo, on their phones
    phones = []
    for position in (0, 1):
        context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
        page = context.new_page()
        page.goto(seat_url(live_server.app, base, key, position))
        claim(page)
        phones.append(page)
    assert ct.MATCHES == 4
    disagreements, walked = [], []
    for label, make, expected in WALK:
        number = store_game(live_server.app, device, key, make()).number
        show_on_phones(live_server.app, key, number)
        host.goto(f"{base}/n/{key}/screen")
        tablet.goto(f"{base}/n/{key}/g/{number}")
        # the room's screen always narrates, in one line; the tablet does until the end
        line = host.locator(".next-step:visible")
        assert line.count() == 1, label
        assert line.get_attribute("data-moment") == expected, label
        assert tablet.locator(".next-step:visible").count() <= 1, label
        if expected == "round-over":  # said once on the TV: by the narrator
            assert host.locator(".round-over:visible").count() == 0
        walked.append(expected)
        for page in phones:
            page.reload()
            page.locator("#live").wait_for(state="attached", timeout=WAIT)
        for name, page in [("TV", host), ("tablet", tablet), ("Mina's phone", phones[0]),
                           ("Jo's phone", phones[1])]:
            for moment, text in page.evaluate(MOMENTS):
                if moment != expected:
                    disagreements.append(f"{label}, {name}: {text!r} is drawn for {moment!r}")
    assert not disagreements, "\n".join(disagreements)
    # the walk went through every moment of the three games
    assert set(walked) >= {"roles", "reveal", "round-over", "bidding", "tricks", "play",
                           "leave", "back", "law", "finished"}


def test_after_the_law_the_winner_is_called_back_in_by_the_law_s_name(browser, live_server):
    """The review's bug: after the law, the winner's phone and the TV still said "leave
    the room now!" under "call them back"."""
    base = live_server.url
    tv = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-US")
    host = tv.new_page()
    key = make_night(host, base, NAMES[:7])
    device = next(c["value"] for c in tv.cookies() if c["name"] == "device")
    mina = browser.new_context(viewport={"width": 390, "height": 844},
                               locale="en-US").new_page()
    mina.goto(seat_url(live_server.app, base, key, 0))
    claim(mina)
    jo = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US").new_page()
    jo.goto(seat_url(live_server.app, base, key, 1))
    claim(jo)
    game = crazytime_after(MATCH)
    number = store_game(live_server.app, device, key, game).number
    show_on_phones(live_server.app, key, number)
    host.goto(f"{base}/n/{key}/screen")
    mina.reload()
    assert "leave the room now" in mina.locator(".ct-leave").inner_text()
    assert "leave the room now" in host.locator(".ct-result").inner_text()
    store_game(live_server.app, device, key, crazytime_after(MATCH, LAW))
    show_on_phones(live_server.app, key, number + 1)
    host.goto(f"{base}/n/{key}/screen")
    mina.reload()
    assert "Come back in: the new law is called Moonlight" in mina.locator(".ct-back"
                                                                         ).inner_text()
    assert mina.locator(".ct-leave").count() == 0
    assert "an even hour" not in mina.content()  # she does not know its cards
    jo.reload()  # a maker's phone: recorded, and whom to call back
    assert "The law is recorded: call Mina back in" in jo.locator(".ct-recorded").inner_text()
    shown = host.locator(".ct-result").inner_text()
    assert "come back in" in shown and "Moonlight" in shown and "leave" not in shown


@pytest.fixture
def pushing(server_process):
    """A served app with live push (a reveal counts only with it) and a 6 s lead, so that
    every screen is drawn during the count on a busy machine too."""
    server_process.env = {"COMPANION_POLL_SECONDS": "30", "COMPANION_REVEAL_LEAD_MS": "6000"}
    return server_process.start()


def test_the_narrator_holds_the_lead_until_the_bids_flip_and_the_count_is_crimson(
        browser, pushing):
    context = browser.new_context(locale="en-US", viewport={"width": 1920, "height": 1080})
    host = context.new_page()
    night_url = host_night(host, pushing.url, ["Mina", "Jo", "Sun"])
    phones = []
    for seat in range(3):
        page = browser.new_context(viewport={"width": 390, "height": 844},
                                   locale="en-US").new_page()
        page.goto(seat_link(host, seat))
        claim(page)
        phones.append(page)
    start_game(host, night_url, way="custom", rounds="1")
    screen = context.new_page()
    screen.goto(night_url + "/screen")
    screen.wait_for_function("() => document.documentElement.dataset.push === 'open'",
                             timeout=WAIT)
    for page in phones:
        phone_bids(page, 0, 1)
    host.locator(".sk-bids-in", has_text="3 of 3 bids in").wait_for(timeout=WAIT)
    host.locator(".sk-yoho").click()
    # while the TV counts: the call, never who leads; the count's word in crimson
    screen.wait_for_function("() => document.documentElement.hasAttribute('data-revealing')"
                             " && document.querySelector('.reveal-count:not([hidden])')",
                             timeout=WAIT)
    line = screen.locator(".next-step:visible")
    assert line.count() == 1
    assert line.get_attribute("data-moment") == "yo-ho-ho"
    assert "Yo-ho-ho" in line.inner_text() and "leads" not in line.inner_text()
    colour = screen.eval_on_selector(".reveal-count", "e => getComputedStyle(e).color")
    assert colour == "rgb(166, 30, 77)", colour  # --skullking-accent, as on the phones
    # at the count's last word, the lead
    screen.wait_for_function("() => document.documentElement.hasAttribute("
                             "'data-reveal-flipped')", timeout=WAIT)
    line = screen.locator(".next-step:visible")
    assert line.count() == 1 and line.get_attribute("data-moment") == "tricks"
    assert "leads the first trick" in line.inner_text()
