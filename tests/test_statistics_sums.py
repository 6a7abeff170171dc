"""The statistics kept as sums (companion/core/sums.py, companion/store/statistics.py)
are what a fresh derivation from every night gives (tests/statistics_oracle.py's
``player_stats`` and ``meetings``): random histories of finished games, games left
running, undos and redos across a game's end, corrections, imports, replaces and merges,
through the store functions and routes the app uses, with the statistics looked at now
and then (each look sums up the nights changed since the last)."""

import csv
import dataclasses
import io
import itertools
import json
import random
import time
from types import MappingProxyType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.builders import WHOLE_GAMES, random_correction
from companion import store
from companion.core import exchange, registry, stats, sums
from companion.core.errors import RuleError
from companion.core.events import REDO, UNDO
from companion.core.tokens import device_id, new_token
from companion.store import log
from tests import statistics_oracle as oracle

#: Spellings of six players: a night seats four or five of them, each spelled one way.
PLAYERS = (("Ann", "ann", "ANN"), ("Bo", "BO"), ("Cy",), ("지혜",), ("Di", "di"), ("Eve",))
#: Each import's night a moment of its own (the app is shared by the examples).
MOMENTS = itertools.count()
OPS = ("play", "play", "play", "leave", "undo", "redo", "correct", "night", "import",
       "replace", "merge", "unmerge", "look")


@pytest.fixture
def roomy(app):
    """The app, with the hour's bounds of one device lifted (a history in a second)."""
    app.config.update(NIGHTS_AN_HOUR=10**6, IMPORTS_AN_HOUR=10**6,
                      IMPORT_BYTES_AN_HOUR=10**12)
    return app


def fresh_figures(device):
    """The statistics page's figures derived again from every night the device hosts."""
    aliases = store.aliases(device)
    nights = oracle.nights_of(device)
    return {"players": oracle.player_stats(nights, aliases),
            "meetings": [[first, second, met] for (first, second), met
                         in sorted(oracle.meetings(nights, aliases).items())]}


def kept_figures(device):
    """The statistics page's figures as the app works them out: from the kept sums."""
    return sums.figures(store.statistics_totals(device), store.aliases(device),
                        registry.installed())


def same(a, b):
    return json.loads(json.dumps(a, sort_keys=True)) == json.loads(json.dumps(b,
                                                                              sort_keys=True))


