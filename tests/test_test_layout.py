"""The tests read as a map: a test module holds tests, and what several of them share
lives in a helper module named for what it holds (tests/kraken_host.py,
tests/over_http.py, ...), or in bench/ where a bench shares it (bench/builders.py,
bench/browsing.py); conftest.py holds fixtures and nothing a test imports. The bench
stands on its own: tests may import it, it never imports tests. Checked on the source,
so a test module used as a library fails here."""

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = sorted((ROOT / "tests").rglob("*.py"))
BENCH = sorted((ROOT / "bench").rglob("*.py"))


def is_test_module(name):
    """``tests.test_x`` (or ``.test_x``, ``test_x`` from inside tests/): a module pytest
    collects tests from."""
    return name.rpartition(".")[2].startswith("test_")


@functools.cache
def tree(path):
    """``path``'s syntax tree, parsed once for the checks below (the tests/ tree is some
    30,000 lines, and two checks read it)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def imported_modules(path):
    """(line, module) of every import in ``path``, inside a function too: ``from a import
    b`` gives ``a.b`` as well as ``a`` (``b`` may be a module), a relative import its dots."""
    found = []
    for node in ast.walk(tree(path)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            found += [(node.lineno, module)]
            found += [(node.lineno, f"{module}.{a.name}".replace("..", ".")) for a in node.names]
    return found


def imports_of_the_tests(path):
    """(line, module) of every import of ``tests`` or a module in it, in ``path``."""
    return sorted({(line, module) for line, module in imported_modules(path)
                   if module == "tests" or module.startswith("tests.")})


def imports_of_test_modules(path):
    """(line, module) of every import of a test module in ``path``."""
    found = []
    for node in ast.walk(tree(path)):
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
    found = {str(path.relative_to(ROOT)): imports_of_test_modules(path) for path in TESTS}
    found = {path: lines for path, lines in found.items() if lines}
    assert not found, ("a test module is imported (move what is shared to a helper module "
                       f"or conftest.py): {found}")


def test_no_bench_module_imports_the_tests():
    found = {str(path.relative_to(ROOT)): imports_of_the_tests(path) for path in BENCH}
    found = {path: lines for path, lines in found.items() if lines}
    assert not found, ("a bench module imports tests/ (move what both need to a bench "
                       f"module, which the tests then import): {found}")


def test_no_test_imports_conftest():
    found = {str(path.relative_to(ROOT)): [(line, module) for line, module
                                           in imported_modules(path)
                                           if module.rpartition(".")[2] == "conftest"]
             for path in TESTS}
    found = {path: lines for path, lines in found.items() if lines}
    assert not found, f"conftest.py is imported (move what is shared to a helper module): {found}"


@pytest.mark.parametrize("line", [
    "from tests.conftest import make_night",
    "from tests import pins",
    "import tests.over_http",
    "import tests",
    "def f():\n    from tests.over_http import Device",
])
def test_the_bench_check_sees_every_way_of_importing_the_tests(tmp_path, line):
    path = tmp_path / "example.py"
    path.write_text(line + "\n", encoding="utf-8")
    assert imports_of_the_tests(path)


@pytest.mark.parametrize("line", [
    "from bench.builders import ev",
    "import bench.devices",
    "from companion import tests_of_a_kind",
    "import testsuite",
])
def test_the_bench_check_lets_other_imports_be(tmp_path, line):
    path = tmp_path / "example.py"
    path.write_text(line + "\n", encoding="utf-8")
    assert imports_of_the_tests(path) == []


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
    "from bench.builders import ev",
    "from tests import conftest",
    "import tests.fourthgame.game",
    "from tests.refusing import refuses",
])
def test_a_helper_module_may_be_imported(tmp_path, line):
    path = tmp_path / "example.py"
    path.write_text(line + "\n", encoding="utf-8")
    assert imports_of_test_modules(path) == []
