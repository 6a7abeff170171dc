"""A latecomer joins a running night, and a player leaves it: the friend who arrives at
nine gets a seat of their own (a code, a colour), plays from the next game on, and is in
the tally for the games they played; a seat that left is not offered for the next game."""

import re

from bench.builders import make_night
from companion import store
from companion.store import imports

FOUR = {"seat0": "on", "seat1": "on", "seat2": "on", "seat3": "on"}
ROLE_WORDS = re.compile(r">\s*(Explorer|Skeleton)\s*<")


def seats_of(night):
    with night.app.test_request_context():
        return store.seats(store.night_by_key(night.key)["id"])


def join(night, name, client=None):
    return (client or night.host).post(f"{night.url}/seats", data={"name": name})


def test_a_latecomer_gets_a_seat_of_their_own_after_the_last(night):
    before = seats_of(night)
    assert join(night, "  Latecomer Lee ").status_code == 303
    after = seats_of(night)
    new = after[-1]
    assert len(after) == len(before) + 1
    assert (new["position"], new["name"]) == (5, "Latecomer Lee")
    assert new["token"] not in {s["token"] for s in before}
    assert new["colour"] not in {s["colour"] for s in before}
    html = night.host.get(night.url).data.decode()
    assert f'/n/{night.key}/qr/5.svg' in html and "Latecomer Lee" in html
    # the new seat's code opens its own phone page
    phone = night.app.test_client()
    assert phone.post(f"/s/{new['token']}").status_code == 303


def test_the_running_game_keeps_its_players_and_the_next_game_offers_the_latecomer(night):
    game = night.start("kraken", **FOUR)
    join(night, "Lee")
    with night.app.test_request_context():
        row = store.night_by_key(night.key)
        assert store.game(row["id"], 1).setup["players"] == [0, 1, 2, 3]
    form = night.host.get(f"{night.url}/new/kraken").data.decode()
    assert 'name="seat5"' in form
    second = night.start("kraken", **FOUR, seat5="on")
    with night.app.test_request_context():
        assert 5 in store.game(store.night_by_key(night.key)["id"], 2).setup["players"]
    assert game != second


def test_a_latecomer_sees_no_secret_of_a_game_they_were_not_dealt_into(night):
    night.start("kraken", **FOUR)
    join(night, "Lee")
    token = seats_of(night)[-1]["token"]
    phone = night.app.test_client()
    phone.post(f"/s/{token}")
    html = phone.get("/me").data.decode()
    assert "You are not playing this game" in html
    assert ROLE_WORDS.findall(html) == []
    assert "data-hold" not in html


def test_a_latecomer_is_in_the_tally_for_the_games_they_played(night):
    join(night, "Lee")
    night.start("crazytime", seat0="on", seat1="on", seat2="on", seat5="on")
    tally = night.host.get(f"{night.url}/tally").data.decode()
    assert "Lee" in tally


def test_bad_names_are_refused_and_add_nothing(night):
    for name, words in (("", "Type the new player&#39;s name."),
                        ("   ", "Type the new player&#39;s name."),
                        ("jo", "Two players are called"),
                        ("x" * 31, "at most 30 characters")):
        response = join(night, name)
        assert response.status_code == 422, name
        assert words in response.data.decode()
    assert len(seats_of(night)) == 5


def test_a_night_holds_eight_seats_at_most(app):
    eight = make_night(app, ["A", "B", "C", "D", "E", "F", "G", "H"])
    response = join(eight, "I")
    assert response.status_code == 422
    assert "at most 8 players" in response.data.decode()
    assert len(seats_of(eight)) == 8
    assert 'data-action="seat-join"' not in eight.host.get(eight.url).data.decode()


def test_the_same_name_sent_twice_adds_one_seat(night):
    assert join(night, "Lee").status_code == 303
    assert join(night, "lee").status_code == 422
    assert [s["name"] for s in seats_of(night)].count("Lee") == 1


def test_only_a_host_adds_a_seat(night):
    phone = night.phone(1)
    assert join(night, "Mallory", client=phone).status_code == 404
    assert join(night, "Mallory", client=night.app.test_client()).status_code == 404
    assert len(seats_of(night)) == 5


def test_an_export_after_a_latecomer_is_still_this_night(night):
    join(night, "Lee")
    with night.app.test_request_context():
        row = store.night_by_key(night.key)
        names = [s["name"] for s in store.seats(row["id"])]
        assert [n["id"] for n in imports.nights_like(row["created"], names)] == [row["id"]]


def test_a_player_who_leaves_is_not_offered_for_the_next_game_until_back(night):
    night.start("kraken", **FOUR)
    response = night.host.post(f"{night.url}/seats/4/leave", data={"on": "1"})
    assert response.status_code == 303
    table = night.host.get(night.url).data.decode()
    assert "left the night" in table
    assert 'name="seat4"' not in night.host.get(f"{night.url}/new/kraken").data.decode()
    # a form that ticks them anyway does not seat them
    night.start("kraken", **FOUR, seat4="on")
    with night.app.test_request_context():
        assert 4 not in store.game(store.night_by_key(night.key)["id"], 2).setup["players"]
    night.host.post(f"{night.url}/seats/4/leave", data={"on": "0"})
    assert 'name="seat4"' in night.host.get(f"{night.url}/new/kraken").data.decode()


def test_a_pair_left_with_one_player_gone_is_told_why_kraken_cannot_start(app):
    trio = make_night(app, ["Mina", "Jo", "Sun"])
    trio.host.post(f"{trio.url}/seats/2/leave", data={"on": "1"})
    html = trio.host.get(trio.url).data.decode()
    assert "No Touch Kraken is for 3 to 8 players; the night has 2." in html


def test_next_game_deals_no_role_to_a_player_who_left(night):
    """(Kraken's "Next game" deals the same seats again: one who left is at no table)"""
    from tests.kraken_host import error_notice, games_count, play

    url = night.start("kraken", **FOUR, seat4="on")
    play(night, url, ["kraken"])
    night.host.post(f"{night.url}/seats/2/leave", data={"on": "1"})
    response = night.host.post(f"{url}/kraken/next")
    assert response.status_code == 422
    assert error_notice(response) == (
        "지혜 🙂 left the night: start the next game from the new game form.")
    assert games_count(night) == 1
    night.host.post(f"{night.url}/seats/2/leave", data={"on": "0"})  # back at the table
    assert night.host.post(f"{url}/kraken/next").status_code == 303
    with night.app.test_request_context():
        second = store.game(store.night_by_key(night.key)["id"], 2)
        assert second.setup["players"] == [0, 1, 2, 3, 4]
