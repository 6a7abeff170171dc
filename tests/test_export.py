"""Export and import: a night leaves as JSON and CSV, and comes back whole — or not at all.

A running game never leaves with its secrets (DESIGN.md "Secrets"): an unfinished Kraken
game is exported without its roles (docs/rules.md#kraken-setup), an unfinished Crazy Time
game without its laws' text (docs/rules.md#crazy-time-matches), an unfinished Skull King
game without the bids not yet revealed (docs/rules.md#skull-king).
"""

import json

import pytest

from bench.builders import (
    ROLES,
    crazytime_events,
    crazytime_game,
    ev,
    kraken_all_treasure,
    kraken_game,
    kraken_kraken_first,
    make_night,
    play,
    skullking_hand,
)
from companion.app import create_app
from companion.core import exchange, registry
from companion.store.connection import get_db
from tests.night_files import counts, export, import_


@pytest.fixture
def evening(app):
    night = make_night(app, ["민수", "Jo", "지혜 🙂", "Ann"])
    night.host.set_cookie("lang", "en")
    for number in (1, 2):
        play(app, night, kraken_game(number, ROLES, kraken_kraken_first(), "series-1"))
    # Skull King with an undo and a redo in its log.
    sk = skullking_hand(3)
    sk["events"] = sk["events"][:2] + [ev("undo"), ev("redo")] + sk["events"][2:]
    play(app, night, sk)
    play(app, night, crazytime_game(4))
    play(app, night, kraken_game(5, ROLES, kraken_all_treasure()[:2]))
    return night


@pytest.fixture
def fresh(tmp_path):
    """Another machine: its own app and database."""
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "other.sqlite"),
                      "SECRET_KEY": "other", "WTF_CSRF_ENABLED": False})
    return app


def test_export_import_export_is_byte_for_byte_equal(evening, fresh):
    first = export(evening)
    host = fresh.test_client()
    response = import_(host, first)
    assert response.status_code == 303, response.get_data(as_text=True)[:500]
    key = response.headers["Location"].split("/")[2]
    second = host.get(f"/n/{key}/export.json").get_data()
    assert second == first


def test_the_export_is_complete(evening):
    document = json.loads(export(evening))
    assert document["format"] == "companion-night" and document["version"] == 1
    assert document["night"]["players"] == ["민수", "Jo", "지혜 🙂", "Ann"]
    assert [g["kind"] for g in document["games"]] == [
        "kraken", "kraken", "skullking", "crazytime", "kraken"]
    sk = document["games"][2]
    assert [e["type"] for e in sk["events"]][:6] == [
        "bid", "bid", "undo", "redo", "bid", "reveal_bids"]
    assert sk["finished"] is True and sk["secrets_removed"] is False
    assert document["games"][0]["setup"]["roles"] == {"0": "explorer", "1": "skeleton",
                                                      "2": "explorer"}


def test_the_export_has_no_token_id_or_device(evening):
    raw = export(evening).decode()
    for token in evening.tokens:
        assert token not in raw
    assert evening.key not in raw
    assert '"device"' not in raw and '"id"' not in raw


def test_the_imported_night_is_hosted_by_the_importer_with_new_seat_links(evening, fresh):
    host = fresh.test_client()
    key = import_(host, export(evening)).headers["Location"].split("/")[2]
    assert key != evening.key
    assert host.get(f"/n/{key}").status_code == 200
    assert host.get(f"/n/{key}/tally").status_code == 200
    assert fresh.test_client().get(f"/n/{key}").status_code == 404
    with fresh.app_context():
        tokens = [r["token"] for r in get_db().query("select token from seats")]
    assert len(tokens) == 4 and not set(tokens) & set(evening.tokens)


def test_a_running_kraken_game_leaves_without_its_roles(evening):
    game = json.loads(export(evening))["games"][4]
    assert game["finished"] is False and game["secrets_removed"] is True
    assert "roles" not in game["setup"] and "unused_roles" not in game["setup"]
    assert "\"skeleton\"" not in json.dumps(game) and "\"explorer\"" not in json.dumps(game)


