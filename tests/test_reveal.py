"""A synchronised reveal through the real routes: "Yo-ho-ho!" records the laptop's time,
and every screen of the table gets the same moment and the same count, in Korean and
English; nothing of it comes before the reveal, and a night with it exports and imports."""

import json
import re
import time

import pytest
from sqlite_utils import Database

from bench.builders import make_night
from companion.app import create_app
from companion.live import clock
from tests.apps import pushing_app
from tests.night_files import import_
from tests.screens import screen_device
from tests.skullking_host import HX, MOMENT, bid_all, reveal, reveal_event, start


@pytest.fixture
def app(tmp_path, migrated_database):
    """The app as `companion serve` runs it: with live push (the count needs it)."""
    return pushing_app(tmp_path, migrated_database)


def screens(night, game, phones):
    """The host's live fragment and each phone's."""
    return [night.host.get(f"{game}/live", headers=HX).data.decode(),
            *(p.get("/me/live", headers=HX).data.decode() for p in phones)]


def test_every_screen_gets_the_same_moment_and_count_after_the_reveal_and_none_before(
        app):
    night = make_night(app)
    phones = [night.phone(seat) for seat in range(4)]
    game = start(night, way="custom", rounds="2")
    bid_all(night, game, {0: 0, 1: 1, 2: 2, 3: 1})
    before = screens(night, game, phones)
    assert not any("data-reveal-at" in html for html in before)
    sent = time.time() * 1000
    assert reveal(night, game).status_code == 303
    at_ms = reveal_event(app, night)["data"]["at_ms"]
    assert sent - 1000 <= at_ms <= time.time() * 1000 + 1000
    moments = {MOMENT.search(html).groups() for html in screens(night, game, phones)}
    # one moment and one count for every screen, whatever each one's bid
    assert moments == {(str(at_ms + app.config["REVEAL_LEAD_MS"]), "Yo|ho|ho!")}


def test_the_lead_is_the_app_s_setting_whatever_a_page_says(app):
    """The lead is one setting, ``REVEAL_LEAD_MS`` (docs/architecture.md, "A synchronised
    reveal"): a page of an earlier release that still says how long it needs to show a
    change (its ``X-Reveal-Need``) moves no moment, and nothing keeps what it said."""
    app.config["REVEAL_LEAD_MS"] = 4321
    night = make_night(app)
    phones = [night.phone(seat) for seat in range(4)]
    for phone in phones:
        phone.get("/me/live", headers={**HX, "X-Reveal-Need": "3900"})
    game = start(night, way="custom", rounds="1")
    bid_all(night, game, {0: 0, 1: 1, 2: 0, 3: 1})
    reveal(night, game)
    data = reveal_event(app, night)["data"]
    assert set(data) == {"round", "at_ms"}
    assert {MOMENT.search(html).group(1) for html in screens(night, game, phones)} == {
        str(data["at_ms"] + 4321)}
    assert "reveal_needs" not in Database(app.config["DATABASE"]).table_names()


def test_the_host_s_own_answer_counts_to_the_same_moment(app):
    night = make_night(app)
    phone = night.phone(0)
    game = start(night, way="custom", rounds="1")
    bid_all(night, game, {0: 0, 1: 1, 2: 0, 3: 1})
    answer = night.host.post(f"{game}/skullking/reveal", headers=HX,
                             data={"round": 1, "pos": night.pos(game)})
    assert answer.status_code == 200
    mine = MOMENT.search(answer.data.decode()).group(1)
    assert mine == MOMENT.search(phone.get("/me/live", headers=HX).data.decode()).group(1)


def test_any_event_after_the_reveal_ends_its_count(app):
    """(a correction of an earlier round, an undo): the table has moved on."""
    night = make_night(app)
    phone = night.phone(0)
    game = start(night, way="custom", rounds="1")
    bid_all(night, game, {0: 0, 1: 1, 2: 0, 3: 1})
    reveal(night, game)
    assert night.host.post(f"{game}/undo", data={"pos": night.pos(game)}).status_code in (
        200, 303)
    assert "data-reveal-at" not in phone.get("/me/live", headers=HX).data.decode()


def test_the_bids_are_held_for_the_count_wherever_they_show(app):
    night = make_night(app)
    phone = night.phone(0)
    game = start(night, way="custom", rounds="2")
    bid_all(night, game, {0: 2, 1: 1, 2: 0, 3: 1})
    reveal(night, game)
    html = phone.get("/me/live", headers=HX).data.decode()
    assert re.search(r'<div data-reveal-hold>\s*<h3>Bids revealed', html)
    assert "data-reveal-hold>bid 2<" in html  # the score table's current round
    host = night.host.get(f"{game}/live", headers=HX).data.decode()
    assert re.search(r'<div data-reveal-hold>\s*<p class="sk-bid-total"', host)


def test_the_count_in_korean(app):
    night = make_night(app)
    phone = night.phone(1)
    phone.set_cookie("lang", "ko")
    game = start(night, way="custom", rounds="1")
    bid_all(night, game, {0: 0, 1: 1, 2: 0, 3: 1})
    reveal(night, game)
    html = phone.get("/me/live", headers=HX).data.decode()
    assert MOMENT.search(html).group(2) == "하나|둘|셋"


