"""The tests read as a map: a test module holds tests, and what several of them share
lives in a helper module named for what it holds (tests/builders.py, tests/kraken_host.py,
tests/over_http.py, ...) or in conftest.py. Checked on the source, so a test module used
as a library fails here."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Where a test module could be imported from: the tests themselves and the benches,
#: which reuse the tests' helpers.
SOURCES = sorted([*(ROOT / "tests").rglob("*.py"), *(ROOT / "bench").rglob("*.py")])


def is_test_module(name):
    """``tests.test_x`` (or ``.test_x``, ``test_x`` from inside tests/): a module pytest
    collects tests from."""
    return name.rpartition(".")[2].startswith("test_")


def imports_of_test_modules(path):
    """(line, module) of every import of a test module in ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if is_test_module(a.name)]
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            if node.module and is_test_module(node.module):
                found.append((node.lineno, module))
            elif node.module in (None, "tests"):
                found += [(node.lineno, f"{module}.{a.name}".lstrip("."))
                          for a in node.names if is_test_module(a.name)]
    return found


def test_no_module_imports_a_test_module():
    found = {str(path.relative_to(ROOT)): imports_of_test_modules(path) for path in SOURCES}
    found = {path: lines for path, lines in found.items() if lines}
    assert not found, ("a test module is imported (move what is shared to a helper module "
                       f"or conftest.py): {found}")


@pytest.mark.parametrize("line", [
    "from tests.test_stats import ev",
    "from .test_stats import ev",
    "import tests.test_stats",
    "from tests import test_stats",
    "def f():\n    from tests.test_drills import Device",
])
def test_the_check_sees_every_way_of_importing_a_test_module(tmp_path, line):
    path = tmp_path / "example.py"
    path.write_text(line + "\n", encoding="utf-8")
    assert imports_of_test_modules(path)


@pytest.mark.parametrize("line", [
    "from tests.builders import ev",
    "from tests import conftest",
    "import tests.fourthgame.game",
    "from tests.refusing import refuses",
])
def test_a_helper_module_may_be_imported(tmp_path, line):
    path = tmp_path / "example.py"
    path.write_text(line + "\n", encoding="utf-8")
    assert imports_of_test_modules(path) == []
