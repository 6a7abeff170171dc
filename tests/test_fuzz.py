"""Hostile input: random and malformed values at every route and form.

Every route of ``app.url_map`` is tried with real and made-up path values (keys, tokens,
numbers), random form fields (the names the templates use, and junk), huge strings,
Korean and emoji text, negative and enormous numbers, missing fields, by the host, a
phone, and a stranger. The promise: never a 500; a refused request (4xx) changes nothing
in the database; every refusal says something a person can read.
"""

import re
import sqlite3
import urllib.parse

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.builders import make_night
from companion.app import create_app
from tests.refusing import status_of

FOUR = {"seat0": "on", "seat1": "on", "seat2": "on", "seat3": "on"}
START = {
    "kraken": FOUR,
    "skullking": {**FOUR, "way": "custom", "rounds": "2,2"},
    "crazytime": FOUR,
}
# names the templates' forms use, and the per-seat ones
FIELDS = ["csrf_token", "seat", "round", "pos", "side", "scoring", "same_as", "name",
          "edition", "card", "bid", "alias", "white_whale", "when", "what", "way", "wager",
          "starting_law", "specials", "shot", "series", "rounds", "reason", "next", "loot",
          "law", "lang", "kraken", "into", "harry-0", "first_dealer", "file", "discarded",
          "curse", "clockwise", "abilities", "v", "form_token", "leave", "choice"]
FIELDS += [f"{prefix}{seat}" for prefix in ("won-", "bid-", "harry-", "seat", "shot-",
                                            "wager-") for seat in (0, 1, 2, 3, 9)]
FIELDS += [f"{counter}-{seat}" for counter in ("fourteens", "loot", "black_fourteen")
           for seat in (0, 1)]

ODD = ["", " ", "0", "1", "2", "3", "-1", "-0", "99999999999999999999999", "1e9", "0x10",
       "NaN", "inf", " 3 ", "٣", "１", "\x00", "<script>alert(1)</script>", "on", "true",
       "special:lost_treasure", "special:", "empty", "treasure", "kraken", "curse",
       "grapeshot", "cannonball", "purple", "blue", "custom", "rascal", "classic", "2021",
       "basic:reversal", "law:1", "law:x", "tick_tock", "ko", "en", "//evil.example",
       "/s/x", "../../etc/passwd", "민수", "지혜 🙂", "\u202e", "a" * 61]
VALUES = st.one_of(
    st.sampled_from(ODD),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.integers(min_value=-3, max_value=12).map(str),
    st.text(max_size=40),
    # A long value of 1,000-3,000 characters: random text repeated to a random length.
    # Hypothesis draws a text character by character, and drawing the long ones whole
    # took four fifths of this module's time.
    st.builds(lambda text, size: (text * size)[:size],
              st.text(min_size=1, max_size=40), st.integers(min_value=1000, max_value=3000)),
)


class World:
    """Three nights, one game of each kind with a few events, phones and a stranger."""

    def __init__(self, app):
        self.app = app
        self.nights = {}
        self.phones = {}
        for kind, form in START.items():
            night = make_night(app)
            url = night.start(kind, **form)
            self.nights[kind] = (night, url)
            self.phones[kind] = night.phone(1)
        night, url = self.nights["kraken"]
        night.host.post(f"{url}/kraken/marker", data={"seat": 0, "pos": 0})
        night.host.post(f"{url}/kraken/reveal", data={"seat": 1, "card": "empty", "pos": 1})
        night, url = self.nights["crazytime"]
        night.host.post(f"{url}/crazytime/penalty", data={"seat": 2, "pos": 0})
        night, url = self.nights["skullking"]
        self.phones["skullking"].post("/me/skullking/bid", data={"round": 1, "bid": 1})
        self.stranger = app.test_client()
        self.keys = [n.key for n, _ in self.nights.values()]
        self.tokens = [t for n, _ in self.nights.values() for t in n.tokens]

    def client(self, who):
        if who == "stranger":
            return self.stranger
        if who.startswith("phone:"):
            return self.phones[who[6:]]
        return self.nights[who[5:]][0].host  # "host:<kind>"


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    app = create_app({
        "TESTING": True, "DATABASE": str(tmp_path_factory.mktemp("fuzz") / "fuzz.sqlite"),
        "SECRET_KEY": "fuzz", "WTF_CSRF_ENABLED": False, "PUBLIC_URL": "http://t.test",
    })
    return World(app)


#: Caches of what the other tables hold (companion/store/statistics.py): a page that
#: reads the statistics may sum them up (and clear the marks of the nights it counted),
#: whatever the answer (a refused merge shows the statistics page again with its
#: message).
CACHES = ("statistics_sums", "counted_nights", "changed_nights")


