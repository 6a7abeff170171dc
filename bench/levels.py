"""The load bench's levels, each one measured window of a setup's server: the load at a
table count (``measure_level``), the idle devices (``idle_level``), the bare-Flask
floor (``floor_level``), a seat page's first load (``first_load``), the saturated
no-change poll against the floor's (``saturate_poll``), twice the tables and the
recovery (``overload_level``), and the soak (``soak``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import time
import urllib.parse
from collections.abc import Iterator
from typing import Any

from bench.client import REQUEST_TIMEOUT, Device, HTTPError
from bench.machine import cpu_ms
from bench.page import MissingElement, live_region, parse
from bench.scenario import (
    PLAYERS,
    POLL_SECONDS,
    Run,
    Screen,
    Stats,
    Table,
    device_loop,
    hello_loop,
    host_writer,
    push_loop,
)
from bench.servers import Server, floor_server


class SetupError(RuntimeError):
    """No table could be set up: nothing to measure."""


# --- saturation: how many requests per second, as fast as they come ----------------------

async def saturate(url: str, seconds: float, connections: int,
                   cookie: str | None = None) -> dict[str, Any] | None:
    """Requests/s of one URL with `connections` keep-alive clients (wrk if installed)."""
    if seconds <= 0:
        return None  # --saturate-seconds 0: not measured
    wrk = shutil.which("wrk")
    if wrk:
        argv = [wrk, "-t2", f"-c{connections}", f"-d{seconds}s", "--latency",
                "-H", "Accept-Encoding: gzip"]
        if cookie:
            argv += ["-H", f"Cookie: {cookie}"]
        try:
            out = (await asyncio.to_thread(subprocess.run, argv + [url], capture_output=True,
                                           text=True, timeout=seconds + 30)).stdout
        except subprocess.TimeoutExpired:
            out = ""
        if "Requests/sec" not in out:
            return {"tool": "wrk", "rps": None, "p99": None, "errors": None,
                    "failed": "wrk got no answer"}
        rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
        errors = sum(int(x) for x in re.findall(r"(?:Non-2xx or 3xx responses|"
                                                 r"Socket errors: connect) (\d+)", out))
        p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
        p99ms = None
        if p99:
            p99ms = float(p99.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[p99.group(2)]
        return {"tool": "wrk", "rps": rps, "p99": p99ms, "errors": errors}
    return await _saturate_py(url, seconds, connections, cookie)


async def _saturate_py(url, seconds, connections, cookie):
    parts = urllib.parse.urlsplit(url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    count, errors = 0, 0
    deadline = time.perf_counter() + seconds

    async def worker():
        nonlocal count, errors
        device = Device(parts.port)
        if cookie:
            name, value = cookie.split("=", 1)
            device.cookies[name] = value
        while time.perf_counter() < deadline:
            try:
                status = (await device.request("GET", path))[0]
                count += 1
                errors += status >= 400
            except (TimeoutError, OSError, asyncio.IncompleteReadError, HTTPError):
                errors += 1
        device.close()

    await asyncio.gather(*(worker() for _ in range(connections)))
    return {"tool": "python", "rps": round(count / seconds, 1), "p99": None, "errors": errors}


# --- the levels ---------------------------------------------------------------------------

async def build_tables(port: int, database: str, count: int,
                       existing: list[Table]) -> tuple[list[Table], int]:
    tables = list(existing)
    sem = asyncio.Semaphore(4)

    async def one(i):
        async with sem:
            table = Table(port, i)
            await table.build(database)
            return table

    built = await asyncio.gather(*(one(i) for i in range(len(existing), count)),
                                 return_exceptions=True)
    for b in built:
        if isinstance(b, MissingElement):
            raise b  # a template changed: no table can be driven, stop
    failed = [repr(b) for b in built if isinstance(b, BaseException)]
    if failed:
        print(f"{len(failed)} tables could not be set up: {failed[0]}", flush=True)
    if not tables and failed and len(failed) == len(built):
        raise SetupError(f"no table could be set up: {failed[0]}")
    return tables + [b for b in built if not isinstance(b, BaseException)], len(failed)


async def load_level(port: int, tables: list[Table], args: argparse.Namespace,
                     warmup: float, seconds: float) -> tuple[Run, float]:
    """Every device of these tables polls; every host writes; measure one window."""
    run = Run()
    tasks = start_tables(run, tables, args, random.Random(7))
    probe = asyncio.create_task(lag_probe(run))
    try:
        elapsed = await measure(run, tasks, warmup, seconds, settle=args.write_every * 1.5)
    finally:
        probe.cancel()
    return run, elapsed


def start_tables(run: Run, tables: list[Table], args: argparse.Namespace,
                 rng: random.Random) -> list[asyncio.Task]:
    """Every device of these tables follows its screen (its stream, or polls), and every
    host writes: their tasks, recording into ``run``."""
    tasks = []
    for table in tables:
        host = Screen(run, table.host_poller, f"{table.game_url}/live", version=-1,
                      on_change=lambda r, t=table: t.take_live(r[2]),
                      screen=table.shown_live)
        phones = [Screen(run, phone, "/me/live", version=-1, table=table)
                  for phone in table.phones]
        if args.push:
            tasks.append(asyncio.create_task(push_loop(host, f"/n/{table.key}/stream")))
            tasks += [asyncio.create_task(push_loop(p, "/me/stream")) for p in phones]
        else:
            tasks += [asyncio.create_task(device_loop(x)) for x in [host, *phones]]
        tasks.append(asyncio.create_task(host_writer(run, table, args.write_every,
                                                     args.page_every, rng)))
    return tasks


async def idle_level(port: int, tables: list[Table], args: argparse.Namespace
                     ) -> dict[str, Any]:
    """Every device of these tables with its page open and nobody playing: how many
    requests an idle device makes a minute (its stream's heartbeats aside), and how many
    stream frames reach it a minute."""
    run = Run()
    tasks = []
    for table in tables:
        host = Screen(run, table.host_poller, f"{table.game_url}/live", version=-1,
                      on_change=lambda r, t=table: t.take_live(r[2]), screen=table.shown_live)
        tasks.append(asyncio.create_task(push_loop(host, f"/n/{table.key}/stream")))
        tasks += [asyncio.create_task(push_loop(Screen(run, phone, "/me/live", version=-1),
                                                "/me/stream")) for phone in table.phones]
    elapsed = await measure(run, tasks, 5, args.idle_seconds)
    devices = len(tables) * (PLAYERS + 1)
    asked = sum(run.stats[k].summary(elapsed)["n"] for k in ("poll", "live"))
    minutes = elapsed / 60
    return {"devices": devices, "seconds": round(elapsed, 1), "requests": asked,
            "requests_per_minute": round(asked / devices / minutes, 2),
            # what wakes an idle phone's radio: every frame of its stream (heartbeats,
            # the reconnect delay of each new stream) and each stream it opens again
            "frames": run.frames,
            "frames_per_minute": round(run.frames / devices / minutes, 2),
            "streams_per_minute": round(run.reopened / devices / minutes, 2),
            "stream_errors": run.stats["stream"].errors}


async def measure(run: Run, tasks: list[asyncio.Task], warmup: float, seconds: float,
                  settle: float = 0.0) -> float:
    """Warm up, measure one window, then stop every task (bounded in time). A task
    that fails (a page without the form it needs) stops them all and raises."""
    try:
        await run_for(tasks, warmup)
        run.measuring = True
        started = time.perf_counter()
        await run_for(tasks, seconds)
        run.measuring = False
        elapsed = time.perf_counter() - started
        run.stop = True
        if tasks:
            await asyncio.wait(tasks, timeout=REQUEST_TIMEOUT + POLL_SECONDS + settle)
        failure(tasks)
    finally:
        run.stop = True
        for task in tasks:
            task.cancel()
    return elapsed


async def lag_probe(run: Run) -> None:
    """How late the client's own event loop wakes a 10 ms sleep, while it measures. A
    latency the client reports includes this: a client starved of CPU (it shares the
    machine with the server) counts its own lateness as the server's."""
    while not run.stop:
        start = time.perf_counter()
        await asyncio.sleep(0.01)
        if run.measuring:
            run.lag_ms.append((time.perf_counter() - start) * 1000 - 10)


async def run_for(tasks: list[asyncio.Task], seconds: float) -> None:
    """Let the tasks run for `seconds`; raise at once the error of any that fails."""
    if not tasks:
        await asyncio.sleep(seconds)
        return
    await asyncio.wait(tasks, timeout=seconds, return_when=asyncio.FIRST_EXCEPTION)
    failure(tasks)


def failure(tasks: list[asyncio.Task]) -> None:
    """Raise the error of the first task that failed, if any."""
    for task in tasks:
        if task.done() and not task.cancelled() and task.exception() is not None:
            raise task.exception()


async def floor_level(port: int, devices: int, warmup: float,
                      seconds: float) -> tuple[Run, float]:
    run = Run()
    clients = [Device(port) for _ in range(devices)]
    tasks = [asyncio.create_task(hello_loop(run, d)) for d in clients]
    elapsed = await measure(run, tasks, warmup, seconds)
    for d in clients:
        d.close()
    return run, elapsed


def percentile(values: list[float], p: float) -> int | None:
    values = sorted(values)
    return round(values[min(len(values) - 1, int(p / 100 * len(values)))]) if values else None


async def first_load(port: int, table: Table) -> dict[str, Any]:
    """Bytes of a fresh seat page on the wire: the HTML and every file it links, gzip on;
    how those files are cached, and whether each URL carries its version (``?v=``)."""
    phone = table.phones[0]
    fresh = Device(port)
    fresh.cookies = dict(phone.cookies)
    status, _, html, wire = await fresh.request("GET", "/me")
    parts: dict[str, Any] = {"html": wire}
    static = [link for link in parse(html, "a seat page (/me)").links
              if urllib.parse.urlsplit(link).path.startswith("/static/")]
    if not static:
        raise MissingElement("no /static/ stylesheet or script on a seat page (/me)")
    caches = []
    for link in static:
        url = urllib.parse.urlsplit(link)
        status, headers, _, wire = await fresh.request("GET", link)
        assert status == 200, (link, status)
        kind = "css" if url.path.endswith(".css") else "js"
        parts[kind] = parts.get(kind, 0) + wire
        caches.append(headers.get("cache-control", ""))
    parts["cache"] = " | ".join(dict.fromkeys(caches))  # each different value once
    parts["static_urls"] = len(static)
    parts["unversioned"] = sum(
        "v" not in urllib.parse.parse_qs(urllib.parse.urlsplit(link).query) for link in static)
    qr = await table.host.request("GET", f"/n/{table.key}/qr/0.svg")
    parts["qr (host page, per seat)"] = qr[3]
    parts["total (html+css+js)"] = parts["html"] + parts.get("css", 0) + parts.get("js", 0)
    fresh.close()
    return parts


async def saturate_poll(port: int, table: Table, kind: str,
                        args: argparse.Namespace) -> dict[str, Any] | None:
    """The no-change poll of one phone, as fast as it comes (nothing else running), and
    the floor's hello the same way, interleaved: floor, app, floor, app… (``--pairs``
    pairs). A noisy machine slows both of a pair alike, so each pair's ratio holds where
    one floor figure and one app figure taken minutes apart would not. Returns the app's
    runs with ``pairs`` (each pair's figures and ratio) and ``ratio`` (their median,
    lowest and highest); the ratio is None when the floor was not run."""
    if args.saturate_seconds <= 0:
        return None
    phone = table.phones[1]
    path, version = live_region((await phone.request("GET", "/me/live?v=-9"))[2],
                                "the answer of GET /me/live?v=-9")
    url = f"http://127.0.0.1:{port}{path}?v={version}"
    cookie = f"device={phone.cookies['device']}"
    if not args.floor:
        return await saturate(url, args.saturate_seconds, args.saturate_connections, cookie)
    floor = floor_server(kind, args).start()
    pairs = []
    try:
        for _ in range(args.pairs):
            bare = await saturate(f"http://127.0.0.1:{floor.port}/", args.saturate_seconds,
                                  args.saturate_connections)
            ours = await saturate(url, args.saturate_seconds, args.saturate_connections,
                                  cookie)
            pairs.append({"floor": bare, "app": ours, "ratio": pair_ratio(bare, ours)})
            print(f"saturation pair {len(pairs)}: floor {bare and bare['rps']} req/s, "
                  f"poll {ours and ours['rps']} req/s", flush=True)
    finally:
        floor.stop()
    ratios = [p["ratio"] for p in pairs if p["ratio"] is not None]
    app_rps = [p["app"]["rps"] for p in pairs if p["app"] and p["app"]["rps"]]
    return {"tool": pairs[0]["app"]["tool"] if pairs and pairs[0]["app"] else None,
            "rps": statistics.median(app_rps) if app_rps else None,
            "errors": sum((p["app"] or {}).get("errors") or 0 for p in pairs),
            "pairs": pairs,
            "ratio": {"median": round(statistics.median(ratios), 3) if ratios else None,
                      "min": min(ratios, default=None), "max": max(ratios, default=None),
                      "n": len(ratios)}}


def pair_ratio(floor: dict[str, Any] | None, app: dict[str, Any] | None) -> float | None:
    """The app's requests/s over the floor's in one pair (None if either is missing)."""
    if not floor or not app or not floor.get("rps") or app.get("rps") is None:
        return None
    return round(app["rps"] / floor["rps"], 3)


@contextlib.contextmanager
def quiet_collector() -> Iterator[None]:
    """No full garbage collection of the load client while it measures.

    The client is one process holding every device's connections: ~175,000 objects at
    200 tables, and a full collection of them stopped it for up to 70 ms, which it then
    counted as the server's latency. Its start-up objects are frozen and its young
    collections made rarer; what it made is collected after the level.
    """
    thresholds = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 1_000, 1_000)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
        gc.collect()


