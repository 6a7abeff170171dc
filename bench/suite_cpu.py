"""Where the test suite's time goes: the CPU each test used, its browsers and servers
included, as a pytest plugin.

On a two-core box the browser stage is bound by CPU, not by waiting (its tests' CPU
adds up to about twice its wall time), and a test's own process sees little of it: the
work is in the Chromium, Firefox and server processes it starts. So each test worker
moves itself into a cgroup of the cpuacct controller of its own (v1, as root: the
processes it starts join it), and after each test appends a line to ``--suite-cpu``'s
file: the test, its CPU seconds and its wall seconds. A browser a worker keeps between
tests counts towards the test running when it works.

    sudo .venv/bin/pytest -p bench.suite_cpu --suite-cpu /tmp/cpu.jsonl -n auto -m "browser or slow"
    .venv/bin/python -m bench.suite_cpu /tmp/cpu.jsonl        # the tests by CPU, a total
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

CPUACCT = Path("/sys/fs/cgroup/cpuacct")
GROUP = pytest.StashKey[Path | None]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--suite-cpu", metavar="FILE",
                     help="append each test's CPU and wall seconds to FILE (JSON lines)")


def _group(config: pytest.Config) -> Path | None:
    """This worker's own cgroup, made and joined once; None where it cannot be."""
    if not config.getoption("--suite-cpu") or not os.access(CPUACCT, os.W_OK):
        return None
    group = CPUACCT / f"suite-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}-{os.getpid()}"
    group.mkdir(exist_ok=True)
    (group / "cgroup.procs").write_text(str(os.getpid()))
    return group


def pytest_configure(config: pytest.Config) -> None:
    config.stash[GROUP] = _group(config)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Leave the worker's cgroup, and remove it once nothing is left in it."""
    group = config.stash.get(GROUP, None)
    if group is None:
        return
    (CPUACCT / "cgroup.procs").write_text(str(os.getpid()))
    try:
        group.rmdir()
    except OSError:  # a process the worker started is still there
        pass


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    group = item.config.stash.get(GROUP, None)
    if group is None:
        yield
        return
    used = int((group / "cpuacct.usage").read_text())
    started = time.monotonic()
    yield
    cpu = (int((group / "cpuacct.usage").read_text()) - used) / 1e9
    line = {"test": item.nodeid, "cpu_s": round(cpu, 2),
            "wall_s": round(time.monotonic() - started, 2)}
    with open(item.config.getoption("--suite-cpu"), "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


def summary(lines: list[dict[str, Any]], top: int = 25) -> str:
    """The tests by CPU seconds, most first, with the total and each one's share."""
    lines = sorted(lines, key=lambda line: -line["cpu_s"])
    total = sum(line["cpu_s"] for line in lines) or 1.0
    out = [f"{len(lines)} tests: {total:,.0f} s of CPU, "
           f"{sum(line['wall_s'] for line in lines):,.0f} s of wall time in all"]
    for line in lines[:top]:
        out.append(f"{line['cpu_s']:7.1f} s CPU {line['wall_s']:7.1f} s wall "
                   f"{line['cpu_s'] / total:6.1%}  {line['test']}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print(__doc__)
        return 2
    lines = [json.loads(text) for text in Path(args[0]).read_text().splitlines() if text]
    print(summary(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
