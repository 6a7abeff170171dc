"""Tonight's tally, the history and the statistics, through the real routes."""


import re

import pytest

from bench.builders import (
    ROLES,
    kraken_game,
    kraken_kraken_first,
    make_night,
    play,
    play_evening,
    skullking_game,
)
from companion import store
from companion.store.connection import get_db
from tests.pages import text_without_bdi, unmarked


@pytest.fixture
def evening(app):
    """Ann, Bo, Cy, Di and the games of :func:`play_evening`, on an English host."""
    night = make_night(app, ["Ann", "Bo", "Cy", "Di"])
    night.host.set_cookie("lang", "en")
    play_evening(app, night)
    return night


def test_the_host_tally_shows_every_game_and_the_hand_tally(evening):
    response = evening.host.get(f"{evening.url}/tally")
    assert response.status_code == 200
    html = text_without_bdi(response)
    assert html.count("The Skeletons won") == 3
    assert "Series won by" in html and "Skull King: final totals (game #4)" in html
    assert "Crazy Time: hours and final standings (game #5)" in html
    assert html.count("unfinished") >= 1
    assert "<svg" in html and "style=" not in html


def test_the_tally_fragment_is_the_live_part(evening):
    response = evening.host.get(f"{evening.url}/tally/live")
    assert response.status_code == 200
    assert text_without_bdi(response).lstrip().startswith("<div id=\"live\"")


def test_someone_else_gets_no_tally(app, evening):
    stranger = app.test_client()
    assert stranger.get(f"{evening.url}/tally").status_code == 404
    assert stranger.get(f"{evening.url}/export.json").status_code == 404
    assert stranger.get(f"{evening.url}/export.csv").status_code == 404


def test_a_phone_sees_the_tally_of_its_night(evening):
    phone = evening.phone(1)
    phone.set_cookie("lang", "en")
    html = text_without_bdi(phone.get("/me/tally"))
    assert "Series won by" in html
    assert "The night's tally" in text_without_bdi(phone.get("/me/tally/live"))


