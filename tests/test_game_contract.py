"""The contract every registered game keeps (companion/core/registry.py), checked for each one,
and the proof that a new game is one folder and one line: a minimal fourth game defined
only under tests/ (tests/fourthgame) works through every page of the core.
"""

import json
import random
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from babel.messages import pofile
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.builders import make_night
from companion.app import create_app
from companion.core import exchange, registry
from companion.core.errors import RuleError
from tests.apps import FOURTH
from tests.refusing import refuses

ROOT = Path(__file__).resolve().parent.parent
ALL = (*registry.INSTALLED, FOURTH)
SEATS = [{"position": p, "name": f"P{p}"} for p in range(5)]
EVERY_SEAT = {f"seat{p}": "on" for p in range(5)}


def game_of(kind):
    return registry.load(ALL)[kind]


def all_games():
    return list(registry.load(ALL).values())


# --- every registered game ---------------------------------------------------------------

@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.kind)
def test_its_templates_exist(app4, game):
    env = app4.jinja_env
    for name in ("new.html", "_host.html", "_seat.html", "rules.html"):
        assert env.get_template(f"{game.kind}/{name}")


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.kind)
def test_a_fresh_setup_from_its_start_form_replays(game):
    players, options = game.parse_new(EVERY_SEAT, SEATS)
    setup = game.rules.start(players, options)
    state = game.rules.replay(setup, [])
    assert not state.get("finished")
    assert game.restore(setup, players, random.Random(1)) == setup


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.kind)
def test_its_start_form_refuses_no_players(game):
    with refuses("Choose the players."):
        players, options = game.parse_new({}, SEATS)
        game.rules.start(players, options)


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("module", registry.INSTALLED)
def test_its_title_is_translated(module, lang):
    title = game_of(module.split(".")[1]).title  # companion.<kind>.game
    path = ROOT / "companion" / "translations" / lang / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as f:
        message = pofile.read_po(f)[title._args[0]]
    assert message is not None and message.string


# --- the mask of a running game, property-based ------------------------------------------
#
# A random running game of each kind, played from a seed through its own rules; then the
# export of it must carry none of the game's secrets.

def _kraken(rng):
    game = game_of("kraken")
    players = list(range(rng.randint(3, 8)))
    setup = game.rules.start(players, {"curse": rng.random() < .5,
                                       "specials": rng.random() < .5}, rng=rng)
    events = [{"type": "marker", "data": {"seat": rng.choice(players)}, "seat": None}]
    for _ in range(rng.randint(0, 12)):
        card = rng.choice(["empty", "empty", "empty", "treasure"])
        events.append({"type": "reveal", "data": {"seat": rng.choice(players), "card": card},
                       "seat": None})
    # The deal: who holds which role, and the role cards left out ("unused_roles" is
    # also a public count, a number; the secret is the list of cards).
    secrets = [json.dumps(setup["roles"], sort_keys=True), '"roles": {', '"unused_roles": [']
    return "kraken", setup, events, secrets


def _crazytime(rng):
    game = game_of("crazytime")
    players = list(range(rng.randint(4, 7)))
    setup = game.rules.start(players, {"side": "purple", "starting_law": False}, rng=rng)
    events, secrets = [{"type": "rabbit", "data": {"seat": 0}, "seat": None}], []
    for number in range(rng.randint(1, 3)):
        when, what = f"when-{rng.getrandbits(40):x}", f"what-{rng.getrandbits(40):x}"
        secrets += [when, what]
        events.append({"type": "law", "data": {"name": f"Law {number}", "when": when,
                                               "what": what}, "seat": None})
    return "crazytime", setup, events, secrets


def _skullking(rng):
    game = game_of("skullking")
    players = list(range(rng.randint(3, 6)))
    setup = game.rules.start(players, {"edition": "2021", "scoring": "skull_king",
                                       "way": "broadside"})
    bids = {seat: rng.randint(1, 10) for seat in players}
    events = [{"type": "bid", "data": {"round": 1, "seat": seat, "bid": bid}, "seat": seat}
              for seat, bid in bids.items()]
    return "skullking", setup, events, [f'"bid": {bid}' for bid in bids.values()]


def _fourth(rng):
    game = game_of("secretnumber")
    players = list(range(rng.randint(2, 8)))
    setup = game.rules.start(players, {"top": 9}, rng=rng)
    events = [{"type": "point", "data": {"seat": rng.choice(players)}, "seat": None}
              for _ in range(rng.randint(0, 5))]
    return "secretnumber", setup, events, ['"secrets"']


PLAYS = {"kraken": _kraken, "crazytime": _crazytime, "skullking": _skullking,
         "secretnumber": _fourth}


def test_every_registered_game_has_a_random_play_here():
    assert set(PLAYS) == {game.kind for game in all_games()}


