"""The performance budgets, defined once.

``BUDGETS`` is the only place they are written: the bench's summary judges a run by
them, and the budget table of docs/performance.md is printed from them and a saved
report (``bench/bench.py --json``), by either of these two commands:

    .venv/bin/python -m bench.budgets docs/measurements/2026-11-29/bench-2026-11-29.json
    .venv/bin/python bench/bench.py --table docs/measurements/2026-11-29/bench-2026-11-29.json

Each budget names the figures it reads by their path in the saved report (``{setup}``
stands for the setup it is judged on), how they make the one value judged, the limit
and the setup. A budget passes only on a measured figure inside its limit: a figure
missing from the report (a setup or level not run or skipped, an empty percentile, no
sample at all) FAILs as "not measured".
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CAFE = "gunicorn"  # the café setup: gunicorn, a worker per core running gevent's server
SERVE = "serve"    # `companion serve`: one gevent process
HISTORY = "history"  # bench/history.py: the host's pages in one process, no server

SETUP_NAMES = {"gunicorn": "the café setup (gunicorn)", "serve": "`companion serve` (gevent)",
               "waitress": "`companion serve` (waitress, before live push)",
               HISTORY: "bench/history.py (a process per page, the test client)"}

OPS = {"<": (lambda a, b: a < b), "<=": (lambda a, b: a <= b),
       ">=": (lambda a, b: a >= b), "==": (lambda a, b: a == b)}
OP_TEXT = {"<": "<", "<=": "≤", ">=": "≥", "==": "="}

# How a budget's figures make its one judged value.
HOW = ("max", "sum", "ratio", "growth", "max-age")


@dataclass(frozen=True)
class Budget:
    """One budget. ``keys``: (label, path) of each figure read, the label a format
    string for the figure's text; ``samples``: paths of sample counts whose sum must be
    positive; ``shown``: (label, path) of context printed beside it, never judged."""

    name: str
    keys: tuple[tuple[str, str], ...]
    how: str
    op: str
    limit: float
    unit: str
    setup: str = CAFE
    samples: tuple[str, ...] = ()
    shown: tuple[tuple[str, str], ...] = ()
    limit_text: str = ""

    def __post_init__(self) -> None:
        if self.how not in HOW or self.op not in OPS:
            raise ValueError(f"{self.name}: how {self.how!r}, op {self.op!r}")

    def limit_str(self) -> str:
        return self.limit_text or f"{OP_TEXT[self.op]} {number(self.limit)} {self.unit}"


def level(count: int, figure: str) -> str:
    return f"servers.{{setup}}.levels.{count}.{figure}"


FIRST_LOAD = "servers.{setup}.first_load_bytes."
SOAK = "servers.{setup}.soak."
REQUESTS = {"poll": "polls", "live": "polls with a change", "write": "writes",
            "page": "pages"}

BUDGETS: tuple[Budget, ...] = (
    Budget("100 tables (900 phones + 100 host screens): poll p99",
           keys=(("quiet poll {} ms", level(100, "poll.p99")),
                 ("poll with a change {} ms", level(100, "live.p99"))),
           how="max", op="<", limit=50, unit="ms",
           samples=(level(100, "poll.n"), level(100, "live.n")),
           shown=(("writes {} ms", level(100, "write.p99")),
                  ("pages {} ms", level(100, "page.p99")))),
    Budget("100 tables: no errors",
           keys=tuple((f"{label} {{}}", level(100, f"{kind}.errors"))
                      for kind, label in REQUESTS.items()),
           how="sum", op="==", limit=0, unit="errors",
           samples=tuple(level(100, f"{kind}.n") for kind in REQUESTS)),
    Budget("a no-change poll's throughput, saturated, against the floor's hello "
           "(the median of interleaved pairs)",
           keys=(("{} × the floor", "servers.{setup}.saturation_poll.ratio.median"),),
           how="max", op=">=", limit=0.5, unit="× the floor",
           samples=("servers.{setup}.saturation_poll.ratio.n",),
           shown=(("lowest pair {}", "servers.{setup}.saturation_poll.ratio.min"),
                  ("highest {}", "servers.{setup}.saturation_poll.ratio.max"),
                  ("{} pairs", "servers.{setup}.saturation_poll.ratio.n"),
                  ("poll {} req/s", "servers.{setup}.saturation_poll.rps"),
                  ("{}", "servers.{setup}.saturation_poll.tool"))),
    Budget("200 tables (1,800 phones and 200 host screens): writes, pages and "
           "fragments p99",
           keys=(("fragment {} ms", level(200, "live.p99")),
                 ("write {} ms", level(200, "write.p99")),
                 ("page {} ms", level(200, "page.p99"))),
           how="max", op="<", limit=50, unit="ms",
           samples=(level(200, "live.n"), level(200, "write.n"))),
    Budget("200 tables: no errors",
           keys=tuple((f"{{}} {name}", level(200, f"{kind}.errors"))
                      for kind, name in REQUESTS.items()),
           how="sum", op="==", limit=0, unit="errors",
           samples=tuple(level(200, f"{kind}.n") for kind in REQUESTS)),
    Budget("a write until every screen of its table shows it, p95 (10, 100 and 200 tables)",
           keys=(("10 tables {} ms", level(10, "seen_ms.p95")),
                 ("100 tables {} ms", level(100, "seen_ms.p95")),
                 ("200 tables {} ms", level(200, "seen_ms.p95"))),
           how="max", op="<=", limit=300, unit="ms"),
    Budget("`companion serve` at 50 tables: polls, fragments, writes and pages p99",
           keys=(("fragment {} ms", level(50, "live.p99")),
                 ("write {} ms", level(50, "write.p99")),
                 ("page {} ms", level(50, "page.p99"))),
           how="max", op="<", limit=50, unit="ms", setup=SERVE,
           samples=(level(50, "live.n"), level(50, "write.n"))),
    Budget("an idle device (its page open, nobody playing): requests a minute, its "
           "stream's heartbeats aside",
           keys=(("{} a minute", "servers.{setup}.idle.requests_per_minute"),),
           how="max", op="<=", limit=1, unit="a minute",
           samples=("servers.{setup}.idle.devices",),
           shown=(("{} devices", "servers.{setup}.idle.devices"),
                  ("{} s", "servers.{setup}.idle.seconds"),
                  ("{} stream errors", "servers.{setup}.idle.stream_errors"))),
    Budget("an idle device: stream frames a minute (each wakes a phone's Wi-Fi radio)",
           keys=(("{} frames a minute", "servers.{setup}.idle.frames_per_minute"),),
           how="max", op="<=", limit=4, unit="a minute",
           samples=("servers.{setup}.idle.frames",),
           shown=(("{} streams reopened a minute", "servers.{setup}.idle.streams_per_minute"),
                  ("{} s", "servers.{setup}.idle.seconds"))),
    Budget("10 tables: a write and a full host page, p99",
           keys=(("write {} ms", level(10, "write.p99")),
                 ("page {} ms", level(10, "page.p99"))),
           how="max", op="<", limit=20, unit="ms",
           shown=(("{} writes", level(10, "write.n")), ("{} pages", level(10, "page.n")))),
    Budget("seat page first load (HTML + CSS + JS, gzipped, headers included)",
           keys=(("{} B", FIRST_LOAD + "total (html+css+js)"),),
           how="max", op="<", limit=150 * 1024, unit="B", limit_text="< 150 KB",
           shown=(("HTML {} B", FIRST_LOAD + "html"), ("CSS {} B", FIRST_LOAD + "css"),
                  ("JS {} B", FIRST_LOAD + "js"))),
    Budget("a poll with no change, on the wire (204, headers only)",
           keys=(("{} B", level("*", "no_change_poll_bytes")),),
           how="max", op="<", limit=1024, unit="B", limit_text="< 1 KB"),
    Budget("static files cached a year",
           keys=(("`{}`", FIRST_LOAD + "cache"),),
           how="max-age", op=">=", limit=31_536_000, unit="s",
           limit_text="max-age ≥ 31,536,000 s, immutable"),
    Budget("static file URLs carry their content's version (`?v=`)",
           keys=(("{} without", FIRST_LOAD + "unversioned"),),
           how="sum", op="==", limit=0, unit="URLs without one",
           samples=(FIRST_LOAD + "static_urls",),
           shown=(("of {} static URLs", FIRST_LOAD + "static_urls"),)),
    Budget("the soak lasts 10 minutes",
           keys=(("{} s", SOAK + "seconds"),),
           how="max", op=">=", limit=600, unit="s",
           shown=(("{} tables", SOAK + "tables"), ("{} requests", SOAK + "requests"))),
    Budget("memory flat over the soak (RSS of all the server's processes)",
           keys=(("{} MB", SOAK + "rss_first_mb"), ("{} MB", SOAK + "rss_last_mb")),
           how="growth", op="<", limit=5, unit="%",
           shown=(("max {} MB", SOAK + "rss_max_mb"), ("polls p99 {} ms", SOAK + "poll.p99"))),
    Budget("the soak: no errors",
           keys=(("{}", SOAK + "errors"),),
           how="sum", op="==", limit=0, unit="errors",
           samples=(SOAK + "requests",),
           shown=(("{} requests", SOAK + "requests"),)),
)


OVERLOAD = "servers.{setup}.overload."

#: Twice the tables a setup holds (``bench/bench.py --overload N``: N×2 tables, then back
#: to N), judged on the report of that run: the server slows its pages down instead of
#: breaking (docs/architecture.md, "Overload"), and is back within the levels' budgets
#: soon after the load is.
OVERLOAD_BUDGETS: tuple[Budget, ...] = (
    Budget("twice the tables the setup holds: streams that timed out unanswered",
           keys=(("{}", OVERLOAD + "stream_timeouts"),),
           how="sum", op="==", limit=0, unit="streams",
           samples=(OVERLOAD + "overload_tables",),
           shown=(("{} tables", OVERLOAD + "overload_tables"),
                  ("{} stream errors of any kind", OVERLOAD + "stream_errors"),
                  ("{} told busy", OVERLOAD + "streams_busy"))),
    Budget("twice the tables: answers 5xx",
           keys=(("{}", OVERLOAD + "errors_5xx"),),
           how="sum", op="==", limit=0, unit="answers",
           samples=(OVERLOAD + "refreshes",),
           shown=(("{} refreshes", OVERLOAD + "refreshes"),
                  ("{} turned away (429)", OVERLOAD + "turned_away"),
                  ("{} told to slow down", OVERLOAD + "slowed_answers"))),
    Budget("twice the tables: writes that failed or timed out at the client, or never "
           "showed on a phone of their table",
           keys=(("failed {}", OVERLOAD + "writes_failed"),
                 ("never shown {}", OVERLOAD + "unseen_writes.never")),
           how="sum", op="==", limit=0, unit="writes",
           samples=(OVERLOAD + "writes",),
           shown=(("of {} writes", OVERLOAD + "writes"),)),
    Budget("twice the tables: a write until every phone of its table shows it, p95",
           keys=(("{} ms", OVERLOAD + "unseen_writes.p95"),),
           how="max", op="<=", limit=1000, unit="ms",
           samples=(OVERLOAD + "unseen_writes.pairs",),
           shown=(("p50 {} ms", OVERLOAD + "unseen_writes.p50"),
                  ("max {} ms", OVERLOAD + "unseen_writes.max"),
                  ("p99 of every request {} ms", OVERLOAD + "p99_ms"))),
    Budget("back to the tables it holds: seconds until a 5 s window is within budget "
           "(p99 < 50 ms, write→visible p95 ≤ 300 ms, no error)",
           keys=(("{} s", OVERLOAD + "recovery_seconds"),),
           how="max", op="<=", limit=30, unit="s",
           shown=(("{} tables", OVERLOAD + "tables"), ("{} cores", OVERLOAD + "cpus"))),
)


def nights(count: int, figure: str) -> str:
    return f"servers.{HISTORY}.nights.{count}.{figure}"


#: A year of nights at the speed of one (bench/history.py): with 1,000 earlier nights on
#: one host, each page costs at most a few times what it costs with 10, cold (a fresh
#: process) and warm, and the process's memory hardly grows.
HISTORY_BUDGETS: tuple[Budget, ...] = (
    Budget("1,000 earlier nights: every host and phone page, cold (a fresh process), "
           "against its 10-night cost",
           keys=(("{} ×", nights(1000, "cold_ratio.*")),),
           how="max", op="<=", limit=3, unit="× the 10-night cost", setup=HISTORY,
           shown=(("/stats {} ×", nights(1000, "cold_ratio.stats")),
                  ("/history {} ×", nights(1000, "cold_ratio.history")))),
    Budget("1,000 earlier nights: every host and phone page, warm, against its 10-night "
           "cost",
           keys=(("{} ×", nights(1000, "warm_ratio.*")),),
           how="max", op="<=", limit=2, unit="× the 10-night cost", setup=HISTORY,
           shown=(("/stats {} ×", nights(1000, "warm_ratio.stats")),
                  ("/history {} ×", nights(1000, "warm_ratio.history")))),
    Budget("1,000 earlier nights: the first /stats after a game ends, cold (a fresh "
           "process), against its 10-night cost",
           keys=(("{} ×", nights(1000, "after_game_ratio.cold")),),
           how="max", op="<=", limit=3, unit="× the 10-night cost", setup=HISTORY,
           shown=(("{} ms", nights(1000, "after_game.cold_ms")),
                  ("10 nights {} ms", nights(10, "after_game.cold_ms")))),
    Budget("1,000 earlier nights: the first /stats after a game ends, warm, against its "
           "10-night cost",
           keys=(("{} ×", nights(1000, "after_game_ratio.warm")),),
           how="max", op="<=", limit=3, unit="× the 10-night cost", setup=HISTORY,
           shown=(("{} ms", nights(1000, "after_game.warm_ms")),
                  ("10 nights {} ms", nights(10, "after_game.warm_ms")))),
    Budget("1,000 earlier nights: a page's process memory (RSS) over 10 nights'",
           keys=(("{} MB", nights(1000, "rss_growth_mb")),),
           how="max", op="<=", limit=60, unit="MB", limit_text="≤ +60 MB", setup=HISTORY,
           shown=(("10 nights {} MB", nights(10, "rss_mb")),
                  ("1,000 nights {} MB", nights(1000, "rss_mb")))),
)


def quota(cores: str, figure: str) -> str:
    """A figure of one quota's capacity search (bench/capacity.py; ``cores`` in
    millicores: "500m" is half a core)."""
    return f"servers.{{setup}}.quotas.{cores}.{figure}"


def _held(cores: str) -> tuple[tuple[str, str], ...]:
    return (("floor {} req/s", quota(cores, "floor_rps")),
            ("{} tables per 1,000 floor req/s", quota(cores, "per_floor")),
            ("next count tried {}", quota(cores, "first_over")))


#: A slower laptop (bench/capacity.py: the server held to a CPU quota): the most tables a
#: setup holds within a table's budgets (polls, fragments, writes and pages p99 < 50 ms,
#: no error, write→visible p95 ≤ 300 ms: ``bench.capacity.over_budget``).
CAPACITY_BUDGETS: tuple[Budget, ...] = (
    Budget("half a core holds a busy café: tables held within a table's budgets",
           keys=(("{} tables", quota("500m", "tables")),),
           how="max", op=">=", limit=20, unit="tables", shown=_held("500m")),
    # A Pi-class host is judged on what its players see: every write on its table's
    # screens within 300 ms (p95) and no error; its p99s are shown, not judged.
    Budget("a quarter core (a Pi-class host): tables with every write on its table's "
           "screens within 300 ms (p95) and no error",
           keys=(("{} tables", quota("250m", "tables_in_time")),),
           how="max", op=">=", limit=3, unit="tables", setup=SERVE,
           shown=(("{} within every budget", quota("250m", "tables")), *_held("250m"))),
    Budget("a quarter core, the café setup: tables with every write on its table's "
           "screens within 300 ms (p95) and no error",
           keys=(("{} tables", quota("250m", "tables_in_time")),),
           how="max", op=">=", limit=3, unit="tables",
           shown=(("{} within every budget", quota("250m", "tables")), *_held("250m"))),
)


def _night(figure: str) -> str:
    """A figure of a Wi-Fi bench night (bench/wifi.py --json), ``{setup}`` its key."""
    return f"profiles.{{setup}}.{figure}"


#: A table's phones (bench/wifi.py: a host and five phones, three reveals a night), judged
#: on each night of a run: its Wi-Fi and its phones' slowdown, "home@4x" a mid-range
#: Android's on home Wi-Fi, "cafe" a café's with a bad phone (docs/performance.md, "Slow
#: phones").
WIFI_BUDGETS: tuple[Budget, ...] = (
    *(Budget(f"{what}: every other screen shows a write (p95)",
             keys=(("{} ms", _night("write_to_visible_ms.p95")),),
             how="max", op="<=", limit=limit, unit="ms", setup=night,
             samples=(_night("write_to_visible_ms.n"),),
             shown=(("p50 {} ms", _night("write_to_visible_ms.p50")),
                    ("max {} ms", _night("write_to_visible_ms.max"))))
      for what, night, limit in (
          ("home Wi-Fi, phones at full speed", "home", 300),
          ("café Wi-Fi, phones at full speed", "cafe", 600),
          ("home Wi-Fi, phones 4× slower", "home@4x", 600),
          ("home Wi-Fi, phones 6× slower", "home@6x", 1000),
          ("café Wi-Fi, phones 4× slower", "cafe@4x", 1200))),
    *(Budget(f"{what}: the reveal's flips, their spread (the widest of the night's)",
             keys=(("{} ms", _night("spread_ms.max")),), how="max", op="<=", limit=limit,
             unit="ms", setup=night, shown=(("median {} ms", _night("spread_ms.median")),))
      for what, night, limit in (
          ("café Wi-Fi, phones at full speed", "cafe", 50),
          ("home Wi-Fi, phones 4× slower", "home@4x", 50),
          ("café Wi-Fi, phones 4× slower", "cafe@4x", 80))),
    *(Budget(f"{what}: every screen holds the moment before it passes (its least time "
             "to spare)",
             keys=(("{} ms", _night("spare_ms.min")),), how="max", op=">=", limit=0,
             unit="ms", setup=night, shown=(("median {} ms", _night("spare_ms.median")),))
      for what, night in (("home Wi-Fi, phones 4× slower", "home@4x"),
                          ("café Wi-Fi, phones 4× slower", "cafe@4x"))),
    *(Budget(f"{what}: flips before the moment",
             keys=(("{}", _night("early_flips")),), how="max", op="==", limit=0,
             unit="flips", setup=night)
      for what, night in (("home Wi-Fi, phones 4× slower", "home@4x"),
                          ("café Wi-Fi, phones 4× slower", "cafe@4x"))),
    Budget("café Wi-Fi, phones 4× slower: \"Connection lost\" with the laptop there",
           keys=(("{}", _night("false_banners")),), how="max", op="==", limit=0,
           unit="banners", setup="cafe@4x"),
    Budget("café Wi-Fi, phones 4× slower: a screen more than 5 s behind a write",
           keys=(("{}", _night("behind_5s")),), how="max", op="==", limit=0,
           unit="times", setup="cafe@4x"),
)


class NotMeasured(Exception):
    pass


@dataclass(frozen=True)
class Verdict:
    budget: Budget
    setup: str
    passed: bool
    value: float | None
    figure: str          # this run's figure, as text (or why it was not measured)

    def as_dict(self) -> dict[str, Any]:
        return {"budget": self.budget.name, "setup": self.setup,
                "limit": self.budget.limit_str(), "value": self.value, "figure": self.figure,
                "verdict": "PASS" if self.passed else "FAIL"}


def number(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, float) and value.is_integer() and abs(value) >= 1000:
        value = int(value)
    return f"{value:,}"


def resolve(report: dict[str, Any], path: str) -> list[Any]:
    """The values at a path of the report (``*`` matches every level not skipped).

    Raises NotMeasured if nothing is there: a missing key, a skipped level, None.
    """
    nodes: list[Any] = [report]
    parts = path.split(".")
    for i, part in enumerate(parts):
        here = ".".join(parts[:i + 1])
        found = []
        for node in nodes:
            if not isinstance(node, dict):
                continue
            if part == "*":
                found += [v for v in node.values() if not skipped(v)]
            elif part in node:
                if skipped(node[part]):
                    raise NotMeasured(f"{here} skipped: {node[part]['skipped']}")
                found.append(node[part])
        nodes = [v for v in found if v is not None]
        if not nodes:
            raise NotMeasured(f"{here} is empty" if found else f"no {here}")
    return nodes


def skipped(node: Any) -> bool:
    return isinstance(node, dict) and "skipped" in node


def judge_one(budget: Budget, report: dict[str, Any], setup: str | None = None) -> Verdict:
    """One budget against a report (JSON-shaped: as saved by ``bench.py --json``)."""
    setup = setup or budget.setup

    def values(path: str) -> list[Any]:
        return resolve(report, path.format(setup=setup))

    try:
        _check_measured(budget, report, setup, values)
        figures = [(label, values(path)) for label, path in budget.keys]
        value, text = _judged(budget, setup, figures)
        text += _shown_text(budget, values)
    except NotMeasured as why:
        return Verdict(budget, setup, False, None, f"not measured ({why})")
    passed = OPS[budget.op](value, budget.limit)  # NaN never passes
    return Verdict(budget, setup, passed, value, text)


def _check_measured(budget: Budget, report: dict[str, Any], setup: str,
                    values: Callable[[str], list[Any]]) -> None:
    """Raise NotMeasured if the setup was not run or the budget's samples sum to nothing."""
    runs = report.get("servers") or report.get("profiles") or {}
    if setup not in runs:
        raise NotMeasured(f"{setup} was not run")
    if "error" in runs[setup]:
        raise NotMeasured(runs[setup]["error"])
    if budget.samples:
        count = sum(sum(values(path)) for path in budget.samples)
        if count <= 0:
            raise NotMeasured("no sample")


