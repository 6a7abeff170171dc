"""Import knows a night: a night already on this machine is never imported twice. The host
chooses to keep the copy here or to replace it with the file (the file waits on the server
between the two steps), and every list of nights shows its date and time."""

import io
import json
import re

import pytest

from bench.builders import (
    ROLES,
    crazytime_game,
    kraken_all_treasure,
    kraken_game,
    kraken_kraken_first,
    make_night,
    play,
)
from companion import store
from companion.app import create_app
from companion.store.connection import get_db
from companion.web.i18n import local_time
from tests.night_files import counts, export, import_


@pytest.fixture
def evening(app):
    """민수, Jo, 지혜 🙂, Ann: two Kraken games of a series, Crazy Time, and a Kraken game
    still running."""
    night = make_night(app, ["민수", "Jo", "지혜 🙂", "Ann"])
    night.host.set_cookie("lang", "en")
    for number in (1, 2):
        play(app, night, kraken_game(number, ROLES, kraken_kraken_first(), "series-1"))
    play(app, night, crazytime_game(3))
    play(app, night, kraken_game(4, ROLES, kraken_all_treasure()[:2]))
    return night


def upload(client, raw):
    return client.post("/import", data={"file": (io.BytesIO(raw), "night.json")},
                       content_type="multipart/form-data")


def text(response):
    return response.get_data(as_text=True)


def waiting(app):
    with app.app_context():
        return get_db()["pending_imports"].count


def game_ids(app):
    with app.app_context():
        return [r["id"] for r in get_db().query("select id from games")]


def choice_url(html):
    return re.search(r'action="(/import/[A-Za-z0-9_-]+)"', html).group(1)


def stats_games(client):
    """Games played per player as the statistics page counts them (Ann's row)."""
    html = text(client.get("/stats"))
    return re.findall(r"<td[^>]*>(\d+)</td>", html)


def test_a_night_already_here_is_not_imported_again_the_host_is_asked(app, evening):
    raw = export(evening)
    before, numbers = counts(app), stats_games(evening.host)
    response = upload(evening.host, raw)
    assert response.status_code == 200
    html = text(response)
    assert "This night is already here" in html
    assert "민수, Jo, 지혜 🙂, Ann" in html
    assert 'value="keep"' in html and 'value="replace"' in html
    assert counts(app) == before
    assert stats_games(evening.host) == numbers  # nothing counted twice
    assert waiting(app) == 1


def test_an_export_made_before_a_latecomer_joined_is_still_this_night(app, evening):
    raw = export(evening)
    assert evening.host.post(f"{evening.url}/seats", data={"name": "Lee"}).status_code == 303
    before, numbers = counts(app), stats_games(evening.host)
    response = upload(evening.host, raw)
    assert response.status_code == 200 and "This night is already here" in text(response)
    assert counts(app) == before
    assert stats_games(evening.host) == numbers  # its games not counted twice
    response = evening.host.post(choice_url(text(response)), data={"choice": "replace"})
    assert response.status_code == 303
    assert counts(app)["seats"] == before["seats"]  # the latecomer keeps the seat


def test_a_night_of_the_same_moment_with_other_players_is_another_night(app, evening):
    document = json.loads(export(evening))
    document["night"]["players"] = ["민수", "Jo", "Ann", "지혜 🙂"]
    response = upload(app.test_client(), json.dumps(document).encode())
    assert response.status_code == 303  # imported as a night of its own


def test_keeping_the_copy_here_forgets_the_file(app, evening):
    raw = export(evening)
    before = counts(app)
    url = choice_url(text(upload(evening.host, raw)))
    response = evening.host.post(url, data={"choice": "keep"})
    assert response.status_code == 303
    assert response.headers["Location"] == f"/n/{evening.key}/tally"
    assert counts(app) == before and waiting(app) == 0
    assert evening.host.post(url, data={"choice": "replace"}).status_code == 410


def test_replacing_puts_the_files_games_in_place_of_the_copys(app, evening):
    raw = export(evening)
    phone = evening.phone(1)
    play(app, evening, kraken_game(5, ROLES, kraken_kraken_first()))  # played after the export
    assert counts(app)["games"] == 5
    html = text(upload(evening.host, raw))
    assert "Game #5: No Touch Kraken" in html.split("In the file")[0]
    assert "Game #5: No Touch Kraken" not in html.split("In the file")[1]
    nights, seats = counts(app)["nights"], counts(app)["seats"]
    old_ids = game_ids(app)
    response = evening.host.post(choice_url(html), data={"choice": "replace"})
    assert response.status_code == 303
    assert response.headers["Location"] == f"/n/{evening.key}/tally"
    assert counts(app)["games"] == 4
    assert (counts(app)["nights"], counts(app)["seats"]) == (nights, seats)
    assert export(evening) == raw  # the night is the file's again
    assert min(game_ids(app)) > max(old_ids)  # no id used twice: no cached state reused
    assert phone.get("/me").status_code == 200 and "Jo" in text(phone.get("/me"))
    assert waiting(app) == 0


