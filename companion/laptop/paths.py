"""Where the app's files are: its templates and static files, and the group's data.

An installed wheel carries ``templates/`` and ``static/`` inside the package
(pyproject.toml maps the repository's top-level folders there); a checkout serves them
from its top level. The group's data — the database, the secret key — lives in a
checkout's ``instance/``, and for an installed app in the user's data folder
(platformdirs: ``~/.local/share/companion`` on Linux, ``~/Library/Application
Support/companion`` on macOS, ``%LOCALAPPDATA%\\companion`` on Windows), never inside
the installed package, where an upgrade or a reinstall would delete it. ``--data DIR``
or ``COMPANION_DATA`` choose another folder.

**The Microsoft Store's Python** runs in a package whose writes to ``%LOCALAPPDATA%``
Windows quietly moves to ``%LOCALAPPDATA%\\Packages\\<its package>\\LocalCache\\Local``:
the folder ``companion serve`` printed held no files, and uninstalling that Python
deleted every night. Under it, the data lives in ``%USERPROFILE%\\Companion``, which
Windows leaves where it is (or, for a group that already played there, in the package's
real folder, printed as it is).

A folder on another computer (a Windows share, or a drive letter mapped to one) is
refused before anything is written (:func:`refuse_network_folder`; why:
companion/laptop/places.py).
"""

import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any

from platformdirs import user_cache_dir, user_data_dir

from companion.core.errors import N_
from companion.laptop import places

PACKAGE = Path(__file__).resolve().parent.parent  # companion/, two up from companion/laptop/
CHECKOUT = PACKAGE.parent


class DataFolderError(Exception):
    """The data folder cannot be used: ``template`` (marked ``N_``, with ``%(name)s``
    placeholders) says which and why with ``values``, translated where it is printed;
    ``str(error)`` is the English."""

    def __init__(self, template: str, **values: Any) -> None:
        self.template, self.values = template, values
        super().__init__(template % values)


def from_checkout() -> bool:
    """Whether this is the repository's own source (an editable install or a plain
    checkout), not an installed wheel."""
    return (not (PACKAGE / "templates").is_dir() and (CHECKOUT / "templates").is_dir()
            and (CHECKOUT / "pyproject.toml").is_file())


def asset_folder(name: str) -> Path:
    """``templates`` or ``static``: inside the installed package, else the checkout's."""
    inside = PACKAGE / name
    return inside if inside.is_dir() else CHECKOUT / name


def compiled_templates_folder() -> Path | None:
    """Where a served process keeps its templates' compiled code (Jinja's bytecode cache,
    each entry checked against its template's source before use): the user's cache folder
    (platformdirs: ``~/.cache/companion`` on Linux, ``~/Library/Caches/companion`` on
    macOS, ``%LOCALAPPDATA%\\companion\\Cache`` on Windows), which a start after the first
    reads rather than compiling every template again. None where the folder cannot be
    made (a read-only home): each start then compiles."""
    folder = Path(user_cache_dir("companion", appauthor=False)) / "templates"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder


def data_folder(chosen: str | os.PathLike[str] | None = None) -> Path:
    """Where the group's data lives: ``chosen`` (``--data``), else ``COMPANION_DATA``,
    else a checkout's ``instance/``, else the user's data folder (outside the Microsoft
    Store Python's package: :func:`store_folder`)."""
    picked = chosen or os.environ.get("COMPANION_DATA")
    if picked:
        return Path(picked).expanduser().resolve()
    if from_checkout():
        return CHECKOUT / "instance"
    package = store_package(sys.base_prefix)
    if package is not None:
        return store_folder(package, os.environ)
    return Path(user_data_dir("companion", appauthor=False))


#: The folder name of a Microsoft Store Python: its package's name and version, then its
#: publisher's id (``PythonSoftwareFoundation.Python.3.12_3.12.2800.0_x64__qbz5n2kfra8p0``;
#: its alias in the user's WindowsApps folder names the family alone).
_STORE_PYTHON = re.compile(
    r"(PythonSoftwareFoundation\.Python\.\d+\.\d+)_(?:[^_\\/]*_[^_\\/]*__)?([a-z0-9]+)", re.I)


def store_package(prefix: str) -> str | None:
    """The package family of the Microsoft Store Python installed at ``prefix``
    (``sys.base_prefix``: a venv's, pipx's or uv's base is that Python), or None."""
    if "windowsapps" not in prefix.lower():
        return None
    found = _STORE_PYTHON.search(prefix)
    return f"{found[1]}_{found[2]}" if found else None


def store_folder(package: str, environ: os._Environ[str] | dict[str, str]) -> Path:
    """The data folder under the Store Python ``package``: the package's real folder
    when a group's database is already there (where earlier releases wrote, redirected),
    else ``%USERPROFILE%\\Companion``, which Windows does not redirect."""
    local = environ.get("LOCALAPPDATA")
    if local:
        moved = Path(local) / "Packages" / package / "LocalCache" / "Local" / "companion"
        if (moved / "companion.sqlite").is_file():
            return moved
    home = environ.get("USERPROFILE")
    return (Path(home) if home else Path.home()) / "Companion"


#: Why a folder cannot hold the data: the system's own reason ("Permission denied").
CANNOT_KEEP = N_("Cannot keep the data in %(folder)s: %(reason)s. Choose another folder "
                 "with --data DIR (or COMPANION_DATA).")
#: A network folder (companion/laptop/places.py says why it is refused).
ON_THE_NETWORK = N_("Cannot keep the data in %(folder)s: it is a network folder, where the "
                    "database can be damaged. Choose a folder on this computer or on a USB "
                    "stick with --data DIR (or COMPANION_DATA).")


def refuse_network_folder(folder: PurePath,
                          drive_type: Callable[[str], int] = places.windows_drive_type) -> None:
    """A ``DataFolderError`` when ``folder`` is on another computer (a Windows share, or
    a drive letter mapped to one: :func:`places.network_share`), before SQLite is given a
    path it cannot open there (``\\\\server\\share`` makes the URI ``file://server/...``,
    which SQLite refuses) or a WAL it cannot keep."""
    if places.network_share(folder, drive_type):
        raise DataFolderError(ON_THE_NETWORK, folder=str(folder))


def prepare(folder: Path) -> Path:
    """Check that ``folder`` is on this computer, make it if needed and check that a
    file can be written in it; a ``DataFolderError`` saying which folder and why
    otherwise (nothing starts half-way)."""
    refuse_network_folder(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        reason = error.strerror or str(error)
        raise DataFolderError(CANNOT_KEEP, folder=str(folder), reason=reason) from error
    return folder
