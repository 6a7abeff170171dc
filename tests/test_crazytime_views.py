"""Crazy Time through the real routes: refusals record nothing, and a law's cards are in
the HTML of exactly the phones of the players who know it."""

import re

import pytest

from bench.builders import make_night
from tests.refusing import status_of

WHEN, WHAT = "SECRET-WHEN-moon", "SECRET-WHAT-howl"


@pytest.fixture
def table(night):
    """The night's five players in a blue-side game with the harder start."""
    game = night.start("crazytime", seat0="1", seat1="1", seat2="1", seat3="1", seat4="1",
                       side="blue", starting_law="1")
    phones = [night.phone(i) for i in range(5)]
    return night, game, phones


def post(night, game, action, **form):
    """A host action made from the page as it is now (the current pos)."""
    form.setdefault("pos", night.pos(game))
    return night.host.post(f"{game}/crazytime/{action}", data=form,
                           headers={"HX-Request": "true"})


def events_count(night, game):
    return night.pos(game)


def give(night, game, counts):
    for seat, n in counts.items():
        for _ in range(n):
            assert post(night, game, "penalty", seat=seat).status_code == 200


def text(response):
    return response.data.decode()


# --- starting a game --------------------------------------------------------------------


def test_the_start_form_offers_players_side_and_starting_law(night):
    html = night.host.get(f"{night.url}/new/crazytime").data.decode()
    assert html.count('type="checkbox" name="seat') == 5
    assert 'value="blue"' in html and 'value="purple"' in html
    assert 'name="starting_law"' in html
    assert "12 each, three players get 13" in html


def test_starting_a_blue_game_shows_its_tokens_and_the_deal(night):
    game = night.start("crazytime", seat0="1", seat1="1", seat2="1", seat3="1", side="blue")
    html = night.host.get(game).data.decode()
    assert 'data-tokens-left="6"' in html
    # who gets the extra cards depends on the rabbit: nobody is named before it is chosen
    assert "one more for" not in html and "once the rabbit is chosen" in html
    post(night, game, "rabbit", seat=0)
    assert "15 each; one more for 민수, Jo, 지혜 🙂" in night.host.get(game).data.decode()


@pytest.mark.parametrize("form, words", [
    ({"seat0": "1", "seat1": "1", "seat2": "1"}, "4 to 7 players"),
    ({"seat0": "1", "seat1": "1", "seat2": "1", "seat3": "1", "side": "red"}, "purple or blue"),
    ({}, "Choose the players"),
])
def test_a_bad_start_is_refused_with_a_message(night, form, words):
    response = night.host.post(f"{night.url}/new/crazytime", data=form)
    assert response.status_code == 422
    assert words in text(response)


def test_the_rabbit_gets_the_first_extra_card(table):
    night, game, phones = table
    post(night, game, "rabbit", seat=3)
    html = night.host.get(game).data.decode()
    assert "one more for Ann, 박서준, 민수" in html
    assert "13" in text(phones[3].get("/me"))


# --- refusals: a clear message and nothing recorded -----------------------------------


def test_a_penalty_waits_for_the_starting_law(table):
    night, game, _ = table
    response = post(night, game, "penalty", seat=0)
    assert status_of(response) == 422
    assert "Record the starting law before the first penalty." in text(response)
    assert events_count(night, game) == 0


@pytest.mark.parametrize("seat", ["9", "abc", "", "-1", "1.5"])
def test_a_penalty_for_a_player_not_in_the_game_is_refused(table, seat):
    night, game, _ = table
    post(night, game, "law", name="Echo", when="12", what="Say echo")
    response = post(night, game, "penalty", seat=seat)
    assert status_of(response) == 422
    assert 'role="alert"' in text(response)
    assert events_count(night, game) == 1


def test_a_night_player_left_out_of_the_game_gets_no_penalty(night):
    game = night.start("crazytime", seat0="1", seat1="1", seat2="1", seat3="1")
    response = post(night, game, "penalty", seat=4)
    assert status_of(response) == 422
    assert "That player is not in this game." in text(response)
    assert events_count(night, game) == 0
    assert "You are not playing this game" in text(night.phone(4).get("/me"))


@pytest.mark.parametrize("reason", ["sneezed", "law:7", "law:x", "basic:gravity"])
def test_a_penalty_with_a_reason_that_does_not_exist_is_refused(table, reason):
    night, game, _ = table
    post(night, game, "law", name="Echo", when="12", what="Say echo")
    response = post(night, game, "penalty", seat=1, reason=reason)
    assert status_of(response) == 422
    assert events_count(night, game) == 1


def test_a_penalty_after_the_match_ended_is_refused(table):
    night, game, _ = table
    post(night, game, "law", name="Echo", when="12", what="Say echo")
    give(night, game, {0: 2, 1: 2, 2: 1, 3: 1})
    response = post(night, game, "penalty", seat=4)
    assert status_of(response) == 422
    assert "Match 1 is over: no penalty until the next match starts." in text(response)
    assert events_count(night, game) == 7