async def measure_level(server: Server, database: str, count: int, tables: list[Table],
                        args: argparse.Namespace) -> tuple[list[Table], dict[str, Any]]:
    """Set up ``count`` tables (reusing ``tables``), load them and print the level's figures."""
    tables, setup_failed = await build_tables(server.port, database, count, tables)
    # Long enough for --min-writes writes, so a write's p99 is not just its slowest.
    seconds = max(args.seconds, args.min_writes * args.write_every / len(tables))
    with quiet_collector():
        run, elapsed = await load_level(server.port, tables, args, args.warmup, seconds)
    level = {k: s.summary(elapsed) for k, s in run.stats.items() if k != "hello"}
    level["seen_ms"] = {"p50": percentile(run.seen_ms, 50),
                        "p95": percentile(run.seen_ms, 95),
                        "max": percentile(run.seen_ms, 100), "n": len(run.seen_ms)}
    level["no_change_poll_bytes"] = max(run.no_change_bytes, default=None)
    level["client_lag_ms"] = {"p50": percentile(run.lag_ms, 50),
                              "p99": percentile(run.lag_ms, 99),
                              "max": percentile(run.lag_ms, 100)}
    devices = len(tables) * (PLAYERS + 1)
    # What an idle device asks: no-change answers per device and minute (with push,
    # only the once-a-minute safety refresh and a change already seen).
    level["idle_requests_per_minute"] = round(run.idle_polls / devices / (elapsed / 60), 2)
    level["streams_opened"] = run.streams_opened
    level["push"] = args.push
    level["peak_rss_mb"] = round(server.peak_rss / 2**20, 1)
    level["tables_set_up"], level["setup_failed"] = len(tables), setup_failed
    level["cpu_ms_after"] = cpu_ms()
    print(f"T={count}: " + json.dumps({k: level[k] for k in (
        "poll", "write", "live", "page", "stream", "seen_ms", "idle_requests_per_minute",
        "streams_opened", "peak_rss_mb", "client_lag_ms", "cpu_ms_after")}), flush=True)
    return tables, level


