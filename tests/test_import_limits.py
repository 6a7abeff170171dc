"""An import at the limits: a file that holds what cannot be stored (a lone surrogate)
or cannot have happened (30 February, an unknown key, an event the rules forbid) is
refused with a message, and every export the app writes imports again, the longest game
and a file as large as the reader takes among them."""

import io
import json

import pytest

from bench.builders import (
    ROLES,
    crazytime_game,
    ev,
    kraken_game,
    kraken_kraken_first,
    make_night,
    play,
)
from companion.app import create_app
from companion.core import exchange, registry
from companion.skullking import rules as sk
from companion.store.connection import get_db

T0 = "2025-01-01T00:00:00Z"


# --- import: what cannot be stored or cannot have happened is refused ------------------

def night_file(games=None, players=("Ann", "Bo", "Cy", "Di")):
    """An export as the app writes it: a finished Kraken game and a Crazy Time game."""
    if games is None:
        games = [kraken_game(1, ROLES, kraken_kraken_first()), crazytime_game(2)]
    for game in games:
        game["created"] = T0
        game["events"] = [dict(e, seq=i + 1, created=T0) for i, e in enumerate(game["events"])]
    return json.loads(exchange.dumps(exchange.export_document(T0, list(players), games,
                                                              registry.installed())))


def refusal(document):
    with pytest.raises(exchange.BadFile) as caught:
        exchange.parse_import(json.dumps(document).encode(), registry.installed())
    return caught.value


def law(document):
    return next(e for e in document["games"][1]["events"] if e["type"] == "law")


BROKEN = "A text in this file holds a broken character (half of a surrogate pair), so " \
         "it cannot be imported."
NO_SUCH_TIME = "A date in this file cannot exist (such as 30 February or hour 25)."


def test_the_file_used_below_imports():
    parsed = exchange.parse_import(json.dumps(night_file()).encode(), registry.installed())
    assert len(parsed["games"]) == 2


@pytest.mark.parametrize("place", ["a player's name", "a law's text", "a law's name",
                                   "a key in an event's data"])
def test_a_lone_surrogate_anywhere_in_the_file_is_refused_with_a_message(place):
    document = night_file()
    if place == "a player's name":
        document["night"]["players"][0] = "\ud800"
    elif place == "a law's text":
        law(document)["data"]["what"] = "Say \udfff hello"
    elif place == "a law's name":
        law(document)["data"]["name"] = "Law \ud83d"
    else:
        law(document)["data"]["\udc00"] = 1
    # json.dumps writes the half pair as the escape "\ud800", as a hand-made file would
    assert refusal(document).message == BROKEN


def test_a_surrogate_pair_is_a_character_and_imports():
    document = night_file()
    document["night"]["players"][0] = "Ann \U0001f642"  # written as "\ud83d\ude42"
    raw = json.dumps(document).encode()
    assert b"\\ud83d\\ude42" in raw
    assert exchange.parse_import(raw, registry.installed())["players"][0] == "Ann \U0001f642"