@pytest.mark.parametrize("form", [
    {"name": "", "when": "a", "what": "b"},
    {"name": "   ", "when": "a", "what": "b"},
    {"when": "a", "what": "b"},
])
def test_a_law_without_a_name_is_refused(table, form):
    night, game, _ = table
    response = post(night, game, "law", **form)
    assert status_of(response) == 422
    assert "A law needs a name" in text(response)
    assert events_count(night, game) == 0


def test_a_law_from_a_winner_s_phone_is_refused(table):
    night, game, phones = table
    post(night, game, "law", name="Echo", when="12", what="Say echo")
    give(night, game, {0: 2, 1: 2, 2: 1, 3: 1})  # 4 wins and leaves
    assert "leave the room now" in text(phones[4].get("/me"))
    response = phones[4].post("/me/crazytime/law", data={"name": "Moon", "when": WHEN,
                                                         "what": WHAT})
    assert response.status_code == 422
    assert "Only a player at the table may enter the new law." in text(response)
    assert events_count(night, game) == 7


def test_a_stale_form_is_refused_and_records_nothing(table):
    night, game, _ = table
    post(night, game, "law", name="Echo", when="12", what="Say echo")
    response = post(night, game, "penalty", seat=1, pos=0)
    assert status_of(response) == 409
    assert "The table moved on" in text(response)
    assert events_count(night, game) == 1


def test_next_match_before_the_law_is_refused(table):
    night, game, _ = table
    post(night, game, "law", name="Echo", when="12", what="Say echo")
    give(night, game, {0: 2, 1: 2, 2: 1, 3: 1})
    response = post(night, game, "next")
    assert status_of(response) == 422
    assert "Record the new law before the next match." in text(response)


def test_learning_an_unknown_law_is_refused(table):
    night, game, _ = table
    post(night, game, "law", name="Echo", when="12", what="Say echo")
    for law in ["2", "x", ""]:
        response = post(night, game, "learn", law=law, seat=1)
        assert status_of(response) == 422
    assert events_count(night, game) == 1


def test_a_phone_without_a_seat_cannot_enter_a_law(app, table):
    response = app.test_client().post("/me/crazytime/law", data={"name": "x"})
    assert response.status_code == 404


def test_another_night_s_host_cannot_act_on_this_game(app, table):
    night, game, _ = table
    other = make_night(app)
    response = other.host.post(f"{game}/crazytime/penalty", data={"seat": 0})
    assert response.status_code == 404


# --- the match flow ---------------------------------------------------------------------


def test_the_last_token_ends_the_match_names_the_winner_and_gives_the_hour(table):
    night, game, phones = table
    post(night, game, "law", name="Echo", when="12", what="Say echo")
    give(night, game, {0: 2, 1: 2, 2: 1, 3: 1})
    html = night.host.get(game).data.decode()
    assert "Match 1 is over" in html
    assert "<bdi>박서준</bdi> wins the match and takes the 1h token" in html  # one winner: singular
    me = text(phones[4].get("/me"))
    assert "You won match 1: leave the room now!" in me
    assert re.search(r'data-my-hours>1<', me)
    assert "leave the room" not in text(phones[0].get("/me"))


def test_the_winner_s_row_says_out_while_the_law_is_made_then_call_back_in(table):
    night, game, phones = table
    post(night, game, "law", name="Echo", when="12", what="Say echo")
    give(night, game, {0: 2, 1: 2, 2: 1, 3: 1})  # 박서준 (seat 4) wins and leaves
    row = re.compile(r'<tr data-seat="4">(.*?)</th>', re.S)
    assert "(out of the room)" in row.search(text(night.host.get(game))).group(1)
    phones[0].post("/me/crazytime/law", data={"name": "Moon", "when": "3", "what": "4"})
    now = row.search(text(night.host.get(game))).group(1)
    assert "(call back in)" in now and "out of the room" not in now


def test_when_fewer_than_two_would_stay_the_host_says_nobody_leaves(night):
    game = night.start("crazytime", seat0="1", seat1="1", seat2="1", seat3="1", side="blue")
    give(night, game, {0: 1, 1: 1, 2: 1, 3: 3})
    html = night.host.get(game).data.decode()
    assert "nobody is rewarded and nobody leaves" in html
    assert "Everyone stays, so everyone makes the new law together" in html


def test_a_penalty_reason_and_a_broken_law_appear_in_the_history_by_name(table):
    night, game, _ = table
    post(night, game, "law", name="Echo", when=WHEN, what=WHAT)
    post(night, game, "penalty", seat=1, reason="law:1")
    post(night, game, "penalty", seat=2, reason="basic:overload")
    post(night, game, "penalty", seat=3, reason="tick_tock")
    html = night.host.get(game).data.decode()
    assert "<bdi>Jo</bdi> took a penalty: broke the law Echo" in html
    assert "<bdi>지혜 🙂</bdi> took a penalty: broke Overload" in html
    assert "<bdi>Ann</bdi> took a penalty: too slow after tick-tock" in html
    assert 'data-tokens-left="3"' in html


