"""The program a host double-clicks (packaging/build.py), measured: its size, and the time
from its start with no arguments (a double-click) to the first 200 answer of its start
page, ``http://localhost:<port>/`` (docs/performance.md, "The program").

    .venv/bin/python -m bench.program [PROGRAM] [--runs 7] [--json report.json]

Without PROGRAM it builds the program for this machine into a temporary folder first.
Each run starts it in a new home of its own (packaging/smoke.py's: its data folder is
made and migrated, as at a host's first double-click) and then once more in that home
(every later start), with a browser that opens nothing; the port is read from what it
prints, the page asked for every 10 ms until it answers 200, and Ctrl+C stops it. A
one-file program unpacks itself into a temporary folder at every start: that is part of
the time. Figures, never assertions; the speed sample is bench/machine.py's.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from bench.machine import machine, settle

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
#: How often the page is asked for while the program starts.
POLL_S = 0.01


def _script(name: str) -> Any:
    """packaging/<name>.py as a module (packaging/ is no package)."""
    spec = importlib.util.spec_from_file_location(f"packaging_{name}", PACKAGING / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


smoke = _script("smoke")


def built(folder: Path) -> Path:
    """The program for this machine, built into ``folder``."""
    subprocess.run([sys.executable, str(PACKAGING / "build.py"), "--dist", str(folder / "dist"),
                    "--work", str(folder / "work")], check=True, stdout=subprocess.DEVNULL)
    (program,) = (folder / "dist").iterdir()
    return program


def time_to_page(path: Path, home: Path, timeout: float = 60) -> float:
    """Seconds from the program's start (no arguments) to its start page's first 200."""
    browser, _noted = smoke.browser_recorder(home)
    env = smoke.isolated_env(home, browser)
    start = time.perf_counter()
    program = smoke.Program(path, [], env, home)
    try:
        while time.perf_counter() - start < timeout:
            port = smoke.port_in(program.output)
            if port is not None:
                try:
                    with urllib.request.urlopen(f"http://localhost:{port}/", timeout=5) as page:
                        if page.status == 200:
                            return time.perf_counter() - start
                except (OSError, urllib.error.HTTPError):
                    pass
            if program.process.poll() is not None:
                raise RuntimeError(f"the program ended: {program.output}")
            time.sleep(POLL_S)
        raise RuntimeError(f"no page within {timeout} s: {program.output}")
    finally:
        if program.process.poll() is None:
            program.stop(timeout)
        else:
            program.kill()


def spread(seconds: list[float]) -> dict[str, Any]:
    """Median and range of a series of times, in seconds."""
    return {"median_s": round(statistics.median(seconds), 3),
            "min_s": round(min(seconds), 3), "max_s": round(max(seconds), 3),
            "runs_s": [round(s, 3) for s in seconds]}


def measure(path: Path, runs: int) -> dict[str, Any]:
    """The program's size and its times to the page, first and later starts."""
    report: dict[str, Any] = {"program": path.name, "bytes": path.stat().st_size}
    settle(30)
    report["machine_at_start"] = machine()
    first, later = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="companion-bench-") as folder:
            home = Path(folder)
            first.append(time_to_page(path, home))
            later.append(time_to_page(path, home))
    report["first_start"], report["later_start"] = spread(first), spread(later)
    report["machine_at_end"] = machine()
    return report


def summary(report: dict[str, Any]) -> str:
    def line(what: str, times: dict[str, Any]) -> str:
        return (f"{what}: median {times['median_s']:.2f} s ({times['min_s']:.2f}–"
                f"{times['max_s']:.2f} s), {len(times['runs_s'])} runs")

    start, end = report["machine_at_start"], report["machine_at_end"]
    return "\n".join([
        f"program: {report['program']}",
        f"size: {report['bytes']:,} bytes ({report['bytes'] / 1e6:.1f} MB)",
        line("start to page, first start (a new home)", report["first_start"]),
        line("start to page, a later start (same home)", report["later_start"]),
        f"speed sample (cpu_ms, lower is faster): {start['cpu_ms_at_start']} at the start, "
        f"{end['cpu_ms_at_start']} at the end; load average {start['loadavg_at_start'][0]} "
        f"at the start; {start['cpu']}, {start['nproc']} cores",
    ])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("program", nargs="?", type=Path,
                        help="the built program (default: build it into a temporary folder)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", help="write the report here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="companion-build-") as folder:
        path = args.program.resolve() if args.program else built(Path(folder))
        report = measure(path, args.runs)
    print(summary(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
