"""Log in BG Stats: each finished game as one BG Stats play, its import link and its QR
code (docs/bgstats.md). The plays are checked field by field against hand-made games
whose numbers are worked out in bench/builders.py."""

import json
import re
from datetime import datetime
from urllib.parse import unquote, urlsplit

import pytest

from bench.builders import (
    crazytime_game,
    ev,
    kraken_all_treasure,
    kraken_game,
    kraken_kraken_first,
    make_night,
    skullking_game,
    skullking_hand,
    store_game,
)
from companion.core import bgstats, registry, stats
from companion.crazytime import rules as ct

NIGHT = {"created": "2024-05-01T10:00:00Z"}
NAMES = {0: "Ann", 1: "Bo", 2: "Cy", 3: "Di"}
TITLES = {"skullking": "Skull King", "kraken": "No Touch Kraken", "crazytime": "Crazy Time"}
ROLES = ["explorer", "skeleton", "explorer"]


ID = {name: bgstats.player_id(name) for name in NAMES.values()}


def english(text):
    """The catalog's own words (the English msgids), in place of Flask-Babel."""
    return text


def timed(game, start="2024-05-01T19:30:00Z", end="2024-05-01T20:12:20Z"):
    """A hand-made game with the times the store would give it: started at ``start``,
    its last event at ``end``."""
    events = [dict(e, created=start) for e in game["events"]]
    if events:
        events[-1]["created"] = end
    return {**game, "created": start, "events": events}


def make_play(game, names=NAMES, gettext=english, known=None):
    known = registry.installed() if known is None else known
    result = stats.game_result(game["kind"], game["setup"], game["state"], known)
    return bgstats.play(NIGHT, game, result, names, TITLES[game["kind"]], gettext, known)


def by_name(found):
    return {p["name"]: p for p in found["players"]}


def data_of(link):
    """The play a link carries: its ``data`` parameter, URL-decoded, as JSON."""
    assert link.startswith(bgstats.CREATE_PLAY)
    query = urlsplit(link).query
    assert query.startswith("data=") and "&" not in query
    return json.loads(unquote(query.removeprefix("data=")))


GAMES = {
    "skullking": lambda: skullking_hand(1),
    "kraken": lambda: kraken_game(1, ROLES, kraken_all_treasure()),
    "crazytime": lambda: crazytime_game(1),
}


# --- every play ----------------------------------------------------------------------

@pytest.mark.parametrize("kind", sorted(GAMES))
def test_every_play_has_the_required_fields(kind):
    found = make_play(timed(GAMES[kind]()))
    assert found["sourceName"] == "Companion"
    assert found["sourcePlayId"] == "2024-05-01T10:00:00Z#1"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", found["playDate"])
    assert isinstance(found["durationMin"], int)
    assert found["game"]["name"] == TITLES[kind]
    assert found["game"]["sourceGameId"] == kind
    assert {"highestWins", "noPoints"} & set(found["game"])
    assert found["players"]
    for player in found["players"]:
        assert isinstance(player["name"], str) and player["name"]
        assert isinstance(player["sourcePlayerId"], str) and player["sourcePlayerId"]
        assert isinstance(player["winner"], bool)  # always there, true or false
    assert any(p["winner"] for p in found["players"])


#: The fields BG Stats' push-plays import reads and their JSON types, as far as public
#: sources show them (docs/bgstats.md#fields): required ones first, then the ones
#: Companion sends where a game has something to say. A bool is never 0/1 and a number
#: never a string.
PLAY_FIELDS = {"sourceName": str, "sourcePlayId": str, "playDate": str,
               "durationMin": int, "game": dict, "players": list}
OPTIONAL_PLAY_FIELDS = {"board": str, "comments": str}
GAME_FIELDS = {"name": str, "sourceGameId": str, "highestWins": bool, "noPoints": bool}
OPTIONAL_GAME_FIELDS = {"bggId": int}
PLAYER_FIELDS = {"name": str, "sourcePlayerId": str, "winner": bool, "startPlayer": bool}
OPTIONAL_PLAYER_FIELDS = {"score": int, "rank": int, "role": str}


