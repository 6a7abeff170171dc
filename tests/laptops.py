"""The hosts' other laptops, played on this Linux box: ``python -m tests.laptops windows
serve --port 8800`` runs ``companion`` with the package seeing Windows (or ``macos``).

Only the package is fooled, and wakepy, which makes the package's Windows and macOS calls
to keep the laptop awake: every ``companion`` and ``wakepy`` module is executed with an
``import`` of its own (:class:`View`), which hands it stand-ins for ``sys`` (``platform``
``win32``), ``os`` (``name`` ``nt``, and none of what Python 3.11's ``os`` lacks on
Windows: ``fchmod``, ``getuid``, ``fork`` …), ``signal`` (Windows' few signals and
``SIGBREAK``), ``platform`` (``system()`` ``Windows``) and ``ctypes`` (a ``windll``
whose ``kernel32`` writes each call to ``COMPANION_LAPTOP_LOG``), and refuses the
modules Windows has not (``resource``, ``fcntl``, ``pwd`` …). The libraries it uses
(Flask, gevent, SQLite) run as they do here: they are tested on those systems by their
own makers, the package's own calls were not.

Windows' console is played too: the stand-in kernel32 keeps the console control handler
the package sets, and calls it, on a thread of its own as Windows does, with the event
written to the file ``COMPANION_LAPTOP_CONSOLE`` (``2``: the window was closed).
"""

from __future__ import annotations

import builtins
import importlib.abc
import importlib.machinery
import json
import os
import platform
import signal
import sys
import types
from pathlib import Path
from typing import Any

#: What ``os`` has on Linux and not in Python 3.11 on Windows (its documentation's
#: "Availability: Unix"); only those this box has are taken away.
WINDOWS_OS_LACKS = (
    "fchmod", "fchown", "chown", "lchown", "lchmod", "chroot", "fork", "forkpty",
    "getuid", "geteuid", "getgid", "getegid", "getgroups", "getgrouplist", "initgroups",
    "getpgid", "getpgrp", "getpriority", "setpriority", "getresuid", "getresgid", "getsid",
    "setsid", "setuid", "setgid", "seteuid", "setegid", "setreuid", "setregid", "setpgid",
    "setpgrp", "killpg", "nice", "openpty", "mkfifo", "mknod", "major", "minor",
    "makedev", "pathconf", "fpathconf", "statvfs", "fstatvfs", "sync", "sysconf",
    "confstr", "uname", "getloadavg", "wait", "wait3", "wait4", "waitid", "WNOHANG",
    "sched_getaffinity", "sched_setaffinity", "sched_yield", "posix_spawn",
    "posix_spawnp", "posix_fadvise", "posix_fallocate", "pread", "pwrite", "preadv",
    "pwritev", "sendfile", "ctermid", "ttyname", "tcgetpgrp", "tcsetpgrp",
    "register_at_fork", "memfd_create", "eventfd", "pidfd_open", "splice",
    "copy_file_range", "getxattr", "setxattr", "listxattr", "removexattr", "fwalk",
    "get_blocking", "set_blocking", "O_NONBLOCK", "O_CLOEXEC", "O_NOFOLLOW",
    "O_DIRECTORY", "O_SYNC", "O_DSYNC", "O_NOCTTY", "RTLD_LAZY", "RTLD_NOW",
    "RTLD_GLOBAL", "RTLD_LOCAL", "getlogin_r", "fdatasync", "lockf", "sched_param",
)
#: What ``os`` has on Linux and not on macOS.
MACOS_OS_LACKS = (
    "sched_getaffinity", "sched_setaffinity", "memfd_create", "eventfd", "pidfd_open",
    "splice", "copy_file_range", "getxattr", "setxattr", "listxattr", "removexattr",
    "posix_fadvise", "posix_fallocate", "O_DIRECT", "O_PATH", "O_TMPFILE", "pipe2",
    "getresuid", "getresgid", "setresuid", "setresgid", "fdatasync", "waitid",
)
#: The signals Python 3.11 has on Windows, and those it adds there.
WINDOWS_SIGNALS = ("SIGABRT", "SIGFPE", "SIGILL", "SIGINT", "SIGSEGV", "SIGTERM")
WINDOWS_ONLY_SIGNALS = {"SIGBREAK": 21, "CTRL_C_EVENT": 0, "CTRL_BREAK_EVENT": 1}
#: The functions of ``signal`` that Windows has (the rest are Unix's).
WINDOWS_SIGNAL_FUNCTIONS = ("signal", "getsignal", "default_int_handler", "set_wakeup_fd",
                            "raise_signal", "strsignal", "valid_signals", "SIG_DFL",
                            "SIG_IGN", "NSIG", "Signals", "Handlers")
