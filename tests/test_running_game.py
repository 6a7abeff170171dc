"""The running game is protected: starting another asks first, the host chooses which game
the phones show and resumes any unfinished one, a Kraken token series goes on across other
games, and a night or a game is made once per form however often the form is sent
(docs/rules.md#kraken-series, docs/guide.md, "How a night goes")."""

import re
import threading
from html import unescape

from bench.builders import make_night
from companion import store
from tests.kraken_host import FOUR, game_of, games_count, number_of, play

CRAZY = {f"seat{p}": "1" for p in range(5)}


# --- helpers ------------------------------------------------------------------------


def text(response):
    return response.get_data(as_text=True)


def shown_number(night):
    """The number of the game the night's phones show."""
    with night.app.test_request_context():
        return store.current_game(store.night_by_key(night.key)["id"]).number


def version(night):
    with night.app.test_request_context():
        return store.night_by_key(night.key)["version"]


def nights_count(app):
    with app.test_request_context():
        return len(list(store.get_db().query("select id from nights")))


def token_in(html):
    return re.search(r'name="form_token" value="([^"]+)"', html).group(1)


def start_form(night, kind):
    """The start form as the host's browser has it: its one-time token."""
    return token_in(text(night.host.get(f"{night.url}/new/{kind}")))


def client_of(app, cookie):
    """Another tab of the same browser (the same device cookie)."""
    client = app.test_client()
    client.set_cookie("device", cookie)
    return client


def at_once(app, cookie, url, forms):
    """Post every form at the same moment, each from its own thread and tab."""
    barrier = threading.Barrier(len(forms))
    answers = [None] * len(forms)

    def send(index):
        client = client_of(app, cookie)
        barrier.wait()
        answers[index] = client.post(url, data=forms[index])

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(forms))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return answers


def second_host(night):
    """Another device made a host of the night with a one-time host code."""
    html = text(night.host.post(night.url + "/hosts"))
    link = re.search(r"/h/[A-Za-z0-9_-]+", html).group(0)
    tablet = night.app.test_client()
    assert tablet.post(link).status_code == 303
    return tablet


# --- starting a game while another runs ----------------------------------------------


def test_starting_a_game_while_another_runs_asks_first_and_names_it(night):
    crazy = night.start("crazytime", **CRAZY)
    phone = night.phone(0)
    response = night.host.post(f"{night.url}/new/kraken", data=FOUR)
    assert response.status_code == 409
    html = text(response)
    assert "Game #1 (Crazy Time) is still running" in html
    assert "Game #1 stays unfinished" in html and "resume it from the host's page" in html
    assert f'href="{crazy}"' in html  # "Back to game #1"
    assert games_count(night) == 1
    assert "Crazy Time" in text(phone.get("/me"))


def test_the_question_sends_the_same_form_again_with_the_game_it_leaves(night):
    night.start("crazytime", **CRAZY)
    html = text(night.host.post(f"{night.url}/new/kraken",
                                data={**FOUR, "curse": "on", "series": "new"}))
    form = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', html))
    assert form["leave"] == "1" and form["curse"] == "on" and form["series"] == "new"
    assert all(form[f"seat{p}"] == "on" for p in range(4))
    del form["csrf_token"]
    response = night.host.post(f"{night.url}/new/kraken", data=form)
    assert response.status_code == 303
    kraken = game_of(night, response.headers["Location"])
    assert kraken.number == 2 and kraken.setup["options"]["curse"] is True
    assert kraken.setup["options"]["series"]


def test_the_running_game_stays_unfinished_and_the_phones_switch(night):
    crazy = night.start("crazytime", **CRAZY)
    phone = night.phone(0)
    night.start("kraken", **FOUR)  # answers the question: #1 stays unfinished
    assert game_of(night, crazy).finished is False
    assert shown_number(night) == 2
    assert "No Touch Kraken" in text(phone.get("/me"))


def test_a_finished_game_does_not_ask(night):
    kraken = night.start("kraken", **FOUR)
    play(night, kraken, ["kraken"])
    response = night.host.post(f"{night.url}/new/crazytime", data=CRAZY)
    assert response.status_code == 303
    assert games_count(night) == 2


