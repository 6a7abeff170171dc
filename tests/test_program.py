"""The Linux program as the release builds it (packaging/build.py, into a folder of the
test's own, not the checkout's dist/ and build/), tried as the release tries it
(packaging/smoke.py): started with no arguments in a home of its own, a night made over
HTTP, a seat claimed, a Kraken deal on the phone's page only, Ctrl+C, started again and
the night there; all with no Python on the PATH it runs under, which holds one empty
folder and nothing else; and once more on gevent's libuv loop, Windows' default. What
can be checked without building: tests/test_packaging.py."""

import ast
import importlib.metadata
import os
import platform
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from bench import program as program_bench

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent

#: The issue's aim for the program's size (docs/performance.md, "The program").
MOST_BYTES = 40_000_000


def distribution_version():
    with open(ROOT / "pyproject.toml", "rb") as file:
        return importlib.metadata.version(tomllib.load(file)["project"]["name"])


@pytest.mark.skipif(not sys.platform.startswith("linux") or platform.machine() != "x86_64",
                    reason="this builds the Linux x86_64 program; the others are built by "
                           "the release workflow on their own systems")
def test_the_linux_program_serves_a_night_and_keeps_it_with_no_python_anywhere(tmp_path):
    dist, work, empty = tmp_path / "dist", tmp_path / "work", tmp_path / "empty"
    empty.mkdir()
    built = subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "build.py"), "--dist", str(dist),
         "--work", str(work)], capture_output=True, text=True, timeout=1200)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-5000:]
    name = f"Companion-{distribution_version()}-linux-x86_64"
    assert [path.name for path in dist.iterdir()] == [name]
    program = dist / name
    assert os.access(program, os.X_OK)
    assert program.stat().st_size < MOST_BYTES, f"{program.stat().st_size:,} bytes"

    said = smoke(program, PATH=str(empty))  # the program finds no Python, nor anything
    assert said[0].startswith("smoke: started (no arguments); serving on port ")
    assert "smoke: the browser was asked to open http://localhost:" in "\n".join(said)
    assert said[-1] == "smoke: ok"
    # Windows' loop (libuv, through cffi), tried here: the test extra installs cffi, so
    # the program built here carries it as Windows' does.
    assert smoke(program, PATH=str(empty), GEVENT_LOOP="libuv-cffi")[-1] == "smoke: ok"
    # wakepy finds its ways by importing each, which PyInstaller follows: Windows' and
    # macOS' go in with no hidden import (the test extra installs wakepy here too).
    _, packed = ast.literal_eval((work / "companion" / "PYZ-00.toc").read_text())
    assert {"wakepy.methods.windows", "wakepy.methods.macos"} <= {name for name, *_ in packed}
    # bench/program.py, which measured docs/performance.md's "The program", still times it.
    timed = tmp_path / "timed"
    timed.mkdir()
    assert 0 < program_bench.time_to_page(program, timed) < 60


def smoke(program, **env):
    """packaging/smoke.py run on ``program`` with ``env`` added; the lines it said."""
    tried = subprocess.run([sys.executable, str(ROOT / "packaging" / "smoke.py"),
                            str(program)], env={**os.environ, **env}, capture_output=True,
                           text=True, timeout=600)
    assert tried.returncode == 0, tried.stdout[-5000:] + tried.stderr[-3000:]
    return tried.stdout.splitlines()