class History:
    """One host device's nights, changed as the host's forms and the store change them."""

    def __init__(self, app, rng):
        self.app, self.rng = app, rng
        cookie = new_token()
        self.device = device_id(cookie)
        self.client = app.test_client()
        self.client.set_cookie("device", cookie)
        self.nights: list[int] = []

    def night(self, _n):
        names = [self.rng.choice(group) for group in
                 self.rng.sample(PLAYERS, self.rng.choice((4, 5)))]
        self.nights.append(store.create_night(names, self.device)["id"])

    def _pick_night(self, n):
        if not self.nights:
            self.night(n)
        return self.nights[n % len(self.nights)]

    def _pick_game(self, n):
        games = store.games(self._pick_night(n))
        return games[n % len(games)] if games else None

    def play(self, n, to_the_end=True):
        night_id = self._pick_night(n)
        script = list(WHOLE_GAMES)[n % len(WHOLE_GAMES)]
        players, options, events = WHOLE_GAMES[script]
        shown = store.current_game(night_id)
        leave = shown.number if shown is not None and not shown.finished else None
        game = store.start_game(store.night(night_id), script.split("-")[0], players,
                                options, leave=leave)
        for event in events if to_the_end else events[:self.rng.randrange(len(events))]:
            if game.finished:
                break
            game = store.record(game, event["type"], event["data"],
                                pos=None if event["seat"] is not None else game.pos,
                                device=self.device, seat=event["seat"])

    def leave(self, n):
        self.play(n, to_the_end=False)

    def _move(self, n, type_, data):
        game = self._pick_game(n)
        if game is not None:
            try:
                store.record(game, type_, data, pos=game.pos, device=self.device)
            except (RuleError, log.Stale):
                pass  # nothing to undo or redo, a correction the rules refuse

    def undo(self, n):
        self._move(n, UNDO, {})

    def redo(self, n):
        self._move(n, REDO, {})

    def correct(self, n):
        game = self._pick_game(n)
        if game is not None and game.kind == "skullking":
            self._move(n, "correct", random_correction(self.rng, game.state) or {})

    def _export(self, n):
        key = store.night(self._pick_night(n))["key"]
        return json.loads(self.client.get(f"/n/{key}/export.json").data)

    def _upload(self, document):
        return self.client.post("/import", data={
            "file": (io.BytesIO(exchange.dumps(document)), "night.json")})

    def import_(self, n):
        """A night exported and imported again as another night (a day later)."""
        document = self._export(n)
        document["night"]["created"] = time.strftime(  # a moment no night has here
            "%Y-%m-%dT%H:%M:%SZ", time.gmtime(1_900_000_000 + next(MOMENTS) * 61))
        answer = self._upload(document)
        assert answer.status_code == 303, answer.data[:300]
        self.nights.append(store.night_by_key(answer.headers["Location"].split("/")[2])["id"])

    def replace(self, n):
        """A night imported over its own copy with some of its games only."""
        document = self._export(n)
        document["games"] = document["games"][:n % (len(document["games"]) + 1)]
        answer = self._upload(document)
        if answer.status_code == 303:  # a night with no copy to replace: imported anew
            self.nights.append(store.night_by_key(
                answer.headers["Location"].split("/")[2])["id"])
            return
        token = answer.data.decode().split("/import/")[1].split('"')[0]
        assert self.client.post(f"/import/{token}",
                                data={"choice": "replace"}).status_code == 303

    def merge(self, n):
        keys = sorted(p["key"] for p in kept_figures(self.device)["players"])
        if len(keys) > 1:
            alias, into = keys[n % len(keys)], keys[(n // 7 + 1) % len(keys)]
            aliases = store.aliases(self.device)
            alias, into = stats.resolve(alias, aliases), stats.resolve(into, aliases)
            if alias != into:
                store.merge_alias(self.device, alias, into)

    def unmerge(self, n):
        aliases = sorted(store.aliases(self.device))
        if aliases:
            store.unmerge_alias(self.device, aliases[n % len(aliases)])

    def look(self, _n):
        assert same(kept_figures(self.device), fresh_figures(self.device))


def test_kept_statistics_are_a_fresh_derivation_after_any_history(roomy, examples):
    @settings(max_examples=examples(30), deadline=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(steps=st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 200)),
                          min_size=1, max_size=14),
           seed=st.integers(0, 2**32))
    def one_history(steps, seed):
        history = History(roomy, random.Random(seed))
        with roomy.test_request_context():
            for op, n in steps:
                getattr(history, "import_" if op == "import" else op)(n)
            history.look(0)

    one_history()


def test_a_best_score_taken_away_sums_the_nights_again(roomy):
    """Undoing the end of the game that made a player's best leaves that best unknown in
    the sums: the nights counted are added up again, and the best is the next one."""
    history = History(roomy, random.Random(3))
    with roomy.test_request_context():
        history.night(0)
        history.play(2)  # Skull King to the end (WHOLE_GAMES' third)
        history.look(0)
        night_id = history.nights[0]
        game = store.games(night_id)[0]
        store.record(game, UNDO, {}, pos=game.pos, device=history.device)
        history.look(0)
        best = {p["key"]: p["sk_best"] for p in kept_figures(history.device)["players"]}
        assert set(best.values()) == {None}


def test_a_night_given_to_another_host_counts_in_its_statistics_and_taken_back_not(roomy):
    history = History(roomy, random.Random(5))
    with roomy.test_request_context():
        history.night(0)
        history.play(0)
        history.look(0)
        night_id = history.nights[0]
        other = History(roomy, random.Random(6))
        assert kept_figures(other.device)["players"] == []
        assert store.use_host_invite(store.invite_host(night_id), other.device) is not None
        assert kept_figures(other.device) == kept_figures(history.device)
        assert kept_figures(other.device)["players"]
        host_id = next(h["id"] for h in store.hosts(night_id) if h["device"] == other.device)
        assert store.remove_host(night_id, host_id, history.device)
        assert kept_figures(other.device)["players"] == []
        other.look(0)
        history.look(0)


