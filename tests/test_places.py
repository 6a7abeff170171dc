"""What kind of folder the data is in (companion/laptop/places.py): one a sync service
copies to the cloud is named, for a warning; one on another computer is refused in one
line before anything is written. Each laptop is played by its paths (``PureWindowsPath``
for Windows), its environment and what it says of its drives."""

import contextlib
import ctypes
import sqlite3
import sys
import types
from pathlib import PurePosixPath, PureWindowsPath

import pytest

from companion.laptop import paths, places
from companion.serving import cli
from tests.laptops import Kernel32, Stand

# --- sync folders: Windows ----------------------------------------------------------

WINDOWS_HOME = PureWindowsPath(r"C:\Users\민수")
ONEDRIVE = {"OneDrive": r"C:\Users\민수\OneDrive", "OneDriveConsumer": r"C:\Users\민수\OneDrive"}


def windows(folder, environ=ONEDRIVE):
    return places.sync_service(PureWindowsPath(folder), environ, WINDOWS_HOME,
                               exists=lambda path: False)


def test_a_checkout_on_a_korean_windows_desktop_backed_up_to_onedrive_is_named():
    """Windows 11 backs Desktop and Documents up to OneDrive from its first start."""
    assert windows(r"C:\Users\민수\OneDrive\바탕 화면\companion-main\instance") == "OneDrive"
    assert windows(r"c:\users\민수\onedrive\문서\companion") == "OneDrive"  # letter case aside


def test_each_of_onedrives_variables_names_its_folder_wherever_it_was_moved():
    for variable in places.ONEDRIVE_VARIABLES:
        assert windows(r"D:\Sync\companion", {variable: "D:\\Sync\\"}) == "OneDrive", variable
    assert windows(r"D:\Sync\companion", {"ONEDRIVECOMMERCIAL": r"D:\Sync"}) == "OneDrive"
    assert windows(r"d:\sync\companion", {"OneDrive": r"D:\Sync"}) == "OneDrive"  # any case
    assert windows(r"D:\Synced\companion", {"OneDrive": r"D:\Sync"}) is None  # not under it


def test_a_folder_named_onedrive_is_named_without_its_variables():
    """A work account's folder ("OneDrive - Contoso"), or a process started without
    OneDrive's variables."""
    assert windows(r"C:\Users\kim\OneDrive - Contoso\Desktop\companion", {}) == "OneDrive"


def test_the_folders_windows_leaves_alone_are_not_sync_folders():
    assert windows(r"C:\Users\민수\AppData\Local\companion") is None
    assert windows(r"C:\Users\민수\Companion") is None  # the Store Python's data folder
    assert windows(r"E:\companion") is None  # a USB stick
    assert windows(r"C:\Users\민수\Dropbox\companion") == "Dropbox"
    assert windows(r"C:\Users\민수\Dropbox (Contoso)\companion") == "Dropbox"


# --- sync folders: macOS and Linux --------------------------------------------------

MAC_HOME = PurePosixPath("/Users/minsu")
ICLOUD_DESKTOP = MAC_HOME / "Library/Mobile Documents/com~apple~CloudDocs/Desktop"
ICLOUD_DOCUMENTS = MAC_HOME / "Library/Mobile Documents/com~apple~CloudDocs/Documents"


def mac(folder, icloud_keeps=()):
    """``icloud_keeps``: the entries iCloud Drive has for the Mac's Desktop and Documents
    ("Desktop & Documents Folders" on)."""
    return places.sync_service(PurePosixPath(folder), {}, MAC_HOME,
                               exists=lambda path: path in icloud_keeps)


def test_icloud_drives_own_folder_is_named():
    assert mac("/Users/minsu/Library/Mobile Documents/com~apple~CloudDocs/companion") \
        == "iCloud Drive"


def test_a_macs_desktop_and_documents_are_icloud_drive_only_while_icloud_keeps_them():
    both = (ICLOUD_DESKTOP, ICLOUD_DOCUMENTS)
    assert mac("/Users/minsu/Desktop/companion-main/instance", both) == "iCloud Drive"
    assert mac("/Users/minsu/Documents/companion", both) == "iCloud Drive"
    assert mac("/Users/minsu/Documents/companion", (ICLOUD_DESKTOP,)) is None
    assert mac("/Users/minsu/Desktop/companion-main/instance") is None  # the setting is off
    assert mac("/Users/minsu/Desktop/games.nosync/companion", both) is None  # iCloud skips it


def test_the_services_of_macos_cloud_storage_are_named_by_their_folder():
    storage = "/Users/minsu/Library/CloudStorage"
    assert mac(f"{storage}/GoogleDrive-minsu@gmail.com/My Drive/companion") == "Google Drive"
    assert mac(f"{storage}/Dropbox/companion") == "Dropbox"
    assert mac(f"{storage}/OneDrive-Personal/companion") == "OneDrive"
    assert mac(f"{storage}/iCloudDrive-iCloudDrive/companion") == "iCloud Drive"
    assert mac(f"{storage}/Box-Box/companion") == "Box"
    assert mac(f"{storage}/pCloudSync-minsu/companion") == "pCloudSync"  # by its own name


