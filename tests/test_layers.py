"""The layers of docs/architecture.md hold: checked on the source, so a shortcut fails here."""

import ast
import re
from pathlib import Path

import pytest

COMPANION = Path(__file__).resolve().parent.parent / "companion"
MODULES = {".".join(p.relative_to(COMPANION.parent).with_suffix("").parts)
           .removesuffix(".__init__"): p for p in COMPANION.rglob("*.py")}
#: The storage layer: the store package (every module of it), the schema, the log.
STORE = sorted(name for name in MODULES
               if name == "companion.store" or name.startswith("companion.store."))
STORAGE = (*STORE, "companion.db", "companion.log")
#: A game's rules, results and recap are pure (the store's ``results`` holds the kept
#: results: storage).
PURE = [name for name in MODULES
        if name.endswith((".rules", ".results", ".recap")) and name not in STORE
        or name in ("companion.stats", "companion.exchange", "companion.charts",
                    "companion.errors", "companion.forms", "companion.ranking",
                    "companion.bgstats", "companion.figures", "companion.drawing",
                    "companion.wifi")]


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


@pytest.mark.parametrize("name", sorted(PURE))
def test_rules_and_results_are_pure(name):
    """No Flask, no database, no web module in a pure module."""
    source = MODULES[name].read_text()
    assert not re.search(r"^(from|import) (flask|sqlite|werkzeug)", source, re.M)
    assert not imports(name)[0] & {"companion.store", "companion.db", "companion.web",
                                   "companion.games"}


@pytest.mark.parametrize("name", sorted(set(MODULES) - set(STORAGE)))
def test_sql_lives_in_the_store(name):
    source = MODULES[name].read_text()
    assert not re.search(r"\.(query|execute)\(|\]\.insert\(|\bselect .* from\b", source), name


@pytest.mark.parametrize("name", STORE)
def test_the_store_never_answers_http(name):
    names, _ = imports(name)
    source = MODULES[name].read_text()
    assert "companion.web" not in names
    assert not re.search(r"^from flask import .*\b(abort|request|g)\b", source, re.M)


def test_the_store_is_a_package_of_modules_named_for_what_they_hold():
    """Each module of the store says what it holds, and nothing outside the storage
    layer reaches past the package into one of them."""
    assert len(STORE) > 1
    for name in STORE:
        assert ast.get_docstring(ast.parse(MODULES[name].read_text())), name
    for name in set(MODULES) - set(STORAGE):
        assert not {m for m in imports(name)[0] if m.startswith("companion.store.")}, name
