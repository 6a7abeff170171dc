"""Secrets by construction: a phone and the room's screen are drawn from what the game
gives them (``GameDef.for_seat``, ``GameDef.for_screen``: companion/play/seen.py), never
from its whole state.

- Every phone and screen template of every game, at every step of a whole game, renders
  with a context that raises on any name or key it was not given (Jinja's
  ``StrictUndefined``): no template reads past what the viewer was given.
- No context holds the game itself (a ``store.Game`` would read the whole log and state).
- Property-based: what a seat is given does not change when any other seat's secret does
  (so none is reachable from it), and what the room's screen is given does not change
  with any secret at all, in random running games of each kind.
- A game that does not declare them cannot be made (the fourth game declares both).
"""

import random

import pytest
from flask import template_rendered
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jinja2 import StrictUndefined

from bench.builders import make_night
from companion import store
from companion.core import registry
from companion.core.errors import RuleError
from companion.crazytime import rules as ct
from companion.kraken import rules as kr
from companion.play.seen import Seen
from companion.skullking import rules as sk
from tests.apps import FOURTH, pushing_app
from tests.fourthgame import rules as sn
from tests.over_http import SCRIPTS, legal_in, state_of
from tests.screens import screen_device

HX = {"HX-Request": "true"}
ALL = (*registry.INSTALLED, FOURTH)


def games():
    return registry.load(ALL)


# --- every template, every step, a context that raises on what it was not given -------


@pytest.fixture
def strict(tmp_path, migrated_database):
    """An app whose templates raise on any name or key they were not given, with the
    fourth game and live push (a reveal's count is drawn only with it)."""
    app = pushing_app(tmp_path, migrated_database)
    app.config["GAMES"] = list(ALL)
    app.extensions[registry.APP_KEY] = games()
    for game in games().values():
        if game.kind not in app.blueprints:
            app.register_blueprint(game.blueprint)
    app.jinja_env.undefined = StrictUndefined
    return app


@pytest.fixture
def contexts(strict):
    """The contexts of every phone and screen fragment drawn while the test runs."""
    drawn = []

    def note(_sender, template, context, **_extra):
        if template.name in ("table/_seat.html", "screen/_screen.html",
                             "table/_seat_body.html"):
            drawn.append((template.name, context))

    template_rendered.connect(note, strict)
    yield drawn
    template_rendered.disconnect(note, strict)


def _fourth_steps(state, pos):
    """The fourth game, scripted: a point, everyone shows, the end."""
    if state["finished"]:
        return None
    if not any(state["points"].values()):
        return "secretnumber/point", {"pos": pos, "seat": 1}
    if not state["shown"]:
        return "secretnumber/show", {"pos": pos}
    return "secretnumber/finish", {"pos": pos}


def _kraken_specials(state, pos):
    """Kraken with its Specials: a Special card shows seat 1's role to seat 0, then the
    scripted game to its end."""
    if state["marker"] is None:
        return "kraken/marker", {"pos": pos, "seat": 0}
    if not state["special_revealed"]:
        return "kraken/reveal", {"pos": pos, "seat": 1, "card": "special:revealed_identity"}
    if not state["shown"]:
        return "kraken/special-role", {"pos": pos, "seat": 1, "to": 0}
    return SCRIPTS["kraken"][1](state, pos)


PLAYED = {
    "kraken": (SCRIPTS["kraken"][0], SCRIPTS["kraken"][1]),
    "kraken-specials": ({**SCRIPTS["kraken"][0], "specials": "on"}, _kraken_specials),
    "skullking": SCRIPTS["skullking"],
    "crazytime": SCRIPTS["crazytime"],
    "secretnumber": ({"seat0": "on", "seat1": "on", "seat2": "on", "seat3": "on",
                      "top": "9"}, _fourth_steps),
}


def _draw_all(night, phones, tv, game_url):
    """Every phone's live region, the screen's, and the passed tablet's seat (its body
    drawn by the host's pass page), each with its own context."""
    for phone in phones:
        answer = phone.get("/me/live", headers=HX)
        assert answer.status_code == 200, answer.data.decode()[:500]
    assert tv.get(f"{night.url}/screen/live", headers=HX).status_code == 200
    if game_url is not None:
        assert night.host.post(f"{night.url}/pass/2").status_code == 200


