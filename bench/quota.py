"""A slower laptop on this one: a server process under a CPU quota (the cgroup cpu controller).

Hosts bring what they have (an old laptop, a small office PC, a Raspberry Pi in a café).
The kernel's CFS bandwidth control gives a group of processes at most ``cores`` CPUs'
worth of time each period, however many cores the box has, so one box measures a slower
one. The group is made fresh for each server and removed after; every process the server
starts later (gunicorn's workers) is born in it.

    with Quota(0.5) as quota:                       # half a core
        subprocess.Popen(argv, preexec_fn=quota.enter)

Needs root and the cpu controller, cgroup v1 (``/sys/fs/cgroup/cpu``) or v2 (``cpu.max``);
``available()`` says whether this box has them. ``Quota(None)`` is no quota at all.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PERIOD_US = 100_000  # the kernel's default period: 100 ms
# A group's weight against the box's other work, in tasks: a new group weighs as much as
# one task, so on a box busy with other jobs its processes together got less than
# their quota. At the weight of this many tasks it gets its quota (and never more).
WEIGHT_TASKS = 8


def _v1() -> Path | None:
    path = ROOT / "cpu"
    return path if (path / "cpu.cfs_quota_us").exists() else None


def _v2() -> Path | None:
    for path in (ROOT, ROOT / "unified"):
        controllers = path / "cgroup.controllers"
        if controllers.exists() and "cpu" in controllers.read_text().split():
            return path
    return None


def available() -> bool:
    """Whether this process can put a server under a CPU quota here."""
    return os.geteuid() == 0 and (_v1() is not None or _v2() is not None)


class Quota:
    """A fresh cgroup holding its processes to ``cores`` CPUs (None: no limit)."""

    def __init__(self, cores: float | None, period_us: int = PERIOD_US):
        if cores is not None and cores <= 0:
            raise ValueError("cores must be more than 0")
        if not 1000 <= period_us <= 1_000_000:
            raise ValueError("the kernel's period is 1 ms to 1 s")
        self.cores = cores
        self.period_us = period_us
        self.path: Path | None = None

    def __enter__(self) -> Quota:
        if self.cores is None:
            return self
        if not available():
            raise RuntimeError("a CPU quota needs root and the cgroup cpu controller")
        quota_us = max(1000, round(self.cores * self.period_us))
        name = f"companion-bench-{uuid.uuid4().hex[:8]}"
        v1 = _v1()
        if v1 is not None:
            self.path = v1 / name
            self.path.mkdir()
            (self.path / "cpu.cfs_period_us").write_text(str(self.period_us))
            (self.path / "cpu.cfs_quota_us").write_text(str(quota_us))
            (self.path / "cpu.shares").write_text(str(1024 * WEIGHT_TASKS))
        else:
            parent = _v2()
            assert parent is not None
            if "cpu" not in (parent / "cgroup.subtree_control").read_text().split():
                (parent / "cgroup.subtree_control").write_text("+cpu")
            self.path = parent / name
            self.path.mkdir()
            (self.path / "cpu.max").write_text(f"{quota_us} {self.period_us}")
            (self.path / "cpu.weight").write_text(str(100 * WEIGHT_TASKS))
        return self

    def enter(self) -> None:
        """Put the calling process in the group: a ``preexec_fn``, so the server and all
        it forks are held from their first instruction."""
        if self.path is not None:
            (self.path / "cgroup.procs").write_text(str(os.getpid()))

    def throttled_ms(self) -> float | None:
        """How long the group has been held back by its quota so far, in ms."""
        if self.path is None:
            return None
        for line in (self.path / "cpu.stat").read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == "throttled_time":  # v1, ns
                return int(value) / 1e6
            if key == "throttled_usec":  # v2
                return int(value) / 1e3
        return None

    def __exit__(self, *exc: object) -> None:
        if self.path is None:
            return
        # The processes must be gone (or moved out) before the group can be removed.
        parent_procs = self.path.parent / "cgroup.procs"
        for pid in (self.path / "cgroup.procs").read_text().split():
            try:
                parent_procs.write_text(pid)
            except OSError:
                pass  # exited meanwhile
        self.path.rmdir()
        self.path = None