@pytest.mark.parametrize("kind", PLAYS)
@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_the_export_of_a_running_game_carries_none_of_its_secrets(app4, kind, seed):
    kind, setup, events, secrets = PLAYS[kind](random.Random(seed))
    logged = [{**e, "seq": i + 1, "created": "2026-11-30T20:00:00Z"}
              for i, e in enumerate(events)]
    known = app4.extensions[registry.APP_KEY]  # the fourth game's app, not the installed
    with app4.app_context():
        rules = known[kind].rules
        try:
            state = rules.replay(setup, logged)
        except RuleError:
            return  # a random play the rules refuse is no running game
        if state.get("finished"):
            return
        document = exchange.export_document(
            "2026-11-30T20:00:00Z", [f"P{i}" for i in range(8)],
            [{"number": 1, "kind": kind, "created": "2026-11-30T20:00:00Z",
              "setup": setup, "events": logged, "state": state}], known=known)
    text = exchange.dumps(document).decode()
    assert document["games"][0]["secrets_removed"] is True
    for secret in secrets:
        assert secret not in text


# --- the fourth game through every page -------------------------------------------------

def test_a_fourth_game_needs_no_line_in_the_core():
    """Nothing in companion/ names the fourth game; only the registry lists the three."""
    for path in (ROOT / "companion").rglob("*.py"):
        assert "secretnumber" not in path.read_text()
    for path in (ROOT / "templates").rglob("*.html"):
        text = path.read_text()
        if path.parent.name not in ("kraken", "skullking", "crazytime"):
            assert not re.search(r"kraken|skullking|crazytime", text), path


#: The class prefix of each installed game's templates and stylesheet.
GAME_CLASS_PREFIXES = {"skullking": "sk-", "kraken": "kraken-", "crazytime": "ct-"}


def test_the_stylesheets_every_page_loads_name_no_game():
    """A game's look is in its own stylesheet (its ``assets``, loaded by the pages that can
    show it); the stylesheets base.html gives every page style what the games share, and
    name none of a game's classes (by its prefix or its kind)."""
    base = (ROOT / "templates" / "base.html").read_text()
    shared = re.findall(r"filename='([\w-]+\.css)'", base)
    assert "app.css" in shared and "players.css" in shared
    installed = registry.load(registry.INSTALLED)
    assert set(GAME_CLASS_PREFIXES) == set(installed)
    for kind, prefix in GAME_CLASS_PREFIXES.items():
        own = "".join((ROOT / "static" / name).read_text()
                      for name in installed[kind].assets if name.endswith(".css"))
        assert f".{prefix}" in own, kind  # the prefix is the game's own
    for name in shared:
        rules = re.sub(r"/\*.*?\*/", "", (ROOT / "static" / name).read_text(), flags=re.S)
        classes = set(re.findall(r"\.(-?[_a-zA-Z][-\w]*)", rules))
        assert sorted(c for c in classes for kind, prefix in GAME_CLASS_PREFIXES.items()
                      if c.startswith(prefix) or kind in c) == [], name


#: static/js/core.js and the fourth game's script in node, on a stand-in page showing two
#: seats' points: the page is parsed, then a refresh shows a third point.
FOURTH_SCRIPT = """
const listeners = {};
const target = { addEventListener(type, fn) { listeners[type] = fn; } };
const shown = [{ textContent: "2" }, { textContent: "3" }], out = { textContent: "" };
global.window = Object.assign(target, { setTimeout: fn => fn() });
global.document = Object.assign({
  readyState: "loading",
  querySelector: s => (s === "[data-sn-total]" ? out : null),
  querySelectorAll: s => (s === "[data-points]" ? shown : []),
}, target);
require(process.argv[1]);
require(process.argv[2]);
listeners["DOMContentLoaded"]({});
const parsed = out.textContent;
shown.push({ textContent: "4" });
listeners["htmx:afterSwap"]({ detail: {} });
console.log(JSON.stringify({ parsed, swapped: out.textContent }));
"""


def test_a_fourth_game_s_script_steps_in_the_game_slot_with_no_line_in_the_core():
    """A game's front end is its own script too: the fourth game's registers its steps
    ("game.secretnumber.total") in the game slot of static/js/core.js, which names no
    game, and they run on the page's events."""
    core = ROOT / "static" / "js" / "core.js"
    assert "secretnumber" not in core.read_text(encoding="utf-8")
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed (Debian: apt-get install npm)")
    done = subprocess.run(
        [node, "-e", FOURTH_SCRIPT, str(core),
         str(ROOT / "tests" / "fourthgame" / "static" / "secretnumber.js")],
        capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout) == {"parsed": "5", "swapped": "9"}


def pos(client, url):
    return int(re.search(r'name="pos" value="(\d+)"', client.get(url).data.decode()).group(1))