@pytest.mark.parametrize("play", PLAYED)
def test_every_phone_and_screen_template_draws_only_on_what_it_was_given(
        strict, contexts, play):
    night = make_night(strict)
    phones = [night.phone(p) for p in range(5)]  # seat 4 sits the game out
    tv = screen_device(night)
    _draw_all(night, phones, tv, None)  # the lobby: no game yet
    form, script = PLAYED[play]
    kind = play.split("-")[0]
    url = night.start(kind, **form)
    number = int(url.rsplit("/", 1)[1])
    database = strict.config["DATABASE"]
    steps = 0
    while True:
        _draw_all(night, phones, tv, url)
        state, pos = state_of_any(database, night.key, number, kind)
        action = (script(state, pos, legal_in(database, night.key, number))
                  if kind == "crazytime" else script(state, pos))
        if action is None:
            break
        path, data = action
        if path == "crazytime/law":
            data = {**data, "when": f"When {pos}", "what": f"What {pos}"}
        answer = night.host.post(f"{url}/{path}", data=data)
        assert answer.status_code == 303, (path, answer.data.decode()[:800])
        steps += 1
    assert state["finished"] and steps >= 3
    assert contexts
    for name, context in contexts:
        held = [key for key, value in context.items() if isinstance(value, store.Game)]
        assert held == [], (name, held)  # the game itself is never handed to a template
        game = context.get("game")
        if game is not None:
            assert isinstance(game, Seen), name
            assert context["state"] is game.state and context["setup"] is game.setup


def state_of_any(database, key, number, kind):
    """The stored game's state by its own rules (the fourth game's are under tests/)."""
    if kind != "secretnumber":
        return state_of(database, key, number)
    from companion.core.events import effective
    from tests.over_http import read_game

    _, setup, rows = read_game(database, key, number)
    import json

    events = [{"type": r["type"], "data": json.loads(r["data"]), "seat": r["seat"]}
              for r in rows]
    return sn.replay(setup, effective(events)), len(rows)


# --- what a seat is given holds no other seat's secret: property-based -----------------


def ev(type_, by=None, **data):
    return {"type": type_, "data": data, "seat": by}


def grow(rules, setup, events, candidates, rng, steps):
    """``events`` and up to ``steps`` more, each a random one of ``candidates(state)``
    the rules accept (the game may end on the way)."""
    state = rules.replay(setup, events)
    for _ in range(steps):
        if state.get("finished"):
            break
        for event in rng.sample(candidates(state), k=min(4, len(candidates(state)))):
            try:
                state = rules.replay(setup, [*events, event])
            except RuleError:
                continue
            events.append(event)
            break
    return events, state


def kraken_play(rng):
    players = list(range(rng.randint(3, 8)))
    setup = kr.start(players, {"curse": rng.random() < .5, "specials": rng.random() < .7},
                     rng=rng)

    def candidates(_state):
        seat, other = rng.choice(players), rng.choice(players)
        card = rng.choice(["empty", "empty", "treasure", "special", "curse"])
        return [ev("reveal", seat=seat, card=card,
                   special=rng.choice(kr.SPECIAL_NAMES) if card == "special" else None),
                ev("special_role", seat=seat, to=other),
                ev("special_role", seat=seat, to=other),
                ev("special_marker", seat=other)]

    events, state = grow(kr, setup, [ev("marker", seat=rng.choice(players))], candidates,
                         rng, rng.randint(0, 20))
    return setup, events, state


def kraken_others(setup, events, state, seat, rng):
    """The deal with every role ``seat`` may not see dealt again (None: the screen, which
    sees none)."""
    seen = set() if seat is None else {seat, *(s["seat"] for s in state["shown"]
                                               if s["to"] == seat)}
    others = [p for p in setup["players"] if p not in seen]
    pool = [setup["roles"][str(p)] for p in others] + list(setup["unused_roles"])
    rng.shuffle(pool)
    roles = dict(setup["roles"])
    for p in others:
        roles[str(p)] = pool.pop()
    return {**setup, "roles": roles, "unused_roles": pool}, events


def skullking_play(rng):
    players = list(range(rng.randint(2, 6)))
    scoring = rng.choice(["skull_king", "rascal"])
    setup = sk.start(players, {"way": "custom", "rounds": [rng.randint(1, 3) for _ in range(3)],
                               "scoring": scoring})

    def candidates(state):
        rnd = state["rounds"][state["current"]]
        seat = rng.choice(players)
        bid = {"round": rnd["number"], "seat": seat, "bid": rng.randint(0, rnd["cards"])}
        if scoring == "rascal":
            bid["shot"] = rng.choice(["grapeshot", "cannonball"])
        won = dict.fromkeys(players, 0)
        for _ in range(rnd["cards"]):
            won[rng.choice(players)] += 1
        return [ev("bid", by=rng.choice([None, seat]), **bid), ev("bid", **bid),
                ev("reveal_bids", round=rnd["number"]),
                ev("result", round=rnd["number"],
                   results={str(s): {"won": n} for s, n in won.items()})]

    events, state = grow(sk, setup, [], candidates, rng, rng.randint(0, 30))
    return setup, events, state


def skullking_others(setup, events, state, seat, rng):
    """Every bid ``seat`` may not see (another seat's, before its round's reveal) made
    again at random."""
    hidden = {r["number"] for r in state["rounds"] if not r["revealed"]}
    changed = []
    for event in events:
        data = event["data"]
        if event["type"] == "bid" and data["round"] in hidden and data["seat"] != seat:
            cards = state["rounds"][data["round"] - 1]["cards"]
            data = {**data, "bid": rng.randint(0, cards)}
            if "shot" in data:
                data["shot"] = rng.choice(["grapeshot", "cannonball"])
        changed.append({**event, "data": data})
    return setup, changed


