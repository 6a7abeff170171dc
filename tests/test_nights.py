"""The night through its routes: roster, seats and claiming, hosts, polling, security."""

import io
import re

import pytest

from bench.builders import NAMES, make_night
from companion.app import create_app
from tests.pages import page_text, without_tokens


def my_name(phone):
    """The name in the header of a phone's own page."""
    html = phone.get("/me").data.decode()
    return re.search(r'<h1 class="seat-name player pc-\w+">([^<]*)</h1>', html).group(1)


def test_the_start_page_offers_a_roster_of_eight_seats(client):
    html = client.get("/").data.decode()
    assert html.count('name="name"') == 8


def test_a_night_keeps_the_names_in_seat_order(night):
    html = night.host.get(night.url).data.decode()
    names = re.findall(r'<strong class="seat-name player">([^<]*)</strong>', html)
    assert names == NAMES
    assert html.count('class="seat-card pc-') == 5


@pytest.mark.parametrize("names, message", [
    (["Ann"], "at least 2"),
    ([f"P{i}" for i in range(9)], "at most 8"),
    (["Ann", "Bo", "ann"], "Two players are called"),
    (["Ann", "Bo", "x" * 31], "at most 30 characters"),
    (["", "  ", ""], "at least 2"),
])
def test_a_bad_roster_is_refused_with_a_reason_and_records_nothing(app, client, names,
                                                                      message):
    response = client.post("/nights", data={"name": names},
                           headers={"Accept-Language": "en"})
    assert response.status_code == 422
    assert message in response.data.decode()
    from companion.store.connection import connect
    assert connect(app.config["DATABASE"])["nights"].count == 0


def test_a_refused_roster_keeps_what_was_typed(client):
    response = client.post("/nights", data={"name": ["Ann", "Bo", "ann"]})
    assert 'value="Ann"' in response.data.decode()


def test_stray_form_fields_are_ignored(client):
    response = client.post("/nights", data={"name": ["A", "B", "C"], "admin": "1",
                                            "version": "99"})
    assert response.status_code == 303


def test_korean_names_emoji_and_long_names_are_fine(app):
    names = ["김하늘", "🐙 문어", "A very long name here!"]
    night = make_night(app, names)
    html = night.host.get(night.url).data.decode()
    assert all(n in html for n in names)


def test_same_players_as_last_time_copies_the_roster(night):
    response = night.host.post("/nights", data={"same_as": night.key})
    assert response.status_code == 303
    html = night.host.get(response.headers["Location"]).data.decode()
    assert all(n in html for n in NAMES)


def test_only_the_host_device_sees_the_night(night, app):
    stranger = app.test_client()
    assert stranger.get(night.url).status_code == 404
    assert stranger.get(night.url + "/qr/0.svg").status_code == 404
    assert stranger.post(night.url + "/seats/0/release").status_code == 404


@pytest.mark.parametrize("url", ["/s/not-a-token", "/s/" + "A" * 43, "/n/nope", "/h/nope",
                                 "/n/nope/qr/0.svg", "/nothing"])
def test_unknown_tokens_get_the_same_plain_404(client, url):
    response = client.get(url)
    assert response.status_code == 404
    # a night's address explains `companion host-link` (to a host whose browser lost
    # its cookies), the same way for every key; any other address is the plain page
    same = "/n/another" if url.startswith("/n/") else "/nothing"
    # (without their form tokens, signed with the second they were made)
    assert without_tokens(client.get(same).get_data(as_text=True)) == without_tokens(
        response.get_data(as_text=True))
    assert ("companion host-link" in response.data.decode()) == url.startswith("/n/")


def test_the_seat_qr_encodes_the_seat_link_on_the_lan_address(night):
    response = night.host.get(night.url + "/qr/2.svg")
    assert response.mimetype == "image/svg+xml"
    assert b"<svg" in response.data


def test_the_first_phone_claims_the_seat_and_keeps_the_token_out_of_the_address(night):
    phone = night.app.test_client()
    question = phone.get(f"/s/{night.tokens[0]}", headers={"Accept-Language": "en"})
    assert question.status_code == 200 and "Are you 민수?" in question.data.decode()
    response = phone.post(f"/s/{night.tokens[0]}")
    assert response.status_code == 303
    assert response.headers["Location"] == "/me"


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_opening_a_seat_link_takes_nothing(night, method):
    """A link previewer, a prefetch or a curious GET claims no seat."""
    night.app.test_client().open(f"/s/{night.tokens[0]}", method=method)
    assert night.phone(0) is not None  # still free for the player