def test_a_running_kraken_game_comes_back_unfinished_with_a_fresh_deal(evening, fresh):
    host = fresh.test_client()
    key = import_(host, export(evening)).headers["Location"].split("/")[2]
    from companion import store

    with fresh.test_request_context():
        night = store.night_by_key(key)
        game = store.game(night["id"], 5)
        assert game.finished is False
        assert sorted(game.setup["roles"].values()) in (
            ["explorer", "explorer", "explorer"], ["explorer", "explorer", "skeleton"],
            ["explorer", "skeleton", "skeleton"])
        assert len(game.effective) == 2


def test_a_running_crazy_time_game_leaves_without_its_laws_text(app):
    night = make_night(app, ["Ann", "Bo", "Cy", "Di"])
    from companion.crazytime import rules as ct

    setup = ct.start([0, 1, 2, 3], {})
    events = crazytime_events([{0: 0, 1: 4, 2: 4, 3: 4}, {0: 1}],
                              law_texts=("When a red card", "Touch your nose"))
    play(app, night, {"kind": "crazytime", "setup": setup, "events": events})
    raw = export(night).decode()
    assert "Law 1" in raw  # the name is public
    assert "red card" not in raw and "nose" not in raw
    game = json.loads(raw)["games"][0]
    law = next(e for e in game["events"] if e["type"] == "law")
    assert (law["data"]["when"], law["data"]["what"]) == ("?", "?")


def test_a_finished_crazy_time_game_keeps_its_laws(evening):
    raw = export(evening).decode()
    assert "When a 5" in raw and "Say hello" in raw


