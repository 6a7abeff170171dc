"""The laptop kept awake while a night is live (companion/laptop/awake.py): wakepy's
mode as Windows and macOS enter it (faked or refused through wakepy's own switches),
Linux through a stub systemd-inhibit put first on PATH and the real one where this
machine has logind, the line in the host's language, and the watch on a made-up clock."""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from companion import store
from companion.laptop import awake, words
from companion.laptop.awake import IDLE_SECONDS, Linux, Wakepy, Watch
from companion.serving import cli
from companion.store import connection
from tests.kraken_host import FOUR, play

ROOT = Path(__file__).resolve().parent.parent
#: Short enough for quick tests; a stub that exits at once is seen to (the wait ends then).
SETTLE = 0.2


@pytest.fixture
def wakepy_succeeds(monkeypatch):
    """wakepy's own switch: its first method is one that always succeeds."""
    monkeypatch.delenv("WAKEPY_FORCE_FAILURE", raising=False)
    monkeypatch.setenv("WAKEPY_FAKE_SUCCESS", "1")


def test_wakepy_holds_once_names_its_method_and_releases_once(wakepy_succeeds):
    from wakepy import modecount

    mac = awake.inhibitor("Darwin")
    assert isinstance(mac, Wakepy)
    assert mac.hold() and mac.hold()
    assert modecount() == 1  # one mode entered, however often it is asked
    assert awake.line(mac, True) == (
        "This laptop stays awake while a night is live (macOS: WakepyFakeSuccess); closing "
        "its lid may still put it to sleep.")
    mac.release()
    mac.release()
    assert modecount() == 0
    assert mac.hold()  # held again after a release, as a night that is live again
    mac.release()
    assert modecount() == 0


def test_wakepy_refused_is_no_hold_in_the_hosts_words(monkeypatch):
    monkeypatch.delenv("WAKEPY_FAKE_SUCCESS", raising=False)
    monkeypatch.setenv("WAKEPY_FORCE_FAILURE", "1")
    from wakepy import modecount

    windows = awake.inhibitor("Windows")
    assert not windows.hold()
    assert modecount() == 0  # the failed mode was left, not kept
    windows.release()
    assert awake.line(windows, False) == (
        "Keep this laptop awake yourself (Windows did not allow it): set it not to sleep "
        "until the night ends, or every phone loses the connection when it does.")


def test_the_line_is_in_the_terminals_language(monkeypatch, bin_folder):
    monkeypatch.setattr(words, "terminal_language", lambda: "ko")
    stub(bin_folder, "systemd-inhibit", "exit 1\n")
    linux = Linux(settle=5.0)
    assert not linux.hold()
    said = awake.line(linux, False)
    assert "Linux에서 허용하지 않았습니다" in said and "휴대폰" in said
    assert "allow" not in said


def stub(folder: Path, name: str, body: str) -> Path:
    """An executable shell script ``name`` in ``folder``."""
    script = folder / name
    script.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    script.chmod(0o755)
    return script


@pytest.fixture
def bin_folder(tmp_path, monkeypatch):
    """A folder first on PATH, for stub programs."""
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return folder


#: A systemd-inhibit that records its arguments and runs the command after its options,
#: as the real one does once it holds the lock.
FAKE_INHIBIT = """\
    printf '%s\\n' "$@" > {record}
    while [ $# -gt 0 ]; do
        case "$1" in --*) shift ;; *) break ;; esac
    done
    exec "$@"
    """


def test_linux_holds_while_cat_reads_the_pipe_and_ends_on_release(bin_folder, tmp_path):
    record = tmp_path / "args"
    stub(bin_folder, "systemd-inhibit", FAKE_INHIBIT.format(record=record))
    linux = Linux(settle=SETTLE)
    assert linux.hold()
    child = linux.process
    assert child is not None and child.poll() is None
    assert linux.hold() and linux.process is child
    assert record.read_text().splitlines() == [
        "--what=idle:sleep", "--who=Companion", "--why=A game night is live",
        "--mode=block", "cat"]
    linux.release()
    assert child.poll() == 0  # cat saw its stdin close, and ended of itself
    assert linux.process is None
    linux.release()


