"""The history bench (bench/history.py) runs: a short history of one and two nights, two
pages, each in a fresh process. Its timings are figures for
docs/measurements/2026-12-02/README.md ("Statistics that add up"), never assertions here."""

import json

import pytest

from bench import history


# A fresh Python process per page timed makes this one of the suite's longest tests
# (about 14 s): like the server-process tests, it runs in the second stage, not the
# quick loop.
@pytest.mark.slow
def test_the_history_bench_builds_nights_and_times_pages_in_fresh_processes(tmp_path):
    out = tmp_path / "report.json"
    assert history.main(["--nights", "1,2", "--pages", "start,stats,after_game",
                         "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    levels = report["servers"]["history"]["nights"]
    assert set(levels) == {"1", "2"}
    assert set(levels["2"]["pages"]) == {"start", "stats"}
    assert set(levels["2"]["cold_ratio"]) == {"start", "stats"}
    assert "rss_growth_mb" in levels["2"] and report["machine"]["cpu_ms_at_start"] > 0
    # The first /stats after a game ends, timed in a process of its own.
    assert set(levels["2"]["after_game_ratio"]) == {"cold", "warm"}
    assert levels["1"]["after_game"]["cold_ms"] > 0
