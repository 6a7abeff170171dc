"""One of bench/hostile.py's drills, short, against the real server: what must hold
whatever the box's speed (the times it measures are the bench's, written down in
docs/security.md, never asserted here)."""

import pytest

from bench import hostile


@pytest.mark.slow
def test_a_guest_host_asking_for_every_code_and_image_is_answered_in_turn(tmp_path):
    (tmp_path / "qr").mkdir()
    report = hostile.drill_qr(tmp_path, seconds=4, connections_=16)
    assert set(report["guest_answers"]) == {"200"}
    assert report["other_table"]["not_200"] == 0 and report["other_table"]["answers"] > 10
