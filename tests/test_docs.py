"""The docs checked against the code; each of these fails here:

- a `GameDef` field or a game's template missing from docs/adding-a-game.md.
"""

import dataclasses
import re
from pathlib import Path

from companion import registry
from companion.places import asset_folder

ROOT = Path(__file__).resolve().parent.parent
ADDING_A_GAME = ROOT / "docs" / "adding-a-game.md"


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
