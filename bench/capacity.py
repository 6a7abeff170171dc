"""How many tables a setup holds on a slower laptop: the capacity search.

For each setup (`companion serve`, the café) and each CPU quota (bench/quota.py: the
server held to so many cores, as a slower machine would hold it), it runs the load
bench's levels of tables (bench/levels.py, ``measure_level``: real tables, every device
on its live connection, every host writing) at counts it chooses: doubling from a first
guess while the level holds (halving while it does not), then halving the gap between
the largest count held and the smallest not held until they are within ``--tolerance``
(10 %). A level is *held* when it keeps every budget of a table (``over_budget``):
polls, fragments, writes and pages p99 under 50 ms, no error, and a write visible on
every screen of its table within 300 ms (p95). The figure is the largest count held
below the smallest not held.

Beside it, in the same run and under the same quota, the floor's saturated throughput
(bench/floor.py, a bare Flask "hello" served the same way): the box's raw speed under that
quota. Tables held per 1,000 floor requests a second is the figure two boxes compare by
(docs/performance.md, "Current figures").

    .venv/bin/python -m bench.capacity --json capacity.json         # all (~45 min)
    .venv/bin/python -m bench.capacity --servers serve --cpus 0.25  # one search
    .venv/bin/python -m bench.capacity --table capacity.json        # its table
    .venv/bin/python -m bench.capacity --guide capacity.json        # the guide's

A report the docs cite is kept as docs/measurements/<YYYY-MM-DD>/capacity-<YYYY-MM-DD>.json
(the day it was measured), and listed in docs/measurements/README.md.

Needs root and the cgroup cpu controller (bench/quota.py), like ``bench.py --cpus``.
The search's logic (``over_budget``, ``next_count``, ``capacity``) and the tables made
from a report are pure: tests/test_bench_capacity.py checks them without a server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import budgets  # noqa: E402
from bench.quota import Quota  # noqa: E402

P99_MS = 50          # polls, fragments, writes and pages, p99: under this
SEEN_P95_MS = 300    # a write until every screen of its table shows it, p95: at most this
REQUESTS = {"poll": "poll", "live": "fragment", "write": "write", "page": "page"}
ERRORS = (*REQUESTS, "stream")  # a stream refused or dropped is an error too
SETUP_SHORT = {"serve": "one process (`companion serve`)", "gunicorn": "café (gunicorn -w 2)"}
KILO = 1000  # tables per this many floor requests a second


# --- the search's logic (pure) ---------------------------------------------------------

def over_budget(level: dict[str, Any]) -> list[str]:
    """Why a level of the load bench (``measure_level``'s figures) is over a table's budgets;
    empty when it holds. A figure not measured (no answer at all) is over."""
    if "skipped" in level:
        return [f"skipped: {level['skipped']}"]
    return _set_up(level) + _slow(level) + _errors(level) + _late(level)


def not_in_time(level: dict[str, Any]) -> list[str]:
    """Why a level fails what a phone sees (``over_budget`` with the p99s aside): a
    table not set up, an error, no write measured, or a write not on every screen of its
    table within 300 ms (p95); empty when every write was seen in time."""
    if "skipped" in level:
        return [f"skipped: {level['skipped']}"]
    unmeasured = [] if level["write"]["n"] else ["no write measured"]
    return _set_up(level) + unmeasured + _errors(level) + _late(level)


def _set_up(level: dict[str, Any]) -> list[str]:
    failed = level.get("setup_failed")
    return [f"{failed} tables could not be set up"] if failed else []


def _slow(level: dict[str, Any]) -> list[str]:
    """Each kind of request whose p99 is not under ``P99_MS`` (a kind nobody asked in
    the window is not judged: a short one, or every answer was a change; writes are)."""
    why = []
    for kind, name in REQUESTS.items():
        p99 = level[kind]["p99"]
        if kind != "write" and level[kind]["n"] == 0:
            continue
        if p99 is None or p99 >= P99_MS:
            why.append(f"{name} p99 {p99} ms")
    return why


def _errors(level: dict[str, Any]) -> list[str]:
    errors = {kind: level[kind]["errors"] for kind in ERRORS if level[kind]["errors"]}
    return ["errors " + ", ".join(f"{k} {v}" for k, v in errors.items())] if errors else []


def _late(level: dict[str, Any]) -> list[str]:
    seen = level["seen_ms"]["p95"]
    return [] if seen is not None and seen <= SEEN_P95_MS else [f"write→visible p95 {seen} ms"]


def bounds(held: dict[int, bool]) -> tuple[int, int | None]:
    """(the largest count held below the smallest not held, or 0; that smallest count
    not held, or None). A count held above one not held (a noisy level) is not counted."""
    over = min((count for count, ok in held.items() if not ok), default=None)
    below = [count for count, ok in held.items() if ok and (over is None or count < over)]
    return max(below, default=0), over


def capacity(held: dict[int, bool]) -> int:
    """The most tables held: the largest count held below the smallest not held."""
    return bounds(held)[0]


def next_count(held: dict[int, bool], start: int, tolerance: float = 0.1,
               most: int = 512) -> int | None:
    """The next table count to measure given the levels so far ({count: held}), or None
    when the search is done: ``start`` first; doubling while every level holds (up to
    ``most``), halving while none does (down to 1); then the middle of the gap until the
    smallest count not held is within ``tolerance`` of the largest held (or 1 table)."""
    if not held:
        return start
    low, high = bounds(held)
    if high is None:  # everything measured held: double
        return None if low >= most else min(low * 2, most)
    if low == 0:  # nothing held: halve
        return None if high <= 1 else high // 2
    if high - low <= max(1, tolerance * low):
        return None
    return (low + high) // 2


def quota_key(cores: float) -> str:
    """A quota's key in the report, in millicores ("500m": half a core): the report's
    paths are dotted (bench/budgets.py), so "0.5" cannot be one."""
    return f"{round(cores * 1000)}m"


def first_guess(found: dict[float, int], cores: float, default: int) -> int:
    """Where a search starts: the capacity found at the nearest quota already searched,
    scaled by cores (a tenth less, so the first level likely holds), else ``default``
    (none searched, or none held: twice nothing says nothing)."""
    found = {c: tables for c, tables in found.items() if tables}
    if not found:
        return default
    nearest = min(found, key=lambda c: abs(c - cores))
    return max(1, round(found[nearest] * cores / nearest * 0.9))


# --- the tables of docs/performance.md and docs/guide.md (pure) --------------------------

def worst_p99(level: dict[str, Any]) -> tuple[float | None, str]:
    """The largest p99 of polls, fragments, writes and pages at a level, and its name."""
    found = [(level[k]["p99"], name) for k, name in REQUESTS.items()
             if level.get(k, {}).get("p99") is not None]
    return max(found, default=(None, ""))


def rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per setup and quota of a capacity report (setups in the report's order,
    most cores first): the figures of the current-figures table."""
    out = []
    for setup, result in report["servers"].items():
        quotas = sorted(result["quotas"].values(), key=lambda q: -q["cores"])
        for q in quotas:
            held = q["levels"].get(str(q["tables"])) if q["tables"] else None
            p99, which = worst_p99(held) if held else (None, "")
            over = q.get("first_over")
            out.append({
                "setup": setup, "cores": q["cores"], "tables": q["tables"],
                "p99": p99, "p99_of": which,
                "seen_p95": held["seen_ms"]["p95"] if held else None,
                "floor_rps": q.get("floor_rps"), "per_floor": q.get("per_floor"),
                "cpu_ms": held["cpu_ms_after"] if held else None,
                "first_over": over,
                "why": "; ".join(q["levels"][str(over)]["over_budget"]) if over else "",
                "in_time": q.get("tables_in_time"),
                "in_time_capped": q.get("in_time_first_over") is None})
    return out


def whole(value: float | None) -> int | None:
    return None if value is None else round(value)


def at_least(tables: int | None, capped: bool) -> str:
    """A count of tables, "≥ N" when no larger level failed (the search stopped first)."""
    return text(tables) if tables is None or not capped else f"≥ {text(tables)}"


def text(value: Any) -> str:
    return "–" if value is None else budgets.number(value)


def markdown_table(report: dict[str, Any], source: str | None = None) -> str:
    """The current-figures table of docs/performance.md, from a capacity report."""
    lines = []
    if source:
        lines.append(f"<!-- generated by `python -m bench.capacity --table {source}`: "
                     "do not edit by hand -->")
    lines += ["| setup | cores | tables held | p99 ms (worst kind) | write→visible p95 ms "
              "| floor req/s | tables per 1,000 floor req/s | next level tried "
              "| tables seen in time, p99 aside | cpu_ms |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows(report):
        over = f"{r['first_over']}: {r['why']}" if r["first_over"] else "–"
        lines.append(
            f"| {SETUP_SHORT.get(r['setup'], r['setup'])} | {text(r['cores'])} "
            f"| **{r['tables']}** | {text(r['p99'])} ({r['p99_of'] or '–'}) "
            f"| {text(r['seen_p95'])} | {text(whole(r['floor_rps']))} | {text(r['per_floor'])} "
            f"| {over} | {at_least(r['in_time'], r['in_time_capped'])} "
            f"| {text(r['cpu_ms'])} |")
    return "\n".join(lines)


def guide_table(report: dict[str, Any], source: str | None = None) -> str:
    """docs/guide.md's figures: tables held per setup and cores (no timings: those stay in
    docs/performance.md beside the machine's speed), from the same rows."""
    lines = []
    if source:
        lines.append(f"<!-- generated by `python -m bench.capacity --guide {source}` "
                     "(docs/performance.md, \"Current figures\"): do not edit by hand -->")
    setups = list(dict.fromkeys(r["setup"] for r in rows(report)))
    cores = sorted({r["cores"] for r in rows(report)}, reverse=True)
    by = {(r["setup"], r["cores"]): r for r in rows(report)}
    lines.append("| tables held at | " + " | ".join(f"{text(c)} cores" for c in cores) + " |")
    lines.append("|---|" + "---|" * len(cores))
    for setup in setups:
        for label, figure in GUIDE_ROWS:
            cells = [figure(by[setup, c]) if (setup, c) in by else "–" for c in cores]
            lines.append(f"| {SETUP_SHORT.get(setup, setup)}, {label} | "
                         + " | ".join(cells) + " |")
    return "\n".join(lines)


#: The guide's two rows per setup, each a column of the current-figures table.
GUIDE_ROWS = (
    ("within every budget", lambda r: text(r["tables"])),
    ("every write seen in time", lambda r: at_least(r["in_time"], r["in_time_capped"])),
)


# --- the run ------------------------------------------------------------------------------

def server_cpu_seconds(pids: list[int]) -> float:
    """CPU time (user + system) the server's live processes have used so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / ticks


def quota_held(server: Any, ns: argparse.Namespace) -> Any:
    """A server (not started yet) under this search's quota and CFS period."""
    server.quota = Quota(ns.cpus, round(ns.period_ms * 1000))
    return server


async def floor_throughput(kind: str, ns: argparse.Namespace) -> dict[str, Any]:
    """The floor's hello, saturated, under the same quota: ``--floor-runs`` runs, their
    median (the box's raw speed under this quota)."""
    from bench import levels, servers

    floor = quota_held(servers.floor_server(kind, ns), ns).start()
    try:
        runs = [await levels.saturate(f"http://127.0.0.1:{floor.port}/", ns.saturate_seconds,
                                     ns.saturate_connections) for _ in range(ns.floor_runs)]
    finally:
        floor.stop()
    rps = sorted(r["rps"] for r in runs if r and r["rps"])
    return {"runs": runs, "rps": rps[len(rps) // 2] if rps else None,
            "argv": " ".join(floor.argv)}


async def one_level(server: Any, database: str, count: int, tables: list[Any],
                    ns: argparse.Namespace) -> tuple[list[Any], dict[str, Any]]:
    """The load bench's level at ``count`` tables (the first ``count`` of ``tables``, more
    built if needed), with the server's CPU use and the quota's throttling."""
    from bench import levels

    for table in tables[count:]:  # idle tables keep no connection open
        for device in [table.host, table.host_poller, *table.phones]:
            device.close()
    pids, cpu0 = server.pids(), server_cpu_seconds(server.pids())
    throttled0, start = server.quota.throttled_ms(), time.monotonic()
    try:
        used, level = await levels.measure_level(server, database, count, tables[:count], ns)
    except levels.SetupError as error:
        return tables, {"skipped": str(error)}
    elapsed = time.monotonic() - start
    level["server_cpu_s"] = round(server_cpu_seconds(pids) - cpu0, 1)
    level["server_cores_used"] = round(level["server_cpu_s"] / elapsed, 2)
    throttled = server.quota.throttled_ms()
    if throttled is not None and throttled0 is not None:
        level["throttled_ms"] = round(throttled - throttled0)
    level["loadavg"] = [round(x, 2) for x in os.getloadavg()]
    return used + tables[len(used):], level


async def search(kind: str, cores: float, start: int, args: argparse.Namespace
                 ) -> dict[str, Any]:
    """One setup under one quota: its floor, then levels until ``next_count`` is done."""
    from bench import machine, servers

    ns = bench_args(args, cores)
    print(f"\n== {kind} at {cores} cores (from {start} tables) ==", flush=True)
    print(f"settled in {machine.settle(args.settle):.0f} s", flush=True)
    result: dict[str, Any] = {"cores": cores, "start": start, "levels": {}, "order": []}
    result["floor"] = await floor_throughput(kind, ns)
    print(f"floor: {result['floor']['rps']} req/s", flush=True)
    workdir = tempfile.mkdtemp(prefix="companion-capacity-")
    database = str(Path(workdir) / "bench.sqlite")
    server = quota_held(servers.companion_server(kind, database, ns), ns).start()
    result["argv"] = " ".join(server.argv)
    held: dict[int, bool] = {}
    tables: list[Any] = []
    try:
        while (count := next_count(held, start, args.tolerance, args.most)) is not None:
            tables, level = await one_level(server, database, count, tables, ns)
            level["over_budget"] = over_budget(level)
            held[count] = not level["over_budget"]
            result["levels"][str(count)] = level
            result["order"].append(count)
            print(f"T={count}: {'held' if held[count] else 'over: '}"
                  f"{'; '.join(level['over_budget'])} (server {level.get('server_cores_used')}"
                  f" cores)", flush=True)
            await asyncio.sleep(args.rest)  # let a level over budget drain first
        for table in tables:
            for device in [table.host, table.host_poller, *table.phones]:
                device.close()
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    return judged(result)


def judged(result: dict[str, Any]) -> dict[str, Any]:
    """A search's figures from its levels (again: ``--rejudge`` after the criteria
    change): each level's ``over_budget``; ``tables``, the most held, and ``first_over``,
    the smallest count over; ``tables_in_time``, the most with every write seen in time
    (``not_in_time``: the p99s aside) and ``in_time_first_over``; the floor ratio."""
    levels = result["levels"]
    for level in levels.values():
        level["over_budget"] = over_budget(level)
    held = {int(c): not level["over_budget"] for c, level in levels.items()}
    result["tables"], result["first_over"] = bounds(held)
    in_time = {int(c): not not_in_time(level) for c, level in levels.items()}
    result["tables_in_time"], result["in_time_first_over"] = bounds(in_time)
    result["floor_rps"] = result["floor"]["rps"]
    result["per_floor"] = (round(result["tables"] / result["floor_rps"] * KILO, 2)
                           if result["floor_rps"] else None)
    return result


def rejudge(report: dict[str, Any]) -> dict[str, Any]:
    """A saved report judged again by this module's criteria and the budgets."""
    for result in report["servers"].values():
        for search_result in result["quotas"].values():
            judged(search_result)
    report["budgets"] = [v.as_dict() for v in budgets.judge(
        report, budgets=budgets.CAPACITY_BUDGETS)]
    return report


def bench_args(args: argparse.Namespace, cores: float) -> argparse.Namespace:
    """bench.py's options for one search's levels, floor and server."""
    from bench import bench

    ns = bench.parse_args(["--seconds", str(args.seconds), "--warmup", str(args.warmup),
                           "--min-writes", str(args.min_writes),
                           "--saturate-seconds", str(args.saturate_seconds)])
    ns.cpus = None if args.no_quota else cores
    ns.floor_runs, ns.period_ms = args.floor_runs, args.period_ms
    return ns


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Every setup at every quota (fewest cores first: each search starts from the
    figure of the setup's last one), the report saved after each search."""
    from bench import machine

    if args.priority:
        os.setpriority(os.PRIO_PROCESS, 0, args.priority)
    # Every table's host comes from 127.0.0.1: lift the new nights an hour one address
    # may start (companion/store/quotas.py), as bench/servers.py does; past 30 tables
    # every level failed on it. The servers' environment is this one's.
    os.environ["COMPANION_NIGHTS_AN_HOUR"] = "1000000"
    report: dict[str, Any] = {
        "kind": "capacity", "machine": machine.machine(),
        "command": " ".join(["python -m bench.capacity", *sys.argv[1:]]),
        "limits": {"p99_ms": P99_MS, "seen_p95_ms": SEEN_P95_MS, "errors": 0},
        "search": {k: getattr(args, k) for k in ("seconds", "warmup", "min_writes",
                                                 "tolerance", "most", "start", "period_ms",
                                                 "priority", "no_quota")},
        "servers": {}}
    print(json.dumps(report["machine"]), flush=True)
    if args.resume:  # a run cut short: its searches kept, the missing ones run
        report = {**json.loads(Path(args.json).read_text()),
                  "resumed": {"machine": report["machine"], "command": report["command"]}}
    found: dict[str, dict[float, int]] = {kind: {} for kind in args.servers}
    for kind in args.servers:
        report["servers"].setdefault(kind, {"quotas": {}})
    for cores in sorted(args.cpus):  # the slowest first: a run cut short has them
        for kind in args.servers:
            done = report["servers"][kind]["quotas"].get(quota_key(cores))
            if done is not None:
                found[kind][cores] = done["tables"]
                continue
            start = first_guess(found[kind], cores, args.start)
            result = asyncio.run(search(kind, cores, start, args))
            report["servers"][kind]["quotas"][quota_key(cores)] = result
            found[kind][cores] = result["tables"]
            save(report, args.json)
    report["machine"]["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    report["machine"]["cpu_ms_at_end"] = machine.cpu_ms()
    save(rejudge(report), args.json)
    return report


def save(report: dict[str, Any], where: str | None) -> None:
    if where:
        Path(where).write_text(json.dumps(report, indent=2) + "\n")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.capacity",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--servers", default="serve,gunicorn",
                   type=lambda v: [s for s in v.split(",") if s])
    p.add_argument("--cpus", default="2,1,0.5,0.25",
                   type=lambda v: [float(c) for c in v.split(",") if c],
                   help="the quotas, in cores")
    p.add_argument("--no-quota", action="store_true",
                   help="measure without holding the server (no root needed; --cpus only "
                        "names the runs)")
    p.add_argument("--seconds", type=float, default=15, help="measured seconds per level")
    p.add_argument("--warmup", type=float, default=5)
    p.add_argument("--min-writes", type=int, default=20,
                   help="a level lasts at least this many writes (few tables: longer)")
    p.add_argument("--start", type=int, default=4, help="the first count searched")
    p.add_argument("--tolerance", type=float, default=0.1)
    p.add_argument("--most", type=int, default=512, help="never more tables than this")
    p.add_argument("--settle", type=float, default=30,
                   help="before each search, wait at most this long for the load to fall")
    p.add_argument("--rest", type=float, default=3, help="seconds between two levels")
    p.add_argument("--period-ms", type=float, default=100,
                   help="the quota's CFS period (bench/quota.py)")
    p.add_argument("--priority", type=int, default=0,
                   help="the bench's niceness (its servers inherit it; root may go below 0)")
    p.add_argument("--saturate-seconds", type=int, default=8)
    p.add_argument("--floor-runs", type=int, default=2)
    p.add_argument("--json", help="write the report here (after each search)")
    p.add_argument("--resume", action="store_true",
                   help="keep the searches already in the --json report, run the others")
    p.add_argument("--table", metavar="REPORT", help="only print the current-figures table")
    p.add_argument("--guide", metavar="REPORT", help="only print docs/guide.md's table")
    p.add_argument("--rejudge", metavar="REPORT",
                   help="judge a saved report's levels again (this module's criteria and "
                        "budgets) and save it")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.rejudge:
        save(rejudge(json.loads(Path(args.rejudge).read_text())), args.rejudge)
        return 0
    for source, make in ((args.table, markdown_table), (args.guide, guide_table)):
        if source:
            print(make(json.loads(Path(source).read_text()), source=source))
            return 0
    report = run(args)
    print("\n" + markdown_table(report))
    print("\n" + budgets.markdown_table(report, budgets=budgets.CAPACITY_BUDGETS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
