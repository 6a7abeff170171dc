"""The README's and the guide's Windows lines, read as Windows PowerShell 5.1 (the
terminal Windows opens by default) reads them: it refuses ``&&`` and ``||`` ("The token
'&&' is not a valid statement separator in this version"), ``<`` ("reserved for future
use") and an ``&`` that is not the call operator, before running anything. And a host
starts where "Get it" is: the program, or the two lines with uv."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
GUIDE = ROOT / "docs" / "guide.md"


def blocks(path: Path, language: str) -> list[str]:
    """The fenced code blocks of one language in a Markdown file."""
    return re.findall(rf"```{language}\n(.*?)\n```", path.read_text("utf-8"), re.S)


def unquoted(line: str) -> str:
    """The line with what is inside quotes blanked (PowerShell passes it on as text)."""
    return re.sub(r'"[^"]*"|\'[^\']*\'', lambda m: " " * len(m.group()), line)


def refused_by_powershell_5(line: str) -> str | None:
    """Why Windows PowerShell 5.1's parser refuses the line; None when it takes it."""
    bare = unquoted(line)
    if "&&" in bare or "||" in bare:
        return "&& and || are not statement separators before PowerShell 7"
    if re.search(r"(?<![0-9*])<", bare):
        return "the '<' operator is reserved for future use"
    if "&" in bare.lstrip()[1:]:
        return "an ampersand is allowed only as the call operator, first"
    return None


def test_the_parser_refuses_what_powershell_5_refuses():
    assert refused_by_powershell_5("py -m venv .venv && .venv\\Scripts\\companion serve")
    assert refused_by_powershell_5("pip install x || echo failed")
    assert refused_by_powershell_5("companion backup < x")
    assert refused_by_powershell_5('py -m venv .venv; "a && b"') is None  # && in a string
    assert refused_by_powershell_5('& ".venv\\Scripts\\companion.exe" serve') is None


@pytest.mark.parametrize("path", [README, GUIDE], ids=["README", "guide"])
def test_every_windows_line_runs_in_windows_powershell_5(path):
    lines = [line for block in blocks(path, "powershell") for line in block.splitlines()]
    assert lines, f"{path.name} has no PowerShell lines"
    refused = [(line, refused_by_powershell_5(line)) for line in lines
               if refused_by_powershell_5(line)]
    assert refused == []
    # Windows' Python installs have no python3, and a venv keeps its commands in Scripts\
    assert not [line for line in lines if re.search(r"\bpython3\b|\.venv/", line)]


def test_a_host_gets_it_first_and_runs_it_from_the_source_second():
    text = README.read_text("utf-8")
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[:3] == ["Get it", "Run it from the source", "Run the tests"]


def test_the_two_uv_lines_are_the_same_on_every_system():
    """uv brings its own Python, so neither a Mac's python3 nor the Store's matters."""
    windows = blocks(README, "powershell")[0].splitlines()
    unix = blocks(README, "sh")[0].splitlines()
    assert windows == [
        'powershell -ExecutionPolicy ByPass -c "irm https://astral.sh/uv/install.ps1 | iex"',
        "uvx --from companion-table companion serve"]
    assert unix == ["curl -LsSf https://astral.sh/uv/install.sh | sh",
                    "uvx --from companion-table companion serve"]


def test_the_source_lines_for_windows_are_one_command_a_line():
    """The same three lines work in PowerShell and in Command Prompt."""
    source = blocks(README, "powershell")[1].splitlines()
    assert source == ["py -m venv .venv",
                      ".venv\\Scripts\\pip install -c constraints.txt -e .",
                      ".venv\\Scripts\\companion serve"]