def test_the_fourth_game_counts_its_reveal_with_one_field(tmp_path):
    """Its ``GameDef.reveal`` is all it declares: recording its event stamps the laptop's
    time and lead, and every screen counts to one moment in the game's own words."""
    app = create_app({
        "TESTING": True, "DATABASE": str(tmp_path / "four.sqlite"), "SECRET_KEY": "test",
        "WTF_CSRF_ENABLED": False, "LANGUAGE": "en", "GAMES": list(ALL),
        "LIVE_PUSH": True,  # as `companion serve` runs it: the count needs live push
    })
    night = make_night(app, names=["Ann", "Bo", "Cy"])
    phones = [night.phone(p) for p in range(3)]
    game_url = night.start("secretnumber", seat0="on", seat1="on", seat2="on", top="9")
    hx = {"HX-Request": "true"}
    assert "data-reveal-at" not in night.host.get(f"{game_url}/live", headers=hx).data.decode()
    sent = time.time() * 1000
    assert night.host.post(f"{game_url}/secretnumber/show",
                           data={"pos": pos(night.host, game_url)}).status_code == 303
    with app.test_request_context():
        from companion import store

        event = store.game(store.night_by_key(night.key)["id"], 1).events[-1]
    assert event["type"] == "show" and set(event["data"]) == {"at_ms"}
    assert sent - 1000 <= event["data"]["at_ms"] <= time.time() * 1000 + 1000
    moment = str(event["data"]["at_ms"] + app.config["REVEAL_LEAD_MS"])
    pages = [night.host.get(f"{game_url}/live", headers=hx).data.decode(),
             *(phone.get("/me/live", headers=hx).data.decode() for phone in phones)]
    counts = {re.search(r'data-reveal-at="(\d+)" data-reveal-words="([^"]*)"', page).groups()
              for page in pages}
    assert counts == {(moment, "Ready|set|show!")}
    assert all("data-reveal-hold" in page for page in pages)


def test_the_fourth_game_plays_tallies_and_travels(app4, tmp_path):
    night = make_night(app4, names=["Ann", "Bo", "Cy"])
    phones = [night.phone(p) for p in range(3)]
    start = night.host.get(f"{night.url}/new/secretnumber")
    assert start.status_code == 200 and "Secret Number" in start.data.decode()
    game_url = night.start("secretnumber", seat0="on", seat1="on", seat2="on", top="9")
    with app4.test_request_context():
        from companion import store

        game = store.game(store.night_by_key(night.key)["id"], 1)
        secrets = {int(s): n for s, n in game.setup["secrets"].items()}

    # Each phone sees its own number; the host's page does not carry any.
    for seat, phone in enumerate(phones):
        html = phone.get("/me").data.decode()
        assert f"<strong data-secret>{secrets[seat]}</strong>" in html
    assert "data-secret" not in night.host.get(game_url).data.decode()

    # The one pipeline: a host action, a stale one, a phone's move.
    point = f"{game_url}/secretnumber/point"
    assert night.host.post(point, data={"seat": 1, "pos": pos(night.host, game_url)}
                           ).status_code == 303
    assert night.host.post(point, data={"seat": 1, "pos": 0}).status_code == 409
    assert night.host.post(point, data={"seat": 7, "pos": pos(night.host, game_url)}
                           ).status_code == 422
    assert phones[0].post("/me/secretnumber/ready").status_code == 200
    assert phones[0].post(point, data={"seat": 0, "pos": 2}).status_code == 404

    # While it runs, its export carries no secret.
    running = night.host.get(f"{night.url}/export.json")
    document = json.loads(running.data)
    assert document["games"][0]["secrets_removed"] is True
    assert "secrets" not in document["games"][0]["setup"]

    night.host.post(f"{game_url}/secretnumber/finish", data={"pos": pos(night.host, game_url)})
    for url in (game_url, f"{night.url}", f"{night.url}/tally", f"{night.url}/tally/live",
                "/history", "/stats", f"{night.url}/export.csv", "/rules/secretnumber"):
        response = night.host.get(url)
        assert response.status_code == 200, url
    tally = night.host.get(f"{night.url}/tally").data.decode()
    assert "Secret Number" in tally and "won by" in tally
    assert phones[2].get("/me/tally").status_code == 200
    csv_rows = night.host.get(f"{night.url}/export.csv").data.decode("utf-8-sig").splitlines()
    assert csv_rows[1:] == ["1,Secret Number,{},Ann,lost,0,2".format(csv_rows[1].split(",")[2]),
                            "1,Secret Number,{},Bo,won,1,1".format(csv_rows[1].split(",")[2]),
                            "1,Secret Number,{},Cy,lost,0,2".format(csv_rows[1].split(",")[2])]

    # Finished, it travels whole: export → import on another machine → export is the same
    # file (on this machine the night is already here: the host is asked first).
    exported = night.host.get(f"{night.url}/export.json").data
    other = create_app({**app4.config, "DATABASE": str(tmp_path / "other.sqlite")})
    host = other.test_client()
    imported = host.post("/import", data={"file": (__import__("io").BytesIO(exported),
                                                    "night.json")})
    assert imported.status_code == 303
    key = imported.headers["Location"].split("/")[2]
    assert host.get(f"/n/{key}/export.json").data == exported