def test_the_host_records_the_last_to_play_after_a_mistake(table):
    night, game, _ = table
    post(night, game, "law", name="Echo", when=WHEN, what=WHAT)  # the harder start's law
    html = night.host.get(game).data.decode()
    assert ('<option value="played_on">Play went on after a mistake: the last to play '
            'takes it</option>') in html
    post(night, game, "penalty", seat=1, reason="played_on")
    html = night.host.get(game).data.decode()
    assert "<bdi>Jo</bdi> took a penalty: the last to play after a mistake" in html


# --- law secrecy through the routes ----------------------------------------------------


def law_is_shown(response):
    html = text(response)
    return WHEN in html and WHAT in html


def test_a_law_s_cards_are_on_exactly_the_phones_of_those_who_know_it(table):
    night, game, phones = table
    post(night, game, "law", name="Echo", when="Echo-when", what="Echo-what")
    give(night, game, {0: 2, 1: 2, 2: 1, 3: 1})  # 박서준 (4) wins and leaves
    response = phones[2].post("/me/crazytime/law",
                              data={"name": "Moon", "when": WHEN, "what": WHAT},
                              headers={"HX-Request": "true"})
    assert response.status_code == 200

    def shown():
        return [law_is_shown(p.get("/me")) for p in phones]

    assert shown() == [True, True, True, True, False]
    host_html = night.host.get(game).data.decode()
    assert WHEN not in host_html and WHAT not in host_html
    assert "Moon" in host_html  # the host sees the name
    assert "Moon" in text(phones[4].get("/me"))  # so does the winner who left
    # the starting law is known by everyone
    assert all("Echo-when" in text(p.get("/me")) for p in phones)
    assert "Echo-when" not in host_html

    # the table tells 박서준 the law: now five phones, still not the host
    assert post(night, game, "learn", law=2, seat=4).status_code == 200
    assert shown() == [True, True, True, True, True]
    host_html = night.host.get(game).data.decode()
    assert "<bdi>박서준</bdi> now knows the law Moon" in host_html
    assert WHEN not in host_html and WHAT not in host_html
    assert WHEN not in text(night.host.get(f"{game}/live"))


def test_a_law_entered_on_the_tablet_is_not_shown_on_the_tablet_afterwards(table):
    night, game, phones = table
    response = post(night, game, "law", name="Echo", when=WHEN, what=WHAT)
    assert response.status_code == 200
    assert WHEN not in text(response) and WHAT not in text(response)
    assert "Echo" in text(response)


def test_every_law_is_revealed_everywhere_when_the_game_ends(night):
    game = night.start("crazytime", seat0="1", seat1="1", seat2="1", seat3="1", seat4="1",
                       side="blue")
    phones = [night.phone(i) for i in range(5)]
    give(night, game, {0: 2, 1: 2, 2: 1, 3: 1})  # 4 wins 1h
    post(night, game, "law", name="Moon", when=WHEN, what=WHAT)
    assert not law_is_shown(phones[4].get("/me"))
    post(night, game, "next")
    give(night, game, {0: 0, 1: 3, 2: 3, 3: 2})  # 0 and 4 win 2h
    post(night, game, "law", name="Tide", when="t-when", what="t-what")
    post(night, game, "next")
    give(night, game, {0: 3, 1: 1, 2: 2, 3: 1, 4: 3})  # 1 and 3 win 3h
    post(night, game, "law", name="Kettle", when="k-when", what="k-what")
    post(night, game, "next")
    give(night, game, {0: 1, 1: 2, 2: 0, 3: 2, 4: 7})
    host_html = night.host.get(game).data.decode()
    assert "Final standings" in host_html
    for phone in phones + [night.host]:
        html = text(phone.get("/me" if phone is not night.host else game))
        assert WHEN in html and "t-when" in html and "k-what" in html
    # scores: 민수 2-1=1, Jo 3-2=1, 지혜 0-0=0, Ann 3-2=1, 박서준 3-7=-4
    # standard competition ranking (docs/rules.md#ranking): 1, 2, 2, 4, 5
    rows = re.findall(r'<tr data-place="(\d)" data-seat="(\d)">', host_html)
    assert rows == [("1", "0"), ("2", "1"), ("2", "3"), ("4", "2"), ("5", "4")]
    assert re.findall(r'class="ct-score">(-?\d+)<', host_html) == ["1", "1", "1", "0", "-4"]
    response = post(night, game, "penalty", seat=0)
    assert status_of(response) == 422
    assert "The game is over." in text(response)


def test_a_player_handed_the_tablet_sees_their_laws_but_no_phone_form(table):
    night, game, phones = table
    post(night, game, "law", name="Echo", when=WHEN, what=WHAT)
    give(night, game, {0: 2, 1: 2, 2: 1, 3: 1})  # the law phase: 0–3 make the law
    html = text(night.host.post(f"{night.url}/pass/2"))
    assert WHEN in html  # 지혜 knows the starting law
    assert "/me/crazytime/law" not in html
    assert "/me/crazytime/law" in text(phones[2].get("/me"))
    assert "/me/crazytime/law" not in text(phones[4].get("/me"))  # out of the room


def test_the_rules_summary_page(client):
    html = client.get("/rules/crazytime", headers={"Accept-Language": "en"}).data.decode()
    assert "Synchronisation" in html and "6, 8, 10 and 12" in html