@pytest.mark.slow  # it waits out the child's settling twice: 0.4 s, nearly all waiting
def test_linux_restarts_a_child_that_died(bin_folder, tmp_path):
    stub(bin_folder, "systemd-inhibit", FAKE_INHIBIT.format(record=tmp_path / "args"))
    linux = Linux(settle=SETTLE)
    assert linux.hold()
    first = linux.process
    assert first is not None
    first.kill()
    first.wait()
    assert linux.hold()
    assert linux.process is not None and linux.process is not first
    linux.release()


def test_linux_without_logind_does_not_hold(bin_folder):
    stub(bin_folder, "systemd-inhibit", """\
        echo "Failed to connect to bus: No such file or directory" >&2
        exit 1
        """)
    linux = Linux(settle=5.0)  # the wait ends as soon as it exits
    assert not linux.hold()
    assert linux.process is None
    assert linux.failure == "Linux did not allow it"
    linux.release()


def test_linux_without_systemd_inhibit_does_not_hold(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    linux = Linux()
    assert not linux.hold()
    assert awake.line(linux, False) == (
        "Keep this laptop awake yourself (Companion knows no way to keep Linux awake): set "
        "it not to sleep until the night ends, or every phone loses the connection when it "
        "does.")


@pytest.mark.skipif(not sys.platform.startswith("linux") or not shutil.which("systemd-inhibit"),
                    reason="no systemd-inhibit on this machine")
def test_the_real_systemd_inhibit_holds_where_logind_is():
    linux = Linux()
    if not linux.hold():
        pytest.skip(f"systemd-inhibit cannot take a lock here: {linux.failure} "
                    "(no logind or D-Bus, as in a container)")
    child = linux.process
    assert child is not None and child.poll() is None
    listed = subprocess.run(["systemd-inhibit", "--list"], capture_output=True, text=True,
                            timeout=10)
    assert "Companion" in listed.stdout
    linux.release()
    assert child.poll() is not None


@pytest.mark.slow  # a Python of its own that loads gevent, as `companion serve` does
def test_holding_and_releasing_work_under_gevents_patched_subprocess(bin_folder, tmp_path):
    """As ``companion serve`` runs it: gevent patches subprocess, the loop is a greenlet,
    and killing it at stop (``Greenlet.kill``, which waits) ends the child."""
    stub(bin_folder, "systemd-inhibit", FAKE_INHIBIT.format(record=tmp_path / "args"))
    program = textwrap.dedent(f"""\
        from gevent import monkey; monkey.patch_all()
        import gevent, subprocess
        from companion.laptop import awake
        assert subprocess.Popen.__module__ == "gevent.subprocess"
        linux = awake.Linux(settle={SETTLE})
        lines = []
        loop = gevent.spawn(awake.keep_awake_while, lambda: True, linux, 0.05, say=lines.append)
        gevent.sleep(1.0)
        child = linux.process
        assert child is not None and child.poll() is None, child
        loop.kill(timeout=5)  # blocks until its finally has released (gevent.kill would not)
        assert loop.dead
        assert linux.process is None and child.poll() == 0, child.poll()
        print(lines)
        """)
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "['This laptop stays awake while a night is live (Linux: systemd-inhibit); closing "
        "its lid may still put it to sleep.']")


def test_each_system_gets_its_way():
    assert isinstance(awake.inhibitor("Linux"), Linux)
    for system, name in (("Windows", "Windows"), ("Darwin", "macOS"), ("FreeBSD", "FreeBSD")):
        holder = awake.inhibitor(system)
        assert isinstance(holder, Wakepy) and holder.system == name


class Recorder:
    """An inhibitor that records hold and release; holds when ``works``."""

    how = "a test"

    def __init__(self, works: bool = True) -> None:
        self.calls: list[str] = []
        self.works = works
        self.failure = "" if works else "it cannot"

    def hold(self) -> bool:
        self.calls.append("hold")
        return self.works

    def release(self) -> None:
        self.calls.append("release")


MINUTE = 60.0


