"""The built program's entry (packaging/build.py): what ``python -m companion`` does
(companion/__main__.py), after what only a built program needs first.

- **macOS.** A double-clicked ``Companion.app`` has no terminal, yet its window must say
  where it serves, where the data is and how to stop. So the app, started with nothing
  to read from (no terminal) and no arguments, opens its own executable in Terminal.app
  (``open -a Terminal``) and ends: that window runs it, and Ctrl+C there stops it. Once
  in Terminal it has a terminal, so it serves. When Terminal cannot be opened it serves
  all the same, without a window (the browser opens the start page either way).
  A very old Finder adds a ``-psn_…`` argument of its own: it is dropped.
- **Windows.** The console PyInstaller opens is the program's window: its title says
  Companion rather than the program file's path.
- **Linux.** PyInstaller points ``LD_LIBRARY_PATH`` at the program's own libraries for the
  program itself; a program it starts (the browser, systemd-inhibit) gets the host's
  variable back, or it would load the bundled libraries instead of its own.

Everything else (serving with no arguments, gevent's patches first) is the package's, as
for every other way Companion starts.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import MutableMapping
from typing import Any

#: The window's title on Windows.
TITLE = "Companion"


def arguments(given: list[str]) -> list[str]:
    """The command line without the process serial number an old macOS Finder adds."""
    return [arg for arg in given if not arg.startswith("-psn_")]


def in_app_bundle(executable: str) -> bool:
    """Whether ``executable`` is a macOS app's own (``….app/Contents/MacOS/…``)."""
    return ".app/Contents/MacOS/" in executable


def terminal_command(args: list[str], *, frozen: bool, platform: str, executable: str,
                     attended: bool) -> list[str] | None:
    """The command that reopens the program in a Terminal window, or None to go on here:
    only the built app on macOS, double-clicked (no arguments) and so with no terminal
    (``attended``: standard input is a terminal)."""
    if frozen and platform == "darwin" and not args and not attended \
            and in_app_bundle(executable):
        return ["open", "-a", "Terminal", executable]
    return None


def restore_library_path(environ: MutableMapping[str, str], bundled: str) -> None:
    """Give programs this one starts the library path the host had: PyInstaller put the
    program's own folder (``bundled``) first, and kept the host's as
    ``LD_LIBRARY_PATH_ORIG`` (none there: the host had none). A path PyInstaller did not
    set is left as it is."""
    if environ.get("LD_LIBRARY_PATH", "").split(os.pathsep)[0] != bundled:
        return
    original = environ.pop("LD_LIBRARY_PATH_ORIG", None)
    if original is not None:
        environ["LD_LIBRARY_PATH"] = original
    else:
        del environ["LD_LIBRARY_PATH"]


def name_the_window(kernel32: Any) -> None:
    """Title the console window (Windows' ``kernel32``); a console that cannot be titled
    keeps its title."""
    with contextlib.suppress(AttributeError, OSError):
        kernel32.SetConsoleTitleW(TITLE)


def attended() -> bool:
    """Whether a terminal is there to read from."""
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (OSError, ValueError):
        return False


def reopened_in_terminal(command: list[str]) -> bool:
    """Run ``command``; whether it worked."""
    try:
        return subprocess.run(command, check=False, stdin=subprocess.DEVNULL).returncode == 0
    except OSError:
        return False


def main() -> int:
    sys.argv[1:] = arguments(sys.argv[1:])
    frozen = bool(getattr(sys, "frozen", False))
    command = terminal_command(sys.argv[1:], frozen=frozen, platform=sys.platform,
                               executable=sys.executable, attended=attended())
    if command is not None and reopened_in_terminal(command):
        return 0
    if frozen and sys.platform.startswith("linux"):
        restore_library_path(os.environ, getattr(sys, "_MEIPASS", ""))
    if frozen and sys.platform == "win32":
        import ctypes

        name_the_window(ctypes.windll.kernel32)  # type: ignore[attr-defined]
    # As companion/__main__.py: the package first (gevent's patches, when serving).
    from companion.serving import gevent_first  # noqa: F401
    from companion.serving.cli import main as companion

    return companion()


if __name__ == "__main__":
    sys.exit(main())
