"""The capacity search (bench/capacity.py) and its tables, without a server: which level
is held, which count comes next, what the search finds against a known capacity, and
the tables docs/performance.md and docs/guide.md print from a report. Its timings are
figures for docs/performance.md, never assertions here."""

import copy

import pytest

from bench import budgets, capacity


def level(p99: float = 20.0, seen: float | None = 180, errors: int = 0, n: int = 50,
          **kinds: float | None) -> dict:
    """A level of the load bench as ``measure_level`` reports it (every p99 ``p99`` unless a
    kind says otherwise)."""
    out = {}
    for kind in ("poll", "live", "write", "page", "stream"):
        value = kinds.get(kind, p99 if kind != "stream" else None)
        out[kind] = {"n": n if kind != "stream" else 0, "p99": value, "errors": 0}
    out["write"]["errors"] = errors
    out["seen_ms"] = {"p50": 100, "p95": seen, "max": 400, "n": n}
    out["cpu_ms_after"] = 40.0
    out["tables_set_up"], out["setup_failed"] = 10, 0
    return out


# --- which level is held -------------------------------------------------------------------

def test_a_level_inside_every_budget_is_held():
    assert capacity.over_budget(level()) == []


@pytest.mark.parametrize("kind", ["poll", "live", "write", "page"])
def test_a_p99_of_50_ms_or_more_of_any_kind_is_over(kind):
    assert capacity.over_budget(level(**{kind: 49.9})) == []
    why = capacity.over_budget(level(**{kind: 50.0}))
    assert len(why) == 1 and capacity.REQUESTS[kind] in why[0]


def test_one_error_of_any_kind_is_over_and_a_stream_error_counts():
    assert capacity.over_budget(level(errors=1)) == ["errors write 1"]
    broken = level()
    broken["stream"]["errors"] = 2
    assert capacity.over_budget(broken) == ["errors stream 2"]


def test_write_to_visible_over_300_ms_or_not_measured_is_over():
    assert capacity.over_budget(level(seen=300)) == []
    assert capacity.over_budget(level(seen=301)) == ["write→visible p95 301 ms"]
    assert capacity.over_budget(level(seen=None)) == ["write→visible p95 None ms"]


def test_a_kind_nobody_asked_is_not_judged_but_writes_must_be_measured():
    quiet = level()
    quiet["page"] = {"n": 0, "p99": None, "errors": 0}
    assert capacity.over_budget(quiet) == []
    quiet["write"] = {"n": 0, "p99": None, "errors": 0}
    assert capacity.over_budget(quiet) == ["write p99 None ms"]


def test_tables_not_set_up_or_a_skipped_level_are_over():
    short = level()
    short["setup_failed"] = 3
    assert capacity.over_budget(short) == ["3 tables could not be set up"]
    assert capacity.over_budget({"skipped": "no table could be set up"}) != []


# --- the search ----------------------------------------------------------------------------

def searched(true_capacity: int, start: int, most: int = 512) -> tuple[list[int], int]:
    """The counts the search measures against a setup that holds ``true_capacity``
    tables exactly, and what it finds."""
    held: dict[int, bool] = {}
    order = []
    while (count := capacity.next_count(held, start, 0.1, most)) is not None:
        assert count not in held, f"{count} measured twice"
        held[count] = count <= true_capacity
        order.append(count)
        assert len(order) < 30
    return order, capacity.capacity(held)


def test_the_search_doubles_then_halves_the_gap():
    order, found = searched(23, start=4)
    assert order[:4] == [4, 8, 16, 32]  # doubling until the first level over budget
    assert order[4:] == [24, 20, 22]  # then the middle of the gap, until within a tenth
    assert found == 22


@pytest.mark.parametrize("true_capacity", [1, 2, 3, 7, 19, 20, 21, 64, 150, 233])
@pytest.mark.parametrize("start", [1, 4, 20, 100])
def test_the_search_finds_the_capacity_within_a_tenth(true_capacity, start):
    order, found = searched(true_capacity, start)
    assert found <= true_capacity
    assert true_capacity - found <= max(1, 0.1 * found)
    assert len(order) <= 14  # log2(150) doublings, then log2(10) halvings or so


def test_a_setup_that_holds_nothing_ends_at_one_table():
    order, found = searched(0, start=8)
    assert order == [8, 4, 2, 1] and found == 0


def test_the_search_never_goes_past_most():
    order, found = searched(10_000, start=100, most=300)
    assert order == [100, 200, 300] and found == 300


def test_a_count_held_above_one_not_held_does_not_count():
    held = {4: True, 8: False, 16: True}  # 16 held by luck
    assert capacity.capacity(held) == 4
    assert capacity.next_count(held, 4) == 6


def test_quota_keys_have_no_dot_for_the_reports_paths():
    assert [capacity.quota_key(c) for c in (2, 1, 0.5, 0.25)] == [
        "2000m", "1000m", "500m", "250m"]


