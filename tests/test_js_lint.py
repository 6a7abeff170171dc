"""The front end's JavaScript (static/js/, each game's static/*.js): ESLint's recommended
rules with the browser's globals pass (eslint.config.js), and the page's one listener per
event (static/js/core.js) runs every part's steps in the order its ORDER states, and the
games' steps in each event's game slot, which names no game.

ESLint comes from the npm registry as package.json's devDependency, pinned by
package-lock.json, installed into node_modules/ by ``npm ci``: .ci/run runs it once
before the tests, and the fixture below where it has not run (a developer's first run of
the README's command) or the lock changed since, so a clean checkout needs node and npm
only (.ci/run installs them where they are missing)."""

import fcntl
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ESLINT = ROOT / "node_modules" / "eslint" / "bin" / "eslint.js"
INSTALLED = ROOT / "node_modules" / ".package-lock.json"
LOCK = ROOT / "package-lock.json"
PARTS = sorted((ROOT / "static" / "js").glob("*.js"))
#: The games' own scripts, the fourth test game's too (tests/fourthgame). theme.js is none:
#: it runs in <head> before the page exists and before core.js (so that a chosen theme is
#: there on the first paint), and answers only its own switch.
GAMES = [*sorted(p for p in (ROOT / "static").glob("*.js") if p.name != "theme.js"),
         *sorted((ROOT / "tests" / "fourthgame" / "static").glob("*.js"))]


def stale():
    """Whether node_modules/ lacks ESLint or predates package-lock.json."""
    return not ESLINT.exists() or not INSTALLED.exists() or (
        INSTALLED.stat().st_mtime < LOCK.stat().st_mtime)


@pytest.fixture(scope="module")
def eslint():
    """The command that runs the project's ESLint, installed first if it is not: its
    script run by node itself, the same on every system (npx, which finds it, took half a
    second more of each run; and a .cmd, which Windows' npx is, needs a shell to start)."""
    if shutil.which("npm") is None:
        pytest.fail("npm is not installed: the JavaScript lint needs node and npm "
                    "(Debian: apt-get install npm)")
    if stale():
        # Test workers share node_modules/: one installs, the others wait and find it done.
        with open(ROOT / "node_modules.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if stale():
                subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=ROOT, check=True,
                               capture_output=True, timeout=600)
    return ["node", str(ESLINT)]


def lint(eslint, *args, text=None):
    return subprocess.run([*eslint, *args], cwd=ROOT, input=text, capture_output=True,
                          text=True, timeout=120)


def test_the_front_end_passes_eslint(eslint):
    done = lint(eslint, "static", "tests/fourthgame", "eslint.config.js")
    assert done.returncode == 0, done.stdout + done.stderr


def test_eslint_fails_on_a_mistake(eslint):
    """A file under static/js/ with an undefined name and an unused variable (given on
    stdin, so nothing is written there) fails the lint, naming both rules."""
    snippet = "(function () { var unused = 1; window.x = nobody; })();\n"
    done = lint(eslint, "--stdin", "--stdin-filename", "static/js/mistake.js", text=snippet)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "'nobody' is not defined" in done.stdout and "no-undef" in done.stdout
    assert "'unused' is assigned a value but never used" in done.stdout


def order():
    """static/js/core.js's ORDER: each event's steps, in the order they run."""
    core = (ROOT / "static" / "js" / "core.js").read_text(encoding="utf-8")
    return json.loads(re.search(r"var ORDER = (\{.*?\n  \});", core, re.S).group(1))


#: An event's game slot in ORDER: the games' steps run there.
SLOT = "game.*"


def registered(paths):
    """(event, step, file) for every step these scripts register."""
    return [(event, step, path.name)
            for path in paths
            for event, step in re.findall(r'C\.on\("([^"]+)", "([^"]+)"',
                                          path.read_text(encoding="utf-8"))]


def test_every_step_is_in_the_order_and_every_step_in_it_is_registered():
    steps = order()
    found = registered(PARTS)
    for event, step, name in found:
        assert step in steps.get(event, []), f"{name}: {step} on {event} is not in ORDER"
        part = step.split(".")[0]
        assert name in (f"{part}.js",), f"{name} registers {step}, a step of {part}.js"
    # the hold's ends are registered in a loop over their events
    found += [(e, "hold.end", "hold.js") for e in ("pointerup", "pointercancel", "keyup",
                                                   "focusout")]
    for event, names in steps.items():
        for step in names:
            assert step == SLOT or (event, step) in {(e, s) for e, s, _ in found}, (event, step)


def test_the_core_names_no_game_and_each_game_steps_in_its_slot():
    """ORDER names the parts under static/js/ and each event's game slot, never a game; a
    game's script registers "game.<kind>.<step>" steps only (its kind: the file's name),
    on events ORDER has."""
    steps = order()
    parts = {p.stem for p in PARTS}
    assert {s.split(".")[0] for names in steps.values() for s in names if s != SLOT} <= parts
    assert all(names.count(SLOT) <= 1 for names in steps.values())
    found = registered(GAMES)
    assert {name for _, _, name in found} == {p.name for p in GAMES}  # each game has steps
    for event, step, name in found:
        assert event in steps, f"{name}: no event {event} in ORDER"
        assert re.fullmatch(rf"game\.{re.escape(name[:-3])}\.[A-Za-z]+", step), (name, step)


