"""The phone memory bench (bench/phone_memory.py) at a tiny size: a game of two rounds,
read after each, with its two heap snapshots. Only its shape is checked; its figures are
docs/measurements/2026-12-06/README.md's ("Memory over a night")."""

import json
import subprocess
import sys

import pytest

from bench.phone_memory import heap_groups, heap_growth


@pytest.mark.browser
@pytest.mark.slow
def test_the_phone_memory_bench_reads_a_phone_s_heap_and_nodes_through_a_game(tmp_path):
    out = tmp_path / "memory.json"
    subprocess.run([sys.executable, "-m", "bench.phone_memory", "--rounds", "2", "--games",
                    "1", "--every", "1", "--snapshots", "--json", str(out)], check=True,
                   timeout=900, stdout=subprocess.DEVNULL)
    report = json.loads(out.read_text())
    assert [s["rounds"] for s in report["samples"]] == [0, 1, 2]
    for sample in report["samples"]:
        assert sample["heap_mb"] > 0 and sample["nodes"] >= sample["in_page"] > 100
        assert sample["documents"] >= 1
    assert {"cpu_ms", "loadavg"} <= set(report["machine_at_start"])
    growth = report["heap_growth"]
    assert growth["rounds"] == [1, 2]
    assert min(growth["v8_bytes"] + growth["blink_bytes"]) > 0
    assert growth["by_bytes"] and {"group", "count", "bytes"} == set(growth["by_bytes"][0])


def test_a_snapshot_s_nodes_are_grouped_by_kind_and_name_strings_by_kind_only():
    """A .heapsnapshot in miniature: two objects of one constructor, two strings, and a
    div out of the document (detachedness 2)."""
    snapshot = {
        "snapshot": {"meta": {
            "node_fields": ["type", "name", "id", "self_size", "edge_count", "detachedness"],
            "node_types": [["hidden", "object", "string", "native"]]}},
        "strings": ["Flight", "hello", "world", "HTMLDivElement"],
        "nodes": [1, 0, 1, 40, 0, 0,  1, 0, 3, 40, 0, 0,  2, 1, 5, 16, 0, 0,
                  2, 2, 7, 16, 0, 0,  3, 3, 9, 100, 0, 2],
    }
    groups = heap_groups(json.dumps(snapshot))
    assert groups == {"object Flight": [2, 80], "string": [2, 32],
                      "native Detached HTMLDivElement": [1, 100]}
    growth = heap_growth({"object Flight": [1, 40], "string": [2, 32]}, groups)
    assert [r["group"] for r in growth["by_bytes"]] == ["native Detached HTMLDivElement",
                                                        "object Flight"]
    assert growth["by_bytes"][1] == {"group": "object Flight", "count": [1, 2],
                                     "bytes": [40, 80]}
    assert growth["blink_bytes"] == [0, 100] and growth["v8_bytes"] == [72, 112]
