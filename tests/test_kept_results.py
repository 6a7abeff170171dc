"""What a game came to is kept beside its log and never disagrees with it
(companion/store/results.py): random logs with undo and redo across the end, corrections,
imports and replaces, each compared after every write with a fresh derivation."""

import io
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.builders import (
    CT_MATCHES,
    WHOLE_GAMES,
    crazytime_events,
    kraken_kraken_first,
    make_night,
    random_correction,
)
from companion import store
from companion.core import exchange
from companion.core.errors import RuleError
from companion.core.events import REDO, UNDO, effective
from companion.store import log, results
from companion.store.connection import get_db, write

HOST = "host-device"


def fresh(game_id):
    """What the game's log comes to now, derived from the log alone."""
    db = get_db()
    row = db.execute("select kind, setup from games where id = ?", [game_id]).fetchone()
    kind, setup = row[0], json.loads(row[1])
    events = log.load(db, game_id)
    state = store.rules_for(kind).replay(setup, effective(events))
    return {"length": len(events), **results.encode(kind, setup, state)}


def kept(game_id):
    row = get_db().execute("select length, finished, result, state from results "
                           "where game_id = ?", [game_id]).fetchone()
    return None if row is None else dict(zip(("length", "finished", "result", "state"),
                                              row, strict=True))


def assert_true_to_the_log(night_id):
    for game_id, in get_db().execute("select id from games where night_id = ?",
                                     [night_id]).fetchall():
        assert kept(game_id) == fresh(game_id)


def play_randomly(app, script, seed, steps=None):
    """A night with one game of ``script``, played by a random walk: the script's next
    event, undo, redo (across the end too), a correction, an event the rules refuse;
    checked against a fresh derivation after every step."""
    rng = random.Random(seed)
    players, options, events = WHOLE_GAMES[script]
    kind = script.split("-")[0]
    steps = steps or 3 * len(events) + 25  # enough to reach the end, and go back and on
    night = make_night(app, names=["Ann", "Bo", "Cy", "Di"][:len(players) + 1])
    with app.test_request_context():
        row = store.night_by_key(night.key)
        game = store.start_game(row, kind, players, options)
        assert_true_to_the_log(row["id"])
        for _ in range(steps):
            roll = rng.random()
            if roll < 0.55:
                done = len(game.effective)
                event = events[done] if done < len(events) else rng.choice(events)
                type_, data, seat = event["type"], event["data"], event["seat"]
            elif roll < 0.75:
                type_, data, seat = UNDO, {}, None
            elif roll < 0.92:
                type_, data, seat = REDO, {}, None
            else:
                data = random_correction(rng, game.state) if kind == "skullking" else None
                type_, seat = ("correct", None) if data else ("no-such-event", None)
                data = data or {}
            try:
                game = store.record(game, type_, data, pos=None if seat is not None
                                    else game.pos, device=HOST, seat=seat)
            except (RuleError, log.Stale):
                pass
            assert_true_to_the_log(row["id"])
        return game, row


@pytest.mark.parametrize("script", WHOLE_GAMES)
def test_a_random_log_with_undo_and_redo_keeps_what_a_fresh_replay_gives(app, script,
                                                                        examples):
    @settings(max_examples=examples(6), deadline=None)
    @given(seed=st.integers(min_value=0, max_value=2**32))
    def one_log(seed):
        play_randomly(app, script, seed)

    one_log()


def test_the_end_undone_and_redone_takes_the_result_away_and_back(app):
    night = make_night(app, names=["Ann", "Bo", "Cy"])
    with app.test_request_context():
        row = store.night_by_key(night.key)
        game = store.start_game(row, "kraken", [0, 1, 2], {})
        for event in kraken_kraken_first():
            game = store.record(game, event["type"], event["data"], pos=game.pos,
                                device=HOST)
        assert kept(game.id)["finished"] == 1 and kept(game.id)["result"]
        game = store.record(game, UNDO, {}, pos=game.pos, device=HOST)
        assert kept(game.id) == {"length": 3, "finished": 0, "result": None, "state": None}
        game = store.record(game, REDO, {}, pos=game.pos, device=HOST)
        assert kept(game.id)["finished"] == 1
        assert_true_to_the_log(row["id"])


