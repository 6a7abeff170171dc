"""A refusal is said in the form that was sent (templates/_refusal.html), through the real
routes: the latecomer's form, one seat's colour form and no other, a game's form, the
statistics' merge; a whole page sent back without htmx opens on it (autofocus)."""

import html as html_text
import re

from bench.builders import make_night
from tests.kraken_host import FOUR
from tests.refusing import status_of

HTMX = {"HX-Request": "true"}


def refusal_in(html, start, end="</form>"):
    """The refusal inside the part of ``html`` from ``start`` to the next ``end``."""
    part = html[html.index(start):]
    part = part[:part.index(end)]
    found = re.search(r'<p class="notice error refusal"[^>]*>([^<]*)</p>', part)
    return html_text.unescape(found.group(1)) if found else None


def test_the_latecomers_refusal_is_in_the_latecomers_form(night):
    answer = night.host.post(f"{night.url}/seats", data={"name": "  "}, headers=HTMX)
    assert status_of(answer) == 422
    html = answer.get_data(as_text=True)
    assert refusal_in(html, 'data-action="seat-join"') == "Type the new player's name."
    assert html.count("notice error refusal") == 1
    assert '<details class="seat-join" open>' in html


def test_a_colour_refused_is_said_at_that_seat_only(night):
    answer = night.host.post(f"{night.url}/seats/2/colour", data={"colour": "mauve"},
                             headers=HTMX)
    assert status_of(answer) == 422
    html = answer.get_data(as_text=True)
    forms = re.finditer(r'<form[^>]*action="[^"]*/seats/(\d)/colour".*?</form>', html, re.S)
    assert [form.group(1) for form in forms if "notice error refusal" in form.group(0)] == ["2"]
    # its folded panel is open, so the refusal is seen without a tap
    assert html.count('<details class="seat-more" open>') == 1


def test_a_game_forms_refusal_is_in_that_form_and_a_whole_page_opens_on_it(night):
    url = night.start("kraken", **FOUR)
    night.host.post(f"{url}/kraken/marker", data={"pos": night.pos(url), "seat": 2})
    # the marker holder cannot reveal their own card
    form = {"pos": night.pos(url), "seat": 2, "card": "empty"}
    html = night.host.post(f"{url}/kraken/reveal", data=form,
                           headers=HTMX).get_data(as_text=True)
    said = refusal_in(html, 'class="kraken-reveal"')
    assert said == "The marker holder cannot reveal their own card."
    assert "autofocus" not in html[html.index('class="notice error refusal"'):][:120]
    whole = night.host.post(f"{url}/kraken/reveal", data=form).get_data(as_text=True)
    assert refusal_in(whole, 'class="kraken-reveal"') == said
    assert re.search(r'class="notice error refusal"[^>]*autofocus', whole)


def test_the_merges_refusal_is_at_the_merge_form(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    night.start("kraken", seat0="on", seat1="on", seat2="on")
    html = night.host.post("/stats/merge", data={"alias": "ann", "into": "nobody"}
                           ).get_data(as_text=True)
    assert refusal_in(html, 'action="/stats/merge"') == "Pick two players from the list."
