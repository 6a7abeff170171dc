"""A Kraken end makes every role public: it waits a few seconds (``GameDef.hold_end``)
with "Game over — Undo" on the host's page before the roles show anywhere, so a mis-tap
on "Kraken" is undone before anyone at the table has seen a role
(companion/play/seen.py)."""

import re

import pytest

from companion.kraken.seen import END_HELD_S
from companion.play import actions, seen
from tests.crawling import roles_in
from tests.kraken_host import FOUR, play
from tests.screens import screen_device


@pytest.fixture
def redraws(app, monkeypatch):
    """The redraws a held end asked for: (seconds, work), run by the test (the app holds
    ends, as served)."""
    app.config["END_HELD"] = True
    asked = []
    monkeypatch.setattr(actions, "later", lambda seconds, work: asked.append((seconds, work)))
    return asked


def clock_on(monkeypatch, seconds):
    """The laptop's clock ``seconds`` on."""
    now = seen.time.time()
    monkeypatch.setattr(seen.time, "time", lambda: now + seconds)


VERSION = re.compile(r'hx-get="[^"]*\?v=(\d+)"')


def shows_an_end(html):
    return "kraken-end" in html or "data-role" in html or len(roles_in(html)) > 1


def table(night):
    phones = [night.phone(p) for p in range(5)]
    return phones, screen_device(night)


def everyone(night, phones, tv, url):
    """Every screen's page: the phones', the room's, the host's game page."""
    return ([phone.get("/me").data.decode() for phone in phones]
            + [tv.get(f"{night.url}/screen").data.decode(),
               tv.get(f"{night.url}/screen/live", headers={"HX-Request": "true"}).data.decode()]
            + [night.host.get(url).data.decode()])


def test_a_kraken_end_waits_with_game_over_undo_before_any_role_shows(
        night, redraws, monkeypatch):
    phones, tv = table(night)
    url = night.start("kraken", **FOUR)
    play(night, url, ["kraken"])  # one tap on "Kraken": the Skeletons win
    host = night.host.get(url).data.decode()
    assert "data-held-end" in host and "Game over" in host
    undo = re.search(r'data-held-end.*?name="pos" value="(\d+)"', host, re.S)
    assert undo and int(undo.group(1)) == night.pos(url)  # undoes the very end
    for html in everyone(night, phones, tv, url):
        assert not shows_an_end(html)
    assert [round(seconds) for seconds, _ in redraws] in ([END_HELD_S + 1], [END_HELD_S])
    version = VERSION.search(night.host.get(night.url).data.decode()).group(1)
    clock_on(monkeypatch, END_HELD_S + 2)
    _, redraw = redraws[0]
    redraw()  # the night is drawn again: every screen is told
    assert int(VERSION.search(night.host.get(night.url).data.decode()).group(1)) > int(version)
    pages = everyone(night, phones, tv, url)
    assert all("data-held-end" not in html for html in pages)
    assert "kraken-end" in pages[-1] and len(roles_in(pages[-1])) >= 4  # the host's
    assert "kraken-end" in pages[5] and len(roles_in(pages[5])) >= 4  # the room's screen
    assert all("kraken-end" in html for html in pages[:4])  # the players' phones


def test_undo_while_it_is_held_shows_nothing_of_the_end_anywhere(night, redraws, monkeypatch):
    phones, tv = table(night)
    url = night.start("kraken", **FOUR)
    play(night, url, ["kraken"])
    pos = night.pos(url)
    answer = night.host.post(f"{url}/undo", data={"pos": pos})
    assert answer.status_code == 303
    clock_on(monkeypatch, END_HELD_S + 2)
    for _seconds, redraw in redraws:
        redraw()
    for html in everyone(night, phones, tv, url):
        assert not shows_an_end(html) and "data-held-end" not in html


def test_an_end_that_makes_no_secret_public_is_not_held(night, redraws):
    from tests.skullking_host import bid_round, result, start

    url = start(night, way="custom", rounds="1")
    bid_round(night, url, {0: 1, 1: 0, 2: 0, 3: 0})
    assert result(night, url, {0: 1, 1: 0, 2: 0, 3: 0}).status_code == 303
    assert "data-held-end" not in night.host.get(url).data.decode()
    assert redraws == []