def test_a_running_game_keeps_nothing_but_that_it_runs(app):
    """Its deal and its state stay in its setup and its log, where a running game's mask
    applies: nothing of them is kept beside it."""
    night = make_night(app, names=["Ann", "Bo", "Cy"])
    with app.test_request_context():
        row = store.night_by_key(night.key)
        game = store.start_game(row, "kraken", [0, 1, 2], {})
        game = store.record(game, "marker", {"seat": 0}, pos=game.pos, device=HOST)
        assert kept(game.id) == {"length": 1, "finished": 0, "result": None, "state": None}


def test_a_finished_crazy_time_game_keeps_no_laws_text(app):
    night = make_night(app, names=["Ann", "Bo", "Cy", "Di"])
    with app.test_request_context():
        row = store.night_by_key(night.key)
        game = store.start_game(row, "crazytime", [0, 1, 2, 3], {})
        for event in crazytime_events(CT_MATCHES, law_texts=("When-secret", "What-secret")):
            game = store.record(game, event["type"], event["data"], pos=game.pos,
                                device=HOST)
        assert game.finished
        row_kept = json.dumps(kept(game.id), ensure_ascii=False)
        assert "When-secret" not in row_kept and "What-secret" not in row_kept
        assert "Law 1" in row_kept  # a law's name is public


def _export(client, key):
    return client.get(f"/n/{key}/export.json").data


def test_an_import_and_a_replace_keep_what_each_game_came_to(app):
    played = make_night(app, names=["Ann", "Bo", "Cy", "Di"])
    with app.test_request_context():
        night_row = store.night_by_key(played.key)
        one = store.start_game(night_row, "crazytime", [0, 1, 2, 3], {})
        for event in crazytime_events(CT_MATCHES):
            one = store.record(one, event["type"], event["data"], pos=one.pos, device=HOST)
    document = json.loads(_export(played.host, played.key))
    document["night"]["created"] = "2026-01-02T19:00:00Z"  # another night: no copy here
    body = exchange.dumps(document)
    other = app.test_client()
    answer = other.post("/import", data={"file": (io.BytesIO(body), "n.json")})
    assert answer.status_code == 303
    with app.test_request_context():
        imported = store.night_by_key(answer.headers["Location"].split("/")[2])
        assert_true_to_the_log(imported["id"])
        assert [g["finished"] for g in store.night_games(imported["id"])] == [True]
    # The same night again, on the device that hosts the copy: it replaces its games.
    document["games"] = []
    answer = other.post("/import", data={"file": (io.BytesIO(exchange.dumps(document)),
                                                  "n.json")})
    token = answer.data.decode().split("/import/")[1].split('"')[0]
    assert other.post(f"/import/{token}", data={"choice": "replace"}).status_code == 303
    with app.test_request_context():
        assert store.night_games(imported["id"]) == []
        assert get_db().execute("select count(*) from results where night_id = ?",
                                [imported["id"]]).fetchone()[0] == 0
        assert_true_to_the_log(night_row["id"])


def test_a_game_with_nothing_kept_is_worked_out_when_read_and_kept(app):
    """A database from before kept results (or a game written by hand): read, the game
    is worked out from its log, and kept."""
    night = make_night(app, names=["Ann", "Bo", "Cy"])
    with app.test_request_context():
        row = store.night_by_key(night.key)
        game = store.start_game(row, "kraken", [0, 1, 2], {})
        for event in kraken_kraken_first():
            game = store.record(game, event["type"], event["data"], pos=game.pos,
                                device=HOST)
        db = get_db()
        with write(db):
            db.execute("delete from results")
        assert store.outcomes([row["id"]])[row["id"]][0]["finished"] is True
        assert kept(game.id) == fresh(game.id)
        with write(db):
            db.execute("update results set length = 0, finished = 0, result = null, "
                       "state = null")
        assert store.night_games(row["id"])[0]["finished"] is True
        assert kept(game.id) == fresh(game.id)