def test_the_seat_page_says_who_the_player_is(night):
    phone = night.phone(1)
    html = phone.get("/me").data.decode()
    assert "Jo" in html
    assert "seat-name" in html


def test_a_second_phone_is_told_the_seat_is_taken_and_sees_nothing_of_it(night, app):
    night.phone(1)
    other = app.test_client()
    response = other.get(f"/s/{night.tokens[1]}", headers={"Accept-Language": "en"})
    assert response.status_code == 409
    html = response.data.decode()
    assert "already taken on another phone" in html
    assert "Jo" not in page_text(html)
    assert "Jo" not in page_text(other.get("/me").data.decode())


def test_the_same_phone_scanning_again_just_opens_its_page(night):
    phone = night.phone(1)
    html = phone.get(f"/s/{night.tokens[1]}", headers={"Accept-Language": "en"}).data.decode()
    assert "This is your seat, Jo" in html
    assert phone.post(f"/s/{night.tokens[1]}").status_code == 303


def test_one_phone_holds_one_seat(night):
    phone = night.phone(1)
    assert phone.get(f"/s/{night.tokens[2]}").status_code == 409
    assert phone.post(f"/s/{night.tokens[2]}").status_code == 409
    assert "Jo" in phone.get("/me").data.decode()


def test_the_host_screen_shows_which_seats_are_claimed(night):
    night.phone(0)
    html = night.host.get(night.url).data.decode()
    assert html.count("status claimed") == 1
    assert html.count("status open") == 4


def seat_links(night):
    """The seat links the host's screen shows now (a released seat gets a new one)."""
    with night.app.test_request_context():
        from companion import store

        return [s["token"] for s in store.seats(store.night_by_key(night.key)["id"])]


def test_a_released_seat_gets_a_new_code_the_old_one_says_so(night, app):
    old = night.phone(3)
    assert night.host.post(night.url + "/seats/3/release").status_code == 303
    fresh = seat_links(night)[3]
    assert fresh != night.tokens[3]
    photo = app.test_client()
    replaced = photo.get(f"/s/{night.tokens[3]}", headers={"Accept-Language": "en"})
    assert replaced.status_code == 410 and "This code was replaced" in replaced.data.decode()
    assert photo.post(f"/s/{night.tokens[3]}").status_code == 410
    new = app.test_client()
    assert new.post(f"/s/{fresh}").status_code == 303
    assert "Ann" in new.get("/me").data.decode()
    assert "Ann" not in page_text(old.get("/me").data.decode())
    assert app.test_client().post(f"/s/{fresh}").status_code == 409


def test_a_new_code_for_a_held_seat_keeps_its_phone(night, app):
    phone = night.phone(2)
    assert night.host.post(night.url + "/seats/2/code").status_code == 303
    assert "지혜" in phone.get("/me").data.decode()
    assert app.test_client().post(f"/s/{night.tokens[2]}").status_code == 410
    assert seat_links(night)[2] != night.tokens[2]


def test_a_seat_played_on_the_tablet_has_no_code(night, app):
    phone = night.phone(4)
    assert night.host.post(night.url + "/seats/4/tablet", data={"on": "1"}).status_code == 303
    assert "박서준" not in phone.get("/me").data.decode()  # the phone let go
    link = seat_links(night)[4]
    refused = app.test_client().get(f"/s/{link}", headers={"Accept-Language": "en"})
    assert refused.status_code == 409 and "plays on the tablet" in refused.data.decode()
    assert app.test_client().post(f"/s/{link}").status_code == 409
    assert night.host.get(night.url + "/qr/4.svg").status_code == 404
    # Given back to a phone, it gets a new code that works.
    night.host.post(night.url + "/seats/4/tablet", data={"on": "0"})
    assert app.test_client().post(f"/s/{seat_links(night)[4]}").status_code == 303
    assert app.test_client().post(f"/s/{link}").status_code == 410


def test_the_host_device_scanning_a_seat_does_not_take_it(night):
    response = night.host.get(f"/s/{night.tokens[0]}")
    assert response.status_code == 409
    assert night.phone(0) is not None


def test_a_phone_without_a_seat_is_asked_to_scan(client):
    response = client.get("/me", headers={"Accept-Language": "en"})
    assert response.status_code == 200
    assert "Scan your seat" in response.data.decode()


