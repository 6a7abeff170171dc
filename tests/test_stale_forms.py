"""A form refused for its token (a stale page, another tab) comes back with what was
typed and a fresh token: the roster's names, a Crazy Time law, a start form's rounds."""

import re

import pytest

from companion.app import create_app
from tests.apps import nights_count
from tests.pages import text_without_bdi, visible_names


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
    html = text_without_bdi(response)
    assert "What you typed is kept below" in html
    assert visible_names(html) == names
    assert nights_count(csrf_app) == 0
    again = host.post("/nights", data={"name": names, "csrf_token": token_of(html)})
    assert again.status_code == 303
    assert nights_count(csrf_app) == 1


def night_with_csrf(app, names):
    host = app.test_client()
    token = token_of(text_without_bdi(host.get("/")))
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
        html = text_without_bdi(response)
        assert "What you typed is kept below" in html
        assert 'value="Moon &amp; &lt;b&gt;"' in html
        assert 'value="SECRET-when"' in html and 'value="SECRET-what"' in html
    page = text_without_bdi(host.get(f"/n/{key}/g/1"))
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
    phone_token = token_of(text_without_bdi(phone.get(f"/s/{seat_token}")))
    assert phone.post(f"/s/{seat_token}", data={"csrf_token": phone_token}).status_code == 303
    response = phone.post("/me/crazytime/law", data={
        "name": "Echo", "when": "at 12", "what": "say echo", "csrf_token": "old"})
    assert response.status_code == 400
    html = text_without_bdi(response)
    assert 'value="Echo"' in html and 'value="at 12"' in html and 'value="say echo"' in html
    assert "What you typed is kept below" in html


def test_a_stale_start_form_keeps_its_custom_rounds(csrf_app):
    host, key, _token = night_with_csrf(csrf_app, ["Ann", "Bo", "Cy", "Di"])
    form = {**{f"seat{i}": "1" for i in range(4)}, "way": "custom", "rounds": "3,1,4"}
    response = host.post(f"/n/{key}/new/skullking", data={**form, "csrf_token": "old"})
    assert response.status_code == 400
    html = text_without_bdi(response)
    assert 'value="3,1,4"' in html and "What you typed is kept below" in html
    assert re.search(r'<option value="custom"\s+selected', html)


def test_a_stale_form_of_someone_elses_night_is_the_plain_page(csrf_app):
    _host, key, _token = night_with_csrf(csrf_app, ["Ann", "Bo", "Cy", "Di"])
    stranger = csrf_app.test_client()
    for path in (f"/n/{key}/new/skullking", f"/n/{key}/g/1/crazytime/law",
                 "/me/crazytime/law"):
        response = stranger.post(path, data={"name": "x", "csrf_token": "old"})
        assert response.status_code == 400
        assert "Reload it and try again" in text_without_bdi(response), path