def test_the_file_waits_on_the_server_between_the_two_steps(app, evening):
    raw = export(evening)
    html = text(upload(evening.host, raw))
    with app.app_context():
        kept = json.loads(next(get_db().query("select document from pending_imports"))[
            "document"])
    assert kept["players"] == ["민수", "Jo", "지혜 🙂", "Ann"] and len(kept["games"]) == 4
    assert evening.host.post(choice_url(html), data={"choice": "replace"}).status_code == 303


def test_only_the_device_that_uploaded_answers_the_question(app, evening):
    html = text(upload(evening.host, export(evening)))
    before = counts(app)
    stranger = app.test_client()
    assert stranger.post(choice_url(html), data={"choice": "replace"}).status_code == 410
    assert counts(app) == before and waiting(app) == 1


def test_a_device_that_does_not_host_the_copy_cannot_replace_it(app, evening):
    raw = export(evening)
    other = app.test_client()
    make_night(app, ["X", "Y", "Z"]).host  # noqa: B018  (another host on this machine)
    before = counts(app)
    html = text(upload(other, raw))
    assert "This night is already here" in html
    assert 'value="replace"' not in html and "/import/" not in html  # nothing to answer
    assert "Only a host device of that night can replace it" in html
    assert counts(app) == before and waiting(app) == 0  # the file is not kept


def test_a_device_that_does_not_host_the_copy_is_shown_nothing_of_the_night_here(
        app, evening):
    """A seated phone has its night's creation time (its file could be made up): the
    answer shows what the file holds, never the games and event counts here."""
    raw = export(evening)
    evening.host.post(f"{evening.url}/seats/0/code")  # a change here the file lacks
    document = json.loads(raw)
    document["games"] = []
    html = text(upload(evening.phone(1), json.dumps(document, ensure_ascii=False).encode()))
    assert "This night is already here" in html
    assert "Here now" not in html and "Game #1" not in html


def test_importing_twice_on_another_machine_asks_the_second_time(evening, tmp_path):
    other = create_app({"TESTING": True, "DATABASE": str(tmp_path / "o.sqlite"),
                        "SECRET_KEY": "o", "WTF_CSRF_ENABLED": False, "LANGUAGE": "en"})
    host = other.test_client()
    raw = export(evening)
    assert import_(host, raw).status_code == 303
    again = import_(host, raw)
    assert again.status_code == 200 and "This night is already here" in text(again)
    with other.app_context():
        assert get_db()["nights"].count == 1


def test_a_night_with_the_same_players_made_at_another_time_is_another_night(app, evening):
    document = json.loads(export(evening))
    document["night"]["created"] = "2020-01-01T18:00:00Z"
    raw = json.dumps(document, ensure_ascii=False).encode()
    response = upload(evening.host, raw)
    assert response.status_code == 303
    assert counts(app)["nights"] == 2


# --- dates and times in every list of nights ---------------------------------------------


def test_the_home_page_and_the_history_list_nights_with_date_and_time(app):
    """(How a date reads in each language: tests/test_dates.py.)"""
    night = make_night(app, ["Ann", "Bo", "Cy"])
    with app.test_request_context():
        get_db().execute("update nights set created = ? where key = ?",
                         ["2026-03-14T10:05:00Z", night.key])
        created = store.night_by_key(night.key)["created"]
        shown = local_time(created)  # the test client's language, English
    assert re.fullmatch(r"\w{3} 1[45] Mar( 2026)?, \d\d?:\d\d [AP]M", shown), shown
    for url in ("/", "/history"):
        html = text(night.host.get(url))
        assert f'<time datetime="{created}">{shown}</time>' in html, url


def test_waiting_uploads_are_bounded_per_device_and_in_all(app, evening):
    """Anyone on the Wi-Fi may upload: a stranger's copy of a night here is not kept,
    each host device's newest upload waits, and at most PENDING_IMPORTS_KEPT in all, so
    uploads cannot fill the disk."""
    from companion import store
    from companion.core import exchange, registry

    raw = export(evening)
    for _ in range(3):
        upload(evening.host, raw)
    assert waiting(app) == 1  # the host's newest only
    for stranger in [app.test_client() for _ in range(16)]:
        assert upload(stranger, raw).status_code == 200  # told, nothing imported
    assert waiting(app) == 1
    with app.test_request_context():
        for n in range(16):
            store.keep_import(f"device-{n}", exchange.parse_import(raw, registry.installed()))
    assert waiting(app) == store.PENDING_IMPORTS_KEPT
    # the newest ones wait; the host's, pushed out, says so and changes nothing
    html = text(upload(evening.host, raw))
    assert evening.host.post(choice_url(html), data={"choice": "replace"}).status_code == 303


def test_expired_uploads_are_forgotten_without_another_upload(app, evening, monkeypatch):
    from companion import store
    from companion.core import exchange, registry
    from companion.store import connection as companion_db

    html = text(upload(evening.host, export(evening)))
    with app.test_request_context():
        store.keep_import("another host",
                          exchange.parse_import(export(evening), registry.installed()))
    assert waiting(app) == 2
    real_now = companion_db.now
    monkeypatch.setattr(store.imports, "now", lambda later=0: real_now(later + 31 * 60))
    response = evening.host.post(choice_url(html), data={"choice": "replace"})
    assert response.status_code == 410
    assert waiting(app) == 0  # the stranger's went too
