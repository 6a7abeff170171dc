"""Way-finding and words, through the real routes: the latest night
first on the start page, a roster that starts with four seats, the 404 of a night's
address explaining `companion host-link`, a form refused for its token that keeps what
was typed, and messages that name players and count in the reader's grammar."""

import re
import sqlite3

import pytest

from companion.app import create_app
from companion.store.connection import connect
from tests.conftest import make_night


def text(response):
    """The page as its words read: a name's isolation (<bdi>) is left out here, and
    checked by tests/test_names_isolated.py."""
    return re.sub(r"</?bdi>", "", response.get_data(as_text=True))


def nights_count(app):
    return connect(app.config["DATABASE"])["nights"].count


def visible_names(html):
    """The roster's name fields a person sees (the others are in the form, hidden)."""
    roster = html[html.index('class="roster"'):html.index("</form>", html.index('class="roster"'))]
    return re.findall(r'<li data-roster-seat>\s*<div class="roster-row">\s*'
                      r'<label class="roster-name">[^<]*<input type="text" name="name"'
                      r'[^>]*value="([^"]*)"', roster)


def roster_fields(html):
    roster = html[html.index('class="roster"'):]
    return re.findall(r'name="name"[^>]*value="([^"]*)"', roster)


# --- the start page: the latest night first ---------------------------------------------


def test_the_latest_night_comes_first_then_the_roster_then_the_earlier_nights(app):
    first = make_night(app, ["Ann", "Bo", "Cy"])
    second = first.host.post("/nights", data={"name": ["Dee", "Eve", "Fay"]})
    latest_key = second.headers["Location"].rsplit("/", 1)[1]
    html = text(first.host.get("/"))
    latest = html.index('class="latest-night"')
    roster = html.index('class="roster"')
    earlier = html.index('id="earlier-nights-title"')
    assert latest < roster < earlier
    box = html[latest:roster]
    assert f'data-night="{latest_key}"' in box and "Dee, Eve, Fay" in box
    assert f'href="/n/{latest_key}" data-continue>Continue this night<' in box
    assert "Ann, Bo, Cy" not in box
    # the earlier nights list the others, not the latest again
    rest = html[earlier:]
    assert f"/n/{first.key}" in rest and f"/n/{latest_key}" not in rest