Figures = list[tuple[str, list[Any]]]


def _judged(budget: Budget, setup: str, figures: Figures) -> tuple[Any, str]:
    """The one judged value of a budget's figures and its text, the way ``budget.how`` says."""
    flat = [v for _, vs in figures for v in vs]
    texts = [label.format(number(max(vs) if len(vs) > 1 else vs[0]))
             for label, vs in figures]
    how = _HOW_JUDGED.get(budget.how)
    if how is None:
        raise ValueError(f"unknown way to judge: {budget.how}")
    return how(budget, setup, figures, flat, texts)


def _judged_max(budget: Budget, setup: str, figures: Figures, flat: list[Any],
                texts: list[str]) -> tuple[Any, str]:
    """``max``: the largest figure; one figure over several levels says how many."""
    value = max(flat)
    text = ", ".join(texts)
    if len(flat) > 1 and len(figures) == 1:
        text = f"{figures[0][0].format(number(value))} (the largest of {len(flat)} levels)"
    return value, text


def _judged_sum(budget: Budget, setup: str, figures: Figures, flat: list[Any],
                texts: list[str]) -> tuple[Any, str]:
    """``sum``: the figures added up, each shown beside when there are several."""
    value = sum(flat)
    text = f"{number(value)} {budget.unit}"
    if len(texts) > 1:
        text += f" ({', '.join(texts)})"
    return value, text


