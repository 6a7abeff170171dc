"""The machine the benches run on: its speed sample, its description, and a wait until
it has settled before a setup is measured.
"""

from __future__ import annotations

import gc
import os
import platform
import time
from pathlib import Path
from typing import Any


def settle(most: float = 90.0) -> float:
    """Before a setup starts, let the last one's leftovers finish: the disk's pending
    writes (the last setup's database, just deleted, can still be on its way to the disk,
    and every fsync of the next setup's writes would wait behind it), the client's own
    garbage, and the machine's load, until its 1-minute average falls below 1 (at most
    ``most`` seconds). A setup measured right after another's 200 tables otherwise
    started on a busy machine. Returns the seconds it waited."""
    start = time.monotonic()
    gc.collect()
    os.sync()
    while os.getloadavg()[0] >= 1 and time.monotonic() - start < most:
        time.sleep(1)
    return time.monotonic() - start


def cpu_ms() -> float:
    """How fast this machine is right now: the best of three runs of a fixed pure-Python
    loop, in ms (lower is faster). A shared VM's speed drifts; levels record it."""
    def once():
        start, total = time.perf_counter(), 0
        for i in range(1_000_000):
            total += i * i
        return (time.perf_counter() - start) * 1000
    return round(min(once() for _ in range(3)), 1)


def machine() -> dict[str, Any]:
    cpu = "?"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    load = os.getloadavg()
    return {"nproc": os.cpu_count(), "cpu": cpu, "python": platform.python_version(),
            "platform": platform.platform(), "loadavg_at_start": [round(x, 2) for x in load],
            "cpu_ms_at_start": cpu_ms(),
            "date": time.strftime("%Y-%m-%d %H:%M %Z")}
