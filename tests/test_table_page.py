"""The table page by the night's phases, through the real routes: the seat codes first
until every phone joined (with how many did), then the game on the phones and the new
games, the codes under "More"; its own title; the statistics one tap away."""

import re

from bench.builders import make_night
from companion.play import actions, seen
from tests.kraken_host import FOUR, play
from tests.pages import unmarked


def page(night):
    night.host.set_cookie("lang", "en")
    return night.host.get(night.url).get_data(as_text=True)


def where(html, *needles):
    return [html.index(n) for n in needles]


def test_a_fresh_night_puts_the_seat_codes_first_and_counts_no_phone_joined(night):
    html = page(night)
    assert "0 of 5 phones joined" in html
    seats, games, more = where(html, 'class="night-seats"', 'id="night-play-title"',
                               'id="night-more-title"')
    assert seats < games < more
    assert html.index('class="seat-card') < games  # the codes themselves, not a link
    assert "<details class=\"night-seats\"" not in html


def test_a_claim_moves_the_count_on(night):
    night.phone(0)
    html = page(night)
    assert "1 of 5 phones joined" in html and "0 of 5" not in html
    # the live fragment the table page refreshes itself with says the same
    assert "1 of 5 phones joined" in night.host.get(f"{night.url}/live").get_data(as_text=True)


def test_a_seat_on_the_tablet_or_gone_needs_no_phone(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    night.host.post(f"{night.url}/seats/1/tablet", data={"on": "1"})
    night.host.post(f"{night.url}/seats/2/leave", data={"on": "1"})
    assert "0 of 1 phone joined" in page(night)


def test_once_every_phone_joined_the_game_comes_first_and_the_codes_sit_under_more(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    for position in range(3):
        night.phone(position)
    html = page(night)
    games, buttons, more, codes = where(
        html, 'id="night-play-title"', 'class="new-game accent-', 'id="night-more-title"',
        '<details class="night-seats">')
    assert games < buttons < more < codes < html.index('class="seat-card')
    assert "3 of 3 phones joined" in html[codes:]
    # every new-game button wears its game's colour and sign
    assert set(re.findall(r'class="new-game accent-(\w+)"', html)) == {"skullking", "kraken"}

    night.start("skullking", seat0="on", seat1="on", seat2="on")
    html = page(night)
    card = html[html.index('<article class="running-game'):html.index("</article>")]
    assert "accent-skullking" in card and "Skull King" in card
    assert "Game #1 · Round 1 of" in card and "Go to the game" in card
    assert html.index('class="running-game') < html.index('class="new-game')
    assert html.index('class="running-game') < html.index('id="night-more-title"')


def test_once_every_phone_joined_a_latecomer_is_one_tap_under_more(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    html = page(night)
    # while phones join, the form is under the codes
    assert html.index('class="seat-card') < html.index('class="seat-join"') < html.index(
        'id="night-play-title"')
    for position in range(3):
        night.phone(position)
    html = page(night)
    more, join, codes = where(html, 'id="night-more-title"', '<details class="seat-join"',
                              '<details class="night-seats">')
    # its own fold under "More", not inside the folded codes (which took two taps)
    assert more < join < codes
    assert "</details>" in html[join:codes]
    assert html.count('class="seat-join"') == 1
    assert "Someone arrived late? Add a player" in html[join:codes]


def test_the_table_page_has_its_own_title_and_links_the_statistics(night):
    html = page(night)
    assert "<title>The night's table · Companion</title>" in html
    assert re.search(r"<h1>The night's table</h1>", html)
    assert 'href="/stats"' in html
    start = night.host.get("/").get_data(as_text=True)
    assert "<h1>Game night</h1>" in start  # the start page keeps its own
    night.host.set_cookie("lang", "ko")
    html = night.host.get(night.url).get_data(as_text=True)
    assert "<title>진행자 화면 · " in html and "휴대폰 5대 중 0대" in html


def test_a_finished_game_names_its_winners_over_the_new_game_buttons(app):
    night = make_night(app, ["Ann", "Bo", "Cy", "Di"])
    url = night.start("kraken", **FOUR)
    play(night, url, ["kraken"])  # the Skeletons win at once
    html = unmarked(page(night))
    ended = html[html.index('<article class="ended-game'):html.index("</article>")]
    assert "Game #1" in ended and "Pick the next game:" in ended
    winners = [s for s in ("Ann", "Bo", "Cy", "Di") if re.search(rf"\b{s}\b", ended)]
    assert winners and html.index('class="ended-game') < html.index('class="new-game')
    assert 'class="status on-phones"' not in html  # a finished game is on no phone


def test_an_end_held_back_names_no_winner_on_the_table_page_until_it_shows(
        app, monkeypatch):
    app.config["END_HELD"] = True
    monkeypatch.setattr(actions, "later", lambda seconds, work: None)
    night = make_night(app, ["Ann", "Bo", "Cy", "Di"])
    url = night.start("kraken", **FOUR)
    play(night, url, ["kraken"])
    html = page(night)
    assert "ended-game" not in html and 'class="running-game' in html
    now = seen.time.time()
    monkeypatch.setattr(seen.time, "time", lambda: now + 60)
    assert "ended-game" in page(night)
