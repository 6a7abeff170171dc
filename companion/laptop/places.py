"""What kind of folder the group's data is in, where that matters to a night: a folder a
sync service copies to the cloud, or a folder on another computer.

**Sync folders** (OneDrive, iCloud Drive, Dropbox, Google Drive) open the files in them
to upload them, can make conflicting copies of a file two machines wrote, and iCloud's
"Optimize Mac Storage" evicts files that were not used lately: a database, its ``-wal``
and ``-shm`` files and the code beside them are all exposed. Windows 11 backs Desktop
and Documents up to OneDrive from its first start, and a Mac with iCloud's "Desktop &
Documents Folders" on does the same, so a checkout unpacked there keeps its data
(``instance/``) in the cloud without anyone choosing it. It still works, mostly:
:func:`sync_service` names the service, for a warning, and nothing is refused.

**Network folders** (``\\\\server\\share\\…``, a drive letter mapped to a share) are
refused: SQLite's WAL needs memory shared between the processes that open the database,
which a network file system does not give, and its locks there are unreliable (SQLite's
documentation, "WAL mode" and "How To Corrupt"). :func:`network_share` says which.

Both take the path in its own system's flavour (``PureWindowsPath`` for Windows), and
what they read of the machine as arguments, so the tests feed them any laptop.
"""

import ctypes
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path, PurePath

from companion.core.errors import N_

#: The variables Windows' OneDrive sets to its folders (personal, work or school).
ONEDRIVE_VARIABLES = ("OneDrive", "OneDriveConsumer", "OneDriveCommercial")
#: The services that keep a folder under macOS' ``~/Library/CloudStorage`` (named
#: ``<service>-<account>`` there), by the start of that name.
CLOUD_STORAGE = {"icloud": "iCloud Drive", "onedrive": "OneDrive", "dropbox": "Dropbox",
                 "googledrive": "Google Drive", "box": "Box"}
#: iCloud Drive's own folder, under the home folder.
MOBILE_DOCUMENTS = ("Library", "Mobile Documents")
#: Where iCloud Drive keeps the Mac's Desktop and Documents once "Desktop & Documents
#: Folders" is on (a link back to ``~/Desktop`` and ``~/Documents``, or the folder
#: itself); the entry is absent while that setting is off.
ICLOUD_DESKTOP = ("Library", "Mobile Documents", "com~apple~CloudDocs")


def _inside(folder: PurePath, root: PurePath) -> bool:
    """Whether ``folder`` is ``root`` or lies under it, letter case aside (Windows' and
    a Mac's disks ignore it; a Linux home never holds the folders asked about)."""
    parts = [p.casefold() for p in folder.parts]
    under = [p.casefold() for p in root.parts]
    return bool(under) and parts[:len(under)] == under


def _lexists(path: PurePath) -> bool:
    return os.path.lexists(path)


def sync_service(folder: PurePath, environ: Mapping[str, str], home: PurePath,
                 exists: Callable[[PurePath], bool] = _lexists) -> str | None:
    """The sync service that copies ``folder`` to the cloud ("OneDrive", "iCloud Drive",
    "Dropbox", "Google Drive" …), or None for a folder none is known to.

    OneDrive: under a folder ``environ`` names (:data:`ONEDRIVE_VARIABLES`), or any of
    whose names starts with "OneDrive" (its folders are "OneDrive", "OneDrive - Company",
    and "OneDrive-Personal" on a Mac). iCloud Drive: under ``home``'s ``Library/Mobile
    Documents``, or the Mac's Desktop or Documents while iCloud keeps them, which
    ``exists`` tells from iCloud Drive's entry for that folder; but not inside a folder
    named ``….nosync``, which iCloud leaves alone. The services of macOS'
    ``~/Library/CloudStorage``, by the start of their folder's name. Dropbox: a folder
    named "Dropbox" or "Dropbox (Team)" on the way, where it keeps its files elsewhere."""
    flavour = type(folder)
    home = flavour(home)
    names = [part.casefold() for part in folder.parts]
    for variable in ONEDRIVE_VARIABLES:
        value = environ.get(variable) or environ.get(variable.upper())
        if value and _inside(folder, flavour(value)):
            return "OneDrive"
    if any(name.startswith("onedrive") for name in names):
        return "OneDrive"
    storage = home / "Library" / "CloudStorage"
    if _inside(folder, storage) and len(folder.parts) > len(storage.parts):
        service = folder.parts[len(storage.parts)]
        for start, said in CLOUD_STORAGE.items():
            if service.casefold().startswith(start):
                return said
        return service.split("-", 1)[0]
    icloud = _inside(folder, home.joinpath(*MOBILE_DOCUMENTS)) or any(
        _inside(folder, home / kept) and exists(home.joinpath(*ICLOUD_DESKTOP, kept))
        for kept in ("Desktop", "Documents"))
    if icloud and not any(name.endswith(".nosync") for name in names):
        return "iCloud Drive"
    if any(name == "dropbox" or name.startswith("dropbox (") for name in names):
        return "Dropbox"
    return None


def sync_service_here(folder: Path) -> str | None:
    """:func:`sync_service` for ``folder`` on this machine, as its user."""
    return sync_service(folder, os.environ, Path.home())


#: The one line ``companion serve`` can print at start for a data folder in a sync
#: folder (``service``: what :func:`sync_service` said).
SYNCED = N_("The data folder %(folder)s is in %(service)s, which uploads its files while "
            "Companion writes them and can damage the database: keep the data in a folder "
            "outside it with --data DIR (or COMPANION_DATA).")


#: What Windows' ``GetDriveTypeW`` says of a drive on another computer, and of one it
#: cannot tell.
DRIVE_REMOTE = 4
DRIVE_UNKNOWN = 0


def network_share(folder: PurePath, drive_type: Callable[[str], int]) -> bool:
    """Whether ``folder`` is on another computer: a Windows share's path
    (``\\\\server\\share\\…``, ``\\\\?\\UNC\\server\\share\\…``, WSL's ``\\\\wsl$\\…``),
    or a drive letter that ``drive_type`` (:func:`windows_drive_type`, given the drive's
    root, ``Z:\\``) says is remote. A POSIX path has no drive, and is never one: a share
    mounted on macOS or Linux reads as any folder."""
    drive = folder.drive.replace("/", "\\")
    if drive.startswith(("\\\\?\\", "\\\\.\\")):  # a path for Windows' own API, unparsed
        drive = drive[4:]
        if drive[:4].upper() == "UNC\\":
            return True
    elif drive.startswith("\\\\"):
        return True
    if len(drive) == 2 and drive[1] == ":":
        return drive_type(drive + "\\") == DRIVE_REMOTE
    return False


def windows_drive_type(root: str) -> int:
    """Windows' type of the drive at ``root`` (``Z:\\``): :data:`DRIVE_REMOTE` for a
    share mapped to it; :data:`DRIVE_UNKNOWN` on any other system."""
    if sys.platform != "win32":
        return DRIVE_UNKNOWN
    return int(ctypes.windll.kernel32.GetDriveTypeW(root))
