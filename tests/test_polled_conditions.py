"""Every condition a browser waits for is written as a function, never a bare expression.

Playwright's ``wait_for_function`` runs its condition once through DevTools, then on every
poll inside the page with ``eval``. A function is evaluated once and kept; a bare
expression is evaluated again at each poll, and the app's Content-Security-Policy
(``script-src 'self'``, no ``'unsafe-eval'``) refuses that eval: such a wait passes only
when the condition already holds at the first try, so it fails on a slower box.
"""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: ``function …``, ``(a, b) => …``, ``([a, b]) => …``, ``a => …``, each maybe ``async``.
FUNCTION = re.compile(r"^\s*(async\s+)?(function\b|\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)")


def _text(node: ast.expr) -> str | None:
    """The source text of a string literal or f-string (its holes as ``x``), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "x"
                       for part in node.values)
    return None


def conditions(tree: ast.Module) -> list[tuple[int, str | None]]:
    """(line, condition text) of each ``wait_for_function`` call in ``tree``; a name is
    read through its assignment in the same file, and None means the text is unknown."""
    bound = {target.id: node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
             for target in node.targets if isinstance(target, ast.Name)}
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "wait_for_function" and node.args):
            arg = node.args[0]
            if isinstance(arg, ast.Name):
                arg = bound.get(arg.id, arg)
            found.append((node.lineno, _text(arg)))
    return found


def test_every_polled_condition_is_a_function():
    files = sorted([*ROOT.glob("tests/**/*.py"), *ROOT.glob("bench/**/*.py")])
    seen, wrong = 0, []
    for path in files:
        source = path.read_text(encoding="utf-8")
        if "wait_for_function" not in source:  # (parsing every file was most of the check)
            continue
        for line, text in conditions(ast.parse(source)):
            seen += 1
            if text is None or not FUNCTION.match(text):
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {text!r}")
    assert seen > 40  # the search still finds the waits
    assert wrong == [], "write these as a function ('() => …' or 'el => …', arg=…)"


def test_the_check_tells_a_function_from_an_expression():
    tree = ast.parse('page.wait_for_function("(img => img.complete)(document.images[0])")\n'
                     'X = "() => ready"\npage.wait_for_function(X)\n'
                     'page.wait_for_function(f"n => ({probe})() > n", arg=1)\n'
                     'page.wait_for_function(made())\n')
    assert [(text and bool(FUNCTION.match(text))) for _, text in conditions(tree)] == \
        [False, True, True, None]