def test_a_lone_surrogate_in_a_name_is_a_readable_refusal_not_a_500(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    document = night_file()
    document["night"]["players"][0] = "\ud800"
    before = counts(app)
    response = upload(night.host, json.dumps(document).encode())
    assert response.status_code == 422
    assert BROKEN in response.get_data(as_text=True)
    assert counts(app) == before


@pytest.mark.parametrize("where", ["night", "game", "event"])
@pytest.mark.parametrize("when", ["2026-02-30T10:00:00Z", "2026-01-10T25:00:00Z",
                                  "2026-01-10T23:61:00Z", "2026-13-01T00:00:00Z",
                                  "0000-01-01T00:00:00Z", "2025-02-29T00:00:00Z"])
def test_a_date_that_cannot_exist_is_refused(where, when):
    document = night_file()
    record = {"night": document["night"], "game": document["games"][0],
              "event": document["games"][0]["events"][0]}[where]
    record["created"] = when
    assert refusal(document).message == NO_SUCH_TIME


def test_a_real_date_such_as_29_february_of_a_leap_year_is_read():
    document = night_file()
    document["night"]["created"] = "2024-02-29T23:59:59Z"
    parsed = exchange.parse_import(json.dumps(document).encode(), registry.installed())
    assert parsed["created"] == "2024-02-29T23:59:59Z"


@pytest.mark.parametrize("record", ["the document", "the night", "a game", "an event"])
def test_an_unknown_key_in_any_record_of_the_file_is_refused(record):
    document = night_file()
    {"the document": document, "the night": document["night"],
     "a game": document["games"][0], "an event": document["games"][0]["events"][1]
     }[record]["note"] = "extra"
    refusal(document)


def test_an_event_the_rules_forbid_is_refused_even_when_a_later_undo_takes_it_back():
    # Seat 9 is not at the table: the app would have refused the marker when it was made.
    document = night_file()
    events = document["games"][0]["events"]
    bad = [{"seq": 0, "type": "marker", "data": {"seat": 9}, "seat": None, "created": T0},
           {"seq": 0, "type": "undo", "data": {}, "seat": None, "created": T0}]
    events[1:1] = bad
    for seq, event in enumerate(events, 1):
        event["seq"] = seq
    assert refusal(document).message == exchange.NOT_ALLOWED


def test_undo_and_redo_in_a_file_replay_as_they_were_recorded():
    game = kraken_game(1, ROLES, kraken_kraken_first())
    marker, *rest = game["events"]
    game["events"] = [marker, ev("undo"), ev("redo"), ev("undo"), marker, *rest]
    parsed = exchange.parse_import(json.dumps(night_file([game])).encode(), registry.installed())
    assert parsed["games"][0]["state"]["finished"] is True


# --- every export the app writes imports again -------------------------------------------

def upload(client, raw):
    return client.post("/import", data={"file": (io.BytesIO(raw), "night.json")},
                       content_type="multipart/form-data")


def counts(app):
    with app.app_context():
        db = get_db()
        return {t: db[t].count for t in ("nights", "games", "events")}


@pytest.fixture
def other(tmp_path):
    """Another machine: its own app and database."""
    return create_app({"TESTING": True, "DATABASE": str(tmp_path / "other.sqlite"),
                       "SECRET_KEY": "other", "WTF_CSRF_ENABLED": False})


@pytest.mark.slow  # a thousand events recorded one by one, each in its own transaction
def test_a_night_where_a_phone_changed_its_bid_1001_times_exports_and_imports_again(
        app, other):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    setup = sk.start([0, 1, 2], {"way": "custom", "rounds": [1, 3]})
    bids = [ev("bid", by=1, seat=1, round=1, bid=n % 2) for n in range(1001)]
    play(app, night, {"kind": "skullking", "setup": setup, "events": bids})
    first = night.host.get(f"{night.url}/export.json").get_data()

    host = other.test_client()
    response = upload(host, first)
    assert response.status_code == 303, response.get_data(as_text=True)[:300]
    key = response.headers["Location"].split("/")[2]
    assert host.get(f"/n/{key}/export.json").get_data() == first


def longest_game():
    """A running Skull King game of MAX_EVENTS bid changes of the largest kind (8 seats,
    Rascal's scoring with shots and wagers), as the app exports it."""
    players = [f"Player {n} with a long name.."[:30] for n in range(8)]
    setup = sk.start(list(range(8)), {"scoring": "rascal", "abilities": True,
                                      "way": "custom", "rounds": [1, 2]})
    events = [{"seq": n + 1, "type": "bid", "seat": 7, "created": T0,
               "data": {"round": 1, "seat": 7, "bid": n % 2, "shot": "cannonball",
                        "wager": 20}} for n in range(exchange.MAX_EVENTS)]
    game = {"number": 1, "kind": "skullking", "created": T0, "setup": setup,
            "events": events, "state": sk.replay(setup, events)}
    return exchange.dumps(exchange.export_document(T0, players, [game], registry.installed()))


def test_a_game_of_the_most_events_fits_the_file_and_upload_limits_and_imports(
        app, other):
    raw = longest_game()
    assert len(raw) <= exchange.MAX_BYTES
    assert app.config["MAX_CONTENT_LENGTH"] >= exchange.MAX_BYTES + 16 * 1024  # the form

    parsed = exchange.parse_import(raw, registry.installed())
    assert len(parsed["games"][0]["events"]) == exchange.MAX_EVENTS

    response = upload(other.test_client(), raw)
    assert response.status_code == 303, response.get_data(as_text=True)[:300]


def test_a_file_as_large_as_the_reader_takes_is_not_refused_by_the_upload_limit(client):
    response = upload(client, b" " * exchange.MAX_BYTES)
    assert response.status_code == 422  # read, and refused as not JSON: not a 413
    assert "it is not JSON" in response.get_data(as_text=True)


def test_a_file_just_too_large_for_the_reader_gets_its_message_not_a_413(client):
    response = upload(client, b" " * (exchange.MAX_BYTES + 1))
    assert response.status_code == 422
    assert "The file is too large to be a night&#39;s export." in \
        response.get_data(as_text=True)
