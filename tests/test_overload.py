"""Overload that slows, not breaks (docs/architecture.md, "Overload"): the process's loop
lag and what it decides from it (companion/core/overload.py), and the app's answers
while it lags (companion/web/lag.py, companion/table/push.py): a hint to slow down on
every answer to htmx, a stream not opened but answered "busy" with a ``retry:``, a live
refresh turned away with a 429 far behind, never a 5xx, and every write served."""

import re

import pytest

from companion.app import create_app
from companion.core import overload
from companion.core.overload import Lag
from companion.table import push
from companion.web import lag as lag_module
from tests.conftest import make_night

KEEPING_UP = Lag()
BEHIND = Lag(300.0, True)
FAR_BEHIND = Lag(1500.0, True)


def settle(lag: Lag, sample_ms: float, seconds: float, tick: float = 0.05) -> Lag:
    """``lag`` after ``seconds`` of samples of ``sample_ms`` every ``tick``."""
    for _ in range(round(seconds / tick)):
        lag = lag.after(sample_ms, tick)
    return lag


def test_a_process_that_keeps_up_is_not_behind():
    # a half core's quota stops the process up to half of each 100 ms: 50 ms is normal
    assert not settle(KEEPING_UP, 50, 10).behind
    assert not settle(KEEPING_UP, 0, 10).behind


def test_a_growing_queue_puts_it_behind_within_a_second():
    lag = settle(KEEPING_UP, 400, 1.0)
    assert lag.behind and lag.ms > overload.BEHIND_MS


def test_one_late_tick_does_not():
    lag = KEEPING_UP.after(400, 0.05)
    assert not lag.behind


def test_it_is_behind_until_the_lag_falls_well_below_the_mark():
    """Hysteresis: behind above BEHIND_MS, back only below CAUGHT_UP_MS, and slowly (the
    average falls slower than it rises)."""
    lag = settle(KEEPING_UP, 500, 2.0)
    between = (overload.BEHIND_MS + overload.CAUGHT_UP_MS) / 2
    lag = settle(lag, between, 10.0)
    assert lag.behind  # between the two marks: still behind
    quick = settle(lag, 0, 0.5)
    assert quick.behind  # half a second of short ticks is not enough
    assert not settle(lag, 0, 5.0).behind


def test_a_process_that_was_stopped_is_not_far_behind_for_long_after():
    """A laptop asleep for 30 s wakes with one sample of 30 s: it counts as at most
    SAMPLE_MOST_MS, so streams are opened again within two seconds of short ticks."""
    woke = KEEPING_UP.after(30_000, 30.0)
    assert woke.ms == overload.SAMPLE_MOST_MS
    assert not overload.admits_stream(woke)
    assert overload.admits_stream(settle(woke, 0, 2.0))
    # while a process that stays behind gives such samples again and again
    assert not overload.admits_stream(settle(woke, 2500, 2.0, tick=2.5))


def test_a_negative_sample_counts_as_none():
    assert Lag().after(-30, 0.05).ms == 0


@pytest.mark.parametrize(("lag", "hint"), [
    (KEEPING_UP, 0), (Lag(80.0, False), 0), (Lag(160.0, True), 2), (BEHIND, 2),
    (Lag(700.0, True), 4), (FAR_BEHIND, 5), (Lag(5000.0, True), overload.HINT_MOST),
    (Lag(70.0, True), 2)])
def test_the_hint_grows_with_the_lag_between_its_bounds(lag, hint):
    assert overload.hint_seconds(lag) == hint


def test_streams_are_opened_unless_it_is_far_behind():
    assert overload.admits_stream(KEEPING_UP)
    assert overload.admits_stream(BEHIND)
    assert not overload.admits_stream(FAR_BEHIND)


def test_refreshes_are_turned_away_only_far_behind():
    assert not overload.sheds_refresh(KEEPING_UP)
    assert not overload.sheds_refresh(BEHIND)
    assert overload.sheds_refresh(FAR_BEHIND)
    # a lag that high but on its way down from behind? It is still behind: shed
    assert not overload.sheds_refresh(Lag(1500.0, False))


def test_the_retry_is_a_second_while_keeping_up_and_the_hint_spread_while_behind():
    assert overload.retry_ms(KEEPING_UP, 0.7) == 1000
    assert overload.retry_ms(BEHIND, 0) == 2000
    assert overload.retry_ms(BEHIND, 1) == 3000
    assert overload.retry_ms(BEHIND, 7) == 3000  # a draw out of range is held to it


# --- the app while its process lags ------------------------------------------------------

@pytest.fixture
def push_app(tmp_path):
    """An app whose pages open streams (as under gevent)."""
    return create_app({"DATABASE": str(tmp_path / "push.sqlite"), "SECRET_KEY": "push",
                       "WTF_CSRF_ENABLED": False, "LIVE_PUSH": True, "PUSH_TICK": 0.01})


