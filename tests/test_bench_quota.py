"""bench/quota.py: a server held to a CPU quota. What needs no root is checked on a fake
cgroup tree; the real group (made, entered by a process, removed) only as root with the
cpu controller, else skipped."""

import subprocess
import sys

import pytest

from bench import quota
from bench.quota import Quota


def test_no_quota_is_no_group_at_all():
    with Quota(None) as held:
        held.enter()  # nothing to enter
        assert held.path is None and held.throttled_ms() is None


@pytest.mark.parametrize("cores", [0, -0.5])
def test_a_quota_of_no_cores_is_refused(cores):
    with pytest.raises(ValueError):
        Quota(cores)


def test_without_the_controller_a_quota_says_so(monkeypatch):
    monkeypatch.setattr(quota, "available", lambda: False)
    with pytest.raises(RuntimeError, match="root"):
        Quota(0.5).__enter__()


@pytest.fixture
def fake_root(tmp_path, monkeypatch):
    """A cgroup tree in a folder, as root sees it."""
    monkeypatch.setattr(quota, "ROOT", tmp_path)
    monkeypatch.setattr(quota.os, "geteuid", lambda: 0)
    return tmp_path


def test_cgroup_v1_the_group_gets_its_share_of_each_period(fake_root):
    (fake_root / "cpu").mkdir()
    (fake_root / "cpu" / "cpu.cfs_quota_us").write_text("-1")
    assert quota.available()
    held = Quota(0.25).__enter__()
    assert held.path.parent == fake_root / "cpu"
    period = int((held.path / "cpu.cfs_period_us").read_text())
    assert int((held.path / "cpu.cfs_quota_us").read_text()) == period // 4
    # weighed as several tasks: a busy box still gives the group its quota
    assert int((held.path / "cpu.shares").read_text()) == 1024 * quota.WEIGHT_TASKS
    (held.path / "cpu.stat").write_text("nr_periods 10\nnr_throttled 2\n"
                                        "throttled_time 1500000\n")
    assert held.throttled_ms() == 1.5


def test_cgroup_v2_the_group_gets_cpu_max_and_the_parent_hands_cpu_down(fake_root):
    (fake_root / "cgroup.controllers").write_text("cpuset cpu io memory")
    (fake_root / "cgroup.subtree_control").write_text("")
    assert quota.available()
    held = Quota(2).__enter__()
    quota_us, period_us = (held.path / "cpu.max").read_text().split()
    assert int(quota_us) == 2 * int(period_us)
    assert (fake_root / "cgroup.subtree_control").read_text() == "+cpu"
    assert int((held.path / "cpu.weight").read_text()) == 100 * quota.WEIGHT_TASKS
    (held.path / "cpu.stat").write_text("usage_usec 5\nthrottled_usec 2500\n")
    assert held.throttled_ms() == 2.5


def test_a_period_the_kernel_refuses_is_refused_here():
    for period_us in (999, 1_000_001):
        with pytest.raises(ValueError):
            Quota(0.5, period_us)


def test_no_cpu_controller_means_no_quota(fake_root):
    (fake_root / "cgroup.controllers").write_text("memory io")
    assert not quota.available()


@pytest.mark.skipif(not quota.available(), reason="needs root and the cgroup cpu controller")
def test_a_process_started_in_the_group_is_held_and_the_group_is_removed_after():
    with Quota(0.5) as held:
        child = subprocess.run([sys.executable, "-c", "print(open('/proc/self/cgroup').read())"],
                               preexec_fn=held.enter, capture_output=True, text=True,
                               check=True)
        assert held.path.name in child.stdout
        assert held.throttled_ms() is not None
        path = held.path
    assert not path.exists()