#: Modules Windows has not.
WINDOWS_HIDES = ("resource", "fcntl", "pwd", "grp", "termios", "posix", "tty", "pty",
                 "syslog", "crypt", "readline")


class Stand(types.ModuleType):
    """A module that answers as ``real`` does, less ``lacks``, plus ``extra``."""

    def __init__(self, real: types.ModuleType, lacks: tuple[str, ...] = (),
                 **extra: Any) -> None:
        super().__init__(real.__name__, real.__doc__)
        self.__dict__["_real"], self.__dict__["_lacks"] = real, set(lacks)
        self.__dict__.update(extra)

    def __getattr__(self, name: str) -> Any:
        if name in self.__dict__["_lacks"]:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        return getattr(self.__dict__["_real"], name)


#: The console events after whose handler Windows ends the process, and the exit code
#: the tests then see (STATUS_CONTROL_C_EXIT, 0xC000013A, as far as a Linux exit code
#: can hold it).
ENDED_BY_WINDOWS = (2, 5, 6)
ENDED_EXIT = 0x3A
#: What GetDriveTypeW says of a local disk (4, DRIVE_REMOTE: a letter mapped to a share).
DRIVE_FIXED = 3


class Kernel32:
    """Windows' kernel32, as far as the package calls it: each call is written to the
    log as a JSON line; the console handler is kept, and called when the console file
    names an event."""

    def __init__(self, log: Path | None, console: Path | None,
                 drives: dict[str, int] | None = None) -> None:
        self.log, self.console = log, console
        self.mode = 0x01F7  # a console with QuickEdit, as Windows 10 and 11 start one
        self.drives = drives or {}  # "Z:": 4 (DRIVE_REMOTE); any other letter: a disk

        def set_thread_execution_state(flags: int) -> int:
            self._write("SetThreadExecutionState", flags)
            return 0x80000000

        def get_drive_type(root: str) -> int:
            self._write("GetDriveTypeW", root)
            return self.drives.get(root[:2].upper(), DRIVE_FIXED)

        # Functions, not methods: ctypes's functions take argtypes and restype.
        self.SetThreadExecutionState = set_thread_execution_state
        self.GetDriveTypeW = get_drive_type

    def _write(self, call: str, *args: Any) -> None:
        if self.log is not None:
            with self.log.open("a", encoding="utf-8") as out:
                out.write(json.dumps([call, *args]) + "\n")

    def GetStdHandle(self, which: int) -> int:  # noqa: N802 (Windows' names)
        return 1000 + which

    def GetConsoleMode(self, handle: int, mode: Any) -> int:  # noqa: N802
        mode._obj.value = self.mode
        self._write("GetConsoleMode", handle)
        return 1

    def SetConsoleMode(self, handle: int, mode: int) -> int:  # noqa: N802
        self.mode = mode
        self._write("SetConsoleMode", handle, mode)
        return 1

    def SetConsoleCtrlHandler(self, handler: Any, add: bool) -> int:  # noqa: N802
        self._write("SetConsoleCtrlHandler", bool(add))
        if self.console is not None:
            _real_thread(self._watch, handler)
        return 1

    def _watch(self, handler: Any) -> None:
        """Windows' side: call the handler, on this thread, when an event is named; after
        a closed window, a log-off or a shutdown, end the process as soon as it returns
        (Windows does, with STATUS_CONTROL_C_EXIT)."""
        sleep = _real("time", "sleep")
        while True:
            if self.console is not None and self.console.is_file():
                event = int(self.console.read_text().strip() or 0)
                self.console.unlink()
                self._write("handled", event, bool(handler(event)))
                if event in ENDED_BY_WINDOWS:
                    os._exit(ENDED_EXIT)
            sleep(0.05)


