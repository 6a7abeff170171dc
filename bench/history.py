"""What a long history costs: the host's pages with N earlier nights (N = 10, 100, 1,000).

    .venv/bin/python -m bench.history [--nights 10,100,1000] [--json report.json]

For each N, a fresh database: a night of six players and six games (a Kraken token series
of three, Skull King of ten rounds, Crazy Time, a Kraken game left running) is played
through the store as the host's forms record it, exported through its route, and
imported through ``/import`` onto the same host device N times, each time as another
night (its date moved on a day). The host then opens every page once ("after the last
change": what is kept from the kept results, such as the statistics, is then kept), and
a phone claims a seat of the latest night.

Each page is then timed in a process of its own (``--measure``): its first request (cold:
a fresh process, its templates compiled on the way, nothing cached in it; the database
and what it keeps are as the host left them) and the median of the next requests (warm),
through Flask's test client, so the figures are the app's own, without a server. The
process's memory (RSS) is read after. Each N's figures are given as a ratio to the
10-night ones of the same run, and judged by ``HISTORY_BUDGETS`` (bench/budgets.py).

Then the first /stats after a game ends (``after_game``), in a process of its own: before
each request a Skull King game of ten rounds is played to its end on the latest night
(untimed), so each request finds one night changed and sums it up
(companion/store/statistics.py); cold is the process's first such request, warm the
median of the next ones. It is judged against its 10-night cost too.

Also reported, not budgeted: each N's building time and the first visit of /stats after
the last import (every imported night summed up, since nobody looked in between).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.budgets import HISTORY, HISTORY_BUDGETS, judge
from bench.builders import (
    crazytime_game,
    kraken_all_treasure,
    kraken_game,
    kraken_kraken_first,
    make_night,
    skullking_game,
    store_game,
)
from bench.machine import cpu_ms  # the bench's speed sample (lower is faster)
from bench.recap import NAMES, ten_rounds
from companion import store
from companion.app import create_app
from companion.core import exchange

WARM_RUNS = 7
#: The name in the report of the first /stats after a game ends.
AFTER_GAME = "after_game"


def pages(key: str) -> dict[str, tuple[str, str]]:
    """Each page timed: its name (no dots: a path in the report), who asks, its URL."""
    return {
        "start": ("host", "/"),
        "history": ("host", "/history"),
        "stats": ("host", "/stats"),
        "stats-csv": ("host", "/stats.csv"),
        "head-to-head": ("host", "/stats?a=bo&b=%EC%A7%80%ED%98%B8"),
        "head-to-head-csv": ("host", "/stats/head-to-head.csv"),
        "tally": ("host", f"/n/{key}/tally"),
        "tally-picture": ("host", f"/n/{key}/recap.png"),
        "phone": ("phone", "/me"),
        "phone-tally": ("phone", "/me/tally"),
    }


def app_on(path: str) -> Any:
    # A year of nights comes through /import from one client in a minute: the hour's
    # bounds of one address (companion/store/quotas.py) are lifted.
    return create_app({"DATABASE": path, "SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False,
                       "PUBLIC_URL": "http://table.test:8765", "IMPORTS_AN_HOUR": 10**9,
                       "IMPORT_BYTES_AN_HOUR": 10**12, "NIGHTS_AN_HOUR": 10**9})


def a_night(app: Any) -> tuple[Any, bytes]:
    """The night of six games, through the store as the host's forms record it; its
    host's client and its export."""
    night = make_night(app, NAMES)
    night.host.set_cookie("lang", "ko")
    device = night.host.get_cookie("device").value
    roles = ["explorer", "skeleton", "explorer", "explorer", "skeleton", "explorer"]
    for number in (1, 2, 3):
        store_game(app, device, night.key, kraken_game(number, roles, kraken_kraken_first(),
                                                       "s"))
    bids, won = ten_rounds(random.Random(7))
    store_game(app, device, night.key,
               skullking_game(4, list(range(6)), list(range(1, 11)), bids, won))
    store_game(app, device, night.key, crazytime_game(5))
    store_game(app, device, night.key, kraken_game(6, roles, kraken_all_treasure()[:2]))
    export = night.host.get(f"/n/{night.key}/export.json")
    assert export.status_code == 200
    return night, export.data


