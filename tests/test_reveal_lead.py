"""A reveal's lead follows the slowest screen at the table (companion/core/reveal.py):
each page reports how long it needs to show a change, and "Yo-ho-ho!" sets its moment
that far ahead and a margin, within bounds; the lead is kept in the reveal's event, so
every screen counts to the same moment whatever is reported after."""

import sqlite3
import time

import pytest

from bench.builders import make_night
from companion import store
from companion.core.reveal import MARGIN_MS, MOST_MS, STRETCH, lead_ms
from companion.live.clock import NEED_HEADER
from companion.store.needs import FRESH_S
from tests.apps import pushing_app
from tests.skullking_host import HX, MOMENT, bid_all, reveal, reveal_event, start

DEFAULT = 1800


@pytest.fixture
def app(tmp_path):
    """The app as `companion serve` runs it: with live push (the count needs it)."""
    return pushing_app(tmp_path)


def test_without_a_need_the_lead_is_the_quick_table_s():
    assert lead_ms([], DEFAULT) == DEFAULT


def test_the_lead_is_the_slowest_screen_s_need_stretched_and_a_margin():
    """(1.5 times 1,500 ms and 400 ms: a reveal is a round's biggest change)"""
    assert (STRETCH, MARGIN_MS) == (1.5, 400)
    assert lead_ms([300, 1500, 900], DEFAULT) == 2250 + 400


def test_a_quick_table_keeps_the_quick_table_s_lead():
    assert lead_ms([40, 80], DEFAULT) == DEFAULT


def test_a_phone_that_says_it_needs_a_minute_makes_the_table_wait_at_most_the_longest_lead():
    assert lead_ms([60_000], DEFAULT) == MOST_MS


def test_a_quick_table_s_lead_longer_than_the_longest_is_kept():
    """(a test's long count: tests/test_reveal_browser.py)"""
    assert lead_ms([], 6000) == 6000
    assert lead_ms([5000], 6000) == 6000


def needs_of(app, night):
    with app.test_request_context():
        return store.night_needs(store.night_by_key(night.key)["id"])


def test_a_phone_s_need_sets_the_next_reveal_s_moment(app):
    night = make_night(app)
    phones = [night.phone(seat) for seat in range(4)]
    phones[2].get("/me/live", headers={**HX, NEED_HEADER: "2000"})
    phones[0].get("/me/live", headers={**HX, NEED_HEADER: "700"})
    assert sorted(needs_of(app, night)) == [700, 2000]
    game = start(night, way="custom", rounds="1")
    bid_all(night, game, {0: 0, 1: 1, 2: 0, 3: 1})
    assert reveal(night, game).status_code == 303
    data = reveal_event(app, night)["data"]
    assert data["lead_ms"] == 3000 + MARGIN_MS
    html = phones[1].get("/me/live", headers=HX).data.decode()
    assert MOMENT.search(html).group(1) == str(data["at_ms"] + 3000 + MARGIN_MS)


def test_a_need_reported_after_the_reveal_does_not_move_its_moment(app):
    night = make_night(app)
    phone = night.phone(0)
    game = start(night, way="custom", rounds="1")
    bid_all(night, game, {0: 0, 1: 1, 2: 0, 3: 1})
    reveal(night, game)
    before = MOMENT.search(phone.get("/me/live", headers=HX).data.decode()).group(1)
    after = phone.get("/me/live", headers={**HX, NEED_HEADER: "3500"}).data.decode()
    # the version did not move: nothing to redraw, and the moment is the event's
    assert not after or MOMENT.search(after).group(1) == before
    data = reveal_event(app, night)["data"]
    assert before == str(data["at_ms"] + data["lead_ms"])


def test_only_this_night_s_fresh_needs_count(app):
    night, other = make_night(app), make_night(app)
    night.phone(0).get("/me/live", headers={**HX, NEED_HEADER: "1200"})
    other.phone(0).get("/me/live", headers={**HX, NEED_HEADER: "3900"})
    assert needs_of(app, night) == [1200]
    db = sqlite3.connect(app.config["DATABASE"])
    with db:
        db.execute("update reveal_needs set updated = ?",
                   [int(time.time()) - FRESH_S - 1])
    db.close()
    assert needs_of(app, night) == []


def test_a_need_that_is_not_a_number_or_too_long_is_not_kept(app):
    night = make_night(app)
    phone = night.phone(0)
    for value in ("-5", "12ms", "1e9", "9999999", ""):
        assert phone.get("/me/live", headers={**HX, NEED_HEADER: value}).status_code in (
            200, 204)
    assert needs_of(app, night) == []