def version_shown(html):
    return int(re.search(r'hx-get="[^"]*/live\?v=(-?\d+)"', html).group(1))


def test_a_live_region_polls_its_own_url_with_the_version_it_shows(night):
    html = night.phone(0).get("/me").data.decode()
    assert re.search(r'id="live" hx-get="/me/live\?v=\d+" hx-trigger="every 2s, poll-now"', html)


def test_polling_answers_204_until_something_changes(night):
    phone = night.phone(0)
    version = version_shown(phone.get("/me").data.decode())
    assert phone.get(f"/me/live?v={version}").status_code == 204
    night.phone(1)  # another seat is claimed: the table changed
    response = phone.get(f"/me/live?v={version}")
    assert response.status_code == 200
    assert version_shown(response.data.decode()) == version + 1


def test_a_poll_with_no_change_is_empty(night):
    phone = night.phone(0)
    version = version_shown(phone.get("/me").data.decode())
    assert phone.get(f"/me/live?v={version}").data == b""


def test_the_host_poll_is_for_host_devices_only(night, app):
    version = version_shown(night.host.get(night.url).data.decode())
    assert night.host.get(f"{night.url}/live?v={version}").status_code == 204
    assert app.test_client().get(f"{night.url}/live?v={version}").status_code == 404
    assert app.test_client().get(f"{night.url}/live?v=0").status_code == 404


def host_code(night):
    html = night.host.post(night.url + "/hosts").data.decode()
    return re.search(r"/h/([A-Za-z0-9_-]+)", html).group(0)


def test_a_one_time_host_code_makes_another_device_a_host(night, app):
    link = host_code(night)
    tablet = app.test_client()
    assert tablet.get(link).status_code == 200  # a question: nothing is used up yet
    assert tablet.head(link).status_code == 200
    assert tablet.get(night.url).status_code == 404
    assert tablet.post(link).status_code == 303
    assert tablet.get(night.url).status_code == 200
    assert app.test_client().post(link).status_code == 410  # used once
    assert app.test_client().get(link).status_code == 410


def test_showing_a_new_host_code_cancels_the_old_one(night, app, monkeypatch):
    from companion.store import connection as db

    first = host_code(night)
    shown = db.time.time()
    monkeypatch.setattr(db.time, "time", lambda: shown + 31)  # asked again seconds later: the same
    second = host_code(night)
    assert app.test_client().post(first).status_code == 410
    assert app.test_client().post(second).status_code == 303


def test_a_host_code_expires_after_a_few_minutes(night, app, monkeypatch):
    link = host_code(night)
    from companion.store import connection as db

    later = db.time.time() + 60 * store_minutes() + 1
    monkeypatch.setattr(db.time, "time", lambda: later)
    assert app.test_client().post(link).status_code == 410


def store_minutes():
    from companion import store

    return store.HOST_CODE_MINUTES


def test_a_phone_with_a_seat_gives_it_up_to_become_a_host(night, app):
    phone = night.phone(1)
    link = host_code(night)
    html = phone.get(link, headers={"Accept-Language": "en"}).data.decode()
    assert "gives the seat up" in html
    assert phone.post(link).status_code == 303
    assert phone.get(night.url).status_code == 200
    assert "Jo" not in page_text(phone.get("/me").data.decode())
    assert night.phone(1) is not None  # the seat is free for the player again


def test_the_host_sees_its_host_devices_and_can_remove_one(night, app):
    tablet = app.test_client()
    tablet.post(host_code(night))
    html = night.host.get(night.url, headers={"Accept-Language": "en"}).data.decode()
    assert "This device" in html and "Another device, host since" in html
    host_id = re.search(r"/hosts/(\d+)/remove", html).group(1)
    assert night.host.post(f"{night.url}/hosts/{host_id}/remove").status_code == 303
    assert tablet.get(night.url).status_code == 404
    # A host cannot remove itself (a night always keeps a host).
    own = re.findall(r"/hosts/(\d+)/remove", night.host.get(night.url).data.decode())
    assert own == []


def test_a_removed_host_cannot_take_the_table_back_with_a_code_shown_before(night, app):
    tablet = app.test_client()
    tablet.post(host_code(night))
    unused = host_code(night)  # shown on the tablet (or photographed) while it was a host
    html = night.host.get(night.url).data.decode()
    host_id = re.search(r"/hosts/(\d+)/remove", html).group(1)
    assert night.host.post(f"{night.url}/hosts/{host_id}/remove").status_code == 303
    assert tablet.post(unused).status_code == 410  # cancelled with the removal
    assert tablet.get(night.url).status_code == 404
    assert app.test_client().post(host_code(night)).status_code == 303  # a new code works


