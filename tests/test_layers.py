"""The layers of docs/architecture.md hold: checked on the source, so a shortcut fails here."""

import ast
import functools
import re
import subprocess
import sys
from pathlib import Path

import pytest
from mypy.config_parser import parse_config_file
from mypy.options import Options

COMPANION = Path(__file__).resolve().parent.parent / "companion"
MODULES = {".".join(p.relative_to(COMPANION.parent).with_suffix("").parts)
           .removesuffix(".__init__"): p for p in COMPANION.rglob("*.py")}
#: Each folder of companion/ is one layer (docs/architecture.md); a layer imports only
#: its own and the ones before it. A game's package spans the layers by module name.
LAYERS = ("pure", "laptop", "storage", "web", "app", "serving")
FOLDERS = {"core": "pure", "laptop": "laptop", "store": "storage", "web": "web",
           "live": "web", "play": "web", "pictures": "web", "table": "web", "tally": "web",
           "screen": "web", "serving": "serving"}
#: The areas of the web layer, bottom to top: an area imports only its own and the ones
#: before it. ``games`` stands for every game's web modules (its views, forms, game), on
#: the one pipeline (``play``); the room's screen is a page built from all the others.
WEB_AREAS = ("web", "live", "play", "games", "pictures", "table", "tally", "screen")
#: A game's pure modules; its ``game`` (the declaration) and ``views``/``forms`` are web.
GAME_PURE = ("rules", "setup", "round_checks", "results", "recap", "scoring", "score_table",
             "seen")
#: The pure modules must also load no such library at import (checked in a fresh
#: interpreter, since an import line can hide behind a package's ``__init__``).
NOT_IN_PURE = ("flask", "flask_babel", "werkzeug", "jinja2", "gevent", "sqlite_utils",
               "sqlite3", "PIL")


def layer(name):
    """The layer of a module, from the folder it is in."""
    parts = name.split(".")
    if len(parts) == 1 or parts[1] == "__main__":
        return "serving"  # the package's own first line (gevent's, companion/__init__.py),
        # the entry point
    if parts[1] == "app":
        return "app"  # the app factory: above every area it registers, below the servers
    if parts[1] in FOLDERS:
        return FOLDERS[parts[1]]
    return "pure" if len(parts) == 2 or parts[2] in GAME_PURE else "web"


def area(name):
    """The area of a web-layer module: its folder, or ``games`` for a game's."""
    folder = name.split(".")[1]
    return folder if folder in FOLDERS else "games"


PURE = sorted(name for name in MODULES if layer(name) == "pure")
WEB = sorted(name for name in MODULES if layer(name) == "web")
STORE = sorted(name for name in MODULES if layer(name) == "storage")
STORAGE = STORE