def test_a_yes_given_for_one_game_does_not_leave_another(night):
    """Two hosts both said "leave #1": the first starts #2; the second is asked again,
    about #2, and starts nothing."""
    night.start("crazytime", **CRAZY)
    tablet = second_host(night)
    first = night.host.post(f"{night.url}/new/kraken", data={**FOUR, "leave": "1"})
    second = tablet.post(f"{night.url}/new/kraken", data={**FOUR, "leave": "1"})
    assert first.status_code == 303 and second.status_code == 409
    assert "Game #2 (No Touch Kraken) is still running" in text(second)
    assert games_count(night) == 2


# --- which game the phones show, and resuming -------------------------------------------


def test_the_table_screen_marks_the_game_on_the_phones_and_offers_to_resume_the_others(night):
    night.start("crazytime", **CRAZY)
    night.start("kraken", **FOUR)
    html = text(night.host.get(night.url))
    one = re.search(r'<li data-game="1">.*?</li>', html, re.S).group(0)
    two = re.search(r'<li data-game="2" aria-current="true">.*?</li>', html, re.S).group(0)
    assert "on the phones" in two and "resume" not in two
    assert f'action="{night.url}/g/1/resume"' in one and "Resume" in one


def test_resuming_a_game_shows_it_on_every_phone(night):
    crazy = night.start("crazytime", **CRAZY)
    phone = night.phone(2)
    night.start("kraken", **FOUR)
    seen = version(night)
    assert "No Touch Kraken" in text(phone.get("/me"))
    response = night.host.post(f"{crazy}/resume")
    assert response.status_code == 303 and response.headers["Location"] == crazy
    assert shown_number(night) == 1
    assert version(night) > seen  # every screen's live region refreshes
    live = phone.get(f"/me/live?v={seen}", headers={"HX-Request": "true"})
    assert live.status_code == 200 and "Crazy Time" in text(live)
    assert "No Touch Kraken" not in text(live)


def test_a_phone_move_goes_to_the_game_the_phones_show(night):
    crazy = night.start("crazytime", **CRAZY)
    night.start("kraken", **FOUR)
    night.host.post(f"{crazy}/resume")
    jo = night.phone(1)
    response = jo.post("/me/crazytime/law", data={"name": "Moon", "when": "6", "what": "moo"})
    assert "There is no Crazy Time game now." not in text(response)


def test_the_game_page_says_when_the_phones_show_another_game(night):
    crazy = night.start("crazytime", **CRAZY)
    kraken = night.start("kraken", **FOUR)
    html = text(night.host.get(crazy))
    assert "The phones show game #2 (No Touch Kraken), not this one." in html
    assert f'action="{crazy}/resume"' in html
    assert "The phones show game" not in text(night.host.get(kraken))


def test_a_finished_game_is_not_resumed(night):
    kraken = night.start("kraken", **FOUR)
    play(night, kraken, ["kraken"])
    night.start("crazytime", **CRAZY)
    assert night.host.post(f"{kraken}/resume").status_code == 303
    assert shown_number(night) == 2
    assert "/g/1/resume" not in text(night.host.get(night.url))


def test_only_a_host_resumes_a_game(night):
    crazy = night.start("crazytime", **CRAZY)
    night.start("kraken", **FOUR)
    for client in (night.phone(0), night.app.test_client()):
        assert client.post(f"{crazy}/resume").status_code == 404
    assert shown_number(night) == 2


# --- once per form: back and send again, double taps, posts at once, two hosts --------------


def test_each_start_form_carries_its_own_one_time_token(night):
    assert start_form(night, "kraken") != start_form(night, "kraken")
    assert start_form(night, "crazytime")
    assert start_form(night, "skullking")
    assert token_in(text(night.host.get("/")))


def test_a_start_form_sent_again_goes_to_the_game_it_made(night):
    token = start_form(night, "kraken")
    first = night.host.post(f"{night.url}/new/kraken", data={**FOUR, "form_token": token})
    # back, and the same form sent again (even saying it leaves the game it made)
    again = night.host.post(f"{night.url}/new/kraken",
                            data={**FOUR, "form_token": token, "leave": "1"})
    assert first.status_code == again.status_code == 303
    assert again.headers["Location"] == first.headers["Location"]
    assert games_count(night) == 1