def build(folder: Path, nights: int) -> dict[str, Any]:
    """A database of ``nights`` earlier nights on one host; what the measuring processes
    need to find them (the database, the two devices' cookies, the latest night's key)."""
    path = str(folder / f"history-{nights}.sqlite")
    app = app_on(path)
    started = time.perf_counter()
    night, body = a_night(app)
    host = night.host
    document = json.loads(body)
    key = night.key
    for day in range(nights):
        document["night"]["created"] = time.strftime(
            "%Y-%m-%dT19:00:00Z", time.gmtime(1_600_000_000 + day * 86_400))
        answer = host.post("/import", data={
            "file": (io.BytesIO(exchange.dumps(document)), "night.json")})
        assert answer.status_code == 303, answer.data[:300]
        key = answer.headers["Location"].split("/")[2]
    built = time.perf_counter() - started
    with app.test_request_context():
        token = store.seats(store.night_by_key(key)["id"])[1]["token"]
    phone = app.test_client()
    assert phone.get(f"/s/{token}").status_code == 200
    assert phone.post(f"/s/{token}").status_code == 303
    after_change = {}
    for name, (who, url) in pages(key).items():  # the host looks once after the imports
        client = host if who == "host" else phone
        start = time.perf_counter()
        assert client.get(url).status_code == 200, url
        after_change[name] = round((time.perf_counter() - start) * 1000, 1)
    return {"database": path, "host": host.get_cookie("device").value,
            "phone": phone.get_cookie("device").value, "key": key,
            "build_s": round(built, 1), "first_visit_ms": after_change}


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def end_a_game(app: Any, spec: dict[str, Any]) -> None:
    """A Skull King game of ten rounds played to its end on the latest night, through the
    store as the host's forms record it."""
    bids, won = ten_rounds(random.Random(11))
    store_game(app, spec["host"], spec["key"],
               skullking_game(0, list(range(6)), list(range(1, 11)), bids, won))


def measure(spec: dict[str, Any], page: str) -> dict[str, Any]:
    """One page in this (fresh) process: the first request, then the warm median (for
    ``AFTER_GAME``, /stats with a game ended before each request, untimed)."""
    app = app_on(spec["database"])
    who, url = ("host", "/stats") if page == AFTER_GAME else pages(spec["key"])[page]
    client = app.test_client()
    client.set_cookie("device", spec[who])
    client.set_cookie("lang", "ko")

    def once() -> tuple[float, int]:
        if page == AFTER_GAME:
            end_a_game(app, spec)
        start = time.perf_counter()
        answer = client.get(url)
        took = (time.perf_counter() - start) * 1000
        assert answer.status_code == 200, (url, answer.status_code)
        return took, len(answer.data)

    cold, size = once()
    warm = statistics.median(once()[0] for _ in range(WARM_RUNS))
    return {"cold_ms": round(cold, 2), "warm_ms": round(warm, 2), "bytes": size,
            "rss_mb": rss_mb()}


