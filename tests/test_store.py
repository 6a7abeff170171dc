"""The store's modules, each by what it holds, called directly (the views' tests go through
the routes): one test per module says what that module promises."""

import pytest

from bench.builders import make_night
from companion import store
from companion.store import (
    caches,
    form_tokens,
    hosting,
    imports,
    log,
    merges,
    night_board,
    nights,
    played,
    sql,
)
from companion.store.connection import get_db, write

HOST = "host-device"
FIVE = {f"seat{i}": "on" for i in range(5)}


@pytest.fixture
def ctx(app):
    with app.test_request_context():
        yield app


def test_sql_rows_are_dicts_and_first_is_none_without_one(ctx):
    db = get_db()
    assert sql._rows(db, "select 1 as a, 2 as b", []) == [{"a": 1, "b": 2}]
    assert sql._first(db, "select 1 as a where 0", []) is None


def test_form_tokens_remember_what_a_token_made_once(ctx):
    made = nights.create_night(["A", "B", "C"], HOST, form_token="t-1")
    assert nights.create_night(["X", "Y", "Z"], HOST, form_token="t-1")["id"] == made["id"]
    assert form_tokens._made_with(get_db(), "t-1") == {"night_id": made["id"], "game": None}
    assert form_tokens._made_with(get_db(), None) is None


def test_nights_keep_their_seats_in_order_with_links_and_colours(ctx):
    made = nights.create_night(["A", "B", "C"], HOST, colours=["blue", "orange", "sky"])
    assert nights.names(made["id"]) == {0: "A", 1: "B", 2: "C"}
    assert nights.colours(made["id"])[0] == "blue"
    seat = nights.seats(made["id"])[1]
    assert nights.seat_by_token(seat["token"])["name"] == "B"
    assert nights.claim_seat(seat, "phone") == (True, None)
    assert nights.my_seat("phone")["night_version"] == nights.night(made["id"])["version"]


def test_hosting_knows_the_nights_a_device_hosts_and_its_codes(ctx):
    made = nights.create_night(["A", "B", "C"], HOST)
    assert [n["id"] for n in hosting.hosted_nights(HOST)] == [made["id"]]
    assert hosting.hosted_night(made["key"], "someone else") is None
    code = hosting.invite_host(made["id"])
    assert hosting.use_host_invite(code, "tablet")["id"] == made["id"]
    assert hosting.is_host(made, "tablet") and not hosting.host_invite(code)


def test_merges_are_a_hosts_own(ctx):
    merges.merge_alias(HOST, "jo", "joanna")
    assert merges.aliases(HOST) == {"jo": "joanna"}
    assert merges.aliases("another host") == {}
    merges.unmerge_alias(HOST, "jo")
    assert merges.aliases(HOST) == {}


def test_imports_find_a_copy_by_its_fingerprint(ctx):
    made = nights.create_night(["A", "B", "C"], HOST)
    assert [n["id"] for n in imports.nights_like(made["created"], ["A", "B", "C"])] \
        == [made["id"]]
    token = imports.keep_import(HOST, {"created": made["created"], "players": ["A", "B", "C"],
                                       "games": []})
    assert imports.kept_import(token, "another device") is None
    assert imports.kept_import(token, HOST)["players"] == ["A", "B", "C"]


def test_caches_read_only_the_newer_events_of_a_log(app):
    night = make_night(app)
    url = night.start("kraken", **FIVE)
    night.host.post(f"{url}/kraken/marker", data={"seat": 1, "pos": night.pos(url)})
    with app.test_request_context():
        game = store.current_game(store.night_by_key(night.key)["id"])
        events = caches.read_log(get_db(), game.id, game.birth)
        assert len(events) == game.length == 1
        assert caches.logs.get(caches._log_key(game.id, game.birth)) == events


def test_played_records_only_what_the_rules_allow(app):
    night = make_night(app)
    night.start("kraken", **FIVE)
    with app.test_request_context():
        game = played.current_game(store.night_by_key(night.key)["id"])
        with pytest.raises(played.RuleError, match="That action is not part of this game"):
            played.record(game, "no such event", {}, pos=game.pos, device=HOST)
        assert played.game(game.night_id, game.number).length == 0


def test_night_board_is_one_per_version_and_never_older(app):
    night = make_night(app)
    with app.test_request_context():
        night_id = store.night_by_key(night.key)["id"]
        first = night_board.board(night_id)
        assert night_board.board(night_id, first.version) is first
        with write(get_db()) as db:
            log.bump(db, night_id)
        assert night_board.board(night_id, first.version + 1).version == first.version + 1
