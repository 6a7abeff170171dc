"""Keep the laptop awake while a night is live, and let it sleep again after.

The laptop is the table's server: when it sleeps, every phone says "Connection lost".
Windows and macOS on battery sleep after a few idle minutes, and no one touches the
laptop during a game. So while a night is live, the server asks the OS not to sleep
for idleness:

- Windows and macOS (and any other system but Linux): wakepy's ``keep.running`` mode,
  which is ``SetThreadExecutionState(ES_CONTINUOUS | ES_SYSTEM_REQUIRED)`` on Windows and
  a ``caffeinate`` child on macOS;
- Linux: a ``systemd-inhibit --what=idle:sleep … cat`` child, where logind is. wakepy
  asks a desktop's D-Bus services there, which a laptop without a desktop session lacks;
  logind answers with or without one (docs/architecture.md, "laptop/awake.py").

The request ends when the server stops, or when nothing has been live for
:data:`IDLE_SECONDS`: a laptop left serving an empty room sleeps as it always did. Each
way also ends by itself when the server's process dies, even killed: the thread's flag
dies with the thread, and ``cat`` (under ``caffeinate`` or ``systemd-inhibit``) sees its
pipe close. Closing the lid still sleeps most laptops, whatever is asked here.

Two halves. :class:`Watch` and the small functions are pure: they decide when to hold
and release, from a clock and whether the night is live, which the caller computes
(this module knows nothing of devices or games). The inhibitors make the platform
calls; none raises: a failure is ``hold() -> False`` and a reason in ``failure``, in
the host's words, for the one line ``companion serve`` prints (:func:`line`).
"""

from __future__ import annotations

import contextlib
import platform
import shutil
import subprocess
import time
from collections.abc import Callable
from typing import Protocol

from companion.core.errors import N_
from companion.laptop.words import gettext as _

try:
    from wakepy import keep
except ImportError:  # a dependency on Windows and macOS only (requirements.in): Linux has ours
    keep = None  # type: ignore[assignment]

#: Seconds without anything live after which the laptop may sleep again.
IDLE_SECONDS = 30 * 60
#: Seconds between two looks at whether the night is live (:func:`keep_awake_while`).
EVERY_SECONDS = 60.0
#: Seconds a started child must stay up to count as holding: without logind (a
#: container, a system without systemd) ``systemd-inhibit`` exits at once.
SETTLE_SECONDS = 0.5
#: Seconds a child is given to end on its own before it is killed.
END_SECONDS = 2.0

WHY = "A game night is live"
#: The names a host knows a system by (``platform.system()`` says "Darwin").
SYSTEM_NAMES = {"Darwin": "macOS"}

HELD = N_("This laptop stays awake while a night is live (%(how)s); closing its lid may "
          "still put it to sleep.")
NOT_HELD = N_("Keep this laptop awake yourself (%(why)s): set it not to sleep until the "
              "night ends, or every phone loses the connection when it does.")
#: Why, when the system was asked and said no.
REFUSED = N_("%(system)s did not allow it")
#: Why, when there was nothing to ask.
NO_WAY = N_("Companion knows no way to keep %(system)s awake")


class Inhibitor(Protocol):
    """One OS's way to keep the laptop from sleeping."""

    #: How it does it, in a few words ("Windows: SetThreadExecutionState").
    how: str
    #: Why the last hold() failed, as a clause in the host's words ("" until one did).
    failure: str

    def hold(self) -> bool:
        """Ask the OS to keep the laptop awake; True when it now does. Idempotent."""
        ...

    def release(self) -> None:
        """Let the laptop sleep again. Idempotent; never raises."""
        ...


def inhibitor(system: str | None = None) -> Inhibitor:
    """This OS's inhibitor (``platform.system()``'s name)."""
    name = platform.system() if system is None else system
    if name == "Linux":
        return Linux()
    return Wakepy(SYSTEM_NAMES.get(name, name))


def line(holder: Inhibitor, held: bool) -> str:
    """The one line ``companion serve`` prints on how the laptop's sleep is handled."""
    if held:
        return _(HELD, how=holder.how)
    return _(NOT_HELD, why=holder.failure)


class Wakepy:
    """wakepy's ``keep.running`` mode, entered on hold and exited on release.

    It keeps the system from sleeping for idleness and leaves the display alone: the
    phones are the table's screens, so the laptop's display may turn off, and lock, as
    the host set it to. On Windows the flag is set on a thread of wakepy's own, which
    under gevent is a greenlet on the main thread, where the flag lives until released.
    wakepy is imported with this module where it is installed (Windows and macOS).
    """

    def __init__(self, system: str) -> None:
        self.system = system
        self.how = system
        self.failure = ""
        self._held = contextlib.ExitStack()
        self._holding = False

    def hold(self) -> bool:
        if self._holding:
            return True
        mode = self._held.enter_context(keep.running(on_fail="pass"))
        method = mode.active_method
        if method is None:
            # No method fit this system at all, or those that did were refused.
            tried = mode.result.list_methods()
            self.failure = _(REFUSED if tried else NO_WAY, system=self.system)
            self.release()
            return False
        self.how = f"{self.system}: {method.name}"
        self._holding = True
        return True

    def release(self) -> None:
        self._holding = False
        # wakepy raises where its own release fails; the laptop sleeps as it would.
        with contextlib.suppress(Exception):
            self._held.close()


class Linux:
    """``systemd-inhibit … cat`` while held: logind holds the lock while ``cat`` runs,
    and ``cat`` runs until its stdin, a pipe from this process, closes (on release, or
    when this process dies). A child that died (killed, or Ctrl+C's SIGINT, which
    reaches the terminal's whole process group) is started again by the next hold().

    ``subprocess`` is gevent's cooperative one under ``companion serve`` (patched): the
    waits let the server serve meanwhile."""

    how = "Linux: systemd-inhibit"

    def __init__(self, settle: float = SETTLE_SECONDS) -> None:
        self._settle = settle
        #: The child while held (for the tests, and for a look with ``ps``).
        self.process: subprocess.Popen[bytes] | None = None
        self.failure = ""

    def hold(self) -> bool:
        if self.process is not None and self.process.poll() is None:
            return True
        self.release()  # a child that died: its pipe closed, before another starts
        found = shutil.which("systemd-inhibit")
        if found is None:
            self.failure = _(NO_WAY, system="Linux")
            return False
        command = [found, "--what=idle:sleep", "--who=Companion", f"--why={WHY}",
                   "--mode=block", "cat"]
        try:
            child = subprocess.Popen(command, stdin=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError:
            self.failure = _(REFUSED, system="Linux")
            return False
        try:
            child.wait(timeout=self._settle)
        except subprocess.TimeoutExpired:
            self.process = child  # still running: holding
            return True
        end(child)  # it ended at once: logind refused, or there is none
        self.failure = _(REFUSED, system="Linux")
        return False

    def release(self) -> None:
        child, self.process = self.process, None
        if child is not None:
            end(child)


def end(child: subprocess.Popen[bytes], timeout: float = END_SECONDS) -> None:
    """Close the child's stdin, so that ``cat`` and the lock end of themselves, and
    wait; killed if it has not ended within ``timeout``. Never raises."""
    with contextlib.suppress(OSError):
        if child.stdin is not None:
            child.stdin.close()
    try:
        child.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(OSError):
            child.kill()
            child.wait(timeout=timeout)


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