def _real(module: str, name: str) -> Any:
    """The standard library's own ``name``, before gevent patched it."""
    from gevent import monkey

    return monkey.get_original(module, name)


def _real_thread(target: Any, *args: Any) -> None:
    _real("_thread", "start_new_thread")(target, args)


def stand_ins(system: str) -> dict[str, Any]:
    """The modules the package sees on ``system`` ("windows", "macos"), and None for
    each it cannot import."""
    log = os.environ.get("COMPANION_LAPTOP_LOG")
    console = os.environ.get("COMPANION_LAPTOP_CONSOLE")
    if system == "macos":
        return {
            "sys": Stand(sys, platform="darwin"),
            "os": Stand(os, MACOS_OS_LACKS),
            "platform": Stand(platform, system=lambda: "Darwin"),
        }
    import ctypes

    kernel32 = Kernel32(Path(log) if log else None, Path(console) if console else None)
    prefix = os.environ.get("COMPANION_LAPTOP_PREFIX", sys.base_prefix)
    lacks_signal = tuple(name for name in dir(signal) if name not in WINDOWS_SIGNALS
                         and name not in WINDOWS_SIGNAL_FUNCTIONS and not name.startswith("_"))
    return {
        "sys": Stand(sys, platform="win32", base_prefix=prefix),
        "os": Stand(os, WINDOWS_OS_LACKS, name="nt", O_BINARY=0x8000),
        "signal": Stand(signal, lacks_signal, **WINDOWS_ONLY_SIGNALS),
        "platform": Stand(platform, system=lambda: "Windows"),
        "ctypes": Stand(ctypes, windll=types.SimpleNamespace(kernel32=kernel32),
                        WINFUNCTYPE=ctypes.CFUNCTYPE),
        **dict.fromkeys(WINDOWS_HIDES),
    }


#: The packages that see the other laptop.
VIEWED = ("companion", "wakepy")


class View(importlib.abc.MetaPathFinder):
    """Finds the :data:`VIEWED` modules as Python does, and executes each with the
    builtins of :meth:`builtins_for`, whose ``__import__`` hands it the stand-ins."""

    def __init__(self, modules: dict[str, Any]) -> None:
        self.modules = modules
        self.builtins = {**vars(builtins), "__import__": self._import}

    def _import(self, name: str, globals: Any = None, locals: Any = None,
                fromlist: Any = (), level: int = 0) -> Any:
        top = name.partition(".")[0]
        if level == 0 and top in self.modules:
            if self.modules[top] is None:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            builtins.__import__(name, globals, locals, fromlist, level)
            return self.modules[top]
        return builtins.__import__(name, globals, locals, fromlist, level)

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname.partition(".")[0] not in VIEWED:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is not None and isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            spec.loader = Loader(spec.loader, self.builtins)
        return spec


class Loader(importlib.abc.Loader):
    """Python's own loader of a module's source, which executes it with other builtins."""

    def __init__(self, inner: importlib.machinery.SourceFileLoader,
                 view_builtins: dict[str, Any]) -> None:
        self.inner, self.view_builtins = inner, view_builtins

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def create_module(self, spec: Any) -> Any:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        module.__builtins__ = self.view_builtins  # type: ignore[attr-defined]
        code = self.inner.get_code(module.__name__)
        exec(code, module.__dict__)  # noqa: S102


def play(system: str, argv: list[str]) -> int:
    """Run ``companion *argv`` as on ``system``."""
    if argv[:1] == ["serve"]:  # as companion/serving/gevent_first.py would, first of all
        from gevent import monkey

        monkey.patch_all()
    import flask  # noqa: F401  (the libraries load as they do on this box)
    import gevent  # noqa: F401
    import platformdirs  # noqa: F401
    import psutil  # noqa: F401
    import sqlite_utils  # noqa: F401

    assert not set(VIEWED) & set(sys.modules), "the package was imported before its view"
    sys.meta_path.insert(0, View(stand_ins(system)))
    sys.argv = ["companion.exe" if system == "windows" else "companion", *argv]
    from companion.serving import cli

    return cli.main(argv)


if __name__ == "__main__":
    sys.exit(play(sys.argv[1], sys.argv[2:]))