def has_fields(found, required, optional):
    """Every required field is there with its type; nothing else but the optional
    fields, each of its type. ``type(x) is int`` refuses a bool where a number goes."""
    assert set(required) <= set(found), set(required) - set(found)
    assert set(found) <= set(required) | set(optional), set(found) - set(required)
    for name, value in found.items():
        wanted = {**required, **optional}[name]
        assert type(value) is wanted, (name, value)


#: Who starts, per kind: Skull King the lead player of round 1 (Bo, left of the first
#: dealer Ann); Kraken whoever took the action marker first (Ann); Crazy Time the
#: rabbit (Di, seat 3).
STARTS = {"skullking": "Bo", "kraken": "Ann", "crazytime": "Di"}


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_every_play_has_every_field_bg_stats_reads_with_its_type(kind):
    found = json.loads(bgstats.document(make_play(timed(GAMES[kind]()))))
    has_fields(found, PLAY_FIELDS, OPTIONAL_PLAY_FIELDS)
    has_fields(found["game"], GAME_FIELDS, OPTIONAL_GAME_FIELDS)
    for player in found["players"]:
        has_fields(player, PLAYER_FIELDS, OPTIONAL_PLAYER_FIELDS)
    # playDate is an ISO 8601 date and time (the space form), UTC, to the second.
    assert datetime.fromisoformat(found["playDate"]).isoformat(" ") == found["playDate"]
    assert found["durationMin"] >= 0
    if found["game"]["noPoints"]:
        assert all("score" not in p for p in found["players"])
    else:
        assert all("score" in p for p in found["players"])


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_every_player_says_whether_they_started_and_one_did(kind):
    found = make_play(timed(GAMES[kind]()))
    starts = {p["name"]: p["startPlayer"] for p in found["players"]}
    assert all(value in (True, False) for value in starts.values())
    assert [name for name, started in starts.items() if started] == [STARTS[kind]]


def test_a_crazy_time_game_without_a_rabbit_has_nobody_as_start_player():
    game = crazytime_game(1)
    game["events"] = [e for e in game["events"] if e["type"] != "rabbit"]
    game["state"] = ct.replay(game["setup"], game["events"])
    found = make_play(timed(game))
    assert [p["startPlayer"] for p in found["players"]] == [False] * 4


def test_a_kraken_start_player_is_who_took_the_marker_first_not_who_holds_it_last():
    """Ann takes the marker; after the three reveals it is with Ann again, but a corrected
    first holder (Bo, recorded again before the first reveal) is the start player."""
    events = [ev("marker", seat=0), ev("marker", seat=1),
              ev("reveal", seat=2, card="treasure", special=None),
              ev("reveal", seat=0, card="treasure", special=None),
              ev("reveal", seat=1, card="treasure", special=None)]
    found = make_play(timed(kraken_game(1, ROLES, events)))
    assert {p["name"]: p["startPlayer"] for p in found["players"]} == \
        {"Ann": False, "Bo": True, "Cy": False}


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_the_link_carries_the_play_and_decodes_to_it(kind):
    found = make_play(timed(GAMES[kind]()))
    link = bgstats.link(found)
    assert data_of(link) == found


def test_names_that_look_like_url_syntax_survive_the_link():
    names = {0: "김민준 & Co", 1: "a+b=c?d#e", 2: "100% 😀 / \"quoted\""}
    found = make_play(timed(skullking_hand(1)), names=names)
    link = bgstats.link(found)
    assert not re.search(r"[ &#+=?\"/]", link.removeprefix(bgstats.CREATE_PLAY))
    assert data_of(link) == found
    assert [p["name"] for p in data_of(link)["players"]] == list(names.values())


def test_the_play_date_is_the_end_of_the_game_in_utc_and_the_duration_its_minutes():
    found = make_play(timed(skullking_hand(1)))
    assert found["playDate"] == "2024-05-01 20:12:20"
    assert found["durationMin"] == 42


