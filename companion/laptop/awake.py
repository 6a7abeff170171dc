"""Keep the laptop awake while a night is live, and let it sleep again after.

The laptop is the table's server: when it sleeps, every phone says "Connection lost".
Windows and macOS on battery sleep after a few idle minutes, and no one touches the
laptop during a game. So while a night is live, the server asks the OS not to sleep
for idleness, in the one way each OS has for it:

- Windows: ``SetThreadExecutionState(ES_CONTINUOUS | ES_SYSTEM_REQUIRED)``;
- macOS: a ``caffeinate -i -w <pid>`` child process;
- Linux: a ``systemd-inhibit --what=idle:sleep … cat`` child process, where logind is.

The request ends when the server stops, or when nothing has been live for
:data:`IDLE_SECONDS`: a laptop left serving an empty room sleeps as it always did. Each
way also ends by itself when the server's process dies, even killed: the thread's flag
dies with the thread, ``caffeinate -w`` watches this process, and ``cat`` sees its pipe
close. Closing the lid still sleeps most laptops, whatever is asked here.

Two halves. :class:`Watch` and the small functions are pure: they decide when to hold
and release, from a clock and whether the night is live, which the caller computes
(this module knows nothing of devices or games). The inhibitors make the platform
calls; none raises: a failure is ``hold() -> False`` and a reason in ``failure``, for
the one line ``companion serve`` prints (:func:`line`).
"""

from __future__ import annotations

import ctypes
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from typing import IO, Protocol, cast

#: A child process started here (bytes pipes).
Process = subprocess.Popen[bytes]

#: Seconds without anything live after which the laptop may sleep again.
IDLE_SECONDS = 30 * 60
#: Seconds between two looks at whether the night is live (:func:`keep_awake_while`).
EVERY_SECONDS = 60.0
#: Seconds a started child must stay up to count as holding: without logind (a
#: container, a system without systemd) ``systemd-inhibit`` exits at once.
SETTLE_SECONDS = 0.5
#: Seconds a child is given to end on its own before it is terminated, then killed.
END_SECONDS = 2.0

#: SetThreadExecutionState's flags (winbase.h).
ES_CONTINUOUS = 0x80000000
ES_SYSTEM_REQUIRED = 0x00000001

WHY = "A game night is live"


class Inhibitor(Protocol):
    """One OS's way to keep the laptop from sleeping."""

    #: How it does it, in a few words ("Windows: SetThreadExecutionState").
    how: str
    #: Why the last hold() failed, as a clause ("" until one did).
    failure: str

    def hold(self) -> bool:
        """Ask the OS to keep the laptop awake; True when it now does. Idempotent."""
        ...

    def release(self) -> None:
        """Let the laptop sleep again. Idempotent; never raises."""
        ...


def inhibitor(system: str | None = None) -> Inhibitor:
    """This OS's inhibitor (``platform.system()``'s name), a no-op one where none is known."""
    name = platform.system() if system is None else system
    if name == "Windows":
        return Windows()
    if name == "Darwin":
        return MacOS()
    if name == "Linux":
        return Linux()
    return Unsupported(name)


def line(holder: Inhibitor, held: bool) -> str:
    """The one line ``companion serve`` prints on how the laptop's sleep is handled."""
    if held:
        return (f"This laptop stays awake while a night is live ({holder.how}); "
                "closing its lid may still put it to sleep.")
    return (f"Keep this laptop awake yourself ({holder.failure}): set it not to sleep "
            "until the night ends, or every phone loses the connection when it does.")


# -- Windows ---------------------------------------------------------------------------


class Kernel32(Protocol):
    """The one function of kernel32.dll used here (a stub in the tests)."""

    def SetThreadExecutionState(self, flags: int, /) -> int: ...


def load_kernel32() -> Kernel32 | None:
    """kernel32.dll through ctypes, its function typed as the API is (a DWORD in, the
    previous DWORD state out, so 0 is failure); None where there is no Windows."""
    if sys.platform == "win32":
        try:
            kernel32 = ctypes.windll.kernel32
            function = kernel32.SetThreadExecutionState
        except (OSError, AttributeError):
            return None
        function.argtypes = [ctypes.c_uint32]
        function.restype = ctypes.c_uint32
        return cast(Kernel32, kernel32)
    return None


