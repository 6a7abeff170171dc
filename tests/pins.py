"""The release's pins, read as pip reads them: the lock the wheel requires
(requirements.txt, which pyproject.toml names in [tool.setuptools.dynamic]), the ranges it
is compiled from (requirements.in) and constraints.txt (the lock plus the test, cafe and
release extras); and the package index, asked once per session whether it answers."""

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

CHECKOUT = Path(__file__).resolve().parent.parent
#: The release extra's uv, in the test venv.
UV = Path(sys.executable).with_name("uv")
#: For uv and pip: a name lookup left unanswered is asked again after 1 s, not glibc's 5.
#: This machine's lookups go unanswered now and then, and a uv run that takes 0.3 s
#: took 5 or 12 s when one did.
QUICK_LOOKUPS = {"RES_OPTIONS": "timeout:1 attempts:5"}
CONSTRAINTS = CHECKOUT / "constraints.txt"
RANGES = CHECKOUT / "requirements.in"

#: sqlite-utils requires pip, which every venv already has: the lock and constraints.txt
#: leave it out (`--no-emit-package pip`), since a pin would make pip replace itself in
#: the environment it runs from (which it refuses on Windows unless run as `python -m pip`).
UNPINNED = {"pip"}


def canonical(name):
    """A distribution's name as the index compares it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_path():
    """The file the wheel's dependencies are read from, as pyproject.toml names it."""
    settings = tomllib.loads((CHECKOUT / "pyproject.toml").read_text(encoding="utf-8"))
    (name,) = settings["tool"]["setuptools"]["dynamic"]["dependencies"]["file"]
    return CHECKOUT / name


def requirement_lines(path):
    """Each requirement of a requirements file, as setuptools reads one into the wheel:
    every line that is neither blank nor a comment (uv's "# via" lines)."""
    lines = [line.strip() for line in Path(path).read_text(encoding="utf-8").splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def pins(path):
    """{canonical name: the versions the file pins it at}: one version, or gevent's two
    (each under its marker). A line that is not one exact ``==`` pin is a ValueError."""
    found = {}
    for line in requirement_lines(path):
        requirement = Requirement(line)
        specifiers = list(requirement.specifier)
        if len(specifiers) != 1 or specifiers[0].operator != "==" or (
                "*" in specifiers[0].version):
            raise ValueError(f"{Path(path).name}: not an exact pin: {line}")
        found.setdefault(canonical(requirement.name), set()).add(specifiers[0].version)
    return found


def disagreements(lock, constraints):
    """Each package of the lock that constraints.txt pins at other versions or not at
    all: {name: (the lock's versions, constraints.txt's)}."""
    return {name: (versions, constraints.get(name, set()))
            for name, versions in lock.items() if constraints.get(name) != versions}


def pins_here(path):
    """{canonical name: version} of the lines whose marker holds on this machine: what an
    install of the wheel must bring here."""
    found = {}
    for line in requirement_lines(path):
        requirement = Requirement(line)
        if requirement.marker is None or requirement.marker.evaluate():
            (specifier,) = requirement.specifier
            found[canonical(requirement.name)] = specifier.version
    return found


def said(done):
    """What pip said (its reasons for a conflict go to stdout, its errors to stderr), less
    its notes on the local file indexes some machines add."""
    lines = [line for line in (done.stdout + done.stderr).splitlines()
             if not (line.startswith("WARNING: Location 'file:") and "is ignored" in line)]
    return "\n".join(lines)[-4000:]


@pytest.fixture(scope="session")
def pip_cache(tmp_path_factory):
    """One pip cache for every case (and every xdist worker's cases): each platform's
    wheels differ, but the index's pages are the same."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    cache = root / "platform-wheels-pip-cache"
    cache.mkdir(exist_ok=True)
    return cache


@pytest.fixture(scope="session")
def index_reached(pip_cache, tmp_path_factory):
    """Skips when the package index cannot be reached: one small wheel, without retries."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
         "--retries", "0", "--timeout", "15", "--cache-dir", str(pip_cache),
         "-d", str(tmp_path_factory.mktemp("probe")), "zope.event"],
        capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        pytest.skip("the package index cannot be reached (pip download --no-deps zope.event "
                    f"failed): {said(done)[-600:]}")
