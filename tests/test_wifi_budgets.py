"""The slow-phone budgets (bench/budgets.py, WIFI_BUDGETS) judged on Wi-Fi bench
reports (bench/wifi.py): a night inside every limit passes, a figure one past its limit
fails its budget alone, and a night that stopped or was not run is not measured."""

import pytest

from bench import budgets


def night_figures(**changes):
    """A Wi-Fi bench night's judged figures, each inside its budget unless changed."""
    night = {"write_to_visible_ms": {"n": 90, "p50": 200, "p95": 250, "max": 400},
             "spread_ms": {"median": 20, "max": 40}, "spare_ms": {"min": 300, "median": 900},
             "early_flips": 0, "false_banners": 0, "behind_5s": 0}
    for path, value in changes.items():
        *parents, last = path.split(".")
        node = night
        for key in parents:
            node = node[key]
        node[last] = value
    return night


def verdicts(profiles):
    return {(v.budget.name, v.setup): v.passed
            for v in budgets.judge({"profiles": profiles}, None, budgets.WIFI_BUDGETS)}


NIGHTS = ("home", "cafe", "home@4x", "home@6x", "cafe@4x")


def test_a_run_inside_every_slow_phone_budget_passes_them_all():
    assert all(verdicts({key: night_figures() for key in NIGHTS}).values())


@pytest.mark.parametrize("night, change, budget", [
    ("home@4x", {"write_to_visible_ms.p95": 601}, "phones 4× slower: every other screen"),
    ("home@6x", {"write_to_visible_ms.p95": 1001}, "phones 6× slower: every other screen"),
    ("cafe@4x", {"write_to_visible_ms.p95": 1201}, "phones 4× slower: every other screen"),
    ("home", {"write_to_visible_ms.p95": 301}, "full speed: every other screen"),
    ("home@4x", {"spread_ms.max": 51}, "4× slower: the reveal's flips"),
    ("cafe@4x", {"spread_ms.max": 81}, "4× slower: the reveal's flips"),
    ("cafe@4x", {"spare_ms.min": -1}, "holds the moment"),
    ("home@4x", {"early_flips": 1}, "flips before the moment"),
    ("cafe@4x", {"false_banners": 1}, "Connection lost"),
    ("cafe@4x", {"behind_5s": 1}, "5 s behind"),
])
def test_a_slow_phone_figure_one_past_its_limit_fails_its_budget(night, change, budget):
    profiles = {key: night_figures() for key in NIGHTS}
    profiles[night] = night_figures(**change)
    failed = [name for (name, setup), passed in verdicts(profiles).items() if not passed]
    assert len(failed) == 1 and budget in failed[0], failed


def test_a_night_that_stopped_or_was_not_run_fails_as_not_measured():
    profiles = {key: night_figures() for key in NIGHTS if key != "home@6x"}
    profiles["cafe@4x"] = {"error": "Page.wait_for_function: Timeout 60000ms exceeded."}
    failed = {setup for (_, setup), passed in verdicts(profiles).items() if not passed}
    assert failed == {"home@6x", "cafe@4x"}