def test_the_latest_night_is_the_one_made_last_whatever_the_clock_says(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    later = night.host.post("/nights", data={"name": ["Dee", "Eve", "Fay"]})
    key = later.headers["Location"].rsplit("/", 1)[1]
    with sqlite3.connect(app.config["DATABASE"]) as db:  # a clock set back
        db.execute("update nights set created = '2001-01-01T00:00:00Z' where key = ?", [key])
    html = text(night.host.get("/"))
    assert f'data-night="{key}"' in html[:html.index('class="roster"')]


def test_the_latest_night_says_how_many_games_it_has(app):
    night = make_night(app, ["Ann", "Bo", "Cy", "Di"])
    assert "no game yet" in text(night.host.get("/"))
    night.start("kraken", **{f"seat{i}": "1" for i in range(4)})
    html = text(night.host.get("/"))
    assert "1 game" in html[:html.index('class="roster"')]


def test_a_device_that_hosts_no_night_sees_the_roster_first(client):
    html = text(client.get("/"))
    assert 'class="latest-night"' not in html and 'id="earlier-nights-title"' not in html
    assert 'data-action="night-create"' in html


def test_another_devices_night_is_not_shown(client, night):
    assert night.key not in text(client.get("/"))


# --- a roster that starts small --------------------------------------------------------


def test_the_roster_shows_four_seats_and_holds_eight(client):
    html = text(client.get("/"))
    assert len(roster_fields(html)) == 8
    assert len(visible_names(html)) == 4
    assert html.count("<li data-roster-seat hidden>") == 4
    assert 'name="shown" value="4"' in html
    assert "data-add-seat" in html and "Add a seat" in html
    assert 'data-action="night-create"' in html and 'name="form_token"' in html


def test_add_a_seat_without_javascript_gives_one_more_field_and_keeps_the_names(app, client):
    html = text(client.get("/"))
    token = re.search(r'name="form_token" value="([^"]+)"', html).group(1)
    form = {"name": ["Ann", "Bo", "", "Di", "", "", "", ""], "shown": "4", "add_seat": "1",
            "form_token": token}
    response = client.post("/nights", data=form)
    assert response.status_code == 200
    html = text(response)
    assert visible_names(html) == ["Ann", "Bo", "", "Di", ""]
    assert 'name="shown" value="5"' in html
    assert f'value="{token}"' in html  # the same one-time form: it made nothing yet
    assert nights_count(app) == 0
    # adding up to eight seats hides the button
    for shown in range(5, 8):
        html = text(client.post("/nights", data={**form, "shown": str(shown)}))
    assert len(visible_names(html)) == 8
    assert '<p class="roster-more" hidden>' in html
    # the same form then starts the night, once
    first = client.post("/nights", data={"name": ["Ann", "Bo", "Cy"], "form_token": token})
    again = client.post("/nights", data={"name": ["Ann", "Bo", "Cy"], "form_token": token})
    assert first.status_code == again.status_code == 303
    assert first.headers["Location"] == again.headers["Location"]
    assert nights_count(app) == 1


def test_a_refused_roster_shows_every_seat_that_holds_a_name(client):
    names = ["Ann", "Bo", "Cy", "Di", "Ed", "ann"]
    response = client.post("/nights", data={"name": names, "shown": "6"})
    assert response.status_code == 422
    html = text(response)
    assert "Two players are called" in html
    assert visible_names(html) == names


def test_a_roster_of_eight_names_is_one_night_of_eight(app, client):
    names = [f"P{i}" for i in range(8)]
    assert client.post("/nights", data={"name": names}).status_code == 303
    assert nights_count(app) == 1


# --- the 404 of a night's address ---------------------------------------------------------


def test_a_lost_cookie_404_explains_host_link_without_telling_whether_the_night_exists(
        app, night):
    stranger = app.test_client()  # the host's browser after its cookies went
    known = stranger.get(night.url)
    unknown = stranger.get("/n/no-such-night")
    deeper = stranger.get(f"{night.url}/g/1")
    assert known.status_code == unknown.status_code == deeper.status_code == 404
    assert known.data == unknown.data == deeper.data
    html = text(known)
    assert "There is nothing here." in html
    assert "<code>.venv/bin/companion host-link</code>" in html
    assert "this browser lost its cookies" in html and "5 minutes" in html
    assert night.key not in html


def test_the_host_link_help_is_korean_in_korean(app, night):
    html = text(app.test_client().get(night.url, headers={"Accept-Language": "ko"}))
    assert "쿠키" in html and "companion host-link" in html


def test_a_host_missing_a_page_of_its_own_night_gets_the_plain_404(night):
    response = night.host.get(f"{night.url}/g/99")
    assert response.status_code == 404
    assert "host-link" not in text(response)


def test_any_other_address_gets_the_plain_404(client):
    assert "host-link" not in text(client.get("/nothing/here"))


# --- a form refused for its token keeps what was typed ----------------------------------


@pytest.fixture
def csrf_app(tmp_path):
    return create_app({"DATABASE": str(tmp_path / "c.sqlite"), "SECRET_KEY": "c",
                       "PUBLIC_URL": "http://t", "LANGUAGE": "en"})


def token_of(html):
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


def test_a_stale_roster_comes_back_with_its_names_and_a_fresh_token(csrf_app):
    host = csrf_app.test_client()
    names = ["민수", "Jo", "지혜 🙂", "Ann", "박서준", "Lee"]
    response = host.post("/nights", data={"name": names, "shown": "6", "csrf_token": "old"})
    assert response.status_code == 400
    html = text(response)
    assert "What you typed is kept below" in html
    assert visible_names(html) == names
    assert nights_count(csrf_app) == 0
    again = host.post("/nights", data={"name": names, "csrf_token": token_of(html)})
    assert again.status_code == 303
    assert nights_count(csrf_app) == 1


def night_with_csrf(app, names):
    host = app.test_client()
    token = token_of(text(host.get("/")))
    response = host.post("/nights", data={"name": names, "csrf_token": token})
    key = response.headers["Location"].rsplit("/", 1)[1]
    return host, key, token


def test_a_stale_crazy_time_law_keeps_its_name_and_cards(csrf_app):
    host, key, token = night_with_csrf(csrf_app, ["Ann", "Bo", "Cy", "Di"])
    form = {f"seat{i}": "1" for i in range(4)}
    assert host.post(f"/n/{key}/new/crazytime", data={**form, "starting_law": "1",
                                                      "csrf_token": token}).status_code == 303
    law = {"name": "Moon & <b>", "when": "SECRET-when", "what": "SECRET-what", "pos": "0"}
    for headers in ({}, {"HX-Request": "true"}):
        response = host.post(f"/n/{key}/g/1/crazytime/law", data={**law, "csrf_token": "old"},
                             headers=headers)
        assert response.status_code == 400
        html = text(response)
        assert "What you typed is kept below" in html
        assert 'value="Moon &amp; &lt;b&gt;"' in html
        assert 'value="SECRET-when"' in html and 'value="SECRET-what"' in html
    page = text(host.get(f"/n/{key}/g/1"))
    assert "SECRET-when" not in page  # nothing was recorded


def test_a_stale_law_typed_on_a_phone_stays_on_the_phone(csrf_app):
    host, key, token = night_with_csrf(csrf_app, ["Ann", "Bo", "Cy", "Di"])
    form = {f"seat{i}": "1" for i in range(4)}
    host.post(f"/n/{key}/new/crazytime", data={**form, "starting_law": "1",
                                               "csrf_token": token})
    with csrf_app.test_request_context():
        from companion import store
        seat_token = store.seats(store.night_by_key(key)["id"])[1]["token"]
    phone = csrf_app.test_client()
    phone_token = token_of(text(phone.get(f"/s/{seat_token}")))
    assert phone.post(f"/s/{seat_token}", data={"csrf_token": phone_token}).status_code == 303
    response = phone.post("/me/crazytime/law", data={
        "name": "Echo", "when": "at 12", "what": "say echo", "csrf_token": "old"})
    assert response.status_code == 400
    html = text(response)
    assert 'value="Echo"' in html and 'value="at 12"' in html and 'value="say echo"' in html
    assert "What you typed is kept below" in html


def test_a_stale_start_form_keeps_its_custom_rounds(csrf_app):
    host, key, _token = night_with_csrf(csrf_app, ["Ann", "Bo", "Cy", "Di"])
    form = {**{f"seat{i}": "1" for i in range(4)}, "way": "custom", "rounds": "3,1,4"}
    response = host.post(f"/n/{key}/new/skullking", data={**form, "csrf_token": "old"})
    assert response.status_code == 400
    html = text(response)
    assert 'value="3,1,4"' in html and "What you typed is kept below" in html
    assert re.search(r'<option value="custom"\s+selected', html)


def test_a_stale_form_of_someone_elses_night_is_the_plain_page(csrf_app):
    _host, key, _token = night_with_csrf(csrf_app, ["Ann", "Bo", "Cy", "Di"])
    stranger = csrf_app.test_client()
    for path in (f"/n/{key}/new/skullking", f"/n/{key}/g/1/crazytime/law",
                 "/me/crazytime/law"):
        response = stranger.post(path, data={"name": "x", "csrf_token": "old"})
        assert response.status_code == 400
        assert "Reload it and try again" in text(response), path


# --- players named, not numbered ----------------------------------------------------------


def test_a_refusal_names_the_player_not_a_seat_number(night):
    game = night.start("crazytime", **{f"seat{i}": "1" for i in range(5)})
    pos = night.pos(game)
    night.host.post(f"{game}/crazytime/rabbit", data={"seat": 0, "pos": pos})
    for turn in range(12):  # match 1: 민수 and 지혜 take every penalty; the others win
        seat = 0 if turn % 2 else 2
        night.host.post(f"{game}/crazytime/penalty", data={"seat": seat, "pos": night.pos(game)})
    night.host.post(f"{game}/crazytime/law", data={
        "name": "Moon", "when": "12", "what": "howl", "pos": night.pos(game)})
    learned = night.host.post(f"{game}/crazytime/learn", data={
        "law": 1, "seat": 0, "pos": night.pos(game)}, headers={"HX-Request": "true"})
    assert learned.status_code == 422
    html = text(learned)
    assert "민수 already knows the law Moon." in html
    assert "Seat 0" not in html and "Seat 1" not in html


# --- Crazy Time: the deal once the rabbit is known, who restarts after a penalty ------------


def ct(night, action, game, **form):
    return night.host.post(f"{game}/crazytime/{action}", data={**form, "pos": night.pos(game)},
                           headers={"HX-Request": "true"})


def test_the_deal_names_the_extra_cards_only_once_the_rabbit_is_known(app):
    night = make_night(app, ["Ann", "Bo", "Cy", "Di", "Ed"])
    game = night.start("crazytime", **{f"seat{i}": "1" for i in range(5)})
    phone = night.phone(3)
    html = text(night.host.get(game))
    assert "one more for" not in html and "once the rabbit is chosen" in html
    assert "Your time cards" not in text(phone.get("/me"))
    # 63 cards, 5 players: 12 each; the 3 extra cards go to the rabbit (Di) and on, clockwise
    ct(night, "rabbit", game, seat=3)
    html = text(night.host.get(game))
    assert "Deal the 63 time cards: 12 each; one more for Di, Ed, Ann." in html
    assert re.search(r"Your time cards</dt><dd>(?:<span[^>]*>)?13", text(phone.get("/me")))
    assert re.search(r"Your time cards</dt><dd>(?:<span[^>]*>)?12", text(night.phone(1).get("/me")))


def test_seven_players_share_the_deal_evenly_before_any_rabbit(app):
    night = make_night(app, [f"P{i}" for i in range(7)])
    game = night.start("crazytime", **{f"seat{i}": "1" for i in range(7)})
    assert "Deal the 63 time cards: 9 each." in text(night.host.get(game))


def test_after_a_penalty_the_host_screen_says_who_restarts_at_one_oclock(app):
    night = make_night(app, ["Ann", "Bo", "Cy", "Di"])
    game = night.start("crazytime", **{f"seat{i}": "1" for i in range(4)})
    assert "starts again from 1 o'clock" not in text(night.host.get(game))
    ct(night, "rabbit", game, seat=0)
    ct(night, "penalty", game, seat=2)
    html = text(night.host.get(game))
    assert "After Cy's penalty" in html and "Cy starts again from 1 o'clock" in html
    ct(night, "penalty", game, seat=1)
    assert "Bo starts again from 1 o'clock" in text(night.host.get(game))
    night.host.post(f"{game}/undo", data={"pos": night.pos(game)})
    assert "Cy starts again from 1 o'clock" in text(night.host.get(game))


def test_the_restart_line_is_korean_in_korean(app):
    night = make_night(app, ["Ann", "Bo", "Cy", "Di"])
    game = night.start("crazytime", **{f"seat{i}": "1" for i in range(4)})
    ct(night, "rabbit", game, seat=0)
    ct(night, "penalty", game, seat=2)
    html = text(night.host.get(game, headers={"Accept-Language": "ko"}))
    assert "Cy 님이 “1시”부터 다시 시작합니다." in html


def test_one_match_winner_reads_in_the_singular_several_in_the_plural(app):
    night = make_night(app, ["Ann", "Bo", "Cy", "Di", "Ed"])
    game = night.start("crazytime", **{f"seat{i}": "1" for i in range(5)})
    ct(night, "rabbit", game, seat=0)
    for seat in [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]:  # Ed alone has none
        ct(night, "penalty", game, seat=seat)
    assert "Ed wins the match and takes the 1h token. Winner: leave the room now!" in text(
        night.host.get(game))
    ct(night, "law", game, name="Moon", when="12", what="howl")
    ct(night, "next", game)
    for seat in [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]:  # Di and Ed have none
        ct(night, "penalty", game, seat=seat)
    assert "Di, Ed win the match and take the 2h token. Winners: leave the room now!" in text(
        night.host.get(game))


# --- Skull King: one card, and the leader badge only while playing -------------------------


def test_one_card_dealt_is_singular_and_the_leader_badge_ends_with_the_game(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    game = night.start("skullking", **{f"seat{i}": "1" for i in range(3)}, way="custom",
                       rounds="1,1")
    for seat, bid in enumerate([1, 0, 0]):
        night.host.post(f"{game}/skullking/bid", data={"round": 1, "seat": seat, "bid": bid,
                                                       "pos": night.pos(game)})
    night.host.post(f"{game}/skullking/reveal", data={"round": 1, "pos": night.pos(game)})
    html = text(night.host.get(game))
    assert "Bids total 1 for 1 card dealt" in html and "1 cards" not in html
    night.host.post(f"{game}/skullking/result", data={
        "round": 1, "pos": night.pos(game), "won-0": 1, "won-1": 0, "won-2": 0})
    html = text(night.host.get(game))
    assert "★ leader" in html  # Ann leads after round 1
    for seat, bid in enumerate([1, 0, 0]):
        night.host.post(f"{game}/skullking/bid", data={"round": 2, "seat": seat, "bid": bid,
                                                       "pos": night.pos(game)})
    night.host.post(f"{game}/skullking/reveal", data={"round": 2, "pos": night.pos(game)})
    night.host.post(f"{game}/skullking/result", data={
        "round": 2, "pos": night.pos(game), "won-0": 1, "won-1": 0, "won-2": 0})
    html = text(night.host.get(game))
    assert "Game over" in html and "Winner: Ann" in html
    assert "★ leader" not in html and "★ won" in html
    korean = text(night.host.get(game, headers={"Accept-Language": "ko"}))
    assert "선두" not in korean


# --- No Touch Kraken: nothing said about "0" cards set aside ---------------------------------


@pytest.mark.parametrize("players, unused", [(6, None), (5, 1), (3, 2)])
def test_the_checklist_names_role_cards_set_aside_only_when_there_are_some(app, players,
                                                                             unused):
    night = make_night(app, [f"P{i}" for i in range(players)])
    game = night.start("kraken", **{f"seat{i}": "1" for i in range(players)})
    html = text(night.host.get(game))
    if unused is None:
        assert "set aside unseen" not in html.split("kraken-checklist")[1].split("</li>")[0]
        korean = text(night.host.get(game, headers={"Accept-Language": "ko"}))
        assert "0장은" not in korean
    else:
        assert f"{unused} set aside unseen" in html


def test_a_curse_pile_of_three_adds_nothing_more(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    game = night.start("kraken", **{f"seat{i}": "1" for i in range(3)}, curse="1")
    html = text(night.host.get(game))
    assert "A treasure pile of 3 cards instead of 3 Treasures" in html
    assert "add 0 of them" not in html


# --- one form for a game's number -------------------------------------------------------


def test_a_games_number_reads_the_same_everywhere_in_korean(app):
    night = make_night(app, ["Ann", "Bo", "Cy", "Di"])
    game = night.start("kraken", **{f"seat{i}": "1" for i in range(4)})
    table = text(night.host.get(night.url, headers={"Accept-Language": "ko"}))
    page = text(night.host.get(game, headers={"Accept-Language": "ko"}))
    assert "1번 게임: 노 터치 크라켄" in table and "1번 게임" in page
    for html in (table, page):
        assert "#1" not in re.sub(r"<[^>]*>", "", html)
        assert "번째 게임" not in html