def test_no_part_listens_to_the_page_on_its_own():
    """Only core.js adds listeners to the document or the window: the others are steps."""
    for path in PARTS + GAMES:
        if path.name == "core.js":
            continue
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\b(document|window)\.addEventListener", text), path.name


def test_the_page_loads_core_first_then_every_part():
    """base.html loads htmx, then core.js, then the parts every page needs; the roster's
    part only the page with a roster, the name fields' count only the pages with name
    fields (a step of a part a page does not load is skipped)."""
    base = (ROOT / "templates" / "base.html").read_text(encoding="utf-8")
    names = re.findall(r'"(\w+)"', re.search(r"for part in \(([^)]*)\)", base).group(1))
    assert names[0] == "core"
    assert base.index("htmx-") < base.index("for part in") < base.index("block assets")
    roster = (ROOT / "templates" / "table" / "index.html").read_text(encoding="utf-8")
    table = (ROOT / "templates" / "table" / "night.html").read_text(encoding="utf-8")
    assert "filename='js/roster.js'" in roster
    assert "filename='js/names.js'" in roster and "filename='js/names.js'" in table
    assert sorted(f"{n}.js" for n in [*names, "roster", "names"]) == sorted(
        p.name for p in PARTS)


DISPATCH = """
const listeners = {};
const target = { addEventListener(type, fn) { listeners[type] = fn; } };
global.window = Object.assign(target, { setTimeout: fn => fn() });
global.document = Object.assign({ readyState: "interactive" }, target);
require(process.argv[1]);
const C = window.Companion, ran = [];
const step = name => () => {
  ran.push(name);
  if (ran.length === 1) { throw new Error("a step that fails"); }
};
const steps = C.ORDER["htmx:afterSwap"];
const games = ["game.one.first", "game.two.second"];
/* the parts' steps in reverse, a game's step before them and one after */
C.on("htmx:afterSwap", games[0], step(games[0]));
steps.slice().reverse().forEach(name => {
  if (name !== "game.*") { C.on("htmx:afterSwap", name, step(name)); }
});
C.on("htmx:afterSwap", games[1], step(games[1]));
/* an event whose list does not name the slot: its game steps run after its own */
const load = C.ORDER["load"];
C.on("load", "game.one.late", () => ran.push("game.one.late"));
load.forEach(name => C.on("load", name, () => ran.push(name)));
const refused = {};
[["htmx:afterSwap", "nobody.step"], ["htmx:afterSwap", "game.*"],
 ["htmx:afterSwap", "game.nokind"], ["nosuchevent", "game.one.step"],
 ["htmx:afterSwap", "game.one.first"]].forEach(([type, name]) => {
  try { C.on(type, name, () => {}); } catch (e) { refused[type + " " + name] = e.message; }
});
let caught = null;
window.setTimeout = fn => { try { fn(); } catch (e) { caught = e.message; } };
listeners["htmx:afterSwap"]({});
const swapped = ran.splice(0);
listeners["load"]({});
console.log(JSON.stringify({ swapped, loaded: ran, steps, load, games, refused, caught }));
"""


def test_the_dispatcher_runs_the_steps_in_order_past_a_failing_one():
    """core.js in node, with a stand-in page: steps registered in reverse run in ORDER's
    order, and the games' steps at the event's game slot in the order they were
    registered (after the event's last step, where its list does not name the slot); the
    first throws, is reported, and the rest still run; an unknown step, a misnamed game
    step, a step on an event ORDER does not have, and a step twice are refused."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed (Debian: apt-get install npm)")
    done = subprocess.run([node, "-e", DISPATCH, str(ROOT / "static" / "js" / "core.js")],
                          capture_output=True, text=True, timeout=60, check=True)
    result = json.loads(done.stdout)
    steps = result["steps"]
    assert SLOT in steps and SLOT not in result["load"]
    at = steps.index(SLOT)
    assert result["swapped"] == steps[:at] + result["games"] + steps[at + 1:]
    assert result["loaded"] == [*result["load"], "game.one.late"]
    assert result["caught"] == "a step that fails"
    assert sorted(result["refused"]) == [
        "htmx:afterSwap game.*", "htmx:afterSwap game.nokind", "htmx:afterSwap game.one.first",
        "htmx:afterSwap nobody.step", "nosuchevent game.one.step"]
    assert "twice" in result["refused"]["htmx:afterSwap game.one.first"]


def documented_order():
    """The steps of each event as docs/architecture.md's "Front end" lists them."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc.split("The order of the steps that share an event:", 1)[1]
    section = re.sub(r"\([^)]*\)", "", section.split("**One refresh.**", 1)[0])
    listed = {}
    for clause in re.split(r";|\n- ", section):
        found = re.match(r"(.*`)\s*:(.*)", clause, re.S)
        if found:
            for event in re.findall(r"`([^`]+)`", found.group(1)):
                listed[event] = re.findall(r"\b[a-z]+\.(?:[a-zA-Z]+\b|\*)", found.group(2))
    return listed


def test_the_architecture_doc_lists_each_event_s_steps_in_their_order():
    """A step added, renamed, moved or gone in core.js's ORDER and not in
    docs/architecture.md fails here."""
    assert documented_order() == order()
