"""Many tables on one machine: the load benchmark of the performance budgets.

It starts the real server on loopback (``companion serve``, gevent, and gunicorn with
one worker per core, each running gevent's WSGI server, for the café setup), creates
tables through the app's own HTTP routes (a host makes a night of 8 players, 8 phones
claim their seats through the ``/s/<token>`` links, the host starts No Touch Kraken
through the real form with its CSRF token), then every device behaves as its page does:
it holds its night's live-push stream (``/me/stream`` or ``/n/<key>/stream``) and, at
each "changed", asks for its live region's own URL (``/me/live?v=N`` or
``/n/<key>/g/<n>/live?v=N``: 204 when nothing changed, else the fresh fragment in the
same answer), and once a minute anyway (``--no-push``: every device polls every 2 s
instead), while each host records a Kraken action every few seconds through the real
forms (the ``pos`` and the choices read from its own page).

Pages are parsed (bench/page.py), and forms found by the ``data-action`` the templates
carry: if a form the bench needs is missing, it stops and names it.

Reported, in one run: throughput and p50/p95/p99 latency and errors of polls, writes,
fragments and full host pages at each table count; the floor (bench/floor.py, a bare
Flask "hello" under the same server and the same load) and the ratio to it; the
saturation throughput of a no-change poll against the floor's, measured interleaved
(floor, app, floor, app…: each pair's ratio, their median and spread; wrk if installed,
else this client); bytes of a no-change poll and of a seat page's first load; the server's
peak memory (RSS, all its processes); and the time from a host's write until a phone
has the new fragment. The summary ends with the budgets (bench/budgets.py), each PASS or
FAIL; a budget whose figure was not measured FAILs.

Every loop is bounded in count and time; everything is on 127.0.0.1.

    .venv/bin/python bench/bench.py                       # the full run (about 15 min)
    .venv/bin/python bench/bench.py --quick               # a smoke run (about 1 min)
    .venv/bin/python bench/bench.py --soak 600 --json report.json   # all, and the soak (~30 min)
    .venv/bin/python bench/bench.py --table report.json   # the budget table of a saved run

The bench is in parts: this file (the options, the run of each setup, the summary),
bench/levels.py (each measured window), bench/scenario.py (a table and its devices, as
their pages behave), bench/client.py (the raw HTTP client), bench/servers.py (the server
processes) and bench/machine.py (the machine's speed, and waiting for it to settle).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    # Run as `python bench/bench.py`: import the `bench` package, not this file.
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench import budgets  # noqa: E402
from bench.levels import (  # noqa: E402
    SetupError,
    first_load,
    floor_level,
    idle_level,
    measure_level,
    overload_level,
    past_reach,
    saturate_poll,
    soak,
)
from bench.machine import machine, settle  # noqa: E402
from bench.page import MissingElement  # noqa: E402
from bench.scenario import PLAYERS  # noqa: E402
from bench.servers import CAFE_WORKER, PY, companion_server, floor_server  # noqa: E402

# --- the run ------------------------------------------------------------------------------

async def bench_server(kind: str, args: argparse.Namespace, report: dict[str, Any]) -> None:
    """Every table count (and the soak) on one setup, then its bare-Flask floor."""
    print(f"\n== {kind} ==", flush=True)
    print(f"settled in {settle():.0f} s", flush=True)
    workdir = tempfile.mkdtemp(prefix="companion-bench-")
    database = str(Path(workdir) / "bench.sqlite")
    server = companion_server(kind, database, args).start()
    result = {"levels": {}, "argv": " ".join(server.argv)}
    try:
        tables, beyond = [], None
        for count in args.tables:
            if beyond is not None:
                # Most requests of a smaller count failed: past this setup's reach.
                result["levels"][count] = {"skipped": f"past this setup's reach at {beyond}"
                                                      " tables"}
                print(f"T={count}: skipped ({result['levels'][count]['skipped']})", flush=True)
                continue
            tables, level = await measure_level(server, database, count, tables, args)
            result["levels"][count] = level
            if "first_load_bytes" not in result:
                # While the server is calm (after the smallest count): bytes and saturation.
                result["first_load_bytes"] = await first_load(server.port, tables[0])
                result["saturation_poll"] = await saturate_poll(server.port, tables[0], kind,
                                                                args)
                print("saturation poll:", result["saturation_poll"], flush=True)
                if args.push and args.idle_seconds > 0:
                    result["idle"] = await idle_level(server.port, tables, args)
                    print("idle:", result["idle"], flush=True)
            if past_reach(level):
                beyond = count
        if args.soak and kind in args.soak_servers:
            result["soak"] = await soak(server, tables[:args.soak_tables], args)
        if args.overload:
            result["overload"] = await overload_level(server, database, tables, args)
            tables = tables[:2 * args.overload]
        for table in tables:
            for d in [table.host, table.host_poller, *table.phones]:
                d.close()
        result["peak_rss_mb"] = round(server.peak_rss / 2**20, 1)
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    report["servers"][kind] = result

    if args.floor:
        report["floor"][kind] = await bench_floor(kind, args, result)


async def bench_floor(kind: str, args: argparse.Namespace,
                      result: dict[str, Any]) -> dict[str, Any]:
    """The bare-Flask floor of a setup, at each table count measured in ``result``."""
    floor = floor_server(kind, args).start()
    try:
        fl = {"levels": {}, "argv": " ".join(floor.argv)}
        for count in args.tables:
            if "skipped" in result["levels"].get(count, {}):
                continue  # no figure of ours to compare with
            run, elapsed = await floor_level(floor.port, count * (PLAYERS + 1),
                                             args.warmup, args.seconds)
            fl["levels"][count] = run.stats["hello"].summary(elapsed)
            print(f"floor T={count}: {fl['levels'][count]}", flush=True)
        fl["peak_rss_mb"] = round(floor.peak_rss / 2**20, 1)
    finally:
        floor.stop()
    return fl


# --- the command line and the summary ---------------------------------------------------

def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--servers", default="serve,gunicorn",
                   help="which setups to measure (serve = `companion serve`, gunicorn = the "
                        "café setup)")
    p.add_argument("--tables", default="10,50,100,200", help="table counts, in order")
    p.add_argument("--cpus", type=float, default=None,
                   help="hold each server (and the floor) to this many cores with the "
                        "cgroup cpu controller (bench/quota.py; root): a slower laptop")
    p.add_argument("--seconds", type=float, default=30, help="measured seconds per level")
    p.add_argument("--warmup", type=float, default=10, help="seconds of load before measuring")
    p.add_argument("--min-writes", type=int, default=300,
                   help="measure a level at least this many writes long (10 tables: 90 s)")
    p.add_argument("--write-every", type=float, default=3.0,
                   help="seconds between two actions of one host (jittered ±30%%)")
    p.add_argument("--page-every", type=float, default=15.0,
                   help="seconds between two full page loads of one host")
    p.add_argument("--workers", type=int, default=2,
                   help="gunicorn workers (the café setup: one per core)")
    p.add_argument("--threads", type=int, default=2, help="gunicorn threads per worker")
    p.add_argument("--keep-alive", type=int, default=75,
                   help="gunicorn's keep-alive seconds (gevent, gthread)")
    p.add_argument("--worker-class", default=CAFE_WORKER,
                   choices=(CAFE_WORKER, "gevent", "gevent_pywsgi", "gthread", "sync"),
                   help="gunicorn's worker class (the café setup: companion.serving.cafe.Worker, "
                        "gevent's own HTTP server in gunicorn's workers with companion "
                        "serve's connection limits; it and gevent hold the "
                        "live-push streams, gthread and sync cannot, so run them with "
                        "--no-push)")
    p.add_argument("--no-push", dest="push", action="store_false",
                   help="pages poll every 2 s instead of holding a live-push stream")
    p.add_argument("--saturate-seconds", type=int, default=10)
    p.add_argument("--saturate-connections", type=int, default=16)
    p.add_argument("--pairs", type=int, default=3,
                   help="interleaved floor/app saturation pairs (the ratio is their median)")
    p.add_argument("--idle-seconds", type=float, default=130,
                   help="after the smallest level, this long with nobody playing: the "
                        "requests an idle device makes a minute (0: not measured)")
    p.add_argument("--soak", type=float, default=0,
                   help="after the levels, keep --soak-tables tables polling and writing "
                        "this many seconds and watch memory (600 = the 10-minute soak)")
    p.add_argument("--soak-tables", type=int, default=100)
    p.add_argument("--soak-servers", default="gunicorn", type=lambda v: v.split(","),
                   help="which setups get the soak")
    p.add_argument("--overload", type=int, default=0, metavar="N",
                   help="after the levels, N×2 tables (twice a capacity of N) for --seconds "
                        "after --warmup, then back to N: what 2× did and the seconds until "
                        "a 5 s window is within budget again (bench/budgets.py, "
                        "OVERLOAD_BUDGETS)")
    p.add_argument("--no-floor", dest="floor", action="store_false",
                   help="skip the bare-Flask floor")
    p.add_argument("--quick", action="store_true",
                   help="a smoke run: `companion serve`, 5 and 10 tables, 8 s each")
    p.add_argument("--json", help="write the whole report here as JSON")
    p.add_argument("--table", metavar="REPORT",
                   help="only print the budget table of a saved report (a --json file)")
    args = p.parse_args(argv)
    if args.quick:
        args.servers, args.tables, args.seconds, args.warmup = "serve", "5,10", 8, 3
        args.saturate_seconds, args.min_writes = 3, 0
    args.servers = [s for s in args.servers.split(",") if s]
    args.tables = [int(t) for t in args.tables.split(",") if t]
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.table:
        report = json.loads(Path(args.table).read_text())
        print(budgets.markdown_table(report, source=args.table))
        return 0
    report = {"machine": machine(), "command": " ".join([Path(PY).name, *sys.argv]),
              "cpus": args.cpus, "servers": {}, "floor": {}}
    print(json.dumps(report["machine"]), flush=True)
    try:
        for kind in args.servers:
            asyncio.run(bench_server(kind, args, report))
    except MissingElement as error:
        print(f"\nbench stopped: {error}.\nThe bench drives the app through its forms, found "
              "by their data-action (bench/page.py): a template changed?", file=sys.stderr)
        return 2
    except SetupError as error:
        print(f"\nbench stopped: {error}", file=sys.stderr)
        return 2
    report["budgets"] = [v.as_dict() for v in budgets.judge(report,
                                                             budgets=budgets.sets(report))]
    print_summary(report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    return 0


def print_summary(report: dict[str, Any]) -> None:
    print("\n## Summary")
    for kind, result in report["servers"].items():
        floor = report["floor"].get(kind, {})
        print(f"\n### {kind}: {result['argv']}")
        print("| tables | kind | req/s | p50 ms | p95 ms | p99 ms | errors | refused |")
        print("|---|---|---|---|---|---|---|---|")
        for count, level in result["levels"].items():
            if "skipped" in level:
                print(f"| {count} | skipped: {level['skipped']} | | | | | | |")
                continue
            for name in ("poll", "live", "write", "page"):
                s = level[name]
                print(f"| {count} | {name} | {s['rps']} | {s['p50']} | {s['p95']} | {s['p99']} "
                      f"| {s['errors']} | {s['refused']} |")
            f = floor.get("levels", {}).get(count)
            if f:
                print(f"| {count} | floor hello | {f['rps']} | {f['p50']} | {f['p95']} | "
                      f"{f['p99']} | {f['errors']} | - |")
        print("\n| tables | write→phone p50 ms | p95 ms | max ms | peak RSS MB |")
        print("|---|---|---|---|---|")
        for count, level in result["levels"].items():
            if "skipped" in level:
                continue
            s = level["seen_ms"]
            print(f"| {count} | {s['p50']} | {s['p95']} | {s['max']} | {level['peak_rss_mb']} |")
        sat = result.get("saturation_poll")
        if sat and sat["rps"]:
            ratio = sat.get("ratio") or {}
            spread = (f" = {ratio['median']} × floor (median of {ratio['n']} interleaved "
                      f"pairs; {ratio['min']}–{ratio['max']})") if ratio.get("median") else ""
            print(f"\nno-change poll, saturated: {sat['rps']} req/s{spread} [{sat['tool']}]")
        sizes = [lv["no_change_poll_bytes"] for lv in result["levels"].values()
                 if lv.get("no_change_poll_bytes")]
        print(f"no-change poll bytes on the wire: {max(sizes, default=None)}")
        print(f"seat page first load bytes: {result.get('first_load_bytes')}")
        print(f"peak RSS: {result.get('peak_rss_mb')} MB (floor {floor.get('peak_rss_mb')} MB)")
        if result.get("soak"):
            print(f"soak: {result['soak']}")
        if result.get("overload"):
            print("overload:", {k: v for k, v in result["overload"].items() if k != "at_2x"})
        if kind != budgets.CAFE:
            print(f"\nThe budgets on {kind} (for reference: they are judged on "
                  f"{budgets.CAFE}):\n")
            print(budgets.markdown_table(report, setup=kind))
    print("\n## Budgets\n")
    print(budgets.markdown_table(report))
    judged = budgets.sets(report)
    failed = sum(not v.passed for v in budgets.judge(report, budgets=judged))
    print(f"\n{failed} of {len(judged)} budgets FAIL" if failed
          else "\nevery budget PASS")


if __name__ == "__main__":
    sys.exit(main())
