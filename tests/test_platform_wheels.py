"""Every supported (system, processor, Python) installs the app from wheels alone, at the
versions constraints.txt pins: nobody needs a compiler (Xcode's tools, Visual C++) to run
Companion. Each case asks the package index, as `pip download --only-binary=:all:` for
that platform and Python, for the runtime dependencies of pyproject.toml, and checks that
the lock pins every package it brings (a lock frozen on Linux left out Windows' cffi,
pycparser and colorama).

pip evaluates environment markers against the Python that runs it, whatever
`--platform` says (pypa/pip#5453): gevent's `sys_platform == 'win32'` cffi, colorama's
`sys_platform == 'win32'` and the lock's macOS line for gevent would all be read as this
machine's. So pip runs with the marker values of the target (`as_target`), the only way to
ask "what would a Mac with Python 3.11 install" from here."""

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

CHECKOUT = Path(__file__).resolve().parent.parent
CONSTRAINTS = CHECKOUT / "constraints.txt"

#: The Pythons the README promises (requires-python's floor, and each newer release that
#: every runtime dependency publishes wheels for).
PYTHONS = ("3.11", "3.12", "3.13", "3.14")


def manylinux(arch):
    """glibc 2.28 and newer (RHEL 8, Debian 10, Ubuntu 20.04 on): every manylinux tag a
    wheel may carry there. pip does not widen a manylinux_2_28 tag to older ones itself."""
    return [f"manylinux_2_{minor}_{arch}" for minor in range(28, 16, -1)] + [
        f"manylinux2014_{arch}"]


#: Each platform's wheel tags and the marker values pip would see there. A macOS tag is
#: widened by pip to every older macOS and to universal2: macOS 11 (Big Sur) and newer.
PLATFORMS = {
    "windows-x64": (["win_amd64"], dict(
        sys_platform="win32", os_name="nt", platform_system="Windows", platform_machine="AMD64")),
    "windows-arm64": (["win_arm64"], dict(
        sys_platform="win32", os_name="nt", platform_system="Windows", platform_machine="ARM64")),
    "macos-arm64": (["macosx_11_0_arm64"], dict(
        sys_platform="darwin", os_name="posix", platform_system="Darwin",
        platform_machine="arm64")),
    "macos-x86_64": (["macosx_11_0_x86_64"], dict(
        sys_platform="darwin", os_name="posix", platform_system="Darwin",
        platform_machine="x86_64")),
    "linux-x86_64": (manylinux("x86_64"), dict(
        sys_platform="linux", os_name="posix", platform_system="Linux",
        platform_machine="x86_64")),
    "linux-aarch64": (manylinux("aarch64"), dict(
        sys_platform="linux", os_name="posix", platform_system="Linux",
        platform_machine="aarch64")),
}

#: pip's own entry point, with the marker environment replaced by the target's
#: (argv[1], JSON): packaging's Marker.evaluate looks default_environment up each call.
AS_TARGET = """\
import json, sys
import pip._vendor.packaging.markers as markers
target, host = json.loads(sys.argv[1]), markers.default_environment
markers.default_environment = lambda: {**host(), **target}
from pip._internal.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def as_target(markers, *pip_args, timeout=300):
    return subprocess.run(
        [sys.executable, "-c", AS_TARGET, json.dumps(markers), *pip_args],
        capture_output=True, text=True, timeout=timeout)


def said(done):
    """What pip said (its reasons for a conflict go to stdout, its errors to stderr), less
    its notes on the local file indexes some machines add."""
    lines = [line for line in (done.stdout + done.stderr).splitlines()
             if not (line.startswith("WARNING: Location 'file:") and "is ignored" in line)]
    return "\n".join(lines)[-4000:]


def canonical(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def runtime_dependencies():
    project = tomllib.loads((CHECKOUT / "pyproject.toml").read_text())["project"]
    return project["dependencies"]


#: sqlite-utils requires pip, which every venv already has: the lock leaves it out
#: (`--no-emit-package pip`), since a pin would make `pip install -c constraints.txt` replace
#: the running pip, which pip refuses on Windows unless it runs as `python -m pip`.
UNPINNED = {"pip"}


def pinned():
    return {canonical(m[1]) for m in re.finditer(r"(?m)^([A-Za-z0-9._-]+)==",
                                                   CONSTRAINTS.read_text())} | UNPINNED


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


@pytest.mark.parametrize("python", PYTHONS, ids=lambda v: f"py{v}")
@pytest.mark.parametrize("platform", PLATFORMS)
def test_the_runtime_installs_from_wheels_alone(platform, python, index_reached, pip_cache,
                                                 tmp_path):
    tags, markers = PLATFORMS[platform]
    markers = dict(markers, python_version=python, python_full_version=f"{python}.0",
                   implementation_name="cpython", platform_python_implementation="CPython")
    abi = "cp" + python.replace(".", "")
    platform_args = [arg for tag in tags for arg in ("--platform", tag)]
    done = as_target(markers, "download", "--only-binary=:all:", *platform_args,
                     "--python-version", python, "--implementation", "cp", "--abi", abi,
                     "--cache-dir", str(pip_cache), "-d", str(tmp_path), "-c", str(CONSTRAINTS),
                     *runtime_dependencies())
    if done.returncode != 0:
        pytest.fail(f"{platform}, Python {python}: some package has no wheel there at the "
                    f"version constraints.txt pins (pip would compile it):\n{said(done)}",
                    pytrace=False)
    wheels = {canonical(w.name.split("-")[0]) for w in tmp_path.glob("*.whl")}
    assert wheels, f"{platform}, Python {python}: pip downloaded nothing\n{said(done)}"
    assert wheels <= pinned(), (
        f"{platform}, Python {python}: constraints.txt pins no version of "
        f"{sorted(wheels - pinned())} (refresh it: docs/testing.md, \"Reproducible installs\")")
