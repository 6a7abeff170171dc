"""Every supported (system, processor, Python) installs the app from wheels alone, at the
versions the wheel pins: nobody needs a compiler (Xcode's tools, Visual C++) to run
Companion. Each case asks the package index, as `pip download --only-binary=:all:` for
that platform and Python, for what the wheel requires (every line of the lock that
pyproject.toml reads, requirements.txt), and checks that the lock pins every package it
brings (a lock frozen on Linux left out Windows' cffi, pycparser and colorama).

pip evaluates environment markers against the Python that runs it, whatever
`--platform` says (pypa/pip#5453): gevent's `sys_platform == 'win32'` cffi, colorama's
`sys_platform == 'win32'` and the lock's macOS line for gevent would all be read as this
machine's. So pip runs with the marker values of the target (`as_target`), the only way to
ask "what would a Mac with Python 3.11 install" from here."""

import json
import subprocess
import sys

import pytest

from tests import pins
from tests.pins import canonical, lock_path, requirement_lines, said

pytestmark = pytest.mark.slow

#: The index's probe and pip's cache (tests/pins.py), shared with other modules' cases.
index_reached, pip_cache = pins.index_reached, pins.pip_cache

#: The Pythons the README promises (requires-python's floor, and each newer release that
#: every runtime dependency publishes wheels for).
PYTHONS = ("3.11", "3.12", "3.13", "3.14", "3.15")


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
                     "--cache-dir", str(pip_cache), "-d", str(tmp_path),
                     *requirement_lines(lock_path()))
    if done.returncode != 0:
        pytest.fail(f"{platform}, Python {python}: some package has no wheel there at the "
                    f"version the lock pins (pip would compile it):\n{said(done)}",
                    pytrace=False)
    wheels = {canonical(w.name.split("-")[0]) for w in tmp_path.glob("*.whl")}
    assert wheels, f"{platform}, Python {python}: pip downloaded nothing\n{said(done)}"
    pinned = set(pins.pins(lock_path())) | pins.UNPINNED
    assert wheels <= pinned, (
        f"{platform}, Python {python}: {lock_path().name} pins no version of "
        f"{sorted(wheels - pinned)} (compile it again: docs/release.md, \"Pins\")")