def test_a_search_starts_from_the_nearest_quota_searched_scaled_by_cores():
    assert capacity.first_guess({}, 0.5, 4) == 4
    assert capacity.first_guess({0.25: 10}, 0.5, 4) == 18
    assert capacity.first_guess({0.25: 0}, 0.5, 4) == 4
    assert capacity.first_guess({0.25: 1}, 0.5, 4) == 2


# --- the tables of a report ------------------------------------------------------------------

def quota_result(cores: float, held: int, over: int | None, floor: float) -> dict:
    over_level = level(write=80.0)
    over_level["over_budget"] = capacity.over_budget(over_level)
    levels = {str(held): level(live=31.5, seen=190)} if held else {}
    if over is not None:
        levels[str(over)] = over_level
    return capacity.judged({"levels": levels, "floor": {"rps": floor}, "cores": cores})


def report() -> dict:
    return {"kind": "capacity", "servers": {
        "serve": {"quotas": {"250m": quota_result(0.25, 4, 5, 800.0),
                             "1000m": quota_result(1, 40, 44, 3000.0)}},
        "gunicorn": {"quotas": {"250m": quota_result(0.25, 0, 1, 700.0),
                                "1000m": quota_result(1, 60, 66, 2800.0)}}}}


def test_the_current_figures_table_has_a_row_per_setup_and_quota_most_cores_first():
    table = capacity.markdown_table(report(), source="r.json")
    lines = table.splitlines()
    assert lines[0] == ("<!-- generated by `python -m bench.capacity --table r.json`: "
                        "do not edit by hand -->")
    body = lines[3:]
    assert [row.split(" | ")[1:3] for row in body] == [
        ["1", "**40**"], ["0.25", "**4**"], ["1", "**60**"], ["0.25", "**0**"]]
    assert body[0] == ("| one process (`companion serve`) | 1 | **40** | 31.5 (fragment) | 190 "
                       "| 3,000 | 13.33 | 44: write p99 80.0 ms | ≥ 44 | 40.0 |")
    assert body[3].startswith("| café (gunicorn -w 2) | 0.25 | **0** | – (–) | – | 700 | 0.0 |")
    assert body[3].endswith("| 1: write p99 80.0 ms | ≥ 1 | – |")


def test_the_guides_table_repeats_the_tables_held_and_no_timing():
    table = capacity.guide_table(report(), source="r.json")
    assert table.splitlines()[1:] == [
        "| tables held at | 1 cores | 0.25 cores |",
        "|---|---|---|",
        "| one process (`companion serve`), within every budget | 40 | 4 |",
        "| one process (`companion serve`), every write seen in time | ≥ 44 | ≥ 5 |",
        "| café (gunicorn -w 2), within every budget | 60 | 0 |",
        "| café (gunicorn -w 2), every write seen in time | ≥ 66 | ≥ 1 |"]
    assert "ms" not in table.replace("--guide", "")


def test_a_level_too_slow_at_p99_may_still_show_every_write_in_time():
    slow = level(live=120.0)
    assert capacity.over_budget(slow) == ["fragment p99 120.0 ms"]
    assert capacity.not_in_time(slow) == []
    for late in (level(live=120.0, seen=400), level(errors=1)):
        assert capacity.not_in_time(late) != []
    unwritten = level()
    unwritten["write"] = {"n": 0, "p99": None, "errors": 0}
    assert capacity.not_in_time(unwritten) == ["no write measured"]


def test_a_search_is_judged_again_from_its_levels():
    levels = {"1": level(live=90.0), "2": level(live=120.0), "4": level(seen=500)}
    result = capacity.judged({"levels": levels, "floor": {"rps": 500.0}, "cores": 0.25})
    assert (result["tables"], result["first_over"]) == (0, 1)
    assert (result["tables_in_time"], result["in_time_first_over"]) == (2, 4)
    assert levels["2"]["over_budget"] == ["fragment p99 120.0 ms"]
    assert result["per_floor"] == 0.0


def test_the_capacity_budgets_judge_the_goals():
    saved = report()
    saved["servers"]["gunicorn"]["quotas"]["500m"] = quota_result(0.5, 20, 22, 1500.0)
    verdicts = {v.budget.name: v for v in budgets.judge(
        saved, budgets=budgets.CAPACITY_BUDGETS)}
    # the café's quarter core: nothing held, but its 1 table showed every write in time
    assert [v.passed for v in verdicts.values()] == [True, True, False]
    short = copy.deepcopy(saved)
    short["servers"]["gunicorn"]["quotas"]["500m"]["tables"] = 19
    assert not budgets.judge(short, budgets=budgets.CAPACITY_BUDGETS)[0].passed
    del saved["servers"]["gunicorn"]["quotas"]["500m"]
    first = budgets.judge(saved, budgets=budgets.CAPACITY_BUDGETS)[0]
    assert not first.passed and first.figure.startswith("not measured")


def test_the_budget_table_of_a_capacity_report_uses_its_budgets(tmp_path, capsys):
    saved = tmp_path / "capacity.json"
    saved.write_text(__import__("json").dumps(report()))
    assert budgets.main([str(saved)]) == 0
    out = capsys.readouterr().out
    assert "a quarter core (a Pi-class host)" in out and "100 tables" not in out