def crazytime_play(rng):
    players = list(range(rng.randint(4, 7)))
    setup = ct.start(players, {"side": "purple", "starting_law": False}, rng=rng)

    def candidates(state):
        return [ev("penalty", seat=rng.choice(players), reason="wrong_call"),
                ev("penalty", seat=rng.choice(players), reason="wrong_call"),
                ev("law", name=f"Law {rng.getrandbits(24):x}",
                   when=f"when {rng.getrandbits(40):x}", what=f"what {rng.getrandbits(40):x}"),
                ev("next_match"),
                ev("learn", law=rng.randint(1, 4), seat=rng.choice(players))]

    events, state = grow(ct, setup, [ev("rabbit", seat=rng.choice(players))], candidates,
                         rng, rng.randint(0, 60))
    return setup, events, state


def crazytime_others(setup, events, state, seat, rng):
    """The cards of every law ``seat`` does not know written again."""
    known = {law["id"] for law in state["laws"] if seat is not None and seat in law["known_by"]}
    changed, law_id = [], 0
    for event in events:
        if event["type"] == "law":
            law_id += 1
            if law_id not in known:
                event = {**event, "data": {**event["data"],
                                           "when": f"other {rng.getrandbits(40):x}",
                                           "what": f"other {rng.getrandbits(40):x}"}}
        changed.append(event)
    return setup, changed


def fourth_play(rng):
    players = list(range(rng.randint(2, 8)))
    setup = sn.start(players, {"top": 9}, rng=rng)
    events = [ev("point", seat=rng.choice(players)) for _ in range(rng.randint(0, 4))]
    return setup, events, sn.replay(setup, events)


def fourth_others(setup, events, state, seat, rng):
    secrets = {key: (n if seat is not None and key == str(seat) else rng.randint(1, 9))
               for key, n in setup["secrets"].items()}
    return {**setup, "secrets": secrets}, events


#: Each game's random running play, and how to deal again every secret a seat (or the
#: screen, seat None) may not see.
PROPERTY = {"kraken": (kr, kraken_play, kraken_others),
            "skullking": (sk, skullking_play, skullking_others),
            "crazytime": (ct, crazytime_play, crazytime_others),
            "secretnumber": (sn, fourth_play, fourth_others)}


def test_every_game_has_a_random_play_here():
    assert set(PROPERTY) == set(games())


@pytest.mark.parametrize("kind", PROPERTY)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_no_other_seat_s_secret_is_reachable_from_what_a_seat_is_given(kind, seed):
    rules, play, others = PROPERTY[kind]
    rng = random.Random(seed)
    setup, events, state = play(rng)
    if state.get("finished"):
        return  # every secret is public at the end
    game = games()[kind]
    for seat in setup["players"]:
        for _ in range(3):
            other_setup, other_events = others(setup, events, state, seat, rng)
            other_state = rules.replay(other_setup, other_events)
            assert game.for_seat(other_setup, other_state, seat) == \
                game.for_seat(setup, state, seat)
    other_setup, other_events = others(setup, events, state, None, rng)
    other_state = rules.replay(other_setup, other_events)
    assert game.for_screen(other_setup, other_state) == game.for_screen(setup, state)


def own_secrets(kind, setup, state, seat):
    """What of ``seat``'s own secrets its phone must be given: (where, value) pairs."""
    if kind == "kraken":
        return [(("setup", "roles", str(seat)), setup["roles"][str(seat)])]
    if kind == "secretnumber":
        return [(("setup", "secrets", str(seat)), setup["secrets"][str(seat)])]
    if kind == "skullking":
        return [(("state", "rounds", index, "bids", str(seat)), r["bids"][str(seat)])
                for index, r in enumerate(state["rounds"]) if str(seat) in r["bids"]]
    return [(("state", "laws", index, part), law[part])
            for index, law in enumerate(state["laws"]) if seat in law["known_by"]
            for part in ("when", "what")]


def _at(given, where):
    for step in where:
        given = given[step]
    return given


@pytest.mark.parametrize("kind", PROPERTY)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_a_seat_is_given_its_own_secrets(kind, seed):
    """(the property above would hold for a game that gives nobody anything)"""
    _rules, play, _others = PROPERTY[kind]
    setup, _events, state = play(random.Random(seed))
    if state.get("finished"):
        return
    for seat in setup["players"]:
        given = games()[kind].for_seat(setup, state, seat)
        for where, value in own_secrets(kind, setup, state, seat):
            assert _at(given, where) == value, where


def test_a_game_that_does_not_say_what_each_screen_sees_cannot_be_made():
    declared = {field.name: getattr(games()["secretnumber"], field.name)
                for field in registry.GameDef.__dataclass_fields__.values()
                if field.name not in ("for_seat", "for_screen")}
    with pytest.raises(TypeError, match="for_seat"):
        registry.GameDef(**declared)
    assert games()["secretnumber"].for_seat is sn.for_seat