def test_passing_the_tablet_shows_the_seat_behind_a_cover_and_is_recorded(night):
    response = night.host.post(night.url + "/pass/1", headers={"Accept-Language": "en"})
    html = response.data.decode()
    assert "Give the tablet to Jo" in html
    assert "data-pass-cover" in html
    assert 'data-pass-seat hidden' in html


def test_a_phone_cannot_pass_the_tablet(night):
    phone = night.phone(0)
    assert phone.post(night.url + "/pass/1").status_code == 404



def felt_of(night):
    from companion import store

    with night.app.test_request_context():
        row = store.night_by_key(night.key)
        return row["felt"], row["version"]


def test_the_felt_reveal_is_off_until_the_host_turns_it_on(night):
    html = night.host.get(night.url, headers={"Accept-Language": "en"}).data.decode()
    assert 'data-felt="0"' in html and "Turn on vibration and sound" in html
    assert "iPhones (iOS Safari) cannot vibrate" in html
    felt, version = felt_of(night)
    assert felt == 0
    response = night.host.post(night.url + "/felt", data={"on": "1"},
                               headers={"HX-Request": "true", "Accept-Language": "en"})
    assert response.status_code == 200
    assert 'data-felt="1"' in response.data.decode()
    assert "Turn off vibration and sound" in response.data.decode()
    assert felt_of(night) == (1, version + 1)  # phones and screens redraw with it
    night.host.post(night.url + "/felt", data={"on": "1"})  # already on: nothing moves
    assert felt_of(night) == (1, version + 1)
    assert night.host.post(night.url + "/felt", data={"on": "0"}).status_code == 303
    assert felt_of(night)[0] == 0
    for form in ({}, {"on": "yes"}):  # neither on nor off: said, and nothing moves
        refused = night.host.post(night.url + "/felt", data=form,
                                  headers={"Accept-Language": "en"})
        assert refused.status_code == 422
        assert "either on or off" in refused.data.decode()
    assert felt_of(night) == (0, version + 2)


def test_only_the_host_turns_the_felt_reveal_on(night):
    phone = night.phone(0)
    before = felt_of(night)
    assert phone.post(night.url + "/felt", data={"on": "1"}).status_code == 404
    assert night.app.test_client().post(night.url + "/felt", data={"on": "1"}) \
        .status_code == 404
    assert felt_of(night) == before


# --- web security -------------------------------------------------------------------

def test_every_page_sends_the_security_headers(night):
    phone = night.phone(0)
    response = phone.get("/me")
    h = response.headers
    assert "default-src 'self'" in h["Content-Security-Policy"]
    assert "script-src 'self'" in h["Content-Security-Policy"]
    assert "unsafe-inline" not in h["Content-Security-Policy"]
    assert h["Referrer-Policy"] == "no-referrer"
    assert h["X-Content-Type-Options"] == "nosniff"
    assert h["Cache-Control"] == "no-store"


def test_pages_carry_no_inline_script(night):
    html = night.host.get(night.url).data.decode()
    assert re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html) is None
    assert " style=" not in html
    assert "onclick" not in html


def test_static_files_are_versioned_and_cached_for_a_year(client):
    html = client.get("/").data.decode()
    src = re.search(r'src="(/static/vendor/htmx-2\.0\.11\.min\.js\?v=[0-9a-f]+)"', html).group(1)
    response = client.get(src)
    assert response.status_code == 200
    assert "max-age=31536000" in response.headers["Cache-Control"]


def test_the_device_cookie_is_http_only(client):
    cookie = client.get("/").headers["Set-Cookie"]
    assert "device=" in cookie and "HttpOnly" in cookie