#: Overload (--overload N): a window of the load back at N tables is within budget when
#: its p99 and its write→visible p95 are (bench/budgets.py, the levels' budgets).
RECOVERY_WINDOW = 5.0
RECOVERY_P99_MS = 50
RECOVERY_SEEN_P95_MS = 300
#: How long the hosts of the tables that leave stop writing before their screens close
#: (their last writes still reach them), and the longest watch for the recovery.
LEAVING_SECONDS = 10.0
RECOVERY_MOST = 60.0


async def overload_level(server: Server, database: str, tables: list[Table],
                         args: argparse.Namespace) -> dict[str, Any]:
    """Twice the tables the setup holds (``--overload N``: N×2 tables) for ``--seconds``
    after ``--warmup``, then back to N tables: what 2× did (streams that timed out
    unanswered, 5xx answers, writes that failed or never showed on a screen, write→
    visible, how often the server said "slow down") and how many seconds after the load
    went back to N a window of RECOVERY_WINDOW s was within budget again."""
    count = args.overload
    tables, setup_failed = await build_tables(server.port, database, 2 * count, tables)
    staying, leaving = Run(), Run()
    for run in (staying, leaving):
        run.seen_log = []
    rng = random.Random(11)
    stay_tasks = start_tables(staying, tables[:count], args, rng)
    leave_tasks = start_tables(leaving, tables[count:2 * count], args, rng)
    probe = asyncio.create_task(lag_probe(staying))
    out: dict[str, Any] = {"tables": count, "overload_tables": len(tables[:2 * count]),
                           "setup_failed": setup_failed, "cpus": args.cpus}
    try:
        with quiet_collector():
            await run_for(stay_tasks + leave_tasks, args.warmup)
            staying.measuring = leaving.measuring = True
            started = time.perf_counter()
            await run_for(stay_tasks + leave_tasks, args.seconds)
            staying.measuring = leaving.measuring = False
            dropped = time.perf_counter()
            out.update(overload_figures((staying, leaving), tables[:2 * count],
                                        (started, dropped)))
            leaving.writing = False  # back to N tables: the others' hosts stop,
            await run_for(stay_tasks + leave_tasks, LEAVING_SECONDS)
            leaving.stop = True      # and their screens close
            await asyncio.wait(leave_tasks, timeout=REQUEST_TIMEOUT + POLL_SECONDS)
            out["unseen_writes"] = unseen_writes((staying, leaving), tables[:2 * count],
                                                 (started, dropped))
            out["recovery"] = await recovery(staying, stay_tasks, dropped)
    finally:
        staying.stop = leaving.stop = True
        probe.cancel()
        for task in stay_tasks + leave_tasks:
            task.cancel()
    out["recovery_seconds"] = out["recovery"]["seconds"]
    out["cpu_ms_after"], out["loadavg"] = cpu_ms(), [round(x, 2) for x in os.getloadavg()]
    out["peak_rss_mb"] = round(server.peak_rss / 2**20, 1)
    print("overload: " + json.dumps({k: v for k, v in out.items() if k != "at_2x"}),
          flush=True)
    return out


