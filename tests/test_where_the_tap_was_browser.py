"""Answers where the tap was, on the host's 768 × 1024 tablet: what the host taps next is
on screen without a scroll in every phase of No Touch Kraken and Crazy Time (Skull King's
round is held to its tap budget in test_skullking_browser.py); Kraken's Special step comes
above the next reveal and folds once recorded; a refusal shows in the form that was sent,
and a form that succeeded is empty again; after a game the table page names its winners
over the new-game buttons."""

import pytest

from bench.browsing import WAIT, host_night
from tests.browsing import box_where
from tests.skullking_browsing import TABLET, Hand

pytestmark = pytest.mark.browser

FIVE = ["Mina", "Jo", "Sun", "Ann", "Bartholomew the Unsinkable"]


class Finger(Hand):
    """The host's finger (:class:`Hand`), noting what it had to scroll to."""

    def __init__(self, page):
        super().__init__(page)
        self.scrolled = []

    def tap(self, locator):
        before = self.scrolls
        super().tap(locator)
        if self.scrolls > before:
            self.scrolled.append(str(locator))


def tablet(browser):
    return browser.new_context(viewport=TABLET, locale="en-US").new_page()


def settled(host, selector):
    """Waits until ``selector`` is on the page (a tap's answer has come)."""
    host.locator(selector).first.wait_for(timeout=WAIT)


def reveal(hand, seat_name, card):
    """Kraken's two taps of a reveal: whose card, then what it was."""
    hand.tap(hand.page.locator(".kraken-reveal label.tap", has_text=seat_name))
    hand.tap(hand.page.locator(".kraken-reveal .card-buttons").get_by_role(
        "button", name=card, exact=True))


@pytest.mark.parametrize("names", [FIVE, [*FIVE, "Kim", "Lee", "Park"]], ids=["5", "8"])
def test_every_kraken_step_is_in_view_and_a_special_comes_before_the_next_reveal(
        browser, live_server, names):
    host = tablet(browser)
    night_url = host_night(host, live_server.url, names)
    host.goto(night_url + "/new/kraken")
    host.locator("form.kraken-new input[name=specials]").check()
    host.locator("form.kraken-new button[type=submit]").click()
    host.wait_for_url("**/g/1")
    hand = Finger(host)

    # the marker is given; the checklist and who saw their role fold away
    hand.tap(host.locator(".kraken-marker button", has_text="Sun"))
    settled(host, ".kraken-reveal")
    assert host.locator(".kraken-checklist").get_attribute("open") is None
    assert host.locator(".kraken-seen").get_attribute("open") is None

    # a Special card: its step is open above the next reveal, which waits behind a tap
    reveal(hand, "Ann", "Captain's Obsession")
    settled(host, ".kraken-specials[open]")
    specials = box_where(host.locator(".kraken-specials"))
    after = box_where(host.locator(".kraken-after-special > summary"))
    assert specials["y"] + specials["height"] <= after["y"]
    hand.tap(host.locator(".kraken-specials summary", has_text="out of turn"))
    out = host.locator("[data-action=kraken-special-reveal]")
    hand.tap(out.locator("label.tap", has_text="Jo"))
    hand.tap(out.locator(".card-buttons button[value=empty]"))
    # recorded: the step folds, and no button of it is left to record it twice
    settled(host, ".kraken-specials:not([open])")
    assert out.locator("button").filter(visible=True).count() == 0
    assert host.locator(".kraken-after-special").count() == 0

    # the rest of round 1 (an action a player), then the deal that ends it
    marker, others = "Ann", [n for n in names if n != "Ann"]
    for action in range(2, len(names) + 1):
        name = others[(others.index(marker) + 1) % len(others)] if marker in others else \
            others[0]
        reveal(hand, name, "Empty box")
        marker = name
        settled(host, f".kraken-reveal legend:has-text('{name} has the marker')"
                if action < len(names) else ".kraken-dealt:not(.kraken-after-special)")
    hand.tap(host.locator(".kraken-dealt > summary"))
    first = next(n for n in names if n != marker)
    reveal(hand, first, "Treasure")
    settled(host, f".kraken-reveal legend:has-text('{first} has the marker')")
    reveal(hand, next(n for n in names if n != first), "Kraken")
    settled(host, ".kraken-end")
    hand.tap(host.locator("form.kraken-next button[type=submit]"))
    host.wait_for_url("**/g/2")
    hand.tap(host.locator(".kraken-marker button", has_text="Mina"))
    settled(host, ".kraken-reveal")
    assert hand.scrolled == [], f"{hand.taps} taps"


def test_every_crazy_time_step_is_in_view(browser, live_server):
    """Seven players (the most), the blue side and the harder start: the rabbit, the
    starting law, the penalties of match 1, the new law and match 2."""
    host = tablet(browser)
    night_url = host_night(host, live_server.url, [*FIVE, "Kim", "Lee"])
    host.goto(night_url + "/new/crazytime")
    host.locator("input[name=side][value=blue]").check()
    host.locator("input[name=starting_law]").check()
    host.locator("form.ct-new button[type=submit]").click()
    host.wait_for_url("**/g/1")
    hand = Finger(host)

    def law(name):
        for field, text in (("name", name), ("when", f"{name} when"), ("what", f"{name} what")):
            hand.tap(host.locator(f".ct-law-form input[name={field}]"))
            host.locator(f".ct-law-form input[name={field}]").fill(text)
        hand.tap(host.locator(".ct-law-form button[type=submit]"))

    hand.tap(host.locator(".ct-deal button", has_text="Lee"))
    settled(host, ".ct-deal:has-text('Lee holds the rabbit')")
    law("Echo")
    settled(host, ".ct-penalty-form")
    # match 1 has 6 tokens: six players take one each, Lee none and wins
    for given, seat in enumerate(range(6), start=1):
        hand.tap(host.locator(f".ct-penalty-form [data-penalty-seat='{seat}']"))
        if given < 6:
            settled(host, f"[data-tokens-left='{6 - given}']")
    settled(host, ".ct-result")
    law("Moon")
    settled(host, ".ct-next-button")
    hand.tap(host.locator(".ct-next-button"))
    settled(host, "[data-match]:has-text('2 of 4')")
    hand.tap(host.locator(".ct-penalty-form [data-penalty-seat='6']"))
    settled(host, "[data-tokens-left='7']")
    assert hand.scrolled == [], f"{hand.taps} taps"