def test_a_running_skull_king_game_leaves_without_the_hidden_bids(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    from companion.skullking import rules as sk

    setup = sk.start([0, 1, 2], {"way": "custom", "rounds": [1, 3]})
    events = [ev("bid", seat=0, round=1, bid=1), ev("bid", seat=1, round=1, bid=0),
              ev("bid", seat=2, round=1, bid=0), ev("reveal_bids", round=1),
              ev("result", round=1, results={"0": {"won": 1}, "1": {"won": 0},
                                             "2": {"won": 0}}),
              ev("bid", seat=0, round=2, bid=3), ev("bid", by=1, seat=1, round=2, bid=2)]
    play(app, night, {"kind": "skullking", "setup": setup, "events": events})
    game = json.loads(export(night))["games"][0]
    bids = [(e["data"]["round"], e["data"]["bid"]) for e in game["events"]
            if e["type"] == "bid"]
    assert bids == [(1, 1), (1, 0), (1, 0), (2, 0), (2, 0)]
    assert game["secrets_removed"] is True


# --- a bad file changes nothing -----------------------------------------------------------

def doc(evening):
    return json.loads(export(evening))


def dumps(document):
    return json.dumps(document).encode()


def broken(evening, change):
    document = doc(evening)
    change(document)
    return dumps(document)


BAD = {
    "not JSON": lambda e: b"\x89PNG\r\n not json at all",
    "not UTF-8": lambda e: b'{"a": "\xff"}',
    "a JSON list": lambda e: b"[1, 2, 3]",
    "another app's JSON": lambda e: b'{"format": "bgstats", "plays": []}',
    "another version": lambda e: broken(e, lambda d: d.update(version=2)),
    "an unknown kind": lambda e: broken(e, lambda d: d["games"][0].update(kind="chess")),
    "too few players": lambda e: broken(e, lambda d: d["night"].update(players=["A", "B"])),
    "two players of one name": lambda e: broken(
        e, lambda d: d["night"].update(players=["Ann", "ann", "Bo", "Cy"])),
    "a game number out of order": lambda e: broken(
        e, lambda d: d["games"][0].update(number=7)),
    "a seat not at the table": lambda e: broken(
        e, lambda d: d["games"][0]["setup"].update(players=[0, 1, 9])),
    "roles that are not that table's cards": lambda e: broken(
        e, lambda d: d["games"][0]["setup"].update(unused_roles=["explorer", "explorer"])),
    "a setup the rules would not make": lambda e: broken(
        e, lambda d: d["games"][2]["setup"].update(rounds=[1, 99])),
    "an impossible event": lambda e: broken(
        e, lambda d: d["games"][0]["events"].append(
            {"seq": 3, "type": "reveal", "data": {"seat": 0, "card": "kraken",
                                                  "special": None},
             "seat": None, "created": "2025-01-01T00:00:00Z"})),
    "an undo of nothing": lambda e: broken(
        e, lambda d: d["games"][0]["events"].insert(
            0, {"seq": 1, "type": "undo", "data": {}, "seat": None,
                "created": "2025-01-01T00:00:00Z"})),
    "a host event sent by a phone": lambda e: broken(
        e, lambda d: d["games"][0]["events"][0].update(seat=1)),
    "a finished flag that is not true": lambda e: broken(
        e, lambda d: d["games"][0].update(finished=False)),
    "a bad time stamp": lambda e: broken(
        e, lambda d: d["night"].update(created="yesterday")),
    "a string for the events": lambda e: broken(
        e, lambda d: d["games"][1].update(events="lots")),
    "law data that is a list": lambda e: broken(
        e, lambda d: next(x for x in d["games"][3]["events"] if x["type"] == "law")
        .update(data=[1])),
    "deep nesting": lambda e: b'{"format": "companion-night", "version": 1, "night": '
                              + b"[" * 100000 + b"]" * 100000 + b"}",
}


@pytest.mark.parametrize("name", BAD)
def test_a_bad_file_is_refused_with_a_reason_and_changes_nothing(app, evening, name):
    raw = BAD[name](evening)
    before = counts(app)
    response = import_(evening.host, raw)
    assert response.status_code == 422, name
    assert '<p class="notice error" role="alert">' in response.get_data(as_text=True)
    assert counts(app) == before


def test_the_game_in_error_is_named(evening):
    raw = BAD["an impossible event"](evening)
    html = import_(evening.host, raw).get_data(as_text=True)
    assert "Game #1: Its event log is not one the rules allow." in html


def test_a_huge_file_is_refused(app, evening):
    before = counts(app)
    response = import_(evening.host, b"{" + b" " * (3 * 1024 * 1024) + b"}")
    assert response.status_code == 413
    assert counts(app) == before


def test_a_file_just_over_the_export_limit_is_refused_by_the_reader():
    with pytest.raises(exchange.BadFile, match="The file is too large to be a night's export"):
        exchange.parse_import(b" " * (exchange.MAX_BYTES + 1), registry.installed())


def test_no_file_gets_a_message(evening):
    response = evening.host.post("/import", data={}, content_type="multipart/form-data")
    assert response.status_code == 422


def test_too_many_events_are_refused():
    events = [{"seq": i + 1, "type": "marker", "data": {"seat": 0}, "seat": None,
               "created": "2025-01-01T00:00:00Z"} for i in range(exchange.MAX_EVENTS + 1)]
    document = {"format": "companion-night", "version": 1,
                "night": {"created": "2025-01-01T00:00:00Z", "players": ["A", "B", "C"]},
                "games": [{"number": 1, "kind": "kraken", "created": "2025-01-01T00:00:00Z",
                           "finished": False, "secrets_removed": True,
                           "setup": json.loads(json.dumps(kraken_game(
                               1, ROLES, [])["setup"])), "events": events}]}
    most = f"A game has more than {exchange.MAX_EVENTS} events"
    with pytest.raises(exchange.BadFile, match=most) as caught:
        exchange.parse_import(json.dumps(document).encode(), registry.installed())
    assert caught.value.params["most"] == exchange.MAX_EVENTS