def overload_figures(runs: tuple[Run, ...], tables: list[Table],
                     window: tuple[float, float]) -> dict[str, Any]:
    """The 2× window's figures, both halves of the tables together."""
    seconds = window[1] - window[0]
    merged = {kind: Stats() for kind in ("poll", "live", "write", "page", "stream")}
    for run in runs:
        for kind, stats in merged.items():
            got = run.stats[kind]
            stats.ms += got.ms
            stats.ok, stats.refused = stats.ok + got.ok, stats.refused + got.refused
            stats.errors, stats.failed = stats.errors + got.errors, stats.failed + got.failed
            for name, n in got.error_kinds.items():
                stats.error_kinds[name] = stats.error_kinds.get(name, 0) + n
    at_2x = {kind: stats.summary(seconds) for kind, stats in merged.items()}
    kinds = [stats.error_kinds for stats in merged.values()]
    return {
        "at_2x": at_2x,
        "seconds": round(seconds, 1),
        "stream_timeouts": merged["stream"].error_kinds.get("TimeoutError", 0),
        "stream_errors": merged["stream"].errors,
        "errors_5xx": sum(n for k in kinds for name, n in k.items() if name.startswith("5")),
        "writes": at_2x["write"]["n"],
        "writes_failed": merged["write"].errors,
        "p99_ms": max((at_2x[k]["p99"] or 0) for k in ("poll", "live", "write", "page")),
        "turned_away": sum(run.turned_away for run in runs),
        "streams_busy": sum(run.busy for run in runs),
        "slowed_answers": sum(run.slowed for run in runs),
        "refreshes": sum(at_2x[k]["n"] for k in ("poll", "live")),
    }