def test_the_watch_holds_while_live_and_for_thirty_minutes_after():
    recorder, said = Recorder(), []
    watch = Watch(recorder, say=said.append)
    watch.tick(False, 0.0)
    assert recorder.calls == [] and not watch.held  # nothing live yet: nothing asked
    watch.tick(True, 1 * MINUTE)
    watch.tick(True, 2 * MINUTE)
    assert watch.held and recorder.calls == ["hold", "hold"]
    watch.tick(False, 2 * MINUTE + 29 * MINUTE)
    assert watch.held and recorder.calls == ["hold", "hold"]
    watch.tick(False, 2 * MINUTE + IDLE_SECONDS)
    assert not watch.held and recorder.calls == ["hold", "hold", "release"]
    watch.tick(False, 3 * IDLE_SECONDS)
    assert recorder.calls == ["hold", "hold", "release"]  # released once
    watch.tick(True, 4 * IDLE_SECONDS)
    assert watch.held and recorder.calls == ["hold", "hold", "release", "hold"]
    watch.stop()
    assert not watch.held and recorder.calls == ["hold", "hold", "release", "hold", "release"]
    assert said == ["This laptop stays awake while a night is live (a test); closing its lid "
                    "may still put it to sleep."]  # said once, not at each hold


def test_a_watch_whose_hold_fails_says_so_once_and_keeps_trying():
    recorder, said = Recorder(works=False), []
    watch = Watch(recorder, say=said.append)
    watch.tick(True, 0.0)
    watch.tick(True, MINUTE)
    assert not watch.held and recorder.calls == ["hold", "hold"]
    recorder.works = True
    watch.tick(True, 2 * MINUTE)
    assert watch.held
    assert said == [
        "Keep this laptop awake yourself (it cannot): set it not to sleep until the night "
        "ends, or every phone loses the connection when it does.",
        "This laptop stays awake while a night is live (a test); closing its lid may still "
        "put it to sleep."]


def test_the_loop_ticks_on_its_clock_and_releases_when_it_stops():
    recorder = Recorder()
    now = [0.0]
    live = iter([True, False, False, True, False])
    ticks = []

    def sleep(seconds):
        ticks.append(seconds)
        now[0] += 20 * MINUTE

    def running():
        return len(ticks) < 5

    awake.keep_awake_while(lambda: next(live), recorder, 60.0, running=running, sleep=sleep,
                           clock=lambda: now[0])
    # live at 0; 20 min idle: held; 40 min: released; live at 60; stopped at 100.
    assert recorder.calls == ["hold", "release", "hold", "release"]
    assert ticks == [60.0] * 5


def test_the_loop_counts_an_error_in_live_as_live():
    recorder = Recorder()
    ticks = []

    def broken():
        raise RuntimeError("database is locked")

    awake.keep_awake_while(broken, recorder, running=lambda: not ticks,
                           sleep=ticks.append, clock=lambda: 0.0)
    assert recorder.calls == ["hold", "release"]


# --- what keeps `companion serve`'s laptop awake: a device connected, a game in progress


def _in_progress(app):
    with app.app_context():
        return store.game_in_progress(cli.GAME_PAUSE_SECONDS)


def test_a_game_moved_on_lately_and_not_finished_is_in_progress(night):
    assert not _in_progress(night.app)  # a night with no game yet
    night.start("kraken", **FOUR)
    assert _in_progress(night.app)


def test_a_finished_game_is_not_in_progress(night):
    play(night, night.start("kraken", **FOUR), ["empty", "kraken"])
    assert not _in_progress(night.app)


def test_a_game_left_unfinished_hours_ago_is_not_in_progress(night):
    night.start("kraken", **FOUR)
    with night.app.app_context():
        db = connection.get_db()
        three_hours_ago = connection.now(-3 * 3600)
        db.execute("update games set created = ?", [three_hours_ago])
        db.execute("update events set created = ?", [three_hours_ago])
    assert not _in_progress(night.app)


class _Server:
    def __init__(self, held):
        self.held = held

    def connected(self):
        return self.held


def test_a_device_connected_keeps_the_night_live_without_a_game(app):
    assert cli.night_is_live(app, _Server(1))
    assert not cli.night_is_live(app, _Server(0))
