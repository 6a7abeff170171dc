"""No Touch Kraken's Special cards at a real table: once a Special is face up the host
records what it did (the marker moved, a card revealed out of turn, a role shown to one
player) and takes each back with Undo; a shown role reaches the viewer's phone alone."""

import pytest

from bench.browsing import WAIT, host_night, seat_link
from tests.browsing import ROLE_WORDS, axe_violations, dealt_roles, phone, roles_in

pytestmark = pytest.mark.browser

NAMES = ["Mina", "Jo", "Sun", "Ann"]


def start_with_specials(host, base, *, phones=0):
    """A Kraken game with the Special cards, and the first ``phones`` seats' phones."""
    night_url = host_night(host, base, NAMES)
    pages = [phone(host.context.browser, seat_link(host, i), locale="en-US")
             for i in range(phones)]
    host.goto(night_url + "/new/kraken")
    host.locator("form.kraken-new input[name=specials]").check()
    host.locator("form.kraken-new button[type=submit]").click()
    host.wait_for_url("**/g/1")
    return pages


def reveal(host, seat, card):
    host.locator(".kraken-reveal label.tap", has_text=NAMES[seat]).click()
    host.locator(".kraken-reveal .card-buttons button", has_text=card).click()


def history(host):
    return host.locator(".history ol").text_content()


def open_move(specials, summary):
    """Opens one of the Special card's moves (a refresh keeps an open one open), and the
    Special card's step first where it is folded (a move was recorded since the card)."""
    if specials.get_attribute("open") is None:
        specials.locator("> summary").click()
    move = specials.locator("details", has=specials.page.locator("summary", has_text=summary))
    if move.get_attribute("open") is None:
        move.locator("summary").click()


def undo(host):
    host.locator(".log-controls button", has_text="Undo").click()


def test_a_special_moves_the_marker_and_reveals_out_of_turn_to_the_end(browser, live_server):
    host = browser.new_context(locale="en-US", viewport={"width": 768, "height": 1024}).new_page()
    start_with_specials(host, live_server.url)
    host.locator(".kraken-marker button", has_text="Sun").click()
    # no Special face up yet: nothing to record about one
    reveal(host, 3, "Empty box")
    host.locator('[data-k="marker"]', has_text="Ann").wait_for(timeout=WAIT)
    assert host.locator(".kraken-specials").count() == 0

    reveal(host, 0, "Captain's Obsession")
    specials = host.locator(".kraken-specials")
    specials.wait_for(timeout=WAIT)
    assert host.locator('[data-k="marker"]').inner_text() == "Mina"
    assert host.locator('[data-k="action"]').inner_text() == "3/4"

    # the card passes the marker to Jo: no action is used
    open_move(specials, "action marker")
    specials.locator("[data-action=kraken-special-marker] button", has_text="Jo").click()
    host.locator('[data-k="marker"]', has_text="Jo").wait_for(timeout=WAIT)
    assert host.locator('[data-k="action"]').inner_text() == "3/4"
    assert "Special card: the action marker goes to Jo." in history(host)
    undo(host)
    host.locator('[data-k="marker"]', has_text="Mina").wait_for(timeout=WAIT)

    # a card turned out of turn is counted but is not an action; a Kraken ends the game
    specials = host.locator(".kraken-specials")
    open_move(specials, "out of turn")
    out = specials.locator("[data-action=kraken-special-reveal]")
    out.locator("label.tap", has_text="Sun").click()
    out.locator(".card-buttons button[value=treasure]").click()
    host.locator('[data-revealed="treasure"]', has_text="1").wait_for(timeout=WAIT)
    assert host.locator('[data-k="action"]').inner_text() == "3/4"
    assert host.locator('[data-k="marker"]').inner_text() == "Mina"
    assert host.locator('[data-front="2"]').inner_text() == "4"

    specials = host.locator(".kraken-specials")
    open_move(specials, "out of turn")
    out = specials.locator("[data-action=kraken-special-reveal]")
    out.locator("label.tap", has_text="Jo").click()
    out.locator(".card-buttons button[value=kraken]").click()
    host.locator(".kraken-end").wait_for(timeout=WAIT)
    assert "The Skeletons win!" in host.locator(".kraken-end").inner_text()

    # Undo brings the game back, with the marker where the out-of-turn card left it
    undo(host)
    host.locator(".kraken-reveal").wait_for(timeout=WAIT)
    assert host.locator(".kraken-end").count() == 0
    assert host.locator('[data-k="marker"]').inner_text() == "Mina"
    assert host.locator('[data-revealed="kraken"]').inner_text() == "0"
    assert axe_violations(host) == []


def test_a_shown_role_is_on_the_viewers_phone_alone(browser, live_server):
    host = browser.new_context(locale="en-US").new_page()
    phones = start_with_specials(host, live_server.url, phones=4)
    roles = dealt_roles(live_server.app, host.url)
    host.locator(".kraken-marker button", has_text="Sun").click()
    reveal(host, 1, "Revealed Identity")

    specials = host.locator(".kraken-specials")
    specials.wait_for(timeout=WAIT)
    open_move(specials, "shown")
    form = specials.locator("[data-action=kraken-special-role]")
    form.locator("fieldset").nth(0).locator("label.tap", has_text="Mina").click()
    form.locator("fieldset").nth(1).locator("label.tap", has_text="Ann").click()
    form.locator("button[type=submit]").click()
    host.locator(".history li", has_text="Ann sees Mina's role").wait_for(state="attached",
                                                                        timeout=WAIT)
    assert roles_in(host.content()) == []

    ann = phones[3]
    button = ann.locator("[data-hold=shown-0]")
    button.wait_for(timeout=WAIT)
    assert "Mina" in ann.locator(".shown-role .whose").inner_text()
    secret = ann.locator("#shown-0")
    assert secret.is_hidden()
    button.hover()
    ann.mouse.down()
    assert secret.locator(".secret").inner_text() == ROLE_WORDS[roles["0"]]
    ann.mouse.up()
    assert secret.is_hidden()
    assert sorted(roles_in(ann.content())) == sorted([ROLE_WORDS[roles["3"]],
                                                      ROLE_WORDS[roles["0"]]])
    # Jo and Sun (and Mina herself) see only their own role, and no hold for Mina's
    for position in (0, 1, 2):
        page = phones[position]
        page.reload()
        page.locator(".kraken-glance").wait_for(timeout=WAIT)
        assert page.locator("[data-hold^=shown]").count() == 0
        assert roles_in(page.content()) == [ROLE_WORDS[roles[str(position)]]]

    # Undo takes the showing back from Ann's phone too
    undo(host)
    ann.locator("[data-hold=shown-0]").wait_for(state="detached", timeout=WAIT)
    assert roles_in(ann.content()) == [ROLE_WORDS[roles["3"]]]


def test_a_note_goes_into_the_history(browser, live_server):
    host = browser.new_context(locale="ko-KR", viewport={"width": 390, "height": 844}).new_page()
    night_url = host_night(host, live_server.url, NAMES)
    host.goto(night_url + "/new/kraken")
    host.locator("form.kraken-new button[type=submit]").click()
    host.wait_for_url("**/g/1")
    note = host.locator(".kraken-note")
    note.locator("summary").click()
    note.locator("input[name=text]").fill("  선장의 집착:   민아가 한 번 더  ")
    note.locator("button[type=submit]").click()
    host.locator(".history li", has_text="선장의 집착: 민아가 한 번 더").wait_for(
        state="attached", timeout=WAIT)
    # the page does not scroll sideways at 390 px
    assert host.evaluate("document.documentElement.scrollWidth") <= 390
