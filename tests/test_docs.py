"""The docs checked against the code; each of these fails here:

- a `GameDef` field or a game's template missing from docs/adding-a-game.md;
- a setting the code reads missing from docs/settings.md (or one it names that
  nothing reads, or a default that is not the code's);
- a command or option of `companion` missing from docs/guide.md's table;
- a millisecond figure in the README or docs/guide.md (those live in
  docs/performance.md and docs/measurements/, beside the report they come from);
- a picture the README or docs/guide.md shows that is not there;
- a module its folder's row of docs/architecture.md's layers table does not name.
"""

import argparse
import ast
import dataclasses
import functools
import importlib
import os
import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask_babel import Babel
from flask_wtf.csrf import CSRFProtect

from companion.app import create_app
from companion.core import registry
from companion.laptop.paths import asset_folder
from companion.serving import connections
from companion.serving.cli import build_parser
from companion.store import quotas

ROOT = Path(__file__).resolve().parent.parent
ADDING_A_GAME = ROOT / "docs" / "adding-a-game.md"
SETTINGS = ROOT / "docs" / "settings.md"
README = ROOT / "README.md"
GUIDE = ROOT / "docs" / "guide.md"


def section(path: Path, heading: str) -> str:
    """The text under ``heading`` (a whole Markdown heading line), up to the next heading."""
    text = path.read_text(encoding="utf-8")
    start = text.index(f"\n{heading}\n") + len(heading) + 2
    following = re.search(r"^#", text[start:], re.MULTILINE)
    return text[start:start + following.start()] if following else text[start:]


def rows(text: str) -> dict[str, list[str]]:
    """Each table row whose first cell is one code span: {its code: the other cells}
    (``\\|`` is a pipe inside a cell)."""
    found = {}
    for line in text.splitlines():
        row = re.fullmatch(r"\|\s*`([^`]+)`\s*\|(.*)\|\s*", line)
        if row:
            found[row[1]] = [cell.strip() for cell in re.split(r"(?<!\\)\|", row[2])]
    return found


# --- GameDef and a game's templates: docs/adding-a-game.md -----------------------------

def required(field: dataclasses.Field) -> bool:
    return (field.default is dataclasses.MISSING
            and field.default_factory is dataclasses.MISSING)


def test_every_gamedef_field_is_in_the_table_and_says_whether_it_is_required():
    table = rows(section(ADDING_A_GAME, "### Every field of `GameDef`"))
    fields = {field.name: field for field in dataclasses.fields(registry.GameDef)}
    assert sorted(set(fields) - set(table)) == [], "GameDef fields not in the table"
    assert sorted(set(table) - set(fields)) == [], "the table names no such field"
    said = {name: cells[1].startswith("required") for name, cells in table.items()}
    assert said == {name: required(field) for name, field in fields.items()}


def game_templates() -> set[str]:
    """The templates every installed game has (its folder under templates/), and those
    the core includes by a game's kind (``kind ~ "/_x.html"``, ``f"{kind}/x.html"``)."""
    folders = [asset_folder("templates") / module.rsplit(".", 1)[1]
               for module in registry.INSTALLED]
    everyone = set.intersection(*({p.name for p in folder.glob("*.html")} for folder in folders))
    named = re.compile(r"""kind\s*~\s*["']/([\w.]+\.html)|\{kind\}/([\w.]+\.html)""")
    sources = [*asset_folder("templates").rglob("*.html"), *(ROOT / "companion").rglob("*.py")]
    included = {next(filter(None, found.groups()))
                for path in sources for found in named.finditer(path.read_text("utf-8"))}
    return everyone | included


def test_the_templates_found_are_the_contract():
    """The scan finds what the core asks of a game (so the next test checks something)."""
    assert {"new.html", "_host.html", "_seat.html", "rules.html", "_screen.html",
            "_tally.html", "_tally_line.html", "_history_head.html"} <= game_templates()


def test_every_template_of_a_game_is_in_the_table():
    table = rows(section(ADDING_A_GAME, "### Every template"))
    found = game_templates()
    assert sorted(found - set(table)) == [], "templates of a game not in the table"
    assert sorted(set(table) - found) == [], "the table names a template no game needs"


# --- the app's settings: docs/settings.md -----------------------------------------------

SETTING_READ = re.compile(r"config\s*$")