def test_the_tally_shows_no_secret_of_a_running_game(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    play(app, night, kraken_game(1, ROLES, kraken_kraken_first()[:1]))
    for client in (night.host, night.phone(0)):
        client.set_cookie("lang", "en")
        url = f"{night.url}/tally" if client is night.host else "/me/tally"
        html = text_without_bdi(client.get(url))
        assert "in progress" in html
        assert "Explorer" not in html and "Skeleton" not in html


def test_a_device_without_a_seat_is_told_so(client):
    assert client.get("/me/tally").status_code == 200
    assert client.get("/me/tally/live").status_code == 404


def test_the_csv_has_one_row_per_player_per_game(evening):
    response = evening.host.get(f"{evening.url}/export.csv")
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    rows = text_without_bdi(response).lstrip("\ufeff").splitlines()
    assert rows[0] == "game,kind,date,player,result,score,place"
    # 3 Kraken × 3 + Skull King × 3 + Crazy Time × 4 + running Kraken × 3
    assert len(rows) - 1 == 9 + 3 + 4 + 3
    sk = [r for r in rows if r.startswith("4,")]
    assert [r.split(",")[3:] for r in sk] == [["Ann", "lost", "10", "3"],
                                             ["Bo", "won", "30", "1"], ["Cy", "won", "30", "1"]]
    running = [r for r in rows if r.startswith("6,")]
    assert all(r.endswith(",unfinished,,") for r in running)


def test_a_name_never_becomes_a_spreadsheet_formula(app):
    night = make_night(app, ["=SUM(A1)", "Bo", "Cy"])
    play(app, night, kraken_game(1, ROLES, kraken_kraken_first()))
    rows = text_without_bdi(night.host.get(f"{night.url}/export.csv")).splitlines()
    assert rows[1].split(",")[3] == "'=SUM(A1)"


@pytest.mark.parametrize("name", ["\ufeff=SUM(A1)", "\u200b+1", " -2+3", "\u202e@x"])
def test_a_name_behind_an_invisible_character_never_becomes_a_formula(app, name):
    """The roster and imports refuse such names now; a night made before that rule
    (an earlier release's database) may still hold one."""
    night = make_night(app, ["Ann", "Bo", "Cy"])
    with app.app_context():
        db = get_db()
        db.execute("update seats set name = ? where name = 'Ann'", [name])
        db.conn.commit()
    play(app, night, kraken_game(1, ROLES, kraken_kraken_first()))
    rows = text_without_bdi(night.host.get(f"{night.url}/export.csv")).splitlines()
    assert rows[1].split(",")[3].startswith("'")
    stats = text_without_bdi(night.host.get("/stats.csv")).splitlines()
    assert any(row.startswith("'") for row in stats[1:])


def test_history_lists_the_nights_of_this_device(app, evening):
    html = text_without_bdi(evening.host.get("/history"))
    assert "Ann, Bo, Cy, Di" in html
    assert f'name="same_as" value="{evening.key}"' in html
    assert "Play again with the same players" in html
    assert html.count("<li>") >= 6  # the six games


def test_history_of_another_device_is_empty(client, evening):
    client.set_cookie("lang", "en")
    html = text_without_bdi(client.get("/history"))
    assert "Ann, Bo" not in html
    assert "No night has been hosted on this device yet." in html


def test_play_again_starts_a_night_with_the_same_players(app, evening):
    response = evening.host.post("/nights", data={"same_as": evening.key})
    assert response.status_code == 303
    key = response.headers["Location"].rsplit("/", 1)[1]
    with app.test_request_context():
        row = store.night_by_key(key)
        assert [s["name"] for s in store.seats(row["id"])] == ["Ann", "Bo", "Cy", "Di"]


def test_statistics_are_for_host_devices_only(client, evening):
    assert client.get("/stats").status_code == 403
    assert client.post("/stats/merge", data={"alias": "a", "into": "b"}).status_code == 403
    assert evening.host.get("/stats").status_code == 200


def test_statistics_show_each_player(evening):
    html = unmarked(text_without_bdi(evening.host.get("/stats")))  # each in their colour
    assert "Kraken wins as Skeleton" in html
    for name in ("Ann", "Bo", "Cy", "Di"):
        assert f"<th scope=\"row\">{name}" in html


def test_merging_two_spellings_counts_them_as_one(evening):
    response = evening.host.post("/nights", data={"name": ["Ann", "Bob", "Cy"]})
    assert response.status_code == 303
    html = unmarked(text_without_bdi(evening.host.get("/stats")))
    assert "<th scope=\"row\">Bob" in html
    response = evening.host.post("/stats/merge", data={"alias": "bob", "into": "bo"})
    assert response.status_code == 303
    html = unmarked(text_without_bdi(evening.host.get("/stats")))
    assert "<th scope=\"row\">Bob" not in html
    assert "Bo<br><small>Bo, Bob</small>" in html
    assert "bob → Bo" in html
    evening.host.post("/stats/unmerge", data={"alias": "bob"})
    assert "<th scope=\"row\">Bob" in unmarked(text_without_bdi(evening.host.get("/stats")))


@pytest.mark.parametrize("form", [{"alias": "nobody", "into": "bo"},
                                  {"alias": "bo", "into": "bo"}, {}])
def test_a_merge_of_unknown_or_equal_names_is_refused(evening, form):
    assert evening.host.post("/stats/merge", data=form).status_code == 422


def test_no_tally_route_answers_500(app, evening):
    for url in ("/n/nope/tally", "/n/nope/export.json", "/n/nope/export.csv",
                "/me/tally/live"):
        assert app.test_client().get(url).status_code == 404


# --- mid-night: the games still running ------------------------------------------------

def test_the_tally_mid_night_shows_a_skull_king_games_running_scores_in_progress(app):
    # Two of four rounds scored (bench/builders.py's sk_night_game): Ann 30, Cy 10, Bo 0.
    night = make_night(app, ["Ann", "Bo", "Cy"])
    night.host.set_cookie("lang", "en")
    play(app, night, skullking_game(1, [0, 1, 2], [1, 2, 3, 1],
                                    [{0: 0, 1: 0, 2: 1}, {0: 0, 1: 1, 2: 1}],
                                    [{0: 0, 1: 0, 2: 1}, {0: 0, 1: 2, 2: 0}]))
    html = text_without_bdi(night.host.get(f"{night.url}/tally"))
    part = html[html.index('data-standing="1"'):html.index("</article>")]
    assert "Skull King" in part and "in progress" in part and "Round 3 of 4" in part
    rows = re.findall(r"<td data-label=\"Place\">(\d)</td><th scope=\"row\">"
                      r"<span class=\"player pc-\w+\">(\w+)</span></th>"
                      r"<td data-label=\"Points\" class=\"big\">(-?\d+)</td>", part)
    assert rows == [("1", "Ann", "30"), ("2", "Cy", "10"), ("3", "Bo", "0")]
    assert "1 game in progress" in html


def test_a_running_standing_never_holds_a_bid_before_its_reveal(app):
    # Round 1 scored (bids 0, 0, 1 all made on one card: 10, 10, 20); in round 2 Ann's
    # bid of 2 is in, not revealed.
    night = make_night(app, ["Ann", "Bo", "Cy"])
    night.host.set_cookie("lang", "en")
    game = skullking_game(1, [0, 1, 2], [1, 2], [{0: 0, 1: 0, 2: 1}], [{0: 0, 1: 0, 2: 1}])
    game["events"] += [{"type": "bid", "data": {"seat": 0, "round": 2, "bid": 2}, "seat": None}]
    play(app, night, game)
    for client, url in ((night.host, f"{night.url}/tally"), (night.phone(1), "/me/tally")):
        client.set_cookie("lang", "en")
        part = text_without_bdi(client.get(url))
        part = part[part.index('data-standing="1"'):part.index("</article>")]
        assert "Round 2 of 2" in part
        # round 1's totals only: the bid of 2 changes nothing anyone sees
        assert re.findall(r'class="big">(-?\d+)</td>', part) == ["20", "10", "10"]


def test_a_game_with_no_score_yet_says_so_and_a_finished_game_leaves_the_section(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    night.host.set_cookie("lang", "en")
    play(app, night, kraken_game(1, ROLES, kraken_kraken_first()[:1]))
    html = text_without_bdi(night.host.get(f"{night.url}/tally"))
    assert "No score yet." in html and "Round 1 of 4" in html
    done = make_night(app, ["Ann", "Bo", "Cy"])
    done.host.set_cookie("lang", "en")
    play(app, done, kraken_game(1, ROLES, kraken_kraken_first()))
    assert 'data-standing="' not in text_without_bdi(done.host.get(f"{done.url}/tally"))


# --- awards on the tally ----------------------------------------------------------------

def test_the_tally_shows_tonights_awards_with_the_players_colours(evening):
    html = text_without_bdi(evening.host.get(f"{evening.url}/tally"))
    assert "The night's awards" in html
    # Skull King: Bo bid 0 and made it in both rounds.
    assert "Bid 0 and took no trick, rounds in a row: 2" in html
    # Crazy Time: Ann took 9 penalties, everybody else 13.
    assert "Fewest penalties per game: 9" in html
    streak = html[html.index("award-zero-streak"):html.index("award-dodger")]
    assert streak.count('<span class="player pc-') == 1 and ">Bo</span>" in streak


def test_the_tally_gives_no_award_most_of_the_table_shares(evening):
    html = text_without_bdi(evening.host.get(f"{evening.url}/tally"))
    # Kraken: Ann and Cy had none of their cards revealed, 2 of the series' 3 players;
    # Skull King: Bo and Cy bid exactly twice each, 2 of 3 (docs/rules.md#awards).
    assert "Survivor" not in html and "Fewest own cards revealed" not in html
    assert "Sharpshooter" not in html and "Most exact bids" not in html


def test_a_phone_sees_the_same_awards(evening):
    phone = evening.phone(2)
    phone.set_cookie("lang", "en")
    html = text_without_bdi(phone.get("/me/tally"))
    assert "The night's awards" in html and "Perfect zero streak" in html


def test_the_awards_are_in_korean(evening):
    evening.host.set_cookie("lang", "ko")
    html = text_without_bdi(evening.host.get(f"{evening.url}/tally"))
    assert "이번 모임 시상" in html and "0 입찰 연속 성공" in html