def test_a_game_played_over_midnight_counts_its_minutes():
    found = make_play(timed(skullking_hand(1), start="2024-05-01T23:50:00Z",
                            end="2024-05-02T00:20:00Z"))
    assert found["durationMin"] == 30
    assert found["playDate"] == "2024-05-02 00:20:00"


def test_players_are_matched_across_nights_by_their_folded_name():
    names = {0: "  Ann ", 1: "BO", 2: "Cy"}
    found = make_play(timed(skullking_hand(1)), names=names)
    again = make_play(timed(skullking_hand(2)), names={0: "ann", 1: "Bo", 2: "Di"})
    ids = [p["sourcePlayerId"] for p in found["players"]]
    assert [p["sourcePlayerId"] for p in again["players"]][:2] == ids[:2]
    assert len(set(ids)) == 3 and all(re.fullmatch(r"[0-9a-f]{10}", i) for i in ids)
    assert [p["name"] for p in found["players"]] == ["  Ann ", "BO", "Cy"]


# --- each game's mapping -------------------------------------------------------------

def test_skull_king_totals_and_the_first_lead_player():
    """Totals 10, 30, 30 (bench/builders.py): Bo and Cy share first (both winners; no
    rank is sent, BG Stats ranks by the scores); the first dealer is Ann, so Bo leads
    round 1."""
    found = make_play(timed(skullking_hand(1)))
    assert found["game"] == {"name": "Skull King", "sourceGameId": "skullking",
                             "bggId": 150145, "highestWins": True, "noPoints": False}
    assert found["board"] == "2021 edition · Skull King scoring"
    assert by_name(found) == {
        "Ann": {"name": "Ann", "sourcePlayerId": ID["Ann"], "winner": False, "score": 10,
                "startPlayer": False},
        "Bo": {"name": "Bo", "sourcePlayerId": ID["Bo"], "winner": True, "score": 30,
               "startPlayer": True},
        "Cy": {"name": "Cy", "sourcePlayerId": ID["Cy"], "winner": True, "score": 30,
               "startPlayer": False},
    }
    assert "comments" not in found


@pytest.mark.parametrize("edition, scoring, board", [
    ("classic", "skull_king", "Classic edition · Skull King scoring"),
    ("2021", "rascal", "2021 edition · Rascal's scoring"),
])
def test_skull_king_board_names_the_edition_and_the_scoring(edition, scoring, board):
    game = skullking_hand(1)
    game["setup"] = {**game["setup"], "edition": edition, "scoring": scoring}
    result = stats.game_result("skullking", game["setup"], game["state"], registry.installed())
    found = bgstats.play(NIGHT, timed(game), result, NAMES, "Skull King", english,
                         registry.installed())
    assert found["board"] == board


def test_kraken_has_no_points_the_roles_and_the_whole_team_wins():
    """All three Treasures found: the Explorers (Ann, Cy) win, the Skeleton Bo loses."""
    found = make_play(timed(kraken_game(1, ROLES, kraken_all_treasure())))
    assert found["game"] == {"name": "No Touch Kraken", "sourceGameId": "kraken",
                             "highestWins": True, "noPoints": True}
    assert "board" not in found
    assert found["comments"] == "The Explorers won (every treasure was found)"
    assert by_name(found) == {
        "Ann": {"name": "Ann", "sourcePlayerId": ID["Ann"], "winner": True, "role": "Explorer",
                "startPlayer": True},
        "Bo": {"name": "Bo", "sourcePlayerId": ID["Bo"], "winner": False, "role": "Skeleton",
               "startPlayer": False},
        "Cy": {"name": "Cy", "sourcePlayerId": ID["Cy"], "winner": True, "role": "Explorer",
               "startPlayer": False},
    }
    for player in found["players"]:
        assert "score" not in player