def dump(app):
    """Every row of every table but the caches: what "no change of state" compares."""
    conn = sqlite3.connect(app.config["DATABASE"])
    try:
        tables = [r[0] for r in conn.execute(
            "select name from sqlite_master where type = 'table' "
            "and name not like 'sqlite_%' order by name") if r[0] not in CACHES]
        return {t: conn.execute(f'select * from "{t}" order by rowid').fetchall()
                for t in tables}
    finally:
        conn.close()


def readable(response):
    """A refusal a person can read: an HTML page or fragment with a sentence in it."""
    if response.status_code in (204, 304):
        return True
    text = response.data.decode("utf-8", "replace")
    if "Traceback" in text or "werkzeug" in text.lower():
        return False
    words = re.sub(r"<[^>]+>", " ", re.sub(r"(?s)<(script|style|head)\b.*?</\1>", " ", text))
    return response.mimetype == "text/html" and re.search(r"\w{3,}[^<>]*\w{3,}", words)


def check(world, response, before):
    status = status_of(response)  # a refusal told to a browser comes with 200
    assert status < 500, response.data.decode()[:2000]
    if 400 <= status < 500:
        assert dump(world.app) == before, f"a refused request ({status}) changed the data"
        assert readable(response), response.data.decode()[:2000]


# --- every route, random path values and forms ----------------------------------------


def _routes():
    app = create_app({"TESTING": True, "DATABASE": ":memory:", "SECRET_KEY": "x"})
    return sorted(
        (rule.rule, method, tuple(sorted(rule.arguments)))
        for rule in app.url_map.iter_rules() if rule.endpoint != "static"
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"})
    )


ROUTES = _routes()


@st.composite
def requests(draw, world):
    rule, method, args = draw(st.sampled_from(ROUTES))
    values = {}
    for arg in args:
        if arg == "key":
            key = draw(st.sampled_from(world.keys))
            values[arg] = draw(st.sampled_from([key, key, key[:-1], key[:8], key + "A",
                                                key.upper()]) | st.text(max_size=30))
        elif arg == "token":
            token = draw(st.sampled_from(world.tokens))
            values[arg] = draw(st.sampled_from([token, token[:-1], token[:10]])
                               | st.text(max_size=50))
        elif arg == "kind":
            values[arg] = draw(st.sampled_from(["kraken", "skullking", "crazytime",
                                                "chess", "KRAKEN", ""]))
        else:  # int converters: a game number, seat position, round
            values[arg] = draw(st.integers(min_value=0, max_value=12)
                               | st.integers(min_value=0, max_value=2**80))
    path = rule
    for arg, value in values.items():
        segment = urllib.parse.quote(str(value), safe="") or "x"
        path = re.sub(r"<(?:\w+:)?" + arg + ">", segment, path)
    form = draw(st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=12),
                                VALUES | st.lists(VALUES, max_size=3), max_size=8))
    who = draw(st.sampled_from(["stranger"] + [f"host:{k}" for k in START]
                               + [f"phone:{k}" for k in START]))
    htmx = draw(st.booleans())
    query = draw(st.sampled_from(["", "?v=1", "?v=-1", "?v=abc", "?v=99999999999999999999"]))
    return method, path + query, form, who, htmx