def _judged_ratio(budget: Budget, setup: str, figures: Figures, flat: list[Any],
                  texts: list[str]) -> tuple[Any, str]:
    """``ratio``: the first figure over the second (NotMeasured on a zero divisor)."""
    if not flat[1]:
        raise NotMeasured(f"{budget.keys[1][1].format(setup=setup)} is 0")
    value = flat[0] / flat[1]  # judged unrounded: 0.497 is not 0.50
    return value, f"{value:.2f} {budget.unit} ({' / '.join(texts)})"


def _judged_growth(budget: Budget, setup: str, figures: Figures, flat: list[Any],
                   texts: list[str]) -> tuple[Any, str]:
    """``growth``: the second figure's change over the first, in percent."""
    if not flat[0]:
        raise NotMeasured(f"{budget.keys[0][1].format(setup=setup)} is 0")
    value = (flat[1] / flat[0] - 1) * 100
    return value, f"{' → '.join(texts)} ({value:+.1f} %)"


def _judged_max_age(budget: Budget, setup: str, figures: Figures, flat: list[Any],
                    texts: list[str]) -> tuple[Any, str]:
    """``max-age``: the shortest immutable max-age of a Cache-Control figure."""
    return max_age(flat[0]), texts[0]


_HOW_JUDGED: dict[str, Callable[..., tuple[Any, str]]] = {
    "max": _judged_max, "sum": _judged_sum, "ratio": _judged_ratio,
    "growth": _judged_growth, "max-age": _judged_max_age}