def test_kraken_skeletons_win_as_a_team_when_the_kraken_is_revealed():
    found = make_play(timed(kraken_game(1, ROLES, kraken_kraken_first())))
    assert {p["name"]: p["winner"] for p in found["players"]} == \
        {"Ann": False, "Bo": True, "Cy": False}
    assert found["comments"] == "The Skeletons won (the Kraken was revealed)"


def test_kraken_roles_are_in_the_tables_language(app):
    from flask_babel import gettext, refresh

    game = timed(kraken_game(1, ROLES, kraken_all_treasure()))
    with app.test_request_context(headers={"Cookie": "lang=ko"}):
        refresh()
        found = make_play(game, gettext=gettext)
    assert [p["role"] for p in found["players"]] == ["탐험대", "스켈레톤", "탐험대"]
    assert found["comments"] == "탐험대 승리 (보물 상자를 모두 찾음)"


def test_each_kraken_game_of_a_series_is_a_play_of_its_own():
    plays = [make_play(timed(kraken_game(n, ROLES, kraken_kraken_first(), "s")))
             for n in (1, 2, 3)]
    assert [p["sourcePlayId"] for p in plays] == [
        "2024-05-01T10:00:00Z#1", "2024-05-01T10:00:00Z#2", "2024-05-01T10:00:00Z#3"]
    assert all([q["winner"] for q in p["players"]] == [False, True, False] for p in plays)


def test_crazy_time_scores_are_the_final_points_and_the_highest_wins():
    """Hours 4, 2, 0, 0 minus match-4 penalties 5, 5, 1, 1: -1, -3, -1, -1; the tie at
    -1 goes to fewer match-4 penalties: Cy and Di share first, Ann third, Bo fourth."""
    found = make_play(timed(crazytime_game(1)))
    assert found["game"] == {"name": "Crazy Time", "sourceGameId": "crazytime",
                             "highestWins": True, "noPoints": False}
    assert {p["name"]: (p["score"], p["rank"], p["winner"]) for p in found["players"]} \
        == {"Ann": (-1, 3, False), "Bo": (-3, 4, False), "Cy": (-1, 1, True),
            "Di": (-1, 1, True)}


# --- a running game has no play -------------------------------------------------------

@pytest.mark.parametrize("game", [
    kraken_game(1, ROLES, kraken_all_treasure()[:2]),
    skullking_game(1, [0, 1, 2], [1, 2], [{0: 1, 1: 0, 2: 0}], [{0: 1, 1: 0, 2: 0}]),
    crazytime_game(1, matches=[{0: 1}]),
], ids=["kraken", "skullking", "crazytime"])
def test_a_game_still_running_has_no_play(game):
    assert not game["state"].get("finished")
    assert make_play(timed(game)) is None


def test_a_kind_without_bgstats_has_no_play():
    from dataclasses import replace

    from companion.core import registry

    known = dict(registry.installed())
    known["skullking"] = replace(known["skullking"], bgstats=None)
    assert make_play(timed(skullking_hand(1)), known=known) is None


# --- QR codes: a link too long for a dependable one -----------------------------------

KOREAN = ["김민준", "이서연", "박지호", "최하은", "정도윤", "강수아"]


def test_a_game_of_six_korean_names_fits_a_qr_code():
    game = skullking_game(1, list(range(6)), [1, 2], [dict.fromkeys(range(6), 0)] * 2,
                          [{0: 1, **dict.fromkeys(range(1, 6), 0)},
                           {0: 2, **dict.fromkeys(range(1, 6), 0)}])
    found = make_play(timed(game), names=dict(enumerate(KOREAN)))
    link = bgstats.link(found)
    assert bgstats.fits_qr(link)
    assert len(link.encode()) < bgstats.QR_LIMIT


def test_long_names_make_a_link_too_long_for_a_qr_code():
    names = {s: "아주긴이름을가진선원" * 3 + str(s) for s in range(4)}
    found = make_play(timed(crazytime_game(1)), names=names)
    link = bgstats.link(found)
    assert len(link.encode()) > bgstats.QR_LIMIT
    assert not bgstats.fits_qr(link)
    assert data_of(link) == found  # the link itself still works when tapped