def test_a_merge_that_turns_a_pair_turns_its_head_to_head(roomy):
    """Ann beat Bo; Ann merged into Zed: the pair is (Bo, Zed), Zed's wins second."""
    history = History(roomy, random.Random(1))
    with roomy.test_request_context():
        history.nights.append(store.create_night(["Ann", "Bo", "Cy", "Zed"],
                                                 history.device)["id"])
        history.play(2)  # Skull King: seats 0, 1, 2 play
        history.look(0)
        before = {(a, b): met for a, b, met in kept_figures(history.device)["meetings"]}
        store.merge_alias(history.device, "ann", "zed")
        after = {(a, b): met for a, b, met in kept_figures(history.device)["meetings"]}
        assert after[("bo", "zed")]["wins"] == before[("ann", "bo")]["wins"][::-1]
        assert after[("bo", "zed")]["ahead"] == before[("ann", "bo")]["ahead"][::-1]
        assert before[("ann", "bo")]["wins"] != before[("ann", "bo")]["wins"][::-1]
        history.look(0)


def upgrade(app, monkeypatch, points, version):
    """``app`` as a release that pays ``points`` × bid for an exact Skull King bid
    would be, its Skull King ``rules_version`` at ``version``: a new process (no
    cached states) on the same database."""
    from companion.core import registry
    from companion.skullking import scoring

    def paid(cards, bid, off, bonus, missed_bonuses=False):
        if off:
            return (-10 * cards if bid == 0 else -10 * off) + (bonus if missed_bonuses else 0)
        return (10 * cards if bid == 0 else points * bid) + bonus

    monkeypatch.setattr(scoring, "_skull_king_points", paid)
    games = dict(app.extensions[registry.APP_KEY])
    games["skullking"] = dataclasses.replace(games["skullking"], rules_version=version)
    monkeypatch.setitem(app.extensions, registry.APP_KEY, MappingProxyType(games))
    store.states.clear()
    store.logs.clear()


def ann(client):
    """Ann's Skull King best on the statistics page's CSV, and her total in the tally."""
    rows = list(csv.reader(io.StringIO(client.get("/stats.csv").data.decode("utf-8-sig"))))
    best = rows[0].index(next(h for h in rows[0] if "best" in h.lower()))
    return next(row[best] for row in rows if row[0] == "Ann")


def test_an_upgrade_that_changes_the_scoring_shows_the_new_figures(roomy, monkeypatch):
    """Ann's exact bid of 1 and missed bid of 2 make 20 − 10 = 10; a release paying 50 a
    trick bid makes them 40. Kept results and sums carry the rules that made them: the
    release's new ``rules_version`` has them worked out again, on the next read."""
    history = History(roomy, random.Random(2))
    with roomy.test_request_context():
        history.nights.append(store.create_night(["Ann", "Bo", "Cy", "Di"],
                                                 history.device)["id"])
        history.play(2)  # Skull King (WHOLE_GAMES' third): Ann scores 20, then −10
        key = store.night(history.nights[0])["key"]
        tally = history.client.get(f"/n/{key}/tally").data.decode()
        assert ann(history.client) == "10"
        upgrade(roomy, monkeypatch, 50, 1)  # the scoring changed, the version not: nothing
        assert ann(history.client) == "10"  # notices (what a release must not do)
        upgrade(roomy, monkeypatch, 50, 2)
        assert ann(history.client) == "40"
        upgraded = history.client.get(f"/n/{key}/tally").data.decode()
        assert ">40<" in upgraded and ">40<" not in tally
        assert store.night_games(history.nights[0])[0]["result"]["scores"][0] == 40
        history.look(0)
