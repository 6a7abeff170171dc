"""The Wi-Fi bench (bench/wifi.py) at a tiny size: a night of three phones through café
links, one round. Only its shape and what must hold whatever the timing are checked
(every screen opens the round's bids, none before its count); its figures are never
asserted (docs/performance.md keeps them)."""

import json
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_wifi_bench_walks_a_night_through_its_links_and_reports_it(tmp_path):
    out = tmp_path / "wifi.json"
    # The bound only stops a hung bench; each of its waits has its own (tests/browsing.py
    # WAIT, a server's start STARTS_WITHIN_S). Alone, on a box whose speed sample read
    # 189 ms (34 to 42 quiet), it took 36 s.
    subprocess.run([sys.executable, "-m", "bench.wifi", "--profiles", "cafe", "--rounds",
                    "1", "--phones", "3", "--json", str(out)], check=True, timeout=900,
                   stdout=subprocess.DEVNULL)
    report = json.loads(out.read_text())
    assert {"cpu_ms", "loadavg"} <= set(report["machine_at_start"])
    night = report["profiles"]["cafe"]
    assert night["links"] == {"host": "cafe", "phone 1": "cafe", "phone 2": "cafe",
                              "phone 3": "cafe"}
    assert night["reveals"] == 1 and len(night["each_reveal"]) == 1
    screens = night["each_reveal"][0]["screens"]
    assert [s["screen"] for s in screens] == ["host", "phone 1", "phone 2", "phone 3"]
    for s in screens:  # each screen counted to the moment, or came after it
        assert s["counted"] == (s["flip_ms"] is not None)
        assert s["counted"] or s["spare_ms"] is None or s["spare_ms"] < 0
    assert night["bids_before_count"] == 0
    # every phone's bid and the host's writes were seen by the other screens
    assert night["write_to_visible_ms"]["n"] + night["behind_5s"] >= 3 * 3
    for key in ("p50", "p95", "max"):
        assert key in night["write_to_visible_ms"]
    for key in ("spread_ms", "early_flips", "false_banners", "short_spare", "spare_ms"):
        assert key in night
    assert night["box_busy"] is None or 0 <= night["box_busy"] <= 1
    # what put each banner up, and what held each screen's main thread near the moment
    assert sum(night["false_banners_why"].values()) == night["false_banners"]
    assert all(isinstance(s["busy"], list) for s in screens)
    for key in ("answer_whole_ms", "answer_queued_ms", "swap_to_settled_ms"):
        assert "p95" in night["phones_main_thread"][key]
    # the front-end steps each phone ran, timed by the bench's own wrapper of Companion.on
    assert {"live.follow", "panels.restoreFields"} <= set(
        night["phones_main_thread"]["steps_per_refresh_ms"])

