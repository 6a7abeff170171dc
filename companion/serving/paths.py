"""Where the app's files are: its templates and static files, and the group's data.

An installed wheel carries ``templates/`` and ``static/`` inside the package
(pyproject.toml maps the repository's top-level folders there); a checkout serves them
from its top level. The group's data — the database, the secret key — lives in a
checkout's ``instance/``, and for an installed app in the user's data folder
(platformdirs: ``~/.local/share/companion`` on Linux, ``~/Library/Application
Support/companion`` on macOS, ``%LOCALAPPDATA%\\companion`` on Windows), never inside
the installed package, where an upgrade or a reinstall would delete it. ``--data DIR``
or ``COMPANION_DATA`` choose another folder.
"""

import os
import tempfile
from pathlib import Path

from platformdirs import user_data_dir

PACKAGE = Path(__file__).resolve().parent.parent  # companion/, two up from companion/serving/
CHECKOUT = PACKAGE.parent


class DataFolderError(Exception):
    """The data folder cannot be made or written (its message says which and why)."""


def from_checkout() -> bool:
    """Whether this is the repository's own source (an editable install or a plain
    checkout), not an installed wheel."""
    return (not (PACKAGE / "templates").is_dir() and (CHECKOUT / "templates").is_dir()
            and (CHECKOUT / "pyproject.toml").is_file())


def asset_folder(name: str) -> Path:
    """``templates`` or ``static``: inside the installed package, else the checkout's."""
    inside = PACKAGE / name
    return inside if inside.is_dir() else CHECKOUT / name


def data_folder(chosen: str | os.PathLike[str] | None = None) -> Path:
    """Where the group's data lives: ``chosen`` (``--data``), else ``COMPANION_DATA``,
    else a checkout's ``instance/``, else the user's data folder."""
    picked = chosen or os.environ.get("COMPANION_DATA")
    if picked:
        return Path(picked).expanduser().resolve()
    if from_checkout():
        return CHECKOUT / "instance"
    return Path(user_data_dir("companion", appauthor=False))


def prepare(folder: Path) -> Path:
    """Make ``folder`` if needed and check that a file can be written in it; a
    ``DataFolderError`` saying which folder and why otherwise (nothing starts half-way)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        reason = error.strerror or str(error)
        raise DataFolderError(f"Cannot keep the data in {folder}: {reason}. Choose another "
                              "folder with --data DIR (or COMPANION_DATA).") from error
    return folder