def _shown_text(budget: Budget, values: Callable[[str], list[Any]]) -> str:
    """The context figures printed beside the judged one ("; a, b"), those measured."""
    shown = []
    for label, path in budget.shown:
        try:
            shown.append(label.format(number(values(path)[0])))
        except NotMeasured:
            pass
    return f"; {', '.join(shown)}" if shown else ""


def max_age(cache_control: str) -> int:
    """The shortest max-age of one or more Cache-Control values (" | " between them);
    0 if any of them is not ``immutable``."""
    ages = []
    for value in str(cache_control).split(" | "):
        directives = [d.strip().lower() for d in value.split(",")]
        if "immutable" not in directives:
            return 0
        age = [d.split("=", 1)[1] for d in directives if d.startswith("max-age=")]
        ages.append(int(age[0]) if age and age[0].isdigit() else 0)
    return min(ages, default=0)


def normalized(report: dict[str, Any]) -> dict[str, Any]:
    """The report as it is saved (its level counts as strings)."""
    return json.loads(json.dumps(report))


def judge(report: dict[str, Any], setup: str | None = None,
          budgets: tuple[Budget, ...] = BUDGETS) -> list[Verdict]:
    """Every budget (of ``budgets``: the server's by default, ``HISTORY_BUDGETS`` for
    bench/history.py) against a report: on its own setup, or all on ``setup``."""
    report = normalized(report)
    return [judge_one(budget, report, setup) for budget in budgets]


