"""Each player's colour: chosen at the roster, changeable, and shown wherever the player
is (companion/core/colours.py, static/players.css)."""

import io
import json
import re
from pathlib import Path

import pytest
from sqlite_utils import Database

from bench.builders import make_night
from companion import store
from companion.core import colours, exchange, registry
from companion.store import schema
from tests.refusing import status_of
from tests.skullking_host import bid_round, result

ROOT = Path(__file__).resolve().parent.parent


def seat_colours(app, key):
    with app.test_request_context():
        return store.colours(store.night_by_key(key)["id"])


# --- the palette ----------------------------------------------------------------------

def test_eight_colours_for_eight_seats_none_twice():
    assert len(colours.KEYS) == 8 == len(set(colours.KEYS))
    assert len(set(colours.HEX.values())) == 8
    # Okabe and Ito's palette, grey for its black (black is lost on a dark screen)
    assert colours.HEX["orange"] == "#E69F00" and colours.HEX["blue"] == "#0072B2"
    assert "#000000" not in colours.HEX.values()


def test_the_stylesheet_draws_exactly_the_palette():
    css = (ROOT / "static" / "players.css").read_text()
    drawn = dict(re.findall(r"\.pc-(\w+) \{ --player: (#[0-9A-Fa-f]{6}); \}", css))
    assert drawn == colours.HEX


def test_a_roster_without_choices_gets_the_palette_in_seat_order():
    assert colours.assign([None, "", None]) == ["orange", "sky", "green"]


def test_a_chosen_colour_is_kept_and_the_others_take_the_first_free_ones():
    assert colours.assign(["", "orange", None, "sky"]) == ["green", "orange", "yellow", "sky"]


@pytest.mark.parametrize("chosen", [["orange", "orange", ""], ["purple", "", ""]])
def test_a_colour_twice_or_off_the_palette_is_refused(chosen):
    with pytest.raises(ValueError):
        colours.assign(chosen)


def test_twice_names_the_shared_colour():
    assert colours.twice(["sky", "", "green", "sky"]) == "sky"
    assert colours.twice(["sky", "", ""]) is None


# --- the roster -----------------------------------------------------------------------

def test_the_roster_keeps_the_colours_chosen(app):
    host = app.test_client()
    response = host.post("/nights", data={"name": ["Ann", "Bo", "", "Cy"],
                                          "colour": ["pink", "grey", "blue", "orange"]})
    assert response.status_code == 303
    key = response.headers["Location"].rsplit("/", 1)[1]
    # the blank row's colour goes with it
    assert seat_colours(app, key) == {0: "pink", 1: "grey", 2: "orange"}


def test_the_roster_shows_a_colour_per_seat_in_palette_order(client):
    html = client.get("/", headers={"Accept-Language": "ko"}).data.decode()
    selected = re.findall(r'<option value="(\w+)" selected>', html)
    assert selected == list(colours.KEYS)
    assert "주황" in html and "하늘색" in html


def test_two_players_of_one_colour_are_refused_and_the_roster_comes_back(client, app):
    response = client.post("/nights", data={"name": ["Ann", "Bo", "Cy"],
                                            "colour": ["sky", "green", "sky"]},
                           headers={"Accept-Language": "en"})
    assert response.status_code == 422
    html = response.data.decode()
    assert "Two players have the colour Sky blue" in html
    assert re.findall(r'<option value="(\w+)" selected>', html)[:3] == ["sky", "green", "sky"]
    assert 'value="Cy"' in html
    with app.test_request_context():
        assert store.latest_night() is None


def test_a_colour_off_the_palette_is_refused(client, app):
    response = client.post("/nights", data={"name": ["Ann", "Bo", "Cy"],
                                            "colour": ["sky", "green", "mauve"]},
                           headers={"Accept-Language": "en"})
    assert response.status_code == 422
    assert "Choose each player&#39;s colour from the list." in response.data.decode()
    with app.test_request_context():
        assert store.latest_night() is None


