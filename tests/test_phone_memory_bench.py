"""The phone memory bench (bench/phone_memory.py) at a tiny size: a game of two rounds,
read after each. Only its shape is checked; its figures are docs/performance.md's."""

import json
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_phone_memory_bench_reads_a_phone_s_heap_and_nodes_through_a_game(tmp_path):
    out = tmp_path / "memory.json"
    subprocess.run([sys.executable, "-m", "bench.phone_memory", "--rounds", "2", "--games",
                    "1", "--every", "1", "--json", str(out)], check=True, timeout=900,
                   stdout=subprocess.DEVNULL)
    report = json.loads(out.read_text())
    assert [s["rounds"] for s in report["samples"]] == [0, 1, 2]
    for sample in report["samples"]:
        assert sample["heap_mb"] > 0 and sample["nodes"] >= sample["in_page"] > 100
        assert sample["documents"] >= 1
    assert {"cpu_ms", "loadavg"} <= set(report["machine_at_start"])