def test_an_installed_apps_data_folder_on_a_mac_or_linux_is_no_sync_folder():
    both = (ICLOUD_DESKTOP, ICLOUD_DOCUMENTS)
    assert mac("/Users/minsu/Library/Application Support/companion", both) is None
    assert mac("/Volumes/STICK/companion", both) is None
    home = PurePosixPath("/home/jo")
    assert places.sync_service(home / ".local/share/companion", {}, home) is None
    assert places.sync_service(home / "Dropbox/companion", {}, home) == "Dropbox"


def test_this_machines_folders_are_read_from_its_own_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "Library/Mobile Documents/com~apple~CloudDocs").mkdir(parents=True)
    (tmp_path / "Library/Mobile Documents/com~apple~CloudDocs/Desktop").symlink_to(
        tmp_path / "Desktop")
    assert places.sync_service_here(tmp_path / "Desktop" / "companion") == "iCloud Drive"
    assert places.sync_service_here(tmp_path / "Documents" / "companion") is None


# --- network folders: refused in one line -------------------------------------------


def never_asked(root):
    raise AssertionError(f"a drive type was asked for {root}")


@pytest.mark.parametrize("folder", [
    r"\\NAS\games\companion",  # a share, and a mapped drive once Path.resolve() has it
    r"\\?\UNC\NAS\games\companion",
    "//NAS/games/companion",
    r"\\wsl$\Ubuntu\home\jo\companion",
])
def test_a_windows_share_is_a_network_folder(folder):
    assert places.network_share(PureWindowsPath(folder), never_asked)


def test_a_drive_letter_is_a_network_folder_when_windows_says_it_is_remote():
    kinds = {"Z:\\": places.DRIVE_REMOTE, "C:\\": 3, "E:\\": 2}  # 3: a disk, 2: a USB stick
    assert places.network_share(PureWindowsPath(r"Z:\companion"), kinds.get)
    assert not places.network_share(PureWindowsPath(r"C:\Users\민수\Companion"), kinds.get)
    assert not places.network_share(PureWindowsPath(r"E:\companion"), kinds.get)
    assert not places.network_share(PureWindowsPath(r"\\?\C:\Users\민수\Companion"), kinds.get)


def test_a_posix_path_is_never_a_network_folder():
    assert not places.network_share(PurePosixPath("/Volumes/NAS/companion"), never_asked)
    assert not places.network_share(PurePosixPath(r"\\NAS\games"), never_asked)  # a name


def test_a_network_folder_is_refused_in_one_translatable_line_before_anything_is_made():
    folder = PureWindowsPath(r"\\NAS\games\companion")
    with pytest.raises(paths.DataFolderError) as refused:
        paths.prepare(folder)  # a PureWindowsPath cannot mkdir: it never got that far
    error = refused.value
    assert error.template == paths.ON_THE_NETWORK
    assert error.values == {"folder": r"\\NAS\games\companion"}
    assert str(error) == error.template % error.values
    assert str(error).startswith(r"Cannot keep the data in \\NAS\games\companion: it is a "
                                 "network folder")
    assert "\n" not in str(error)


def test_why_sqlite_must_never_be_given_a_share():
    """A share's URI names the server as its authority, which SQLite refuses (a
    traceback from the app's start, after the data folder had been accepted)."""
    uri = PureWindowsPath(r"\\NAS\games\companion.sqlite").as_uri()
    assert uri == "file://NAS/games/companion.sqlite"
    with pytest.raises(sqlite3.OperationalError, match="invalid uri authority"), \
            contextlib.closing(sqlite3.connect(f"{uri}?mode=rw", uri=True)):
        pass


@pytest.fixture
def windows_kernel32(monkeypatch, tmp_path):
    """places sees Windows, with a kernel32 (tests/laptops.py) on which Z: is a share."""
    kernel32 = Kernel32(tmp_path / "kernel32.log", None, {"Z:": places.DRIVE_REMOTE})
    monkeypatch.setattr(places, "sys", Stand(sys, platform="win32"))
    monkeypatch.setattr(places, "ctypes",
                        Stand(ctypes, windll=types.SimpleNamespace(kernel32=kernel32)))
    return kernel32


def test_a_mapped_drive_is_asked_of_windows_and_refused(windows_kernel32):
    with pytest.raises(paths.DataFolderError, match=r"Z:\\Companion: it is a network folder"):
        paths.prepare(PureWindowsPath(r"Z:\Companion"))
    assert windows_kernel32.log.read_text().splitlines() == ['["GetDriveTypeW", "Z:\\\\"]']
    assert places.windows_drive_type("C:\\") == 3


def test_off_windows_no_drive_type_is_asked():
    assert places.windows_drive_type("Z:\\") == places.DRIVE_UNKNOWN


@pytest.mark.parametrize("command", [["serve", "--port", "0"], ["host-link", "--night", "x"]])
def test_serve_and_host_link_refuse_a_share_before_the_database_is_opened(
        command, monkeypatch, capsys):
    """Where Windows' Path.resolve() has made a mapped drive ``\\\\NAS\\games``."""
    monkeypatch.setattr(cli, "data_folder", lambda chosen: PureWindowsPath(chosen))

    def never(*args, **kwargs):
        raise AssertionError("the app was made, and SQLite given the share")

    monkeypatch.setattr(cli, "create_app", never)
    assert cli.main([*command, "--data", r"\\NAS\games\companion"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and r"\\NAS\games\companion" in lines[0]