# --- on the tally ---------------------------------------------------------------------

def text(response):
    return response.get_data(as_text=True)


def links_in(html):
    return [data_of(m.replace("&amp;", "&"))
            for m in re.findall(r'href="(https://app\.bgstatsapp\.com/[^"]+)"', html)]


@pytest.fixture
def evening(app):
    """Ann, Bo, Cy, Di: a Skull King game finished, a Kraken game left running."""
    night = make_night(app, ["Ann", "Bo", "Cy", "Di"])
    night.host.set_cookie("lang", "en")
    device = night.host.get_cookie("device").value
    store_game(app, device, night.key, skullking_hand(1))
    store_game(app, device, night.key, kraken_game(2, ROLES, kraken_all_treasure()[:2]))
    return night


def test_the_tally_offers_each_finished_game_to_bg_stats_with_a_qr_code(evening):
    html = text(evening.host.get(f"{evening.url}/tally"))
    assert "Log in BG Stats" in html
    plays = links_in(html)
    assert [p["game"]["name"] for p in plays] == ["Skull King"]
    assert {p["name"]: p["score"] for p in plays[0]["players"]} == \
        {"Ann": 10, "Bo": 30, "Cy": 30}
    assert html.count('class="bgstats-qr"') == 1
    assert "style=" not in html


def test_a_phone_taps_the_link_and_keeps_the_qr_code_folded(evening):
    """The host's screen is scanned; a phone taps its link (the code stays folded away,
    for another phone to scan)."""
    host = text(evening.host.get(f"{evening.url}/tally"))
    assert 'class="bgstats-more"' not in host and host.count('class="bgstats-qr"') == 1
    mine = text(evening.phone(0).get("/me/tally"))
    assert mine.count('<details class="bgstats-more">') == 1
    assert mine.count('class="bgstats-qr"') == 1


def test_a_running_game_has_no_link_no_qr_and_no_file(evening):
    html = text(evening.host.get(f"{evening.url}/tally"))
    assert all(p["game"]["sourceGameId"] != "kraken" for p in links_in(html))
    assert "explorer" not in html.lower() and "skeleton" not in html.lower()
    assert evening.host.get(f"{evening.url}/g/2/bgstats.json").status_code == 404
    assert evening.host.get(f"{evening.url}/g/9/bgstats.json").status_code == 404


def test_a_night_with_only_a_running_game_has_no_bg_stats_section(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    store_game(app, night.host.get_cookie("device").value, night.key,
               kraken_game(1, ROLES, kraken_all_treasure()[:2]))
    html = text(night.host.get(f"{night.url}/tally"))
    assert "bgstatsapp" not in html and "tally-bgstats" not in html


def test_the_phones_tally_has_the_same_links(evening):
    phone = evening.phone(0)
    html = text(phone.get("/me/tally"))
    assert [p["sourcePlayId"] for p in links_in(html)] == \
        [p["sourcePlayId"] for p in links_in(text(evening.host.get(f"{evening.url}/tally")))]
    assert phone.get("/me/g/2/bgstats.json").status_code == 404


def test_a_link_too_long_for_a_qr_code_is_said_and_offered_as_a_file(app):
    names = ["아주 긴 이름을 가진 용감한 선원 " + str(s) for s in range(8)]
    night = make_night(app, names)
    night.host.set_cookie("lang", "en")
    store_game(app, night.host.get_cookie("device").value, night.key,
               crazytime_game(1, players=range(7)))
    html = text(night.host.get(f"{night.url}/tally"))
    assert 'class="bgstats-qr"' not in html
    assert "too long for a QR code" in html
    assert f'href="/n/{night.key}/g/1/bgstats.json"' in html
    response = night.host.get(f"{night.url}/g/1/bgstats.json")
    assert response.status_code == 200
    assert response.headers["Content-Disposition"].startswith("attachment;")
    assert json.loads(response.data) == links_in(html)[0]