@functools.cache
def read_in_source() -> dict[str, list[Any]]:
    """Each setting a module of companion/ reads (``….config.get("X", default)``,
    ``….config["X"]``, ``_setting(server, "X", default)``) or a template
    (``config.X``): {name: the defaults it is read with}. Read once a test process
    (three tests ask); a module that never names ``config`` or ``_setting`` reads none."""
    found: dict[str, list[Any]] = {}
    for path in sorted((ROOT / "companion").rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(
            ".__init__")
        source = path.read_text("utf-8")
        if "config" not in source and "_setting" not in source:
            continue
        for name, default in _reads(ast.parse(source)):
            found.setdefault(name, [])
            if default is not None:
                found[name].append(eval(ast.unparse(default),  # the repository's own source
                                        vars(importlib.import_module(module))))
    for path in asset_folder("templates").rglob("*.html"):
        for name in re.findall(r"\bconfig\.([A-Z][A-Z0-9_]+)", path.read_text("utf-8")):
            found.setdefault(name, [])
    return found


def _reads(tree: ast.AST) -> list[tuple[str, ast.expr | None]]:
    """(name, default expression or None) of each setting read in a module's tree."""
    reads = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and SETTING_READ.search(ast.unparse(node.value)):
            key = node.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                reads.append((key.value, None))
        elif isinstance(node, ast.Call):
            func, args = node.func, node.args
            if (isinstance(func, ast.Attribute) and func.attr == "get"
                    and SETTING_READ.search(ast.unparse(func.value))):
                name, default = (args[0] if args else None), (args[1:2] or [None])[0]
            elif isinstance(func, ast.Name) and func.id == "_setting" and len(args) > 1:
                name, default = args[1], (args[2:3] or [None])[0]
            else:
                continue
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                reads.append((name.value, default))
    return reads


@pytest.fixture
def app_defaults(tmp_path, monkeypatch):
    """What ``create_app`` sets beyond Flask's and its extensions' own defaults (no
    ``COMPANION_*`` in the environment, no config.py): {name: default}."""
    for name in [n for n in os.environ if n.startswith("COMPANION_")]:
        monkeypatch.delenv(name)
    app = create_app({}, data=tmp_path)
    bare = Flask("bare")
    Babel().init_app(bare)
    CSRFProtect().init_app(bare)
    return {name: value for name, value in app.config.items()
            if name not in bare.config or bare.config[name] != value}


def documented_settings() -> dict[str, list[str]]:
    return rows(section(SETTINGS, "## The table"))


def test_the_scan_finds_settings_read_outside_the_factory():
    """Read with a default where they are used, never set by ``create_app``."""
    found = read_in_source()
    assert found["NIGHTS_AN_HOUR"] == [quotas.NIGHTS_AN_HOUR]
    assert found["REQUEST_BODY_SECONDS"] == [connections.BODY_SECONDS]
    assert "POLL_SECONDS" in found  # a template's


def test_every_setting_the_code_reads_is_in_the_table_and_nothing_else(app_defaults):
    code = set(app_defaults) | set(read_in_source())
    table = set(documented_settings())
    assert sorted(code - table) == [], "settings the code reads, not in docs/settings.md"
    assert sorted(table - code) == [], "settings in docs/settings.md that nothing reads"


def test_every_default_written_as_code_is_the_codes(app_defaults):
    """A default cell that is one code span is a Python expression of the default; the
    others (a path, the key) say in words what is made at start."""
    read = read_in_source()
    checked = 0
    for name, cells in documented_settings().items():
        written = re.fullmatch(r"`([^`]+)`", cells[0])
        if not written:
            continue
        said = eval(written[1], {"__builtins__": {}})  # the repository's own doc
        code = [app_defaults[name]] if name in app_defaults else read.get(name, [])
        assert code, f"{name}: the code gives no default, the table says {cells[0]}"
        assert all(said == value for value in code), f"{name}: {cells[0]} against {code}"
        checked += 1
    assert checked >= 20


# --- the command line: docs/guide.md ---------------------------------------------------

def commands() -> dict[str, list[str]]:
    """Each subcommand of ``companion``: its option strings, and its positionals'
    metavars (``FILE``); ``--help`` aside."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found = {}
    for name, command in sub.choices.items():
        words = []
        for action in command._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            words += action.option_strings or [action.metavar or action.dest.upper()]
        found[name] = words
    return found


def test_every_command_and_each_of_its_options_is_in_the_guides_table():
    text = section(GUIDE, "## Every command and option")
    lines = {row[1]: row[0] for row in re.finditer(r"^\| `companion ([\w-]+)`.*$", text,
                                                   re.MULTILINE)}
    found = commands()
    assert set(found) <= set(lines), "commands not in docs/guide.md's table"
    for name, words in found.items():
        missing = [w for w in words if not re.search(rf"`{re.escape(w)}\b", lines[name])]
        assert missing == [], f"companion {name}: options not in its row of the table"


def test_the_parsers_own_options_are_in_the_guide():
    options = [option for action in build_parser()._actions for option in action.option_strings
               if not isinstance(action, argparse._HelpAction)]
    assert options, "the scan finds --version"
    text = section(GUIDE, "## Every command and option")
    assert [o for o in options if f"| `companion {o}" not in text] == [], "not in the table"


# --- figures: README.md and docs/guide.md ---------------------------------------------

@pytest.mark.parametrize("doc", [README, GUIDE], ids=["README", "guide"])
def test_the_readme_and_the_guide_repeat_no_measured_milliseconds(doc):
    """Timings live in docs/performance.md and docs/measurements/ beside their report and
    the machine's speed; the README and the guide point there instead of copying a figure
    that the next run changes."""
    assert re.findall(r"\d[\d.,]*\s?ms\b", doc.read_text("utf-8")) == []


# --- pictures: README.md and docs/guide.md ----------------------------------------------

def shown(doc: Path) -> list[str]:
    """The pictures a Markdown file shows, as paths from the repository's root."""
    found = re.findall(r"!\[[^\]]+\]\(([^)]+\.png)\)", doc.read_text("utf-8"))
    return [str((doc.parent / path).resolve().relative_to(ROOT)) for path in found]


def test_every_picture_the_readme_and_the_guide_show_is_in_the_repository():
    """bench/screenshots.py renames pictures now and then: those the docs show must
    exist. The README shows one at most (it is one screen); the guide shows a night in
    three."""
    assert len(shown(README)) <= 1 and len(shown(GUIDE)) == 3
    assert [path for path in shown(README) + shown(GUIDE) if not (ROOT / path).is_file()] == []


#: Where a path into the repository may be named: its code, comments, templates, styles,
#: scripts, docs and packaging (the vendored files and the translations aside).
NAMING = [*ROOT.glob("companion/**/*.py"), *ROOT.glob("templates/**/*.html"),
          *ROOT.glob("static/*.css"), *ROOT.glob("static/js/*.js"), *ROOT.glob("static/*.js"),
          *ROOT.glob("tests/*.py"), *ROOT.glob("bench/*.py"), *ROOT.glob("docs/**/*.md"),
          ROOT / "README.md", ROOT / "pyproject.toml", ROOT / ".ci" / "run"]
#: A path as it is named: from one of the repository's folders, not part of a longer
#: path or a URL (``/static/…`` is an address, not a file).
NAMED_PATH = re.compile(r"(?<![\w./-])((?:companion|static|templates|tests|docs|bench)/"
                        r"[\w./-]*\w)")
#: Named without being there, on purpose: adding-a-game.md's example game, a test's
#: made-up script.
EXAMPLES = re.compile(r"mygame|/mistake\.js$")


def dated_table_row(file: Path, line: str) -> bool:
    """A row of a table of dated measurements: docs/performance.md, docs/scaling.md and
    each day's write-up beside its reports (docs/measurements/<date>/README.md) keep what
    was measured then, with the paths of then. Any other doc's table (the places a new
    game touches, the layers) names what is there now."""
    dated = file.name in ("performance.md", "scaling.md") or (
        file.name == "README.md" and file.parent.parent.name == "measurements")
    return dated and line.startswith("|")


def test_every_path_named_in_the_repository_exists():
    missing = []
    for file in NAMING:
        for number, line in enumerate(file.read_text("utf-8").splitlines(), 1):
            if dated_table_row(file, line):
                continue
            for found in NAMED_PATH.finditer(line):
                path = found.group(1).rstrip(".")
                if any(c in path for c in "*<{") or EXAMPLES.search(path):
                    continue
                if not (ROOT / path).exists():
                    missing.append(f"{file.relative_to(ROOT)}:{number}: {path}")
    assert not missing, "\n".join(missing)


# --- the layers' table: docs/architecture.md ----------------------------------------------

def test_every_module_is_named_in_its_folder_s_row_of_the_layers_table():
    """Each folder's row of docs/architecture.md's "Layers, as folders" names each of its
    modules (the store's row says "one module per thing kept": its list is the section
    after), so a new module cannot go unsaid."""
    table = rows(section(ROOT / "docs" / "architecture.md", "## Layers, as folders"))
    folders = {folder: cells[1] for folder, cells in table.items() if folder != "store/"
               and folder.endswith("/") and (ROOT / "companion" / folder).is_dir()}
    unnamed = {folder: sorted(p.stem for p in (ROOT / "companion" / folder).glob("*.py")
                              if p.stem != "__init__" and f"`{p.stem}`" not in holds)
               for folder, holds in folders.items()}
    assert len(unnamed) > 8 and not any(unnamed.values()), unnamed
