"""Dates and times read as each language writes them: a stored time (UTC) is shown as the
laptop's clock shows it, through Babel, "3월 14일(토) 오후 7:05" in Korean and "Sat 14 Mar,
7:05 PM" in English, with the year only outside the current one; a page keeps the ISO
stamp for machines (docs/translations.md#dates-and-times)."""

import os
import re
import time
from datetime import datetime

import pytest

from bench.builders import ROLES, kraken_all_treasure, kraken_game, make_night, play
from companion import store
from companion.core import recap, registry
from companion.pictures import views as pictures
from companion.store.connection import get_db
from companion.web.i18n import local_clock, local_date, local_time

THIS_YEAR = datetime.now().year
#: 10:05 UTC on 14 March of this year, 19:05 in Seoul (a clock far from UTC, so a time
#: shown in UTC or a date cut from the stamp would show).
STAMP = f"{THIS_YEAR}-03-14T10:05:00Z"
WEEKDAY = datetime(THIS_YEAR, 3, 14).weekday()
KO_DAY = "월화수목금토일"[WEEKDAY]
EN_DAY = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")[WEEKDAY]


@pytest.fixture
def seoul():
    """The laptop's clock in Korea (UTC+9)."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "Asia/Seoul"
    time.tzset()
    yield
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


def text(response):
    return response.get_data(as_text=True)


def shown(app, language, stamp, how=local_time):
    with app.test_request_context(headers={"Cookie": f"lang={language}"}):
        return how(stamp)


def test_korean_reads_month_day_weekday_and_the_afternoon(app, seoul):
    assert shown(app, "ko", STAMP) == f"3월 14일({KO_DAY}) 오후 7:05"
    assert shown(app, "ko", STAMP, local_date) == f"3월 14일({KO_DAY})"
    assert shown(app, "ko", STAMP, local_clock) == "오후 7:05"
    assert shown(app, "ko", f"{THIS_YEAR}-03-13T23:30:59Z") == (
        f"3월 14일({KO_DAY}) 오전 8:30")  # the laptop's date, not UTC's


def test_english_reads_weekday_day_month_and_pm(app, seoul):
    assert shown(app, "en", STAMP) == f"{EN_DAY} 14 Mar, 7:05 PM"
    assert shown(app, "en", STAMP, local_date) == f"{EN_DAY} 14 Mar"
    assert shown(app, "en", STAMP, local_clock) == "7:05 PM"


def test_a_time_of_another_year_says_its_year(app, seoul):
    assert shown(app, "ko", "2001-03-14T10:05:00Z") == "2001년 3월 14일(수) 오후 7:05"
    assert shown(app, "en", "2001-03-14T10:05:00Z") == "Wed 14 Mar 2001, 7:05 PM"
    assert shown(app, "ko", "2001-03-14T16:30:00Z", local_date) == "2001년 3월 15일(목)"
    assert shown(app, "en", "2001-03-14T10:05:00Z", local_clock) == "7:05 PM"


def test_text_that_is_no_time_stamp_is_shown_as_it_is(app):
    assert shown(app, "ko", "not a time") == "not a time"
    assert shown(app, "en", "2026-02-30T10:05:00Z", local_date) == "2026-02-30T10:05:00Z"


def set_created(app, key, stamp):
    with app.test_request_context():
        get_db().execute("update nights set created = ? where key = ?", [stamp, key])
        get_db().execute("update hosts set created = ?", [stamp])


def test_the_pages_write_dates_in_the_readers_language(app, seoul):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    invite = re.search(r"/h/[A-Za-z0-9_-]{32,64}",
                       text(night.host.post(f"/n/{night.key}/hosts"))).group(0)
    other = app.test_client()
    set_created(app, night.key, STAMP)
    for language, day, when in (("ko", f"3월 14일({KO_DAY})", f"3월 14일({KO_DAY}) 오후 7:05"),
                                ("en", f"{EN_DAY} 14 Mar", f"{EN_DAY} 14 Mar, 7:05 PM")):
        for client in (night.host, other):
            client.set_cookie("lang", language)
        assert day in text(other.get(invite))  # "Host the night of … on this device?"
        tally = text(night.host.get(f"/n/{night.key}/tally"))
        assert f'<time datetime="{STAMP}">{day}</time>' in tally
        for url in ("/", "/history"):
            assert f'<time datetime="{STAMP}">{when}</time>' in text(night.host.get(url)), url
    assert other.post(invite).status_code in (302, 303)
    set_created(app, night.key, STAMP)
    night.host.set_cookie("lang", "ko")
    assert "다른 기기(오후 7:05에 진행자 등록)" in text(night.host.get(f"/n/{night.key}"))
    night.host.set_cookie("lang", "en")
    assert "Another device, host since 7:05 PM" in text(night.host.get(f"/n/{night.key}"))


def test_the_recap_pictures_are_dated_in_the_readers_language(app, seoul):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    play(app, night, kraken_game(1, ROLES, kraken_all_treasure()))
    set_created(app, night.key, STAMP)
    with app.test_request_context():
        get_db().execute("update games set created = ?", [STAMP])
    for language, day in (("ko", f"3월 14일({KO_DAY})"), ("en", f"{EN_DAY} 14 Mar")):
        with app.test_request_context(headers={"Cookie": f"lang={language}"}):
            row = store.night_by_key(night.key)
            games = [g.plain() for g in store.games(row["id"])]
            names = store.names(row["id"])
            whole = recap.night(row["created"], names, games, pictures.WORDS, registry.installed())
            one = recap.game(row["created"], names, games[0], pictures.WORDS, registry.installed())
        assert whole["subtitle"].startswith(f"{day} · ")
        assert one["subtitle"] == day