def in_fresh_process(spec: dict[str, Any], page: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "bench.history", "--measure", json.dumps(spec), page],
        capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parent.parent)
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def run(counts: list[int], only: list[str] | None = None) -> dict[str, Any]:
    report: dict[str, Any] = {"machine": {"cpu_ms_at_start": cpu_ms(),
                                          "loadavg_at_start": list(os.getloadavg()),
                                          "date": time.strftime("%Y-%m-%d %H:%M %Z")},
                              "servers": {HISTORY: {"nights": {}}}}
    levels = report["servers"][HISTORY]["nights"]
    with tempfile.TemporaryDirectory() as folder:
        for count in counts:
            spec = build(Path(folder), count)
            names = [p for p in only or pages(spec["key"]) if p != AFTER_GAME]
            measured = {page: in_fresh_process(spec, page) for page in names}
            levels[str(count)] = {
                "pages": measured, "build_s": spec["build_s"],
                "first_visit_ms": spec["first_visit_ms"],
                "rss_mb": max(m["rss_mb"] for m in measured.values())}
            if only is None or AFTER_GAME in only:  # last: it adds games to the night
                levels[str(count)][AFTER_GAME] = in_fresh_process(spec, AFTER_GAME)
            print(f"{count} nights: built in {spec['build_s']} s; " + ", ".join(
                f"{p} {m['cold_ms']:.0f}/{m['warm_ms']:.1f} ms" for p, m in measured.items()),
                flush=True)
            os.remove(spec["database"])
    base = levels[str(counts[0])]
    for count in counts[1:]:
        level = levels[str(count)]
        for how in ("cold", "warm"):
            level[f"{how}_ratio"] = {
                page: round(m[f"{how}_ms"] / base["pages"][page][f"{how}_ms"], 2)
                for page, m in level["pages"].items()}
        level["rss_growth_mb"] = round(level["rss_mb"] - base["rss_mb"], 1)
        if AFTER_GAME in level:
            level[f"{AFTER_GAME}_ratio"] = {
                how: round(level[AFTER_GAME][f"{how}_ms"] / base[AFTER_GAME][f"{how}_ms"], 2)
                for how in ("cold", "warm")}
    report["machine"]["cpu_ms_at_end"] = cpu_ms()
    return report


def table(report: dict[str, Any]) -> str:
    levels = report["servers"][HISTORY]["nights"]
    counts = list(levels)
    head = "| page | " + " | ".join(f"{c} nights cold / warm ms" for c in counts)
    head += " | " + " | ".join(f"{c}: × {counts[0]} (cold / warm)" for c in counts[1:]) + " |"
    lines = [head, "|---" * (1 + 2 * len(counts) - 1) + "|"]
    for page in levels[counts[0]]["pages"]:
        cells = [f"{levels[c]['pages'][page]['cold_ms']:.1f} / "
                 f"{levels[c]['pages'][page]['warm_ms']:.1f}" for c in counts]
        cells += [f"{levels[c]['cold_ratio'][page]:.2f} / {levels[c]['warm_ratio'][page]:.2f}"
                  for c in counts[1:]]
        lines.append(f"| `{page}` | " + " | ".join(cells) + " |")
    if AFTER_GAME in levels[counts[0]]:
        cells = [f"{levels[c][AFTER_GAME]['cold_ms']:.1f} / "
                 f"{levels[c][AFTER_GAME]['warm_ms']:.1f}" for c in counts]
        cells += [f"{levels[c][AFTER_GAME + '_ratio']['cold']:.2f} / "
                  f"{levels[c][AFTER_GAME + '_ratio']['warm']:.2f}" for c in counts[1:]]
        lines.append("| `stats` after a game ends | " + " | ".join(cells) + " |")
    lines.append("| process RSS (MB, the largest of the pages' processes) | " + " | ".join(
        str(levels[c]["rss_mb"]) for c in counts) + " | " + " | ".join(
        f"{levels[c]['rss_growth_mb']:+.1f} MB" for c in counts[1:]) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.history",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--nights", default="10,100,1000",
                        help="the history's lengths, the first the base of the ratios")
    parser.add_argument("--pages", help="only these pages (comma-separated names)")
    parser.add_argument("--json", help="save the report here")
    parser.add_argument("--measure", nargs=2, metavar=("SPEC", "PAGE"),
                        help=argparse.SUPPRESS)  # the measuring process's own call
    args = parser.parse_args(argv)
    if args.measure:
        print(json.dumps(measure(json.loads(args.measure[0]), args.measure[1])))
        return 0
    counts = [int(n) for n in args.nights.split(",")]
    report = run(counts, args.pages.split(",") if args.pages else None)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, ensure_ascii=False))
    print(table(report))
    print(f"speed sample (cpu_ms, lower is faster): {report['machine']['cpu_ms_at_start']}"
          f" at the start, {report['machine']['cpu_ms_at_end']} at the end")
    if len(counts) > 1:
        for verdict in judge(report, budgets=HISTORY_BUDGETS):
            print(f"{'PASS' if verdict.passed else 'FAIL'}  {verdict.budget.name}: "
                  f"{verdict.figure}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