def test_no_route_ever_answers_500_and_a_refusal_changes_nothing(world, examples):
    @settings(max_examples=examples(400), deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(data=st.data())
    def one_request(data):
        method, path, form, who, htmx = data.draw(requests(world))
        client = world.client(who)
        headers = {"HX-Request": "true"} if htmx else {}
        before = dump(world.app)
        if method == "GET":
            response = client.get(path, headers=headers)
        else:
            response = client.post(path, data=form, headers=headers)
        check(world, response, before)

    one_request()


# --- every form, on a real game, with each field missing or wrong ----------------------


def _real_paths(world):
    """Every POST route with real path values: this night's key, game 1, seat 1, round 1."""
    paths = []
    for rule, method, _ in ROUTES:
        if method != "POST":
            continue
        kinds = [k for k in START if f"/{k}/" in rule] or list(START)
        for kind in kinds:
            night, _ = world.nights[kind]
            path = (rule.replace("<key>", night.key).replace("<int:number>", "1")
                    .replace("<int:position>", "1").replace("<int:round_number>", "1")
                    .replace("<int:host_id>", "1").replace("<int:screen_id>", "1")
                    .replace("<kind>", kind))
            paths.append((kind, path))
    return paths


@pytest.mark.parametrize("htmx", [False, True])
def test_every_form_with_nothing_filled_in_is_refused_readably(world, htmx):
    """Missing fields: every host and phone action posted empty."""
    headers = {"HX-Request": "true"} if htmx else {}
    for kind, path in _real_paths(world):
        if path.endswith(("/release", "/pass/1", "/hosts", "/screens", "/undo", "/redo",
                          "/next", "/code", "/tablet", "/leave", "/remove", "/resume",
                          "/pass/1/seen", "/wifi/forget")) or \
                path in ("/lang", "/me/seen", "/stats/merge", "/stats/unmerge", "/screen"):
            continue  # actions that need no field: their success is tested elsewhere
        for who in (f"host:{kind}", f"phone:{kind}", "stranger"):
            before = dump(world.app)
            response = world.client(who).post(path, data={}, headers=headers)
            assert status_of(response) >= 400, (who, path, response.status_code)
            check(world, response, before)


def test_one_bad_field_in_an_otherwise_good_form_records_nothing(world, examples):
    """A good form with one field replaced: recorded only if the rules accept it."""
    good = {
        "kraken": ("kraken/reveal", {"seat": "2", "card": "empty"}),
        "skullking": ("skullking/bid", {"seat": "0", "round": "1", "bid": "0"}),
        "crazytime": ("crazytime/penalty", {"seat": "3"}),
    }

    @given(field=st.sampled_from(["pos", "seat", "round", "bid", "card", "won-0", "name"]),
           value=VALUES)
    @settings(max_examples=examples(60), deadline=None, database=None)
    def one_field(field, value):
        for kind, (action, form) in good.items():
            night, url = world.nights[kind]
            pos = night.pos(url)
            form = {**form, "pos": str(pos), field: value}
            before = dump(world.app)
            response = night.host.post(f"{url}/{action}", data=form)
            check(world, response, before)
            if response.status_code == 303:  # accepted: take it back, keep the game short
                night.host.post(f"{url}/undo", data={"pos": str(pos + 1)})

    one_field()


def test_too_much_text_is_refused_with_a_message(world):
    night, url = world.nights["crazytime"]
    before = dump(world.app)
    response = night.host.post(f"{url}/crazytime/law",
                               data={"name": "x" * (3 * 1024 * 1024), "pos": "0"})
    assert response.status_code == 413
    check(world, response, before)


def test_numbers_too_big_for_sqlite_are_a_plain_404(world):
    night, url = world.nights["kraken"]
    huge = 2**80
    for path in (f"/n/{night.key}/g/{huge}", f"/n/{night.key}/qr/{huge}.svg",
                 f"/n/{night.key}/g/1/skullking/correct/{huge}"):
        before = dump(world.app)
        response = night.host.get(path)
        assert response.status_code == 404
        check(world, response, before)


# --- with CSRF on, as in the real server: a post without the token changes nothing -----


#: The forms refused for their token that come back with what was typed in them.
KEEPS_TYPED = {"/nights", "/n/<key>/new/<kind>"}


def test_without_the_csrf_token_every_post_is_refused_and_changes_nothing(tmp_path):
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "csrf.sqlite"),
                      "SECRET_KEY": "csrf", "PUBLIC_URL": "http://t.test"})
    host = app.test_client()
    html = host.get("/").data.decode()
    token = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
    assert host.post("/nights", data={"name": ["A", "B", "C", "D"],
                                      "csrf_token": token}).status_code == 303
    conn = sqlite3.connect(app.config["DATABASE"])
    key = conn.execute("select key from nights").fetchone()[0]
    conn.close()
    assert host.post(f"/n/{key}/new/kraken", data={**FOUR, "csrf_token": token}
                     ).status_code == 303
    world = World.__new__(World)
    world.app = app
    for rule, method, _ in ROUTES:
        if method != "POST":
            continue
        path = (rule.replace("<key>", key).replace("<int:number>", "1")
                .replace("<int:position>", "0").replace("<int:round_number>", "1")
                .replace("<int:host_id>", "1").replace("<int:screen_id>", "1")
                .replace("<kind>", "kraken"))
        for form in ({}, {"csrf_token": "forged"}, {"csrf_token": token[:-2]}):
            before = dump(app)
            response = host.post(path, data={**form, "seat": "0", "pos": "0"},
                                 headers={"Accept-Language": "en"})
            assert response.status_code == 400, (path, response.status_code)
            # A form that carries typed text comes back with it (the roster, a start
            # form: game 1 here is a Kraken game, so Crazy Time's law form gets the
            # plain page); every other form says to reload.
            said = ("What you typed is kept below" if rule in KEEPS_TYPED
                    else "Reload it and try again")
            assert said in response.data.decode(), path
            check(world, response, before)