class Windows:
    """``SetThreadExecutionState``: the system may not sleep for idleness while held.

    ES_SYSTEM_REQUIRED without ES_DISPLAY_REQUIRED: the phones are the table's screens,
    so the laptop's display may turn off, and lock, as the host set it to (a display
    kept lit all night drains the battery, and leaves the host's session open to
    anyone at the table). One limit of Windows itself: on a Modern Standby laptop on
    battery, Windows may drop such a request 5 minutes after its own sleep timeout
    (PowerSetRequest's documentation says so of system-required requests), so a long
    night on battery wants the charger.

    The flag belongs to the calling thread, and ES_CONTINUOUS keeps it until that
    thread changes it or ends. Under gevent every greenlet runs on the main OS thread,
    so hold() and release() must be called from a greenlet (or the main thread), never
    from gevent's thread pool: there the flag would be another thread's, and stay set.
    """

    how = "Windows: SetThreadExecutionState"

    def __init__(self, kernel32: Kernel32 | None = None) -> None:
        self._kernel32 = kernel32
        self._held = False
        self.failure = ""

    def hold(self) -> bool:
        if self._held:
            return True
        if self._kernel32 is None:
            self._kernel32 = load_kernel32()
        if self._kernel32 is None:
            self.failure = "kernel32.dll could not be loaded"
            return False
        if _set_state(self._kernel32, ES_CONTINUOUS | ES_SYSTEM_REQUIRED) == 0:
            self.failure = "Windows refused SetThreadExecutionState"
            return False
        self._held = True
        return True

    def release(self) -> None:
        if self._held and self._kernel32 is not None:
            self._held = False
            # The other flags cleared: idle sleep allowed again.
            _set_state(self._kernel32, ES_CONTINUOUS)


def _set_state(kernel32: Kernel32, flags: int) -> int:
    """The previous state, 0 on failure (ctypes's own errors counted as one)."""
    try:
        return int(kernel32.SetThreadExecutionState(flags))
    except (OSError, ctypes.ArgumentError):
        return 0


# -- macOS and Linux: a child process holds while it runs ------------------------------


def macos_command(program: str, pid: int) -> list[str]:
    """``caffeinate``: ``-i`` prevents idle sleep (on battery too; the display may
    still sleep); ``-w`` makes it exit when the server's process does, even crashed."""
    return [program, "-i", "-w", str(pid)]


def linux_command(program: str) -> list[str]:
    """``systemd-inhibit`` holds its lock while its command runs: ``cat`` runs until its
    stdin, a pipe from this process, closes: on release, or when this process dies."""
    return [program, "--what=idle:sleep", "--who=Companion", f"--why={WHY}",
            "--mode=block", "cat"]


