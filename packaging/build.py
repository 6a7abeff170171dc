"""Build the program a host double-clicks, for the machine this runs on, with PyInstaller.

    python packaging/build.py [--dist DIR] [--work DIR]

It needs the project installed in the Python that runs it (``pip install -e '.[release]'``
brings PyInstaller too) and writes one file into ``dist/`` (or ``--dist DIR``; PyInstaller's
own files go to ``build/`` or ``--work DIR``):

====================  =========================================  ==========================
system                file                                       what it is
====================  =========================================  ==========================
Linux x86_64          ``Companion-<version>-linux-x86_64``       one executable file
Linux ARM             ``Companion-<version>-linux-arm64``        one executable file
Windows x64           ``Companion-<version>-windows-x64.exe``    one program, its console
Windows ARM           ``Companion-<version>-windows-arm64.exe``  the same
macOS Apple silicon   ``Companion-<version>-macos-arm64.zip``    ``Companion.app``, zipped
macOS Intel           ``Companion-<version>-macos-x86_64.zip``   the same
====================  =========================================  ==========================

The spellings: ``<os>`` is ``linux``, ``windows`` or ``macos``; ``<arch>`` is ``arm64`` on
every ARM machine, and on Intel/AMD 64-bit ``x64`` for Windows (as Windows and its
downloads name it) and ``x86_64`` for Linux and macOS (as ``uname -m`` prints it there).
The version is the installed distribution's (``importlib.metadata``), whose name is read
from pyproject.toml's ``[project]`` table at build time.

What goes in (packaging/companion.spec applies it): every module of the ``companion``
package but the café's gunicorn worker (the games are found by the registry, by name, so
no import names them all); ``templates/`` and ``static/`` as ``companion/templates`` and
``companion/static``, the fonts and the compiled catalogs, where an installed wheel has
them (pyproject.toml's package data, read here), so ``companion.laptop.paths`` finds them
as in a wheel (and ``from_checkout()`` is False); the distribution's metadata
(``companion --version``); gevent's every loop, libuv's through cffi among them (Windows'
default; elsewhere only where cffi is installed, as the test extra installs it); and of
Babel's locale data only what Korean and English load. What a night never runs stays out
(:data:`EXCLUDES`), and on Linux the libraries' debug symbols.

A double-clicked ``Companion.app`` has no terminal: its launcher (packaging/launcher.py)
opens its own executable again in Terminal.app, whose window says where it serves, where
the data is and how to stop. On Windows the console is the program's window; on Linux a
file manager starts it without a window (the browser opens all the same), and a terminal
shows what it says.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib.metadata
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
SPEC = PACKAGING / "companion.spec"
LAUNCHER = PACKAGING / "launcher.py"
ICON = ROOT / "static" / "icon-512.png"

#: The program's name: its window's title, the macOS app, the start of every file name.
PROGRAM = "Companion"

#: The languages a night speaks: the only ones whose Babel locale data goes in.
LANGUAGES = ("ko", "en")

#: The café's gunicorn worker: a module of the package the program leaves out.
CAFE = "companion.serving.cafe"

#: Modules the program never runs: the standard library's GUI, test, documentation and
#: packaging tools, the libraries' own tests, and what only builds gevent's cffi modules
#: (the built ones need cffi's ``_cffi_backend`` alone). Pillow's Tk and Qt bridges would
#: bring tkinter back in.
EXCLUDES = (
    "tkinter", "_tkinter", "turtle", "turtledemo", "idlelib",
    "unittest", "doctest", "pydoc", "pydoc_data", "test", "lib2to3",
    "distutils", "setuptools", "pkg_resources", "_distutils_hack", "pip", "ensurepip", "venv",
    "gevent.tests", "gevent.testing", "greenlet.tests", "psutil.tests",
    "zope.interface.tests", "zope.interface.common.tests", "zope.event.tests",
    "gevent.libuv._corecffi_build", "gevent.libev._corecffi_build", "cffi", "pycparser",
    "PIL.ImageTk", "PIL.ImageQt", "PIL._tkinter_finder", "PIL._imagingtk", "readline",
    # Pillow reads and writes AVIF, WebP and colour profiles with libraries of their own
    # (6 MB on Linux); a night's pictures are PNG, drawn with fonts.
    "PIL._avif", "PIL.AvifImagePlugin", "PIL._webp", "PIL.WebPImagePlugin",
    "PIL._imagingcms", "PIL.ImageCms",
    # qrcode writes its SVG with lxml when it finds it (a test extra's package), with the
    # standard library's ElementTree otherwise, as an installed wheel does.
    "lxml",
    # The café's setup runs gunicorn (companion/serving/cafe.py), never the program.
    "gunicorn", CAFE,
)

#: Modules no import statement names: gevent picks its loop by name at run time
#: (``GEVENT_LOOP``; libuv's cffi loop is Windows' default, libev's compiled one the
#: others'), and cffi's compiled modules load cffi's C backend from C.
GEVENT_LOOPS = (
    "gevent.libuv.loop", "gevent.libuv._corecffi", "gevent.libuv.watcher",
    "gevent.libev.corecext", "gevent.libev.corecffi", "gevent.libev._corecffi",
    "gevent.libev.watcher",
)
CFFI_BACKEND = "_cffi_backend"


class BuildError(Exception):
    """The build cannot go on (its message says why and what to do)."""


# --- names ----------------------------------------------------------------------------


def system_name(platform_name: str = sys.platform) -> str:
    """``linux``, ``windows`` or ``macos`` for ``sys.platform``."""
    if platform_name.startswith("linux"):
        return "linux"
    if platform_name == "win32":
        return "windows"
    if platform_name == "darwin":
        return "macos"
    raise BuildError(f"No program is built for {platform_name}: only Linux, Windows and macOS.")


def arch_name(system: str, machine: str) -> str:
    """The file name's ``<arch>`` for ``platform.machine()`` on ``system``: ``arm64`` on
    ARM, and 64-bit Intel/AMD as ``x64`` on Windows, ``x86_64`` on Linux and macOS."""
    found = machine.lower()
    if found in ("arm64", "aarch64"):
        return "arm64"
    if found in ("x86_64", "amd64", "x64"):
        return "x64" if system == "windows" else "x86_64"
    raise BuildError(f"No program is built for a {machine} processor.")


def output_name(version: str, system: str, arch: str) -> str:
    """The file written into the dist folder."""
    stem = f"{PROGRAM}-{version}-{system}-{arch}"
    return stem + {"windows": ".exe", "macos": ".zip"}.get(system, "")


def executable_name(version: str, system: str, arch: str) -> str:
    """The executable PyInstaller makes: the file itself on Linux and Windows (PyInstaller
    adds ``.exe``), and on macOS the one inside ``Companion.app/Contents/MacOS``."""
    return PROGRAM if system == "macos" else f"{PROGRAM}-{version}-{system}-{arch}"


# --- the project ----------------------------------------------------------------------


def pyproject(root: Path = ROOT) -> dict:
    """pyproject.toml, read."""
    with open(root / "pyproject.toml", "rb") as file:
        return tomllib.load(file)


def distribution_name(project: dict) -> str:
    """The distribution's name, as pyproject.toml's ``[project]`` has it now."""
    return str(project["project"]["name"])


def installed_version(name: str) -> str:
    """The installed distribution's version (its metadata goes into the program)."""
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        raise BuildError(f"The distribution {name!r} (pyproject.toml) is not installed in "
                         f"{sys.executable}: run pip install -e '.[release]' first.") from None


