"""Every supported (system, processor, Python) installs the app from wheels alone, at the
versions the wheel pins: nobody needs a compiler (Xcode's tools, Visual C++) to run
Companion. Each case asks the package index, as `uv pip install --dry-run
--only-binary :all:` for that platform and Python, for what the wheel requires (every line
of the lock that pyproject.toml reads, requirements.txt), and checks that the lock pins
every package it brings (a lock frozen on Linux left out Windows' cffi, pycparser and
colorama).

uv reads the lock's environment markers as the target's (`--python-platform`: gevent's
`sys_platform == 'win32'` cffi, colorama's, the lock's macOS line for gevent), where pip
reads them as this machine's whatever `--platform` says (pypa/pip#5453). uv also resolves
from the index's metadata without fetching a wheel: a case took 11–22 s of a busy CI's
browser stage with pip's download, and takes well under a second with uv."""

import os
import subprocess

import pytest

from tests import pins
from tests.pins import canonical, lock_path, said

pytestmark = pytest.mark.slow

#: The index's probe and the pip cache it uses (tests/pins.py), shared with other modules.
index_reached, pip_cache = pins.index_reached, pins.pip_cache

#: The Pythons the README promises (requires-python's floor, and each newer release that
#: every runtime dependency publishes wheels for).
PYTHONS = ("3.11", "3.12", "3.13", "3.14", "3.15")

#: Each platform as uv names the target. Linux: glibc 2.28 and newer (RHEL 8, Debian 10,
#: Ubuntu 20.04 on), which takes every manylinux wheel up to 2.28. macOS: 11 (Big Sur)
#: and newer (MACOSX_DEPLOYMENT_TARGET, below; uv's default would be 13), which takes
#: every older macOS wheel and universal2.
PLATFORMS = {
    "windows-x64": "x86_64-pc-windows-msvc",
    "windows-arm64": "aarch64-pc-windows-msvc",
    "macos-arm64": "aarch64-apple-darwin",
    "macos-x86_64": "x86_64-apple-darwin",
    "linux-x86_64": "x86_64-manylinux_2_28",
    "linux-aarch64": "aarch64-manylinux_2_28",
}
MACOS = "11.0"


def would_install(platform, python, cache, target):
    """uv's plan for the lock on ``platform`` with ``python``, from wheels alone: the
    finished process (its "+ name==version" lines are on stderr)."""
    env = {**os.environ, **pins.QUICK_LOOKUPS, "MACOSX_DEPLOYMENT_TARGET": MACOS,
           "UV_CACHE_DIR": str(cache), "UV_NO_CONFIG": "1"}
    return subprocess.run(
        [str(pins.UV), "pip", "install", "--dry-run", "--only-binary", ":all:",
         "--python-platform", PLATFORMS[platform], "--python-version", python,
         "--target", str(target), "-r", str(lock_path())],
        capture_output=True, text=True, timeout=300, env=env)


def problems_of(platform, python, folder):
    """What keeps ``platform`` with ``python`` from installing the lock from wheels alone,
    in words; nothing when it installs."""
    done = would_install(platform, python, folder.parent / "uv-cache", folder / "target")
    if done.returncode != 0:
        return [f"{platform}, Python {python}: some package has no wheel there at the "
                f"version the lock pins (pip would compile it):\n{said(done)}"]
    planned = {canonical(line.split()[1].split("==")[0])
               for line in done.stderr.splitlines() if line.startswith(" + ")}
    if not planned:
        return [f"{platform}, Python {python}: uv planned nothing\n{said(done)}"]
    unpinned = planned - set(pins.pins(lock_path())) - pins.UNPINNED
    if unpinned:
        return [f"{platform}, Python {python}: {lock_path().name} pins no version of "
                f"{sorted(unpinned)} (compile it again: docs/release.md, \"Pins\")"]
    return []


def test_every_platform_and_python_installs_the_runtime_from_wheels_alone(index_reached,
                                                                          tmp_path):
    """The cases run one after another, sharing uv's cache (the index's pages are the
    same for all): a case takes a few tenths of a second, 30 of them 10-20 s."""
    problems = []
    for platform in PLATFORMS:
        for python in PYTHONS:
            problems += problems_of(platform, python, tmp_path / f"{platform}-{python}")
    assert not problems, "\n\n".join(problems)
