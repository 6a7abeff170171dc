"""A refusal the page draws for a person is answered 200 to a browser, its own status in
``X-Refused`` (companion/web/http.py, ``quiet_refusal``): Chromium's console then logs no
"Failed to load resource" on a table's ordinary refusals. Any other client keeps the
meaningful 409 or 422; either way the page says why and nothing is recorded."""

import sqlite3

import pytest

from tests.kraken_host import FOUR

#: Caches of what the other tables hold, which a page may fill whatever its answer.
CACHES = ("statistics_sums", "counted_nights", "changed_nights")

#: Who asks: a script (no browser's headers), htmx, and the browser opening a page (a
#: form posted without JavaScript, a scanned QR code).
CLIENTS = {
    "script": {},
    "htmx": {"HX-Request": "true"},
    "navigation": {"Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"},
}


def rows(app):
    """Every row of every table but the caches: what "nothing recorded" compares."""
    conn = sqlite3.connect(app.config["DATABASE"])
    try:
        tables = [r[0] for r in conn.execute(
            "select name from sqlite_master where type = 'table' "
            "and name not like 'sqlite_%' order by name") if r[0] not in CACHES]
        return {t: conn.execute(f'select * from "{t}" order by rowid').fetchall()
                for t in tables}
    finally:
        conn.close()


def latecomer_refused(night):
    """The table page's latecomer form, sent with a name past 30 characters."""
    def send(headers):
        return night.host.post(f"{night.url}/seats", data={"name": "B" * 31},
                               headers=headers)
    return send, 422, "a name has at most 30"


def crazy_time_start_question(night):
    """Crazy Time started while a Kraken game runs on the phones: the question first."""
    night.start("kraken", **FOUR)
    form = {f"seat{i}": "1" for i in range(4)}

    def send(headers):
        return night.host.post(f"{night.url}/new/crazytime", data=form, headers=headers)
    return send, 409, "stays unfinished"


def taken_seat_scanned(night):
    """Another phone scans a seat a phone already holds."""
    night.phone(0)
    other = night.app.test_client()

    def send(headers):
        return other.get(f"/s/{night.tokens[0]}", headers=headers)
    return send, 409, "This seat is already taken"


def stale_tap(night):
    """A reveal sent from the position the screen showed before another write."""
    game = night.start("kraken", **FOUR)
    pos = night.pos(game)
    assert night.host.post(f"{game}/kraken/marker",
                           data={"pos": pos, "seat": 2}).status_code == 303

    def send(headers):
        return night.host.post(f"{game}/kraken/reveal",
                               data={"pos": pos, "seat": 1, "card": "empty"},
                               headers=headers)
    return send, 409, "The table moved on"


@pytest.mark.parametrize("flow", [latecomer_refused, crazy_time_start_question,
                                  taken_seat_scanned, stale_tap])
def test_a_refusal_is_200_to_a_browser_and_keeps_its_status_for_any_other_client(night,
                                                                                   flow):
    send, status, words = flow(night)
    for who, headers in CLIENTS.items():
        before = rows(night.app)
        response = send(headers)
        body = response.get_data(as_text=True).replace("&#39;", "'")
        assert words in body, (who, body[:2000])
        assert rows(night.app) == before, f"the refusal to {who} recorded something"
        if who == "script":
            assert response.status_code == status, who
            assert "X-Refused" not in response.headers
        else:
            assert response.status_code == 200, who
            assert response.headers["X-Refused"] == str(status), who
        assert response.headers["Cache-Control"] == "no-store"
        assert {"HX-Request", "Sec-Fetch-Mode"} <= set(response.vary)


def test_an_answer_that_is_no_refusal_keeps_its_status_for_a_browser(night):
    """A bad address, a forbidden form or a broken request stays what it is."""
    stranger = night.app.test_client()
    for headers in CLIENTS.values():
        missing = stranger.get(f"{night.url}/g/1", headers=headers)
        assert missing.status_code == 404
        assert "X-Refused" not in missing.headers
    gone = night.host.get("/nothing-here", headers=CLIENTS["htmx"])
    assert gone.status_code == 404 and "X-Refused" not in gone.headers