def test_play_again_keeps_each_players_colour(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    night.host.post(f"{night.url}/seats/0/colour", data={"colour": "grey"})
    response = night.host.post("/nights", data={"same_as": night.key})
    key = response.headers["Location"].rsplit("/", 1)[1]
    assert seat_colours(app, key) == {0: "grey", 1: "sky", 2: "green"}


# --- changing a colour ----------------------------------------------------------------

def test_a_new_colour_swaps_with_the_player_who_had_it(night):
    before = seat_colours(night.app, night.key)
    assert before[0] == "orange" and before[2] == "green"
    response = night.host.post(f"{night.url}/seats/0/colour", data={"colour": "green"})
    assert response.status_code == 303
    after = seat_colours(night.app, night.key)
    assert after[0] == "green" and after[2] == "orange"
    assert sorted(after.values()) == sorted(before.values())


def test_a_colour_change_reaches_the_phones(night):
    phone = night.phone(0)
    live = re.search(r'hx-get="(/me/live\?v=\d+)"', phone.get("/me").data.decode()).group(1)
    night.host.post(f"{night.url}/seats/0/colour", data={"colour": "pink"})
    fresh = phone.get(live)
    assert fresh.status_code == 200  # the night's version moved on
    assert 'class="seat-head pc-pink"' in fresh.data.decode()


def test_a_colour_off_the_palette_changes_nothing(night):
    before = seat_colours(night.app, night.key)
    response = night.host.post(f"{night.url}/seats/0/colour", data={"colour": "#ff0000"},
                               headers={"HX-Request": "true", "Accept-Language": "en"})
    assert status_of(response) == 422
    assert "Choose a colour from the list." in response.data.decode()
    assert seat_colours(night.app, night.key) == before


def test_only_a_host_changes_a_colour(night):
    before = seat_colours(night.app, night.key)
    assert night.phone(1).post(f"{night.url}/seats/0/colour",
                               data={"colour": "grey"}).status_code == 404
    assert seat_colours(night.app, night.key) == before


# --- where the colour shows -----------------------------------------------------------

def test_the_seat_cards_carry_their_players_colours(night):
    html = night.host.get(night.url).data.decode()
    assert re.findall(r'<li class="seat-card pc-(\w+)">', html) == list(colours.KEYS[:5])


def test_a_phone_header_wears_its_own_players_colour(night):
    night.host.post(f"{night.url}/seats/3/colour", data={"colour": "yellow"})
    html = night.phone(3).get("/me").data.decode()
    assert 'class="seat-head pc-yellow"' in html
    table = html[html.index('class="table-list"'):]
    # everyone at the table, each with their colour, in seat order
    assert re.findall(r'<li class="player pc-(\w+)', table) == [
        "orange", "sky", "green", "yellow", "blue"]


def test_the_tally_and_its_charts_colour_each_player(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    night.host.post(f"{night.url}/seats/1/colour", data={"colour": "pink"})
    url = night.start("skullking", seat0="on", seat1="on", seat2="on")
    assert url
    html = night.host.get(f"{night.url}/tally").data.decode()
    table = html[html.index("<table"):]
    assert re.findall(r'<span class="player pc-(\w+)">(\w+)</span>', table)[:3] == [
        ("orange", "Ann"), ("pink", "Bo"), ("green", "Cy")]
    bars = re.findall(r'<rect class="bar pc-(\w+)', html)
    assert sorted(bars) == ["green", "orange", "pink"]


def test_skull_kings_running_totals_draw_each_line_in_its_players_colour(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    night.host.post(f"{night.url}/seats/2/colour", data={"colour": "blue"})
    url = night.start("skullking", seat0="on", seat1="on", seat2="on")
    bid_round(night, url, {0: 1, 1: 0, 2: 1})
    assert result(night, url, {0: 1, 1: 0, 2: 0}).status_code == 303  # round 1 scored
    html = night.host.get(url).data.decode()
    series = dict(re.findall(r'<g class="sk-series sk-line-\d pc-(\w+)[^"]*" data-seat="(\d)"',
                             html))
    assert {seat: colour for colour, seat in series.items()} == {
        "0": "orange", "1": "sky", "2": "blue"}


# --- export and import ----------------------------------------------------------------

def test_an_export_carries_the_colours_and_an_import_keeps_them(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    night.host.post(f"{night.url}/seats/0/colour", data={"colour": "yellow"})
    exported = json.loads(night.host.get(f"{night.url}/export.json").data)
    assert exported["night"]["colours"] == ["yellow", "sky", "green"]
    exported["night"]["created"] = "2026-11-29T19:00:00Z"  # another night, not a copy
    exported = json.dumps(exported).encode()
    other = app.test_client()
    response = other.post("/import", data={"file": (io.BytesIO(exported), "night.json")})
    assert response.status_code == 303
    key = response.headers["Location"].split("/n/")[1].split("/")[0]  # to its tally
    assert seat_colours(app, key) == {0: "yellow", 1: "sky", 2: "green"}


def document(**night):
    base = {"created": "2026-11-30T19:00:00Z", "players": ["Ann", "Bo", "Cy"], **night}
    return json.dumps({"format": exchange.FORMAT, "version": exchange.FORMAT_VERSION,
                       "night": base, "games": []}).encode()


def test_a_file_without_colours_gets_the_palette_in_seat_order():
    assert exchange.parse_import(document(), registry.installed())["colours"] \
        == ["orange", "sky", "green"]


@pytest.mark.parametrize("bad", [["sky", "sky", "green"], ["sky", "green"],
                                 ["sky", "green", "magenta"], "sky", [1, 2, 3]])
def test_a_file_with_impossible_colours_is_refused(bad):
    with pytest.raises(exchange.BadFile) as refused:
        exchange.parse_import(document(colours=bad), registry.installed())
    assert refused.value.message == "The players' colours in this file are not readable."


# --- nights made before colours -------------------------------------------------------

def test_nights_made_before_colours_get_the_palette_in_seat_order(tmp_path):
    old = Database(str(tmp_path / "old.sqlite"))
    old["seats"].insert_all([{"night_id": 1, "position": p, "name": n}
                             for p, n in enumerate(["Ann", "Bo", "Cy"])])
    schema.seat_colours(old)
    assert [r["colour"] for r in old.query("select colour from seats order by position")] \
        == ["orange", "sky", "green"]