def unseen_writes(runs: tuple[Run, ...], tables: list[Table],
                  window: tuple[float, float]) -> dict[str, Any]:
    """Of the writes answered in ``window``, on how many phone screens each showed, and
    how soon: write→visible over every (write, phone) pair, a pair never shown counted as
    never (so it is in the p95 as the slowest)."""
    made = sum(1 for table in tables for at, _ in table.write_done
               if window[0] <= at < window[1]) * PLAYERS
    shown = sorted((seen - at) * 1000 for run in runs for at, seen in run.seen_log
                   if window[0] <= at < window[1])
    never = max(0, made - len(shown))
    ranked = shown + [float("inf")] * never

    def pct(p: float) -> float | None:
        if not ranked:
            return None
        value = ranked[min(len(ranked) - 1, int(p / 100 * len(ranked)))]
        return None if value == float("inf") else round(value)

    return {"pairs": made, "never": never, "p50": pct(50), "p95": pct(95),
            "max": round(shown[-1]) if shown else None}


async def recovery(run: Run, tasks: list[asyncio.Task], dropped: float) -> dict[str, Any]:
    """Windows of RECOVERY_WINDOW s at N tables, until one is within budget (p99 of every
    request < RECOVERY_P99_MS, write→visible p95 ≤ RECOVERY_SEEN_P95_MS, no error): the
    seconds from the drop to that window's end, or None after RECOVERY_MOST s."""
    windows = []
    while time.perf_counter() - dropped < RECOVERY_MOST:
        run.stats = {k: Stats() for k in run.stats}
        run.seen_ms = []
        run.measuring = True
        await run_for(tasks, RECOVERY_WINDOW)
        run.measuring = False
        got = {k: run.stats[k].summary(RECOVERY_WINDOW) for k in ("poll", "live", "write",
                                                                   "page")}
        p99 = max((s["p99"] or 0) for s in got.values())
        seen = percentile(run.seen_ms, 95)
        errors = sum(s["errors"] for s in got.values())
        at = round(time.perf_counter() - dropped, 1)
        windows.append({"at": at, "p99": p99, "seen_p95": seen, "errors": errors})
        if p99 < RECOVERY_P99_MS and errors == 0 and (seen or 0) <= RECOVERY_SEEN_P95_MS:
            return {"seconds": at, "windows": windows}
    return {"seconds": None, "windows": windows}


