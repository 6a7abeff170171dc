"""Pages whose cost does not grow with the history: the history in pages, the start page's
few latest nights, and statistics read from kept results (kept themselves until what they
read changes)."""

import io
import json
import re

import pytest

from bench.builders import kraken_kraken_first, make_night
from companion import store
from companion.core import exchange, registry
from companion.store import log
from tests import statistics_oracle as oracle
from tests.pages import page_text

FIVE = {f"seat{i}": "on" for i in range(5)}


def finished_night(app):
    """A night of five with one finished Kraken game, through the routes."""
    night = make_night(app)
    url = night.start("kraken", **FIVE)
    for event in kraken_kraken_first():
        assert night.host.post(f"{url}/kraken/{event['type']}",
                               data={**event["data"], "pos": night.pos(url)}
                               ).status_code in (200, 303)
    return night


def import_copies(host, body, count, start=0):
    """``count`` more nights on ``host``: the same night imported on other days."""
    document = json.loads(body)
    for day in range(start, start + count):
        document["night"]["created"] = f"2025-{1 + day // 28:02d}-{1 + day % 28:02d}T19:00:00Z"
        answer = host.post("/import", data={
            "file": (io.BytesIO(exchange.dumps(document)), "night.json")})
        assert answer.status_code == 303, answer.data[:500]


@pytest.fixture
def history(app):
    app.config["IMPORTS_AN_HOUR"] = 100  # the same night on 24 days, in a second
    night = finished_night(app)
    body = night.host.get(f"/n/{night.key}/export.json").data
    import_copies(night.host, body, store.HISTORY_PAGE + 4)
    return night


def test_the_history_is_paged_latest_first_with_each_pages_dates(history):
    first = page_text(history.host.get("/history").data.decode())
    assert "page 1 of 2" in first and f"{store.HISTORY_PAGE + 5} nights in all" in first
    assert "Older nights" in first and "Newer nights" not in first
    page = history.host.get("/history?page=2")
    second = page_text(page.data.decode())
    assert "page 2 of 2" in second and "Newer nights" in second
    assert "Older nights" not in second
    # The latest first by sequence: the night made here came first (2026), then the
    # imports day by day from 2025-01-01; the page says the dates it covers.
    # (Dates in the language's own form: the year only outside the current one.)
    assert re.search(r"Nights of Wed 1 Jan 2025 to \w{3} \d+ \w{3}\b", second)
    assert "Nights of Sun 5 Jan 2025 to Fri 24 Jan 2025" in first
    assert history.host.get("/history?page=99").status_code == 200  # the last page
    assert history.host.get("/history?page=x").status_code == 200  # the first


def test_the_history_pages_speak_korean(history):
    html = page_text(history.host.get("/history", headers={
        "Accept-Language": "ko"}).data.decode())
    assert "1/2페이지" in html and "이전 모임" in html


def test_the_start_page_lists_only_the_latest_earlier_nights(history):
    html = history.host.get("/").data.decode()
    from companion.table.nights import EARLIER_SHOWN

    listed = re.findall(r'<ul class="nights">(.*?)</ul>', html, re.S)[0]
    assert listed.count("<li>") == EARLIER_SHOWN
    assert "All earlier nights" in html


def test_the_statistics_read_kept_results_not_the_logs(history, monkeypatch):
    """No log is read and no game replayed for the statistics, their CSV files or the
    history: everything comes from what was kept when each game ended."""
    def refuse(*_args, **_kwargs):
        raise AssertionError("a log was read")

    monkeypatch.setattr(log, "load", refuse)
    for kind in registry.installed().values():
        monkeypatch.setattr(kind.rules, "replay", refuse)
    store.states.clear()
    store.logs.clear()
    for url in ("/stats", "/stats.csv", "/stats/head-to-head.csv", "/history", "/"):
        assert history.host.get(url).status_code == 200, url


def _kept(app):
    """The sums kept (one row a host device); a visit leaves no night marked changed."""
    with app.test_request_context():
        db = store.get_db()
        assert not list(db.query("select * from changed_nights"))
        return [row["body"] for row in db.query("select body from statistics_sums")]


def test_the_statistics_are_kept_until_what_they_read_changes(app, history):
    assert history.host.get("/stats").status_code == 200
    stamps = _kept(app)
    assert len(stamps) == 1
    # A move in a running game changes nothing the statistics read: they stay kept.
    url = history.start("kraken", **FIVE)
    assert history.host.get("/stats").status_code == 200
    after_start = _kept(app)
    assert after_start != stamps  # a game started: one more unfinished game
    history.host.post(f"{url}/kraken/marker", data={"seat": 0, "pos": history.pos(url)})
    assert history.host.get("/stats").status_code == 200
    assert _kept(app) == after_start
    history.host.post(f"{url}/kraken/reveal", data={"seat": 1, "card": "kraken",
                                                    "pos": history.pos(url)})
    before = page_text(history.host.get("/stats").data.decode())
    assert _kept(app) != after_start  # the game ended
    history.host.post(f"{url}/undo", data={"pos": history.pos(url)})
    assert page_text(history.host.get("/stats").data.decode()) != before


def test_kept_statistics_are_the_statistics_of_the_logs(app, history):
    """What the page shows from kept results is what a replay of every log gives."""
    with app.test_request_context(headers={"Cookie": history.host.get_cookie(
            "device").value and f"device={history.host.get_cookie('device').value}"}):
        from companion.web.identity import device

        nights = sorted(store.hosted_nights(device()), key=lambda n: (n["created"], n["id"]))
        replayed = [{"names": store.names(n["id"]),
                     "games": [g.plain() for g in store.games(n["id"])]} for n in nights]
        kept = oracle.nights_of(device())
        assert json.loads(json.dumps(oracle.player_stats(replayed))) \
            == json.loads(json.dumps(oracle.player_stats(kept)))
        assert oracle.meetings(replayed) == oracle.meetings(kept)