def test_the_latecomer_form_answers_in_itself_and_is_empty_after_an_add(browser, live_server):
    host = tablet(browser)
    night_url = host_night(host, live_server.url, ["Mina", "Jo", "Sun"])
    host.goto(night_url + "/new/kraken")
    host.locator("form.kraken-new button[type=submit]").click()
    host.wait_for_url("**/g/1")
    host.goto(night_url)
    running = box_where(host.locator(".running-game"))
    join = host.locator(".seat-join")
    join.locator("summary").click()
    field = join.locator("input[name=name]")
    field.fill("Bartholomew")
    join.locator("button[type=submit]").click()

    # added: the new seat's code is in the form's answer, the field empty for the next one,
    # and the running game keeps its place at the top of the page
    host.locator(".seat-card", has_text="Bartholomew").wait_for(state="attached", timeout=WAIT)
    added = host.locator(".seat-join-added")
    assert "Bartholomew has a seat" in added.inner_text()
    host.wait_for_function("img => img.complete && img.naturalWidth > 0",
                           arg=added.locator("img").element_handle(), timeout=WAIT)
    assert field.input_value() == ""
    assert box_where(host.locator(".running-game")) == running

    # the same name again (typed and sent with Enter): refused in the form, right above
    # the field; the page's top line does not say it too
    field.fill("bartholomew")
    field.press("Enter")
    refusal = join.locator(".refusal")
    refusal.wait_for(timeout=WAIT)
    assert "Two players are called" in refusal.inner_text()
    told, sent = box_where(refusal), box_where(join.locator("button[type=submit]"))
    assert 0 <= sent["y"] - (told["y"] + told["height"]) < 120
    assert 0 <= told["y"] < TABLET["height"]
    assert host.locator("#live > .notice.error").is_hidden()
    assert field.input_value() == "bartholomew"  # what was refused is kept to correct


def test_the_latecomer_s_code_stays_when_a_refresh_of_the_same_moment_lands_after_it(
        browser, server_process):
    """The add's own news reaches the page before the add's answer: the page asks for a
    refresh, which lands after the answer and brings the same moment without the new
    seat's code (the answer alone holds it). It is dropped, so the code stays."""
    host = tablet(browser)
    night_url = host_night(host, server_process.start().url, ["Mina", "Jo", "Sun"])
    host.goto(night_url)
    host.wait_for_function("() => document.documentElement.dataset.push === 'open'",
                           timeout=WAIT)
    held = {}

    def hold_the_add(route):
        held["add"] = (route, route.fetch())

    def hold_a_refresh(route):
        if "refresh" in held:
            route.continue_()
        else:
            held["refresh"] = (route, route.fetch())

    host.route("**/seats", hold_the_add)
    host.route("**/live?*", hold_a_refresh)
    join = host.locator(".seat-join")
    join.locator("summary").click()
    join.locator("input[name=name]").fill("Bartholomew")
    join.locator("button[type=submit]").click()
    for _ in range(200):
        if "add" in held and "refresh" in held:
            break
        host.wait_for_timeout(50)
    assert set(held) == {"add", "refresh"}, "the page did not refresh on the add's news"

    route, answer = held["add"]
    route.fulfill(response=answer)
    added = host.locator(".seat-join-added")
    added.wait_for(timeout=WAIT)
    host.evaluate("""() => { window.__landed = new Promise((done) => document.addEventListener(
      'htmx:afterRequest', () => setTimeout(done, 200), {once: true})); }""")
    route, answer = held["refresh"]
    assert "seat-join-added" not in answer.text()  # the refresh alone would take it away
    route.fulfill(response=answer)
    host.evaluate("() => window.__landed")
    assert "Bartholomew has a seat" in added.inner_text()


def test_after_a_game_the_table_page_names_the_winners_and_the_next_game(browser, live_server):
    host = tablet(browser)
    night_url = host_night(host, live_server.url, ["Mina", "Jo", "Sun", "Ann"])
    host.goto(night_url + "/new/kraken")
    host.locator("form.kraken-new button[type=submit]").click()
    host.wait_for_url("**/g/1")
    host.locator(".kraken-marker button", has_text="Sun").click()
    settled(host, ".kraken-reveal")
    host.locator(".kraken-reveal label.tap", has_text="Ann").click()
    host.locator(".kraken-reveal .card-buttons button", has_text="Kraken").click()
    settled(host, ".kraken-end")
    winners = host.locator(".kraken-end .winners").inner_text()

    host.goto(night_url)
    ended = host.locator(".ended-game")
    assert "Game #1" in ended.inner_text() and "Pick the next game" in ended.inner_text()
    for name in winners.removeprefix("Winners:").split(","):
        assert name.strip() in ended.locator(".ended-winners").inner_text()
    # the finished game is not "on the phones" any more, and the next game is in view
    assert host.locator(".games .on-phones").count() == 0
    button = box_where(host.locator("a.new-game").first)
    assert button["y"] + button["height"] <= TABLET["height"]
    assert box_where(ended)["y"] < button["y"]