def sets(report: dict[str, Any]) -> tuple[Budget, ...]:
    """The budgets a bench report is judged by: the levels' (``BUDGETS``) unless the run
    measured no level, and ``OVERLOAD_BUDGETS`` when it ran ``--overload``."""
    servers = report.get("servers", {}).values()
    chosen: tuple[Budget, ...] = ()
    if any(result.get("levels") for result in servers) or not any(
            "overload" in result for result in servers):
        chosen += BUDGETS
    if any("overload" in result for result in servers):
        chosen += OVERLOAD_BUDGETS
    return chosen


def markdown_table(report: dict[str, Any], setup: str | None = None,
                   source: str | None = None,
                   budgets: tuple[Budget, ...] | None = None) -> str:
    """The budget table of docs/performance.md, for one report (by the budgets it is
    judged by, :func:`sets`, unless ``budgets`` are given)."""
    verdicts = judge(report, setup, sets(report) if budgets is None else budgets)
    lines = []
    if source:
        lines.append(f"<!-- generated by `python -m bench.budgets {source}`"
                     " from bench/budgets.py: do not edit by hand -->")
    lines += ["| budget | limit | judged on | figure (path in the report) | this run | |",
              "|---|---|---|---|---|---|"]
    for v in verdicts:
        paths = "<br>".join(f"`{path.format(setup=v.setup)}`" for _, path in v.budget.keys)
        verdict = "PASS" if v.passed else "**FAIL**"
        lines.append(f"| {v.budget.name} | {v.budget.limit_str()} | "
                     f"{SETUP_NAMES.get(v.setup, v.setup)} | {paths} | {v.figure} | {verdict} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.budgets",
        description="Print the markdown budget table of a saved bench report.")
    parser.add_argument("report", help="a report saved by `bench/bench.py --json`")
    parser.add_argument("--setup", choices=sorted(SETUP_NAMES),
                        help="judge every budget on this setup (default: each on its own)")
    args = parser.parse_args(argv)
    report = json.loads(Path(args.report).read_text())
    # A capacity report (bench/capacity.py) and a Wi-Fi one (bench/wifi.py) are judged
    # by their own budgets.
    chosen = (CAPACITY_BUDGETS if report.get("kind") == "capacity" else
              WIFI_BUDGETS if "profiles" in report else sets(report))
    print(markdown_table(report, args.setup, source=args.report, budgets=chosen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