def test_a_skull_king_start_form_sent_again_makes_one_game(night):
    token = start_form(night, "skullking")
    form = {"seat0": "on", "seat1": "on", "seat2": "on", "form_token": token}
    first = night.host.post(f"{night.url}/new/skullking", data=form)
    again = night.host.post(f"{night.url}/new/skullking", data={**form, "leave": "1"})
    assert again.headers["Location"] == first.headers["Location"]
    assert games_count(night) == 1


def test_ten_start_posts_at_once_make_one_game(night):
    token = start_form(night, "kraken")
    cookie = night.host.get_cookie("device").value
    answers = at_once(night.app, cookie, f"{night.url}/new/kraken",
                      [{**FOUR, "form_token": token}] * 10)
    assert [a.status_code for a in answers] == [303] * 10
    assert {a.headers["Location"] for a in answers} == {f"{night.url}/g/1"}
    assert games_count(night) == 1


def test_ten_different_start_forms_at_once_make_one_game_and_ask_the_others(night):
    forms = [{**FOUR, "form_token": start_form(night, "kraken")} for _ in range(10)]
    cookie = night.host.get_cookie("device").value
    answers = at_once(night.app, cookie, f"{night.url}/new/kraken", forms)
    assert sorted(a.status_code for a in answers) == [303] + [409] * 9
    assert games_count(night) == 1