def test_a_need_of_more_than_a_minute_is_kept_as_a_minute(app):
    night = make_night(app)
    night.phone(0).get("/me/live", headers={**HX, NEED_HEADER: "999999"})
    assert needs_of(app, night) == [60_000]


def test_a_reveal_without_a_lead_in_its_event_counts_by_the_default(app, monkeypatch):
    """(a log recorded before leads followed the table, or imported from one)."""
    from companion.live import clock

    monkeypatch.setattr(clock, "reveal_lead_ms", lambda night_id: None)
    night = make_night(app)
    phone = night.phone(0)
    game = start(night, way="custom", rounds="1")
    bid_all(night, game, {0: 0, 1: 1, 2: 0, 3: 1})
    reveal(night, game)
    data = reveal_event(app, night)["data"]
    html = phone.get("/me/live", headers=HX).data.decode()
    assert MOMENT.search(html).group(1) == str(data["at_ms"] + app.config["REVEAL_LEAD_MS"])


# --- what a need may cost: a write only for a device of a night, when it moved --------


def need_rows(app):
    db = sqlite3.connect(app.config["DATABASE"])
    try:
        return dict(db.execute("select device, need_ms from reveal_needs").fetchall())
    finally:
        db.close()


@pytest.mark.parametrize("value", ["²", "¹²", "1²", "٣"])
def test_a_digit_that_is_not_ascii_is_no_need_and_no_error(app, value):
    """(a header's Latin-1 byte 0xB2 is "²", which ``str.isdigit`` takes and ``int``
    refuses: it was a 500 on every route)"""
    phone = make_night(app).phone(0)
    for path in ("/me/live", "/favicon.ico", "/nowhere"):
        answer = phone.get(path, headers={**HX, NEED_HEADER: _as_latin1(value)})
        assert answer.status_code in (200, 204, 404)
    assert need_rows(app) == {}


def _as_latin1(value):
    """A header's text as WSGI gives it: its bytes read as Latin-1 (a character outside
    it arrives as its UTF-8 bytes)."""
    try:
        value.encode("latin-1")
        return value
    except UnicodeEncodeError:
        return value.encode("utf-8").decode("latin-1")


def test_a_made_up_device_writes_no_need(app):
    from companion.core.tokens import new_token

    make_night(app)
    for cookie in [new_token() for _ in range(20)] + ["x", ""]:
        stranger = app.test_client()
        stranger.set_cookie("device", cookie)
        for path in ("/favicon.ico", "/nowhere", "/"):
            stranger.get(path, headers={NEED_HEADER: "1"})
    assert need_rows(app) == {}


def test_a_host_and_a_screen_s_needs_are_kept(app):
    from tests.screens import screen_device

    night = make_night(app)
    night.host.get(night.url, headers={NEED_HEADER: "900"})
    screen_device(night).get(f"{night.url}/screen", headers={NEED_HEADER: "1300"})
    assert sorted(needs_of(app, night)) == [900, 1300]


def test_a_need_is_written_when_it_moved_and_at_most_every_half_minute(app, monkeypatch):
    from companion.live import clock

    night = make_night(app)
    phone = night.phone(0)
    started = time.monotonic()
    monkeypatch.setattr(clock.time, "monotonic", lambda: started)
    phone.get("/me/live", headers={**HX, NEED_HEADER: "1000"})
    assert needs_of(app, night) == [1000]
    phone.get("/me/live", headers={**HX, NEED_HEADER: "2500"})  # moved, but too soon
    assert needs_of(app, night) == [1000]
    monkeypatch.setattr(clock.time, "monotonic", lambda: started + 31)
    phone.get("/me/live", headers=HX)  # its turn has come: the need that waited
    assert needs_of(app, night) == [2500]
    monkeypatch.setattr(clock.time, "monotonic", lambda: started + 100)
    phone.get("/me/live", headers={**HX, NEED_HEADER: "2600"})  # moved too little
    phone.get("/me/live", headers=HX)
    assert needs_of(app, night) == [2500]


def test_needs_gone_stale_are_deleted_by_the_next_write_and_a_server_s_start(app):
    from companion.app import server_started

    night = make_night(app)
    night.phone(0).get("/me/live", headers={**HX, NEED_HEADER: "1000"})
    db = sqlite3.connect(app.config["DATABASE"])
    with db:
        db.execute("update reveal_needs set updated = ?", [int(time.time()) - FRESH_S - 1])
    db.close()
    night.phone(1).get("/me/live", headers={**HX, NEED_HEADER: "700"})
    assert sorted(need_rows(app).values()) == [700]
    db = sqlite3.connect(app.config["DATABASE"])
    with db:
        db.execute("update reveal_needs set updated = ?", [int(time.time()) - FRESH_S - 1])
    db.close()
    server_started(app)
    assert need_rows(app) == {}