def start(command: list[str], stdin: int, settle: float) -> tuple[Process | None, str]:
    """The child started and still running after ``settle`` seconds, or None and why.

    ``subprocess`` is gevent's cooperative one under ``companion serve`` (patched): the
    wait lets the server serve meanwhile."""
    try:
        child = subprocess.Popen(command, stdin=stdin, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
    except OSError as error:
        return None, f"{os.path.basename(command[0])} could not start: {error.strerror}"
    try:
        status = child.wait(timeout=settle)
    except subprocess.TimeoutExpired:
        return child, ""  # still running: holding
    _close_stdin(child)
    return None, f"{os.path.basename(command[0])} ended at once (exit status {status})"


def end(child: Process, timeout: float = END_SECONDS) -> None:
    """End the child and wait for it: one with a stdin pipe is let to end of itself when
    the pipe closes, any other is terminated at once; killed if it does not end within
    ``timeout``. Never raises."""
    piped = child.stdin is not None
    _close_stdin(child)
    steps: list[Callable[[], None]] = [_nothing] if piped else []
    for stop in (*steps, child.terminate, child.kill):
        try:
            stop()
            child.wait(timeout=timeout)
            return
        except subprocess.TimeoutExpired:
            continue
        except OSError:
            return


def _nothing() -> None:
    return None


def _close_stdin(child: Process) -> None:
    pipe: IO[bytes] | None = child.stdin
    if pipe is not None:
        try:
            pipe.close()
        except OSError:
            pass


class _Child:
    """Holds while its child runs; a child that died (killed, or Ctrl+C's SIGINT, which
    reaches the terminal's whole process group) is started again by the next hold()."""

    how = ""
    program = ""

    def __init__(self, settle: float = SETTLE_SECONDS) -> None:
        self._settle = settle
        self._child: Process | None = None
        self.failure = ""

    @property
    def process(self) -> Process | None:
        """The child while held (for the tests and for a look with ``ps``)."""
        return self._child

    def hold(self) -> bool:
        if self._child is not None and self._child.poll() is None:
            return True
        self.release()  # a child that died: its pipe closed, before another starts
        found = shutil.which(self.program)
        if found is None:
            self.failure = f"{self.program} was not found"
            return False
        self._child, self.failure = start(self.command(found), self.stdin(), self._settle)
        return self._child is not None

    def release(self) -> None:
        child, self._child = self._child, None
        if child is not None:
            end(child)

    def command(self, program: str) -> list[str]:
        raise NotImplementedError

    def stdin(self) -> int:
        return subprocess.DEVNULL


class MacOS(_Child):
    """``caffeinate -i -w <pid>`` while held; terminated on release."""

    how = "macOS: caffeinate"
    program = "caffeinate"

    def __init__(self, settle: float = SETTLE_SECONDS, pid: int | None = None) -> None:
        super().__init__(settle)
        self._pid = os.getpid() if pid is None else pid

    def command(self, program: str) -> list[str]:
        return macos_command(program, self._pid)


class Linux(_Child):
    """``systemd-inhibit … cat`` while held, its stdin a pipe; closed on release."""

    how = "Linux: systemd-inhibit"
    program = "systemd-inhibit"

    def command(self, program: str) -> list[str]:
        return linux_command(program)

    def stdin(self) -> int:
        return subprocess.PIPE


class Unsupported:
    """An OS without a known way: never holds, and says so."""

    how = "no known way"

    def __init__(self, system: str) -> None:
        self.failure = f"Companion knows no way to keep {system or 'this system'} awake"

    def hold(self) -> bool:
        return False

    def release(self) -> None:
        return None


# -- When to hold: pure ----------------------------------------------------------------


def idle_over(last_live: float | None, now: float, idle_seconds: float) -> bool:
    """Whether the laptop may sleep again: nothing live yet, or not for ``idle_seconds``."""
    return last_live is None or now - last_live >= idle_seconds


class Watch:
    """Holds ``inhibitor`` while live and until ``idle_seconds`` after the last live
    tick; ``say`` gets :func:`line` on the first hold, and again each time holding
    starts or stops working (never once a minute)."""

    def __init__(self, inhibitor: Inhibitor, idle_seconds: float = IDLE_SECONDS,
                 say: Callable[[str], object] | None = None) -> None:
        self.inhibitor = inhibitor
        self.idle_seconds = idle_seconds
        self._say = say
        self._last_live: float | None = None
        self._held = False
        self._said: bool | None = None

    @property
    def held(self) -> bool:
        return self._held

    def tick(self, live: bool, now: float) -> None:
        """One look: hold while live (again each time: a dead child is restarted), let
        go once nothing has been live for ``idle_seconds``."""
        if live:
            self._last_live = now
            self._held = self.inhibitor.hold()
            self._tell(self._held)
        elif self._held and idle_over(self._last_live, now, self.idle_seconds):
            self.stop()

    def stop(self) -> None:
        """Release (always asked: release() is idempotent)."""
        self._held = False
        self.inhibitor.release()

    def _tell(self, held: bool) -> None:
        if self._say is not None and held != self._said:
            self._said = held
            self._say(line(self.inhibitor, held))


def _always() -> bool:
    return True


def _live_now(live: Callable[[], bool]) -> bool:
    """``live()``, an error in it counted as live: a laptop kept awake a minute too
    long costs less than a night's phones cut off by a locked database."""
    try:
        return bool(live())
    except Exception:
        return True


def keep_awake_while(live: Callable[[], bool], inhibitor: Inhibitor,
                     every: float = EVERY_SECONDS, *, idle_seconds: float = IDLE_SECONDS,
                     say: Callable[[str], object] | None = None,
                     running: Callable[[], bool] = _always,
                     sleep: Callable[[float], object] | None = None,
                     clock: Callable[[], float] | None = None) -> None:
    """Tick a :class:`Watch` every ``every`` seconds until ``running()`` is False or the
    loop is killed (``Greenlet.kill`` raises GreenletExit in its sleep, and waits for the
    release; ``gevent.kill`` does not wait); released either way.

    ``sleep`` and ``clock`` default to ``time.sleep`` and ``time.monotonic`` as they are
    when called, not when this module was imported: ``companion serve`` may patch
    ``time.sleep`` for gevent after the import, and the unpatched one would block every
    phone's greenlet."""
    pause = time.sleep if sleep is None else sleep
    now = time.monotonic if clock is None else clock
    watch = Watch(inhibitor, idle_seconds, say)
    try:
        while running():
            watch.tick(_live_now(live), now())
            pause(every)
    finally:
        watch.stop()