def test_two_host_devices_starting_at_once_make_one_game(night):
    tablet = second_host(night)
    forms = [{**FOUR, "form_token": start_form(night, "kraken")},
             {**CRAZY, "form_token": token_in(text(tablet.get(f"{night.url}/new/crazytime")))}]
    barrier = threading.Barrier(2)
    answers = [None, None]

    def send(index, client, kind):
        barrier.wait()
        answers[index] = client.post(f"{night.url}/new/{kind}", data=forms[index])

    threads = [threading.Thread(target=send, args=(0, night.host, "kraken")),
               threading.Thread(target=send, args=(1, tablet, "crazytime"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(a.status_code for a in answers) == [303, 409]
    assert games_count(night) == 1
    asked = next(a for a in answers if a.status_code == 409)
    assert "Game #1" in text(asked) and "is still running" in text(asked)


def test_the_night_form_sent_again_goes_to_the_night_it_made(app):
    host = app.test_client()
    token = token_in(text(host.get("/")))
    names = {"name": ["Ann", "Bo", "Cy"], "form_token": token}
    first = host.post("/nights", data=names)
    again = host.post("/nights", data=names)
    assert first.status_code == again.status_code == 303
    assert again.headers["Location"] == first.headers["Location"]
    assert nights_count(app) == 1


def test_ten_night_posts_at_once_make_one_night(app):
    host = app.test_client()
    token = token_in(text(host.get("/")))
    cookie = host.get_cookie("device").value
    answers = at_once(app, cookie, "/nights",
                      [{"name": ["Ann", "Bo", "Cy"], "form_token": token}] * 10)
    assert [a.status_code for a in answers] == [303] * 10
    assert len({a.headers["Location"] for a in answers}) == 1
    assert nights_count(app) == 1


def test_same_players_again_is_made_once_per_form(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    html = text(night.host.get("/"))
    token = re.search(r'name="same_as" value="' + night.key
                      + r'">\s*<input type="hidden" name="form_token" value="([^"]+)"',
                      html).group(1)
    form = {"same_as": night.key, "form_token": token}
    first, again = night.host.post("/nights", data=form), night.host.post("/nights", data=form)
    assert first.headers["Location"] == again.headers["Location"]
    assert nights_count(app) == 2


def test_a_night_forms_token_never_starts_a_game(app):
    night = make_night(app, ["Ann", "Bo", "Cy", "Di"])
    token = token_in(text(night.host.get("/")))
    night.host.post("/nights", data={"name": ["E", "F", "G"], "form_token": token})
    response = night.host.post(f"{night.url}/new/kraken",
                               data={"seat0": "on", "seat1": "on", "seat2": "on",
                                     "form_token": token})
    assert response.status_code == 409
    assert games_count(night) == 0


# --- a Kraken token series across other games (docs/rules.md#kraken-series) -----------------


def series_id(night, url):
    return game_of(night, url).setup["options"]["series"]


def test_the_start_form_offers_to_go_on_with_a_series_that_is_not_over(night):
    first = night.start("kraken", **FOUR, series="new")
    play(night, first, ["kraken"])
    night.start("crazytime", **CRAZY)
    html = text(night.host.get(f"{night.url}/new/kraken"))
    sid = series_id(night, first)
    assert f'value="{sid}"' in html
    assert "Continue the token series of games #1" in html
    assert 'value="none" checked' in html and 'value="new"' in html


def test_going_on_with_a_series_after_another_game_counts_its_tokens(night):
    first = night.start("kraken", **FOUR, series="new")
    one = play(night, first, ["kraken"])
    night.start("crazytime", **CRAZY)
    sid = series_id(night, first)
    third = night.start("kraken", **FOUR, series=sid)
    assert number_of(third) == 3 and series_id(night, third) == sid
    three = play(night, third, ["kraken"])
    html = text(night.host.get(third))
    for seat in range(4):
        tokens = (seat in one.state["losers"]) + (seat in three.state["losers"])
        assert re.search(rf'data-tokens="{seat}">{tokens}<', html)
    assert "2 games counted" in html


def test_a_series_goes_on_only_with_its_players(night):
    first = night.start("kraken", **FOUR, series="new")
    play(night, first, ["kraken"])
    response = night.host.post(f"{night.url}/new/kraken",
                               data={"seat0": "on", "seat1": "on", "seat2": "on",
                                     "series": series_id(night, first)})
    assert response.status_code == 422
    assert "A token series goes on with the same players: choose 민수, Jo, 지혜 🙂, Ann." \
        in text(response)
    assert games_count(night) == 1


def test_a_series_that_is_over_or_unknown_cannot_go_on(night):
    url = night.start("kraken", **FOUR, series="new")
    sid = series_id(night, url)
    while True:
        play(night, url, ["kraken"])
        if "The series is over." in text(night.host.get(url)):
            break
        url = night.host.post(f"{url}/kraken/next").headers["Location"]
    assert f'value="{sid}"' not in text(night.host.get(f"{night.url}/new/kraken"))
    count = games_count(night)
    for choice in (sid, "0123456789abcdef"):
        response = night.host.post(f"{night.url}/new/kraken", data={**FOUR, "series": choice})
        assert response.status_code == 422
        assert "That token series is over, or it belongs to another night." \
            in unescape(text(response))
    assert games_count(night) == count


def test_next_game_of_an_old_game_works_after_other_games(night):
    first = night.start("kraken", **FOUR, series="new")
    play(night, first, ["kraken"])
    crazy = night.start("crazytime", **CRAZY)
    html = text(night.host.get(first))
    assert "kraken/next" in html and "Go to game" not in html
    asked = night.host.post(f"{first}/kraken/next")
    assert asked.status_code == 409 and "Game #2 (Crazy Time) is still running" in text(asked)
    form = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">',
                           text(asked)))
    response = night.host.post(f"{first}/kraken/next",
                               data={"leave": form["leave"], "form_token": form["form_token"]})
    assert response.status_code == 303
    third = response.headers["Location"]
    assert number_of(third) == 3 and series_id(night, third) == series_id(night, first)
    assert game_of(night, crazy).finished is False
    assert "Go to game #3" in text(night.host.get(first))
    again = night.host.post(f"{first}/kraken/next")  # a double tap, another host device
    assert again.status_code == 303 and again.headers["Location"].endswith("/g/3")
    assert games_count(night) == 3


def test_the_tally_follows_a_series_across_other_games_to_its_end(night):
    url = night.start("kraken", **FOUR, series="new")
    tokens = dict.fromkeys(range(4), 0)
    while max(tokens.values()) < 3:
        game = play(night, url, ["kraken"])
        for seat in game.state["losers"]:
            tokens[seat] += 1
        if max(tokens.values()) >= 3:
            break
        night.start("crazytime", **CRAZY)  # another game in between, left unfinished
        url = night.start("kraken", **FOUR, series=series_id(night, url))
    tally = text(night.host.get(f"{night.url}/tally"))
    assert "The series is still going" not in tally
    assert "Series won by" in tally
    fewest = min(tokens.values())
    names = ["민수", "Jo", "지혜 🙂", "Ann"]
    verdict = re.search(r"Series won by\s*<strong class=\"winners\">(.*?)</strong>", tally,
                        re.S).group(1)
    for seat in range(4):
        assert (names[seat] in verdict) == (tokens[seat] == fewest)