@pytest.fixture
def lagging(monkeypatch):
    """This process's loop as far behind as asked: ``lagging(Lag(...))``."""
    def set_lag(value: Lag) -> None:
        monkeypatch.setattr(lag_module, "current", lambda: value)
    return set_lag


def hx(client, path):
    return client.get(path, headers={"HX-Request": "true"})


def test_keeping_up_nothing_is_said(push_app):
    night = make_night(push_app, ["A", "B", "C"])
    phone = night.phone(0)
    assert "X-Slow-Down" not in hx(phone, "/me/live?v=-1").headers
    answer = phone.get("/me/stream", buffered=False)
    assert next(iter(answer.response)).decode().startswith("retry: 1000\nevent: spread")
    answer.close()


def test_behind_every_answer_to_htmx_says_how_long_to_wait(push_app, lagging):
    night = make_night(push_app, ["A", "B", "C"])
    phone = night.phone(0)
    lagging(BEHIND)
    seat = hx(phone, "/me/live?v=-1")
    assert seat.status_code == 200 and seat.headers["X-Slow-Down"] == "2"
    version = re.search(r"\?v=(\d+)", seat.get_data(as_text=True)).group(1)
    quiet = hx(phone, f"/me/live?v={version}")
    assert quiet.status_code == 204 and quiet.headers["X-Slow-Down"] == "2"
    # a full page load is no refresh: drawn as always, with no hint
    page = phone.get("/me")
    assert page.status_code == 200 and "X-Slow-Down" not in page.headers


def test_behind_a_new_stream_is_opened_far_behind_told_busy_and_when_to_come_back(
        push_app, lagging):
    night = make_night(push_app, ["A", "B", "C"])
    lagging(BEHIND)
    opened = night.phone(1).get("/me/stream", buffered=False)
    assert next(iter(opened.response)).decode().startswith("retry: ")
    opened.close()
    lagging(FAR_BEHIND)
    for device, path in ((night.phone(0), "/me/stream"), (night.host, f"{night.url}/stream")):
        answer = device.get(path)
        assert answer.status_code == 200
        assert answer.mimetype == "text/event-stream"
        body = answer.get_data(as_text=True)
        found = re.fullmatch(r"retry: (\d+)\nevent: busy\ndata: 5\n\n", body)
        assert found, body
        assert 5000 <= int(found.group(1)) <= 7500
    with push_app.test_request_context():
        assert push.watcher().carrying() == 0  # none was opened


def test_far_behind_a_refresh_is_turned_away_and_a_write_goes_through(push_app, lagging):
    night = make_night(push_app, ["A", "B", "C"])
    phone = night.phone(0)
    game_url = night.start("kraken", **{f"seat{i}": "on" for i in range(3)})
    lagging(FAR_BEHIND)
    for device, path in ((phone, "/me/live?v=-1"), (night.host, f"{game_url}/live?v=-1")):
        turned = hx(device, path)
        assert turned.status_code == 429
        assert turned.headers["Retry-After"] == turned.headers["X-Slow-Down"] == "5"
        assert turned.get_data() == b""
    # the host's write is served (its answer says to slow down too)
    wrote = night.host.post(f"{game_url}/kraken/marker",
                            data={"pos": night.pos(game_url), "seat": "1"},
                            headers={"HX-Request": "true"})
    assert wrote.status_code == 200, wrote.get_data(as_text=True)[:300]
    assert wrote.headers["X-Slow-Down"] == "5"
    # once the process keeps up again, the phone catches up on its next refresh
    lagging(KEEPING_UP)
    caught = hx(phone, "/me/live?v=-1")
    assert caught.status_code == 200 and "X-Slow-Down" not in caught.headers


def test_a_stream_tells_a_longer_retry_while_the_process_lags(push_app, monkeypatch):
    """The frames of a stream opened while the process kept up carry the longer
    ``retry:`` once it lags (the browser reopens it no sooner), and 1 s once it keeps up
    again."""
    lags = iter([KEEPING_UP, BEHIND, BEHIND])
    monkeypatch.setattr(lag_module, "current", lambda: next(lags, KEEPING_UP))
    watch = push.Watcher(push_app.config["DATABASE"], tick=0.01)
    stream = watch.open("d")
    frames = list(push._events(watch, stream, night_id=1, seen=0, heartbeat=0.05,
                               life=0.3))
    told = [int(m.group(1)) for f in frames if (m := re.match(r"retry: (\d+)\n", f))]
    assert told[0] == 1000
    assert 2000 <= told[1] <= 3000
    assert told[-1] == 1000
    assert frames[-1].endswith("event: bye\ndata: \n\n")