def past_reach(level: dict[str, Any]) -> bool:
    """Most requests failed, no poll was answered, or a median poll waited seconds."""
    failed = sum(level[k]["errors"] for k in ("poll", "live", "write", "page"))
    median = level["poll"]["p50"]
    if median is None:  # no quiet poll answered: every answer had a change?
        median = level["live"]["p50"]
    return (failed > sum(level[k]["n"] for k in ("poll", "live", "write", "page")) / 2
            or median is None or median > 1000)


async def soak(server: Server, tables: list[Table], args: argparse.Namespace) -> dict[str, Any]:
    """--soak-tables tables for --soak seconds: is memory flat?"""
    print(f"soak: {len(tables)} tables for {args.soak} s", flush=True)
    mark = time.monotonic()
    with quiet_collector():
        run, elapsed = await load_level(server.port, tables, args, 5, args.soak)
    samples = [(t - mark, rss) for t, rss in server.rss_samples if t >= mark + 5]
    minute = min(60.0, args.soak / 5)
    first = [r for t, r in samples if t < 5 + minute]
    last = [r for t, r in samples if t > samples[-1][0] - minute] if samples else []
    out = {"seconds": round(elapsed), "tables": len(tables),
           "requests": sum(len(s.ms) for s in run.stats.values()),
           "errors": sum(s.errors for s in run.stats.values()),
           "rss_first_mb": round(statistics.median(first) / 2**20, 1) if first else None,
           "rss_last_mb": round(statistics.median(last) / 2**20, 1) if last else None,
           "rss_max_mb": round(max(r for _, r in samples) / 2**20, 1) if samples else None,
           "poll": run.stats["poll"].summary(elapsed)}
    print("soak:", out, flush=True)
    return out