@functools.cache  # several tests ask about every module; each parse is a whole walk
def imports(name):
    """The companion modules ``name`` imports, and the line of any import in a function."""
    found, nested = set(), []
    tree = ast.parse(MODULES[name].read_text())
    in_functions = {id(inner) for node in ast.walk(tree)
                    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                    for inner in ast.walk(node)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                found.add(full if full in MODULES else node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        # (A module's own ``if sys.platform …: import`` is no import in a function.)
        if isinstance(node, ast.Import | ast.ImportFrom) and id(node) in in_functions:
            nested.append(node.lineno)
    return {m for m in found if m in MODULES and m != name}, nested


def test_no_module_imports_inside_a_function():
    assert {name: imports(name)[1] for name in MODULES if imports(name)[1]} == {}


def test_no_import_cycle():
    graph = {name: imports(name)[0] for name in MODULES}
    done, cycles = set(), []

    def visit(name, path):
        for other in graph[name]:
            if other in path:
                cycles.append(path[path.index(other):] + [other])
            elif other not in done:
                visit(other, [*path, other])
        done.add(name)

    for name in graph:
        visit(name, [name])
    assert cycles == []


def test_every_module_has_a_layer_and_every_folder_is_known():
    folders = {p.name for p in COMPANION.iterdir() if (p / "__init__.py").exists()}
    games = {p.name for p in COMPANION.iterdir() if (p / "game.py").exists()}
    assert folders == set(FOLDERS) | games, "a new folder needs its layer in FOLDERS"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_nothing_imports_upwards(name):
    """A module imports only its own layer and the ones before it."""
    mine = LAYERS.index(layer(name))
    assert {other: layer(other) for other in imports(name)[0]
            if LAYERS.index(layer(other)) > mine} == {}


@pytest.mark.parametrize("name", WEB)
def test_no_web_area_imports_one_above_it(name):
    """Within the web layer, a module imports only its own area and the ones before it
    (WEB_AREAS): the room's screen may use the table's helpers (``note_arrival``,
    ``public_url``), the table may not reach the screen."""
    mine = WEB_AREAS.index(area(name))
    assert {other: area(other) for other in imports(name)[0] if layer(other) == "web"
            and WEB_AREAS.index(area(other)) > mine} == {}


def test_every_web_folder_has_its_area():
    assert {folder for folder, layer_ in FOLDERS.items() if layer_ == "web"} \
        == set(WEB_AREAS) - {"games"}


def test_each_blueprint_is_named_for_where_its_views_live():
    """An endpoint (``streams.host_stream``) says where its view is: a blueprint is named
    for its module, or for its folder when it is the folder's ``views`` or ``__init__``."""
    named = {name: node.args[0].value for name in MODULES
             for node in ast.walk(ast.parse(MODULES[name].read_text()))
             if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Blueprint"}
    assert len(named) > 10
    assert {name: blueprint for name, blueprint in named.items() if blueprint != (
        name.split(".")[-2] if name.endswith(".views") else name.split(".")[-1])} == {}


def private_uses(name):
    """The private names (``_name``) of other companion modules that ``name`` uses: by
    ``from module import _name``, or as ``module._name`` on a module it imported."""
    tree = ast.parse(MODULES[name].read_text())
    used, aliases = set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in MODULES:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if full in MODULES:
                    aliases[alias.asname or alias.name] = full
                elif alias.name.startswith("_") and alias.name != "_":  # (gettext)
                    used.add(full)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES and alias.asname:
                    aliases[alias.asname] = alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in aliases and node.attr.startswith("_") \
                and not node.attr.startswith("__"):
            used.add(f"{aliases[node.value.id]}.{node.attr}")
    return used


def shares_privates(name, other):
    """The store's modules share their helpers under private names: the package is
    sealed (:func:`test_the_store_is_a_package_of_modules_named_for_what_they_hold`), and
    its ``__init__`` re-exports every public name and no private one."""
    return layer(name) == layer(other) == "storage"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_uses_another_module_s_private_name(name):
    """A ``_name`` belongs to its module: what another module needs is public where it
    lives (or moves to where both use it)."""
    assert sorted(used for used in private_uses(name)
                  if not shares_privates(name, used.rsplit(".", 1)[0])) == []


@pytest.mark.parametrize("name", PURE)
def test_rules_and_results_are_pure(name):
    """No Flask, no database, no pictures, no gevent in a pure module's source."""
    source = MODULES[name].read_text()
    assert not re.search(r"^(from|import) (flask|sqlite|werkzeug|PIL|gevent)", source, re.M)


def test_pure_modules_load_no_flask_gevent_database_or_pillow():
    """Imported in a fresh interpreter, the pure modules together load none of these, so
    none does alone (a game's ``__init__`` that imported its views, or a package's
    ``__init__`` that made the app, would load Flask with the rules)."""
    code = (f"import importlib, sys\nfor name in {PURE!r}: importlib.import_module(name)\n"
            f"print(sorted(m for m in {NOT_IN_PURE!r} if m in sys.modules))")
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, cwd=COMPANION.parent)
    assert found.stdout.strip() == "[]"
    assert len(PURE) > 20  # the core, and each game's rules, results and recap


def test_every_pure_module_is_checked_by_strict_mypy():
    """pyproject.toml's strict override names the pure modules by pattern: a pure module
    its patterns miss (a game's new pure module, a new name in GAME_PURE) fails here.
    Asked of mypy's own reading of the file, so the patterns mean what mypy makes of them.
    A game's package ``__init__`` holds only its docstring: nothing to check, unless it
    grows code."""
    options = Options()
    parse_config_file(options, lambda: None, str(COMPANION.parent / "pyproject.toml"))
    strict = ("disallow_any_generics", "disallow_untyped_calls", "warn_return_any",
              "disallow_subclassing_any", "strict_equality", "extra_checks")
    assert not any(getattr(options, flag) for flag in strict)  # strict by module, not all
    holding_code = [name for name in PURE if any(
        not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
        for node in ast.parse(MODULES[name].read_text()).body)]
    assert [name for name in holding_code if not all(
        getattr(options.clone_for_module(name), flag) for flag in strict)] == []
    assert len(holding_code) > 20


@pytest.mark.parametrize("name", sorted(set(MODULES) - set(STORAGE)))
def test_sql_lives_in_the_store(name):
    source = MODULES[name].read_text()
    assert not re.search(r"\.(query|execute)\(|\]\.insert\(|\bselect .* from\b", source), name


@pytest.mark.parametrize("name", STORE)
def test_the_store_never_answers_http(name):
    names, _ = imports(name)
    source = MODULES[name].read_text()
    assert "companion.web" not in names
    assert not re.search(r"^from flask import .*\b(abort|request)\b", source, re.M)


def test_the_store_is_a_package_of_modules_named_for_what_they_hold():
    """Each module of the store says what it holds, and nothing outside the storage
    layer reaches past the package into one of them."""
    assert len(STORE) > 1
    for name in STORE:
        assert ast.get_docstring(ast.parse(MODULES[name].read_text())), name
    for name in set(MODULES) - set(STORAGE):
        assert not {m for m in imports(name)[0] if m.startswith("companion.store.")}, name
