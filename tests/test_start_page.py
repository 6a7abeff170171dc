"""The start page, through the real routes: the latest night first (the one made last,
with how many games it has), then the roster, which starts with four seats and holds
eight, and the earlier nights; another device's night is not shown."""

import re
import sqlite3

from bench.builders import make_night
from tests.apps import nights_count
from tests.pages import text_without_bdi, visible_names


def roster_fields(html):
    roster = html[html.index('class="roster"'):]
    return re.findall(r'name="name"[^>]*value="([^"]*)"', roster)


# --- the start page: the latest night first ---------------------------------------------


def test_the_latest_night_comes_first_then_the_roster_then_the_earlier_nights(app):
    first = make_night(app, ["Ann", "Bo", "Cy"])
    second = first.host.post("/nights", data={"name": ["Dee", "Eve", "Fay"]})
    latest_key = second.headers["Location"].rsplit("/", 1)[1]
    html = text_without_bdi(first.host.get("/"))
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
    html = text_without_bdi(night.host.get("/"))
    assert f'data-night="{key}"' in html[:html.index('class="roster"')]


def test_the_latest_night_says_how_many_games_it_has(app):
    night = make_night(app, ["Ann", "Bo", "Cy", "Di"])
    assert "no game yet" in text_without_bdi(night.host.get("/"))
    night.start("kraken", **{f"seat{i}": "1" for i in range(4)})
    html = text_without_bdi(night.host.get("/"))
    assert "1 game" in html[:html.index('class="roster"')]


def test_a_device_that_hosts_no_night_sees_the_roster_first(client):
    html = text_without_bdi(client.get("/"))
    assert 'class="latest-night"' not in html and 'id="earlier-nights-title"' not in html
    assert 'data-action="night-create"' in html


def test_another_devices_night_is_not_shown(client, night):
    assert night.key not in text_without_bdi(client.get("/"))


# --- a roster that starts small --------------------------------------------------------


def test_the_roster_shows_four_seats_and_holds_eight(client):
    html = text_without_bdi(client.get("/"))
    assert len(roster_fields(html)) == 8
    assert len(visible_names(html)) == 4
    assert html.count("<li data-roster-seat hidden>") == 4
    assert 'name="shown" value="4"' in html
    assert "data-add-seat" in html and "Add a seat" in html
    assert 'data-action="night-create"' in html and 'name="form_token"' in html


def test_add_a_seat_without_javascript_gives_one_more_field_and_keeps_the_names(app, client):
    html = text_without_bdi(client.get("/"))
    token = re.search(r'name="form_token" value="([^"]+)"', html).group(1)
    form = {"name": ["Ann", "Bo", "", "Di", "", "", "", ""], "shown": "4", "add_seat": "1",
            "form_token": token}
    response = client.post("/nights", data=form)
    assert response.status_code == 200
    html = text_without_bdi(response)
    assert visible_names(html) == ["Ann", "Bo", "", "Di", ""]
    assert 'name="shown" value="5"' in html
    assert f'value="{token}"' in html  # the same one-time form: it made nothing yet
    assert nights_count(app) == 0
    # adding up to eight seats hides the button
    for shown in range(5, 8):
        html = text_without_bdi(client.post("/nights", data={**form, "shown": str(shown)}))
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
    html = text_without_bdi(response)
    assert "Two players are called" in html
    assert visible_names(html) == names


def test_a_roster_of_eight_names_is_one_night_of_eight(app, client):
    names = [f"P{i}" for i in range(8)]
    assert client.post("/nights", data={"name": names}).status_code == 303
    assert nights_count(app) == 1