def package_files(project: dict, root: Path = ROOT) -> list[tuple[str, str]]:
    """The package data an installed wheel has, as (file in the checkout, folder in the
    program): pyproject.toml's ``package-data`` of ``companion`` and of its subpackages,
    each read from where ``package-dir`` says (``companion.templates`` is the checkout's
    ``templates/``). Sorted, and each file once."""
    tool = project["tool"]["setuptools"]
    folders = tool.get("package-dir", {})
    found: set[tuple[str, str]] = set()
    for package, patterns in tool.get("package-data", {}).items():
        if package != "companion" and not package.startswith("companion."):
            continue
        source = root / folders.get(package, package.replace(".", "/"))
        target = PurePosixPath(*package.split("."))
        for pattern in patterns:
            for path in sorted(source.glob(pattern)):
                if path.is_file():
                    inside = target / path.relative_to(source).parent.as_posix()
                    found.add((str(path), str(inside)))
    return sorted(found)


def package_modules(root: Path = ROOT, package: str = "companion") -> list[str]:
    """Every module of the package in the checkout: the games are imported by name
    (``core/registry.py``), so no import statement leads to them all."""
    folder = root / package
    names = {".".join((package, *path.relative_to(folder).with_suffix("").parts))
             for path in folder.rglob("*.py")}
    return sorted(name.removesuffix(".__init__") for name in names)


def hidden_imports(system: str, root: Path = ROOT, cffi: bool | None = None) -> list[str]:
    """What PyInstaller must take although no import names it: every module of the
    package but the café's worker, gevent's loops, and cffi's C backend (always for
    Windows, whose default loop is libuv's through cffi; elsewhere when installed, for
    ``GEVENT_LOOP``'s other choices)."""
    if cffi is None:
        cffi = importlib.util.find_spec(CFFI_BACKEND) is not None
    backend = [CFFI_BACKEND] if system == "windows" or cffi else []
    modules = [name for name in package_modules(root) if name != CAFE]
    return [*modules, *GEVENT_LOOPS, *backend]


