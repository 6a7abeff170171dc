"""The bench's overload level (bench/bench.py --overload) and its budgets
(bench/budgets.py, OVERLOAD_BUDGETS): a write never shown counts as the slowest, and a
report is judged by the budgets of what it measured."""

import json
from pathlib import Path

from bench import budgets
from bench.levels import unseen_writes
from bench.scenario import PLAYERS, Run

ROOT = Path(__file__).resolve().parent.parent


class Written:
    def __init__(self, write_done):
        self.write_done = write_done


def test_a_write_never_shown_on_a_phone_is_the_slowest():
    run = Run()
    tables = [Written([(10.0, 5), (11.0, 6), (30.0, 7)])]  # the last one after the window
    run.seen_log = [(10.0, 10.2)] * PLAYERS + [(11.0, 11.5)] * (PLAYERS - 1)
    got = unseen_writes((run,), tables, (0.0, 20.0))
    assert got["pairs"] == 2 * PLAYERS
    assert got["never"] == 1
    assert got["p50"] == 500  # (200 ms eight times, 500 ms seven, one never)
    assert got["p95"] is None  # the never-shown one is the p95: no figure, a FAIL
    assert got["max"] == 500


def overload_report(**figures):
    overload = {"tables": 20, "overload_tables": 40, "cpus": 0.5, "stream_timeouts": 0,
                "stream_errors": 0, "streams_busy": 12, "errors_5xx": 0, "refreshes": 900,
                "turned_away": 40, "slowed_answers": 300, "writes_failed": 0, "writes": 260,
                "unseen_writes": {"pairs": 2080, "never": 0, "p50": 120, "p95": 640,
                                  "max": 1800},
                "p99_ms": 700, "recovery_seconds": 10.2}
    overload.update(figures)
    return {"servers": {budgets.CAFE: {"levels": {}, "overload": overload}}}


def test_an_overload_report_is_judged_by_the_overload_budgets_only():
    report = overload_report()
    assert budgets.sets(report) == budgets.OVERLOAD_BUDGETS
    verdicts = budgets.judge(report, budgets=budgets.sets(report))
    assert all(v.passed for v in verdicts), [v.figure for v in verdicts if not v.passed]
    table = budgets.markdown_table(report)
    assert "servers.gunicorn.overload.recovery_seconds" in table
    assert "levels.100" not in table


def test_each_overload_figure_fails_its_budget():
    for figures in ({"stream_timeouts": 3}, {"errors_5xx": 1}, {"writes_failed": 1},
                    {"recovery_seconds": None}, {"recovery_seconds": 31},
                    {"unseen_writes": {"pairs": 10, "never": 1, "p50": 1, "p95": None,
                                       "max": 2}}):
        verdicts = budgets.judge(overload_report(**figures), budgets=budgets.OVERLOAD_BUDGETS)
        assert not all(v.passed for v in verdicts), figures


def test_the_published_levels_report_is_still_judged_by_the_levels_budgets():
    report = json.loads((ROOT / "docs" / "measurements" / "2026-12-01"
                         / "bench-2026-12-01.json").read_text())
    assert budgets.sets(report) == budgets.BUDGETS