def test_the_secret_key_is_made_in_the_data_folder_not_the_code(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA", str(tmp_path / "data"))
    app = create_app({"DATABASE": str(tmp_path / "db.sqlite")})
    key_file = tmp_path / "data" / "secret_key"
    assert key_file.exists()
    assert app.config["SECRET_KEY"] == key_file.read_text().strip()
    assert len(app.config["SECRET_KEY"]) >= 40


@pytest.fixture
def csrf_app(tmp_path):
    return create_app({"DATABASE": str(tmp_path / "c.sqlite"), "SECRET_KEY": "c",
                       "PUBLIC_URL": "http://t"})


def test_a_state_change_without_the_csrf_token_is_refused(csrf_app):
    client = csrf_app.test_client()
    response = client.post("/nights", data={"name": ["A", "B", "C"]},
                           headers={"Accept-Language": "en"})
    assert response.status_code == 400
    html = response.data.decode()
    # the roster comes back with the names typed in it (and says why)
    assert "What you typed is kept below" in html
    assert re.findall(r'name="name"[^>]*value="([^"]*)"', html)[:4] == ["A", "B", "C", ""]
    from companion.store.connection import connect
    assert connect(csrf_app.config["DATABASE"])["nights"].count == 0


def test_the_csrf_token_from_the_page_or_the_htmx_header_is_accepted(csrf_app):
    client = csrf_app.test_client()
    html = client.get("/").data.decode()
    token = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
    assert client.post("/nights", data={"name": ["A", "B", "C"], "csrf_token": token}
                       ).status_code == 303
    assert client.post("/nights", data={"name": ["D", "E", "F"]},
                       headers={"X-CSRFToken": token}).status_code == 303


# --- languages ----------------------------------------------------------------------

def test_the_language_follows_the_browser(client):
    assert 'lang="en"' in client.get("/", headers={"Accept-Language": "en-US"}).data.decode()
    assert 'lang="ko"' in client.get("/", headers={"Accept-Language": "ko-KR"}).data.decode()


def test_korean_is_the_default(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "k.sqlite"), "SECRET_KEY": "k"})
    html = app.test_client().get("/").data.decode()
    assert 'lang="ko"' in html
    assert "모임 시작" in html


def test_the_language_can_be_switched_and_is_remembered(client):
    response = client.post("/lang", data={"lang": "en", "next": "/me"},
                           headers={"Accept-Language": "ko"})
    assert response.status_code == 303
    assert response.headers["Location"] == "/me"
    assert 'lang="en"' in client.get("/", headers={"Accept-Language": "ko"}).data.decode()


@pytest.mark.parametrize("target", ["//evil.example/", "https://evil.example/", "/s/token"])
def test_switching_language_never_redirects_off_site_or_to_a_seat_link(client, target):
    response = client.post("/lang", data={"lang": "ko", "next": target})
    assert response.headers["Location"] == "/"


@pytest.mark.parametrize("lang, words", [
    ("en", "Pass the tablet to <bdi>&lt;b&gt;Bo&lt;/b&gt; 100%</bdi>"),
    ("ko", "<bdi>&lt;b&gt;Bo&lt;/b&gt; 100%</bdi>"),
])
def test_translated_text_escapes_the_names_put_into_it(app, lang, words):
    night = make_night(app, names=["<b>Bo</b> 100%", "Ann", "Jo"])
    html = night.host.get(night.url, headers={"Accept-Language": lang}).data.decode()
    assert words in html
    assert "<b>Bo</b>" not in html
    if lang == "ko":
        assert "태블릿" in html  # the Korean catalog's words, not the English source


def test_reopening_its_own_code_makes_that_night_current(app):
    first, second = make_night(app), make_night(app, names=["A", "B", "C"])
    phone = first.phone(1)
    question = phone.get(f"/s/{second.tokens[0]}", headers={"Accept-Language": "en"})
    assert "Jo's seat in another night" in question.data.decode()  # it asks first
    assert phone.post(f"/s/{second.tokens[0]}").status_code == 303
    assert my_name(phone) == "A"
    assert phone.post(f"/s/{first.tokens[1]}").status_code == 303  # its own, reopened
    assert my_name(phone) == "Jo"


def test_a_clock_set_back_changes_neither_the_current_night_nor_the_history(app, monkeypatch):
    from companion.store import connection as db

    real = db.time.time
    first = make_night(app)
    phone = first.phone(1)
    monkeypatch.setattr(db.time, "time", lambda: real() - 2 * 3600)  # the clock goes back
    second = make_night(app, names=["A", "B", "C"])
    phone.post(f"/s/{second.tokens[0]}")
    assert my_name(phone) == "A"

    url = second.start("kraken", seat0="on", seat1="on", seat2="on")
    second.host.post(f"{url}/kraken/marker", data={"seat": 0, "pos": 0})
    monkeypatch.setattr(db.time, "time", lambda: real() - 4 * 3600)
    second.host.post(f"{second.url}/pass/1")
    monkeypatch.setattr(db.time, "time", lambda: real() - 6 * 3600)
    second.host.post(f"{url}/kraken/reveal", data={"seat": 1, "card": "empty", "pos": 1})
    html = second.host.get(url, headers={"Accept-Language": "en"}).data.decode()
    lines = re.findall(r"<li[^>]*>\s*<time[^>]*>[^<]*</time>\s*([^<]+)",
                       re.sub(r"</?bdi>", "", html))
    # newest first, in the log's order whatever the clock said
    assert [line.split()[0] for line in lines] == ["B's", "The", "A"], lines


