"""Two of bench/hostile.py's drills, short, against the real server: what must hold
whatever the box's speed (the times they measure are the bench's, written down in
docs/security.md, never asserted here)."""

import pytest

from bench import hostile


@pytest.mark.slow
def test_a_flood_of_made_up_devices_reporting_needs_adds_no_row(tmp_path):
    (tmp_path / "needs").mkdir()
    report = hostile.drill_needs(tmp_path, seconds=4, connections_=8)
    assert report["rows_added"] == 0
    assert sum(report["guest_answers"].values()) > 100  # the flood was answered
    assert not [s for s in report["guest_answers"] if s.startswith("5") or s == "0"]
    assert report["other_table"]["not_200"] == 0


@pytest.mark.slow
def test_a_guest_host_asking_for_every_code_and_image_is_answered_in_turn(tmp_path):
    (tmp_path / "qr").mkdir()
    report = hostile.drill_qr(tmp_path, seconds=4, connections_=16)
    assert set(report["guest_answers"]) == {"200"}
    assert report["other_table"]["not_200"] == 0 and report["other_table"]["answers"] > 10