# --- Babel's locale data --------------------------------------------------------------


def locale_chain(name: str, parents: dict[str, str]) -> list[str]:
    """The locale ``name`` and each one Babel merges under it, up to ``root``, as
    ``babel.localedata.load`` walks them (CLDR's parent exceptions first, else the name
    less its last part)."""
    chain = [name]
    while name != "root":
        name = parents.get(name) or (name.rsplit("_", 1)[0] if "_" in name else "root")
        chain.append(name)
    return chain


def babel_files(languages: Iterable[str] = LANGUAGES,
                parents: dict[str, str] | None = None) -> set[str]:
    """Babel's data files a night reads, as their paths in the program: its global data,
    and the locale data of each language and of every locale it inherits from."""
    if parents is None:
        from babel.core import get_global

        parents = dict(get_global("parent_exceptions"))
    names = {name for language in languages for name in locale_chain(language, parents)}
    return {"babel/global.dat", *(f"babel/locale-data/{name}.dat" for name in names)}


#: Files some hooks collect that a running program never opens.
DATA_LEFT_OUT = ("*.pyi", "*.c", "*.h", "*.pxd", "*.pyx")


def wanted_data(target: str, babel_keep: set[str]) -> bool:
    """Whether a data file PyInstaller collected (``target``, its path in the program)
    stays: Babel's locale data only for :data:`LANGUAGES`; libraries' type stubs,
    C sources and headers never (nothing compiles in the program)."""
    path = target.replace("\\", "/")
    if path.startswith("babel/locale-data/") or path == "babel/global.dat":
        return path in babel_keep
    return not any(fnmatch.fnmatch(path, pattern) for pattern in DATA_LEFT_OUT)


# --- the plan the spec applies --------------------------------------------------------


def plan(root: Path = ROOT, platform_name: str = sys.platform,
         machine: str | None = None) -> dict:
    """Everything packaging/companion.spec needs, for this machine."""
    project = pyproject(root)
    name = distribution_name(project)
    version = installed_version(name)
    system = system_name(platform_name)
    arch = arch_name(system, machine or platform.machine())
    return {
        "root": str(root),
        "launcher": str(LAUNCHER),
        "distribution": name,
        "version": version,
        "system": system,
        "arch": arch,
        "executable": executable_name(version, system, arch),
        "output": output_name(version, system, arch),
        "datas": package_files(project, root),
        "hiddenimports": hidden_imports(system, root),
        "excludes": list(EXCLUDES),
        "babel": sorted(babel_files()),
        "icon": str(ICON) if ICON.is_file() else None,
        "onefile": system != "macos",
        # Debug symbols out of the libraries (Python's own can be most of the file), by
        # binutils' strip where it is installed; never on macOS, where it would break
        # the libraries' signatures.
        "strip": system == "linux" and shutil.which("strip") is not None,
    }


# --- the build ------------------------------------------------------------------------


def zip_app(app: Path, target: Path) -> None:
    """``Companion.app`` zipped as Finder would (``ditto`` keeps the bundle's symbolic
    links and permissions, which a plain zip would flatten)."""
    subprocess.run(["ditto", "-c", "-k", "--sequesterRsrc", "--keepParent", str(app),
                    str(target)], check=True)


def build(dist: Path, work: Path) -> Path:
    """Run PyInstaller on packaging/companion.spec; the program written into ``dist``."""
    steps = plan()
    staged = work / "stage"
    shutil.rmtree(staged, ignore_errors=True)
    command = [sys.executable, "-m", "PyInstaller", str(SPEC), "--noconfirm",
               "--distpath", str(staged), "--workpath", str(work)]
    env = {**os.environ, "PYTHONHASHSEED": "0"}  # the same input gives the same archive
    # Not run from the checkout: there, an egg-info a setuptools build left would be
    # taken for the installed distribution's metadata.
    work.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(command, cwd=work, env=env)
    if done.returncode != 0:
        raise BuildError(f"PyInstaller failed (exit code {done.returncode}).")
    dist.mkdir(parents=True, exist_ok=True)
    target = dist / steps["output"]
    if target.exists():
        target.unlink()
    if steps["system"] == "macos":
        zip_app(staged / f"{PROGRAM}.app", target)
    else:
        shutil.move(str(staged / (steps["output"])), target)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist",
                        help="where the program is written (default: dist/)")
    parser.add_argument("--work", type=Path, default=ROOT / "build",
                        help="PyInstaller's working folder (default: build/)")
    args = parser.parse_args(argv)
    try:
        target = build(args.dist.resolve(), args.work.resolve())
    except BuildError as error:
        print(error, file=sys.stderr)
        return 1
    print(f"{target} ({target.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