def test_a_cancelled_or_expired_host_code_stays_dead_when_the_clock_goes_back(
        night, app, monkeypatch):
    from companion import store
    from companion.store import connection as companion_db

    cancelled = host_code(night)
    shown = companion_db.time.time()
    monkeypatch.setattr(companion_db.time, "time", lambda: shown + 31)
    expired = host_code(night)  # cancels the first
    assert expired != cancelled
    real_now = companion_db.now
    monkeypatch.setattr(store.codes, "now", lambda later=0: real_now(later + 3600))  # an hour on
    assert app.test_client().get(expired).status_code == 410  # found expired, and noted
    monkeypatch.setattr(store.codes, "now", lambda later=0: real_now(later - 86400))  # a day back
    for code in (cancelled, expired):
        stranger = app.test_client()
        assert stranger.get(code).status_code == 410
        assert stranger.post(code).status_code == 410
        assert stranger.get(night.url).status_code == 404


# --- one name rule everywhere ----------------------------------------------------------

@pytest.mark.parametrize("name", ["Jo\u202e", "\u200bJo", "\ufeffJo", "J\u2066o", "Jo\u200e"])
def test_a_name_with_invisible_characters_is_refused_and_makes_nothing(client, name):
    response = client.post("/nights", data={"name": [name, "Bo", "Cy"]})
    assert response.status_code == 422
    assert "A name cannot hold invisible characters" in page_text(response.data.decode())
    assert client.get("/history").data.decode().count("Bo, Cy") == 0


def test_emoji_made_with_joiners_and_tags_are_names(client):
    family = "👨\u200d👩\u200d👧"
    scotland = "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    assert client.post("/nights", data={"name": [family, scotland, "Cy"]}).status_code == 303


def test_a_name_typed_two_ways_is_one_player(client):
    """"José" typed as one character or as e and a combining accent: the same name (NFC),
    so the roster refuses it twice, as the statistics and an import fold it."""
    composed, decomposed = "Jos\u00e9", "Jose\u0301"
    response = client.post("/nights", data={"name": [composed, decomposed, "Cy"]})
    assert response.status_code == 422
    assert "Two players are called" in page_text(response.data.decode())


def test_a_night_with_a_name_typed_decomposed_exports_and_imports_again(app):
    night = make_night(app, ["Jose\u0301", "Bo", "Cy"])
    raw = night.host.get(f"{night.url}/export.json").data
    assert "Jos\u00e9".encode() in raw  # kept as one character
    stranger = app.test_client()
    response = stranger.post("/import", data={"file": (io.BytesIO(raw), "night.json")},
                             content_type="multipart/form-data")
    assert response.status_code == 200  # read and checked: the night is already here


def test_two_players_make_a_night_that_plays_skull_king(app):
    """The seed: "1인 빼고 모두 추천 … 2인도 재밌다" (docs/rules.md#skull-king)."""
    pair = make_night(app, ["Mina", "Jo"])
    html = pair.host.get(pair.url).data.decode()
    assert f'href="/n/{pair.key}/new/skullking"' in html
    for kind, words in (("kraken", "No Touch Kraken is for 3 to 8 players; the night has 2."),
                        ("crazytime", "Crazy Time is for 4 to 7 players; the night has 2.")):
        assert f'href="/n/{pair.key}/new/{kind}"' not in html
        assert f'data-cannot-start="{kind}"' in html and words in html
    game = pair.start("skullking", seat0="1", seat1="1", edition="classic")
    assert pair.host.get(game).status_code == 200
    # the start form itself still refuses a game the pair cannot play, and says why
    refused = pair.host.post(f"{pair.url}/new/kraken", data={"seat0": "on", "seat1": "on"})
    assert refused.status_code == 422
    assert "3 to 8 players, not 2" in refused.data.decode()