def test_a_screen_drawn_after_the_moment_shows_plain_bids(app, monkeypatch):
    night = make_night(app)
    game = start(night, way="custom", rounds="1")
    bid_all(night, game, {0: 0, 1: 1, 2: 0, 3: 1})
    reveal(night, game)
    at_ms = reveal_event(app, night)["data"]["at_ms"]
    later = at_ms + app.config["REVEAL_LEAD_MS"]
    monkeypatch.setattr(clock, "now_ms", lambda: later)
    html = night.host.get(f"{game}/live", headers=HX).data.decode()
    assert "data-reveal-at" not in html
    assert 'class="sk-bid-total"' in html


def test_polling_screens_show_the_bids_as_they_come(tmp_path):
    """Without live push a phone hears of the reveal only at its next poll, after any
    moment: no count, the bids at once (as before)."""
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "t.sqlite"),
                      "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False, "LANGUAGE": "en",
                      "LIVE_PUSH": False})
    night = make_night(app)
    phone = night.phone(0)
    game = start(night, way="custom", rounds="1")
    bid_all(night, game, {0: 0, 1: 1, 2: 0, 3: 1})
    reveal(night, game)
    assert "data-reveal-at" not in phone.get("/me/live", headers=HX).data.decode()
    assert "data-clock" not in phone.get("/me").data.decode()


def test_the_clock_is_the_laptop_time_never_cached(app):
    client = app.test_client()
    before = time.time() * 1000
    response = client.get("/clock")
    assert response.status_code == 200
    assert before - 5 <= int(response.data) <= time.time() * 1000 + 5
    assert response.headers["Cache-Control"] == "no-store"
    night = make_night(app)
    assert 'data-clock="/clock"' in night.phone(0).get("/me").data.decode()


def stamps(response):
    received, answered = response.headers["X-Laptop-Clock"].split(",")
    assert len(received) == len(answered) == 13  # a fixed width: the size tells nothing
    return int(received), int(answered)


def test_the_clock_and_every_answer_to_htmx_say_when_the_laptop_received_and_answered(
        app):
    """(static/js/clock.js: each such answer is a sample of the laptop's clock, as NTP's.)"""
    before = time.time() * 1000
    received, answered = stamps(app.test_client().get("/clock"))
    assert before - 5 <= received <= answered <= time.time() * 1000 + 5
    night = make_night(app)
    phone = night.phone(0)
    game = start(night, way="custom", rounds="1")
    received, answered = stamps(phone.get("/me/live", headers=HX))
    assert received <= answered <= time.time() * 1000 + 5
    stamps(night.host.get(f"{game}/live", headers=HX))
    stamps(night.host.post(f"{game}/skullking/reveal", headers=HX,
                           data={"round": 1, "pos": night.pos(game)}))
    # a page drawn whole is no sample: its scripts start after it came
    assert "X-Laptop-Clock" not in phone.get("/me").headers


def test_a_night_with_a_timed_reveal_exports_and_imports(app, tmp_path):
    night = make_night(app)
    game = start(night, way="custom", rounds="1")
    bid_all(night, game, {0: 0, 1: 1, 2: 0, 3: 1})
    reveal(night, game)
    raw = night.host.get(f"{night.url}/export.json").get_data()
    events = [e for g in json.loads(raw)["games"] for e in g["events"]]
    assert any(e["type"] == "reveal_bids" and "at_ms" in e["data"] for e in events)
    other = create_app({"TESTING": True, "DATABASE": str(tmp_path / "other.sqlite"),
                        "SECRET_KEY": "other", "WTF_CSRF_ENABLED": False})
    assert import_(other.test_client(), raw).status_code == 303


def test_the_rooms_screen_counts_to_the_same_moment_as_the_phones(app):
    night = make_night(app)
    phone = night.phone(0)
    tv = screen_device(night)
    game = start(night, way="custom", rounds="1")
    bid_all(night, game, {0: 0, 1: 1, 2: 0, 3: 1})
    before = tv.get(f"/n/{night.key}/screen/live", headers=HX).data.decode()
    assert "data-reveal-at" not in before and "Bids revealed" not in before
    reveal(night, game)
    on_tv = tv.get(f"/n/{night.key}/screen/live", headers=HX).data.decode()
    assert MOMENT.search(on_tv).groups() == MOMENT.search(
        phone.get("/me/live", headers=HX).data.decode()).groups()
    assert re.search(r'<div data-reveal-hold>\s*<h2[^>]*>Bids revealed', on_tv)


def test_the_reveal_carries_the_felt_setting_to_phones_and_the_screen(app):
    """Off: the reveal asks for nothing felt, and the screen offers no sound. On (the
    host's, never a screen's): every reveal says so, and the screen captions a tap
    (a caption, not a control)."""
    night = make_night(app)
    phone = night.phone(0)
    tv = screen_device(night)
    game = start(night, way="custom", rounds="2")
    bid_all(night, game, {0: 0, 1: 1, 2: 0, 3: 1})
    assert tv.post(f"{night.url}/felt", data={"on": "1"}).status_code == 403
    assert "data-sound-tap" not in tv.get(f"{night.url}/screen").data.decode()
    reveal(night, game)
    assert all("data-felt" not in html for html in screens(night, game, [phone]))
    assert night.host.post(f"{night.url}/felt", data={"on": "1"}).status_code == 303
    shown = [*screens(night, game, [phone]), tv.get(f"{night.url}/screen/live",
                                                   headers=HX).data.decode()]
    assert all(re.search(r'data-reveal-at="\d+"[^>]*data-felt', html) for html in shown)
    screen = tv.get(f"{night.url}/screen").data.decode()
    assert "data-sound-tap hidden>Tap for sound<" in screen
    assert "<button" not in screen and "<form" not in screen
