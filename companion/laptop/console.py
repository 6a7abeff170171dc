"""The terminal the command line prints to, and Windows' console.

**What a stream can print.** A real Windows console takes any character, but output
that is not one (redirected to a file, piped, Git Bash's mintty, an IDE's run pane) is
written in the ANSI code page: cp949 on a Korean Windows, cp1252 on a Western one. A QR
code's block characters, ``→`` or a player's Korean name then raised
``UnicodeEncodeError`` right after the port opened. :func:`forgiving` makes every
character a stream cannot print a ``?`` instead, and :func:`can_print` lets the QR
code fall back to ASCII (companion/pictures/qr.py).

**Windows' console** (:class:`WindowsConsole`). Clicking into a classic console window
starts a selection (QuickEdit) and stops every write to it until a key is pressed: the
server froze mid-night at its next printed line. Closing the window, logging off or
Ctrl+Break ended the process at once, skipping the clean stop that folds the WAL into
the database file (``Companion stopped. Every night is saved in …``). While serving,
QuickEdit is off, and a console control handler stops the server for each of these
events as Ctrl+C does.
"""

from __future__ import annotations

import ctypes
import ctypes.wintypes as wintypes
import os
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

#: Windows' console control events (wincon.h).
CTRL_C_EVENT = 0
CTRL_BREAK_EVENT = 1
CTRL_CLOSE_EVENT = 2
CTRL_LOGOFF_EVENT = 5
CTRL_SHUTDOWN_EVENT = 6
#: The events after which Windows ends the process as soon as the handler returns (a
#: closed window gives it 5 s in all): the handler waits there for the stop to finish.
ENDING_EVENTS = (CTRL_CLOSE_EVENT, CTRL_LOGOFF_EVENT, CTRL_SHUTDOWN_EVENT)
STOPPING_EVENTS = (CTRL_C_EVENT, CTRL_BREAK_EVENT, *ENDING_EVENTS)
#: How long a closing window's handler waits for the clean stop (Windows allows 5 s).
CLOSE_WAIT_SECONDS = 4.5

STD_INPUT_HANDLE = -10
ENABLE_QUICK_EDIT_MODE = 0x0040
ENABLE_EXTENDED_FLAGS = 0x0080  # must be set for QuickEdit's bit to be taken


def can_print(text: str, stream: TextIO | None = None) -> bool:
    """Whether ``stream`` (standard output) can print every character of ``text``."""
    encoding = getattr(stream or sys.stdout, "encoding", None) or "ascii"
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


#: The East Asian code pages (Japanese, Simplified and Traditional Chinese, Korean) under
#: which Windows' classic console (conhost) draws the QR code's "ambiguous width" blocks
#: two cells wide: the code comes out stretched and no camera reads it.
WIDE_BLOCK_CODE_PAGES = (932, 936, 949, 950)


def draws_blocks_narrow(kernel32: Any, environ: dict[str, str] | Any) -> bool:
    """Whether this Windows console draws ``▀ ▄ █`` one cell wide. Windows Terminal
    (``WT_SESSION`` set) always does; the classic console does not under an East Asian
    code page (a Korean Windows 10's default)."""
    if environ.get("WT_SESSION"):
        return True
    try:
        page = int(kernel32.GetConsoleOutputCP())
    except (AttributeError, OSError, TypeError, ValueError):
        return True
    return page not in WIDE_BLOCK_CODE_PAGES


def can_draw_blocks(blocks: str, stream: TextIO | None = None) -> bool:
    """Whether a QR code drawn in ``blocks`` comes out square on standard output: the
    stream can encode them, and on Windows the console draws them one cell wide."""
    if not can_print(blocks, stream):
        return False
    if sys.platform != "win32":
        return True
    return draws_blocks_narrow(ctypes.windll.kernel32, os.environ)


def forgiving(*streams: Any) -> None:
    """Make each text stream print ``?`` for a character it cannot encode, instead of
    raising (standard output and error, by default)."""
    for stream in streams or (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", "strict") == "strict":
            try:
                reconfigure(errors="replace")
            except (ValueError, OSError):  # a closed or detached stream
                continue


class WindowsConsole:
    """This process's console window, through kernel32 (``ctypes.windll.kernel32``;
    the tests give a stand-in)."""

    def __init__(self, kernel32: Any) -> None:
        self.kernel32 = kernel32
        self.mode: int | None = None  # the input mode before QuickEdit was turned off
        self.handler: Any = None  # kept referenced: Windows calls it for as long as it is set

    def quick_edit_off(self) -> bool:
        """Turn QuickEdit off for this console's input (False where there is no console,
        as when standard input is piped); :meth:`restore` gives it back."""
        handle = self.kernel32.GetStdHandle(STD_INPUT_HANDLE)
        mode = wintypes.DWORD()
        if not self.kernel32.GetConsoleMode(handle, ctypes.byref(mode)):
            return False
        wanted = (mode.value & ~ENABLE_QUICK_EDIT_MODE) | ENABLE_EXTENDED_FLAGS
        if not self.kernel32.SetConsoleMode(handle, wanted):
            return False
        self.mode = mode.value
        return True

    def restore(self) -> None:
        """Give the console its input mode back (QuickEdit, if it had it)."""
        if self.mode is not None:
            self.kernel32.SetConsoleMode(self.kernel32.GetStdHandle(STD_INPUT_HANDLE),
                                         self.mode)
            self.mode = None

    def on_stop(self, stop: Callable[[], None], finished: Callable[[], bool],
                pause: Callable[[float], None] = time.sleep) -> bool:
        """Call ``stop`` on Ctrl+C, Ctrl+Break, a closed window, a log-off or a shutdown.

        Windows calls the handler on a thread of its own, so ``stop`` must be safe to call
        from any thread. After the events that end the process once the handler returns,
        it waits (``pause``, a real sleep of that thread) until ``finished()`` says the
        clean stop is done, at most ``CLOSE_WAIT_SECONDS``. False when Windows refused."""
        def handle(event: int) -> bool:
            if event not in STOPPING_EVENTS:
                return False
            stop()
            if event in ENDING_EVENTS:
                waited = 0.0
                while not finished() and waited < CLOSE_WAIT_SECONDS:
                    pause(0.05)
                    waited += 0.05
            return True

        routine = ctypes.WINFUNCTYPE(wintypes.BOOL, wintypes.DWORD)  # type: ignore[attr-defined]
        self.handler = routine(handle)
        return bool(self.kernel32.SetConsoleCtrlHandler(self.handler, True))


def windows_console() -> WindowsConsole | None:
    """This process's console on Windows; None elsewhere."""
    if sys.platform != "win32":
        return None
    return WindowsConsole(ctypes.windll.kernel32)
