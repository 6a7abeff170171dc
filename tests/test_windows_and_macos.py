"""The laptops hosts bring: what Windows and macOS do differently, each played here.

The quick tests take one difference at a time (a call Windows' Python lacks, a folder
without hard links, a pipe in cp949). The slow ones at the end run the whole command
line as on Windows and macOS (tests/laptops.py) and play a short night on each.
"""

import contextlib
import errno
import io
import json
import os
import shutil
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bench.devices import Device, create_night
from bench.servers import STARTS_WITHIN_S, answers, free_port
from companion.app import _secret_key, create_app
from companion.laptop import console, paths
from companion.serving import cli
from tests.laptops import ENDED_EXIT
from tests.over_http import SCRIPTS, assert_log_sound, start_game, step

# --- the secret key: Windows' Python 3.11 and 3.12, and a USB stick -----------------


def test_the_key_is_made_where_os_has_no_fchmod(tmp_path, monkeypatch):
    """Windows has ``os.fchmod`` only from Python 3.13: every first start crashed."""
    monkeypatch.delattr(os, "fchmod", raising=False)
    key = _secret_key(str(tmp_path))
    assert len(key) >= 60
    assert stat.S_IMODE((tmp_path / "secret_key").stat().st_mode) == 0o600
    assert _secret_key(str(tmp_path)) == key  # read again, never made twice


def test_the_key_is_made_in_place_on_a_folder_without_hard_links(tmp_path, monkeypatch):
    """exFAT and FAT32 (a USB stick) refuse ``os.link`` with EPERM."""
    def no_links(source, target):
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    key = _secret_key(str(tmp_path))
    assert (tmp_path / "secret_key").read_text() == key
    assert [p.name for p in tmp_path.iterdir()] == ["secret_key"]  # no temporary file left


def test_a_key_being_written_in_place_is_waited_for_not_replaced(tmp_path):
    """Without hard links the key is created empty, then written: a second process that
    opens it between the two takes the key its writer puts there, not a key of its own."""
    path = tmp_path / "secret_key"
    path.write_text("")

    def writer():
        time.sleep(0.2)
        path.write_text("the-first-process-s-key")

    thread = threading.Thread(target=writer)
    thread.start()
    assert _secret_key(str(tmp_path)) == "the-first-process-s-key"
    thread.join()


def test_the_database_opens_where_chmod_is_refused(tmp_path, monkeypatch):
    """exFAT keeps no modes, and Linux's driver refuses a chmod there."""
    def refused(path, mode, **kw):
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "chmod", refused)
    app = create_app({"SECRET_KEY": "x"}, data=tmp_path)
    assert Path(app.config["DATABASE"]).is_file()


#: An app of its own folder, its forms posted without a CSRF token.
SETTINGS = {"TESTING": True, "SECRET_KEY": "x", "WTF_CSRF_ENABLED": False}


# --- the data folder's path ---------------------------------------------------------


@pytest.mark.parametrize("name", ["Kim #1", "what?", "100% fun", "김 민수", "a%20b", "q?x=1#y"])
def test_a_data_folder_named_as_windows_users_are_holds_the_database(tmp_path, name):
    """The SQLite URI was an f-string: ``#`` and ``?`` ended the path, so the database
    went to another file, and ``%`` was read as an escape."""
    folder = tmp_path / name
    app = create_app(SETTINGS, data=folder)
    assert app.config["DATABASE"] == str(folder / "companion.sqlite")
    client = app.test_client()
    response = client.post("/nights", data={"name": ["민수", "Jo", "Ann"]})
    assert response.status_code == 303
    key = response.headers["Location"].rsplit("/", 1)[1]
    with contextlib.closing(sqlite3.connect(folder / "companion.sqlite")) as conn:
        assert conn.execute("select count(*) from nights where key = ?", [key]).fetchone() == (1,)
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no file made beside it


def test_the_backup_reads_a_data_folder_with_a_hash_in_its_name(tmp_path, capsys):
    folder = tmp_path / "Kim #1"
    create_app(SETTINGS, data=folder).test_client().post(
        "/nights", data={"name": ["민수", "Jo", "Ann"]})
    assert cli.main(["backup", "--data", str(folder), str(tmp_path / "copy.sqlite")]) == 0
    with contextlib.closing(sqlite3.connect(tmp_path / "copy.sqlite")) as conn:
        assert conn.execute("select count(*) from nights").fetchone() == (1,)


STORE_PREFIX = (r"C:\Program Files\WindowsApps"
                r"\PythonSoftwareFoundation.Python.3.12_3.12.2800.0_x64__qbz5n2kfra8p0")


def test_the_microsoft_store_python_is_told_from_its_path():
    family = "PythonSoftwareFoundation.Python.3.12_qbz5n2kfra8p0"
    assert paths.store_package(STORE_PREFIX) == family
    assert paths.store_package(
        rf"C:\Users\me\AppData\Local\Microsoft\WindowsApps\{family}\python.exe") == family
    assert paths.store_package(r"C:\Users\me\AppData\Local\Programs\Python\Python312") is None
    assert paths.store_package("/usr/lib/python3.11") is None


def test_under_the_store_python_the_data_lives_where_windows_leaves_it(tmp_path, monkeypatch):
    """Its writes to %LOCALAPPDATA% are moved into its package (printed folder empty;
    uninstalling that Python deleted the nights): the data goes to %USERPROFILE%."""
    monkeypatch.delenv("COMPANION_DATA", raising=False)
    monkeypatch.setattr(paths, "from_checkout", lambda: False)
    monkeypatch.setattr(sys, "base_prefix", STORE_PREFIX)
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "Local"))
    monkeypatch.setenv("USERPROFILE", str(tmp_path / "me"))
    assert paths.data_folder() == tmp_path / "me" / "Companion"


def test_a_group_that_played_under_the_store_python_keeps_its_nights(tmp_path, monkeypatch):
    """Where an earlier release's database already is (moved there by Windows), it stays
    in use, and that real folder is what is printed."""
    monkeypatch.delenv("COMPANION_DATA", raising=False)
    monkeypatch.setattr(paths, "from_checkout", lambda: False)
    monkeypatch.setattr(sys, "base_prefix", STORE_PREFIX)
    moved = (tmp_path / "Local" / "Packages" / "PythonSoftwareFoundation.Python.3.12_"
             "qbz5n2kfra8p0" / "LocalCache" / "Local" / "companion")
    moved.mkdir(parents=True)
    (moved / "companion.sqlite").write_bytes(b"")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "Local"))
    monkeypatch.setenv("USERPROFILE", str(tmp_path / "me"))
    assert paths.data_folder() == moved


# --- output that is not a console ---------------------------------------------------


def _pipe(encoding):
    """Standard output as Windows gives it to a pipe: the ANSI code page, strict."""
    return io.TextIOWrapper(io.BytesIO(), encoding=encoding, errors="strict")


@pytest.mark.parametrize("encoding", ["cp949", "cp1252"])
def test_the_doctor_prints_into_a_windows_pipe(monkeypatch, encoding):
    """Its steps hold "→" (not in cp1252) and “ ” : printed into a pipe, they raised."""
    import platform

    monkeypatch.setattr(platform, "system", lambda: "Windows")
    out = _pipe(encoding)
    monkeypatch.setattr(sys, "stdout", out)
    assert cli.main(["doctor", "--port", "1"]) == 0
    out.flush()
    printed = out.buffer.getvalue().decode(encoding)
    assert "If phones cannot open it:" in printed
    arrow = "→" if encoding == "cp949" else "?"
    assert f"Settings {arrow} Network & internet" in printed


@pytest.mark.parametrize("encoding", ["cp949", "cp1252", "ascii"])
def test_the_qr_code_is_drawn_in_ascii_where_blocks_cannot_be_printed(monkeypatch, encoding):
    monkeypatch.setattr(sys, "stdout", _pipe(encoding))
    drawn = cli.qr_text("http://192.168.0.12:8765")
    assert set(drawn) <= {"#", " ", "\n"}
    assert _decoded(drawn) == "http://192.168.0.12:8765"


@pytest.mark.parametrize("encoding", ["utf-8", "cp437"])
def test_a_stream_that_has_the_blocks_gets_the_compact_code(monkeypatch, encoding):
    monkeypatch.setattr(sys, "stdout", _pipe(encoding))
    assert "\u2588" in cli.qr_text("http://192.168.0.12:8765")


def _decoded(drawn):
    """What a camera reads off the ASCII code: each ``##`` a light module, 8 px square."""
    import zxingcpp
    from PIL import Image

    rows = drawn.splitlines()
    image = Image.new("L", (len(rows[0]) // 2 * 8 + 32, len(rows) * 8 + 32), 255)
    for y, row in enumerate(rows):
        for x in range(0, len(row), 2):
            if row[x:x + 2] == "  ":
                image.paste(0, (16 + x // 2 * 8, 16 + y * 8, 24 + x // 2 * 8, 24 + y * 8))
    found = zxingcpp.read_barcodes(image)
    return found[0].text if found else None


def test_a_name_a_code_page_lacks_prints_as_a_question_mark():
    out = _pipe("cp1252")
    console.forgiving(out)
    print("Which night? 민수, Jo → café", file=out)
    out.flush()
    assert out.buffer.getvalue().decode("cp1252") == "Which night? ??, Jo ? café\n"


# --- a port Windows keeps, and --host :: ----------------------------------------------


def test_a_port_windows_keeps_for_hyper_v_gets_the_one_line_advice():
    """WinError 10013 (WSAEACCES): ports that Hyper-V, WSL or Docker reserve."""
    said = cli.bind_refused(OSError(10013, "An attempt was made to access a socket in a "
                                           "way forbidden by its access permissions"),
                            "0.0.0.0", 8765)
    assert said is not None and "companion serve --port 8766" in said
    assert "Hyper-V" in said
    assert "already in use" in cli.bind_refused(OSError(errno.EADDRINUSE, "in use"),
                                                "0.0.0.0", 8765)
    assert cli.bind_refused(OSError(errno.ENOENT, "other"), "0.0.0.0", 8765) is None


def test_a_refused_port_is_said_in_one_line_and_nothing_starts(tmp_path, monkeypatch, capsys):
    def refused(self):
        raise PermissionError(10013, "forbidden by its access permissions")

    monkeypatch.setattr(cli.connections.Server, "init_socket", refused)
    monkeypatch.setattr(cli.monkey, "patch_all", lambda: None)
    assert cli.main(["serve", "--data", str(tmp_path), "--port", "8765", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "port 8765" in err and "Traceback" not in err


def _args(host, port=8765, public_url=None):
    return cli.build_parser().parse_args(
        ["serve", "--host", host, "--port", str(port),
         *(["--public-url", public_url] if public_url else [])])


def test_an_ipv6_host_is_printed_in_brackets():
    assert cli._addresses(_args("::1"), [])[0] == "http://[::1]:8765"
    assert cli._addresses(_args("fe80::1"), [])[0] == "http://[fe80::1]:8765"
    assert cli._addresses(_args("127.0.0.1"), [])[0] == "http://127.0.0.1:8765"


def test_listening_on_every_ipv6_address_offers_the_laptop_s_own_addresses():
    """``--host ::`` listens on every network, as 0.0.0.0 does: it printed http://:::8765."""
    from companion.laptop.addresses import Interface

    found = [Interface("wlan0", "192.168.0.12")]
    assert cli._addresses(_args("::"), found)[0] == "http://192.168.0.12:8765"


# --- Windows' console ---------------------------------------------------------------


class Kernel32:
    """Windows' console calls, for :class:`console.WindowsConsole`."""

    def __init__(self, mode=0x01F7, console=True):
        self.mode, self.console, self.handler = mode, console, None

    def GetStdHandle(self, which):  # noqa: N802
        return 7

    def GetConsoleMode(self, handle, mode):  # noqa: N802
        mode._obj.value = self.mode
        return int(self.console)

    def SetConsoleMode(self, handle, mode):  # noqa: N802
        self.mode = mode
        return 1

    def SetConsoleCtrlHandler(self, handler, add):  # noqa: N802
        self.handler = handler
        return 1


@pytest.fixture
def winfunctype(monkeypatch):
    import ctypes

    monkeypatch.setattr(ctypes, "WINFUNCTYPE", ctypes.CFUNCTYPE, raising=False)


def test_quickedit_is_off_while_serving_and_given_back_after():
    """A click into a classic console window froze the server until a key was pressed."""
    kernel32 = Kernel32()
    window = console.WindowsConsole(kernel32)
    assert window.quick_edit_off()
    assert not kernel32.mode & console.ENABLE_QUICK_EDIT_MODE
    assert kernel32.mode & console.ENABLE_EXTENDED_FLAGS
    window.restore()
    assert kernel32.mode == 0x01F7


def test_a_piped_input_has_no_quickedit_to_turn_off():
    kernel32 = Kernel32(console=False)
    assert not console.WindowsConsole(kernel32).quick_edit_off()
    assert kernel32.mode == 0x01F7


@pytest.mark.parametrize("event", [console.CTRL_C_EVENT, console.CTRL_BREAK_EVENT])
def test_ctrl_c_and_ctrl_break_stop_the_server(winfunctype, event):
    kernel32, stops = Kernel32(), []
    console.WindowsConsole(kernel32).on_stop(lambda: stops.append(1), lambda: False,
                                             pause=lambda s: pytest.fail("no wait"))
    assert kernel32.handler(event) == 1
    assert stops == [1]


def test_a_closed_window_waits_for_the_night_to_be_saved(winfunctype):
    """Windows ends the process as soon as the handler returns: it returns only once
    the stop has finished (or after 4.5 s)."""
    kernel32, stops, finished, waits = Kernel32(), [], [], []

    def pause(seconds):
        waits.append(seconds)
        if len(waits) == 3:
            finished.append(True)

    console.WindowsConsole(kernel32).on_stop(lambda: stops.append(1), lambda: bool(finished),
                                             pause=pause)
    assert kernel32.handler(console.CTRL_CLOSE_EVENT) == 1
    assert stops == [1] and len(waits) == 3


def test_other_console_events_are_left_to_windows(winfunctype):
    kernel32, stops = Kernel32(), []
    console.WindowsConsole(kernel32).on_stop(lambda: stops.append(1), lambda: True)
    assert kernel32.handler(7) == 0 and stops == []


def test_no_console_is_touched_off_windows():
    assert console.windows_console() is None


# --- a short night on each laptop, the whole command line as there ------------------

CHECKOUT = Path(__file__).resolve().parent.parent

#: Each laptop: its system as the package sees it, the encoding of its piped output,
#: and gevent's loop (Windows' gevent runs libuv; macOS's and Linux's libev).
LAPTOPS = {
    "windows-korean": ("windows", "cp949", "libuv-cffi"),
    "windows-western": ("windows", "cp1252", "libuv-cffi"),
    "macos": ("macos", "utf-8", None),
}
NAMES = ["김민수", "Jo", "Bartholomew Fitzgerald Ångström"[:30], "박서준"]


def _libuv_missing():
    try:
        import gevent.libuv.loop  # noqa: F401  (needs cffi)
    except ImportError as error:
        return f"gevent's libuv loop cannot load here: {error}"
    return None


class Laptop:
    """``companion`` as run on one of :data:`LAPTOPS`, its data in ``data``; every call
    Windows' kernel32 is given goes to ``log``, and ``console`` names a console event."""

    def __init__(self, name, data, tmp_path):
        self.system, self.encoding, loop = LAPTOPS[name]
        self.data, self.port = Path(data), free_port()
        self.log, self.console = tmp_path / "kernel32.log", tmp_path / "console-event"
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
        self.env.update(PYTHONIOENCODING=self.encoding, COMPANION_LAPTOP_LOG=str(self.log),
                        COMPANION_LAPTOP_CONSOLE=str(self.console), COMPANION_POLL_SECONDS="1",
                        COMPANION_AWAKE_CHECK_SECONDS="0.2")
        if loop:
            self.env["GEVENT_LOOP"] = loop
        if self.system == "macos":  # macOS's caffeinate, which says how it was started
            # (its process, its stdin, its arguments) and runs the command it is given
            self.caffeinated = tmp_path / "caffeinate.said"
            tools = tmp_path / "macos-bin"
            tools.mkdir(exist_ok=True)
            (tools / "caffeinate").write_text(
                f'#!/bin/sh\necho "$$ $(readlink /proc/$$/fd/0) $*" > "{self.caffeinated}"\n'
                'exec "$@"\n')
            (tools / "caffeinate").chmod(0o755)
            self.env["PATH"] = f"{tools}:{self.env['PATH']}"
        self.process = None

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def run(self, *argv, stdin=subprocess.DEVNULL):
        """One command to its end: (exit code, what it printed, decoded as the pipe's)."""
        done = subprocess.run([sys.executable, "-m", "tests.laptops", self.system, *argv],
                              cwd=CHECKOUT, env=self.env, capture_output=True,
                              stdin=stdin, timeout=STARTS_WITHIN_S)
        return (done.returncode, done.stdout.decode(self.encoding),
                done.stderr.decode(self.encoding, "replace"))

    def serve(self):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.laptops", self.system, "serve", "--data",
             str(self.data), "--host", "127.0.0.1", "--port", str(self.port)],
            cwd=CHECKOUT, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if not answers(self.url + "/"):
            self.process.kill()
            out, err = self.process.communicate(timeout=30)
            raise AssertionError(f"it did not start: {out!r} {err!r}")
        return self

    def stop(self):
        """Stop it as its host would (Windows: close the window); (code, out, err)."""
        if self.system == "windows":
            self.console.write_text(str(console.CTRL_CLOSE_EVENT))
        else:
            self.process.send_signal(signal.SIGINT)
        out, err = self.process.communicate(timeout=STARTS_WITHIN_S)
        return (self.process.returncode, out.decode(self.encoding),
                err.decode(self.encoding, "replace"))

    def printable(self, line):
        """``line`` as its pipe prints it (``?`` for what its code page lacks)."""
        return line.encode(self.encoding, "replace").decode(self.encoding)

    def calls(self, name):
        """The arguments of each call of kernel32's ``name``, in order."""
        if not self.log.is_file():
            return []
        rows = [json.loads(line) for line in self.log.read_text().splitlines()]
        return [row[1:] for row in rows if row[0] == name]


def play_a_short_night(laptop):
    """The host makes a night, a phone takes its seat, three Skull King steps are scored;
    returns the host's device and the night's key."""
    database = laptop.data / "companion.sqlite"
    host, key, tokens = create_night(laptop.url, NAMES, database=str(database))
    phone = Device(laptop.url)
    assert phone.claim(tokens[0]) == 303
    number = start_game(host, key, "skullking", SCRIPTS["skullking"][0])
    for _ in range(3):
        assert step(host, str(database), key, number, "skullking")[0] == 303
    assert phone.get("/me")[0] == 200
    assert_log_sound(str(database), key, number)
    return host, key


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(LAPTOPS))
def test_a_short_night_on_each_laptop_starts_plays_and_stops_cleanly(tmp_path, name):
    """Windows' Python 3.11 (no os.fchmod), its pipes in cp949 and cp1252 (a QR code, →,
    Korean names), gevent's libuv loop; macOS. Each command of the night, then a stop."""
    laptop = Laptop(name, tmp_path / "Kim #1 데이터", tmp_path)
    if _libuv_missing():  # without cffi, Windows' night is played on libev, as Linux's
        laptop.env.pop("GEVENT_LOOP", None)
    laptop.serve()
    try:
        _host, key = play_a_short_night(laptop)
        code, out, err = laptop.run("backup", "--data", str(laptop.data),
                                    str(tmp_path / "copy.sqlite"))
        assert code == 0 and "Backed up" in out, err
        code, out, err = laptop.run("host-link", "--data", str(laptop.data), "--port",
                                    str(laptop.port), "--public-url", laptop.url)
        assert code == 2 and "Choose one with --night KEY" in err or code == 0, err
        code, out, err = laptop.run("host-link", "--data", str(laptop.data), "--night", key,
                                    "--public-url", laptop.url)
        assert code == 0 and f"{laptop.url}/h/" in out, err
        code, out, err = laptop.run("doctor", "--port", str(laptop.port))
        assert code == 0 and "If phones cannot open it:" in out, err
    finally:
        code, out, err = laptop.stop()
    assert "Traceback" not in err, err
    assert out.splitlines()[0].startswith(f"Companion is running. Open {laptop.url}")
    database = laptop.data / "companion.sqlite"
    assert out.rstrip().splitlines()[-1] == laptop.printable(
        f"Companion stopped. Every night is saved in {database}")
    if laptop.system == "windows":
        # Windows ends the process once the handler returns: it returned after the stop.
        assert code in (0, ENDED_EXIT), err
        assert laptop.calls("SetConsoleCtrlHandler") == [[True]]
        first, *_, last = laptop.calls("SetConsoleMode")
        assert not first[1] & console.ENABLE_QUICK_EDIT_MODE and last[1] == 0x01F7
        # Kept awake while the night was live (ES_CONTINUOUS | ES_SYSTEM_REQUIRED), let
        # sleep again at the stop (ES_CONTINUOUS alone), through wakepy.
        assert laptop.calls("SetThreadExecutionState") == [[0x80000001], [0x80000000]]
        assert "This laptop stays awake while a night is live (Windows" in out
    else:
        assert code == 0
        # caffeinate runs cat on a pipe from the server: both end when the server does.
        pid, stdin, *argv = laptop.caffeinated.read_text().split()
        assert argv == ["cat"] and stdin.startswith("pipe:")
        with pytest.raises(ProcessLookupError):  # let go at the stop
            os.kill(int(pid), 0)
        assert "This laptop stays awake while a night is live (macOS: caffeinate)" in out
    for made in (tmp_path / "alone.sqlite", tmp_path / "copy.sqlite"):
        if made.name == "alone.sqlite":  # the database file alone, without its WAL
            shutil.copyfile(database, made)
        with contextlib.closing(sqlite3.connect(made)) as conn:
            assert conn.execute("select count(*) from nights where key = ?",
                                [key]).fetchone() == (1,)


@pytest.mark.slow
def test_ctrl_break_stops_the_server_on_windows_as_ctrl_c_does(tmp_path):
    laptop = Laptop("windows-western", tmp_path / "data", tmp_path)
    laptop.env.pop("GEVENT_LOOP")
    laptop.serve()
    laptop.console.write_text(str(console.CTRL_BREAK_EVENT))
    out, err = laptop.process.communicate(timeout=STARTS_WITHIN_S)
    assert laptop.process.returncode == 0, err
    assert out.decode().rstrip().endswith("Every night is saved in "
                                          f"{laptop.data / 'companion.sqlite'}")


# --- a USB stick: the data on exFAT -------------------------------------------------


def _exfat_unavailable():
    if os.geteuid() != 0:
        return "needs root to mount an exFAT image (CI runs as root)"
    for tool in ("mkfs.exfat", "losetup", "mount.exfat-fuse"):
        if shutil.which(tool) is None:
            return f"needs {tool} (Debian's exfatprogs and exfat-fuse; .ci/run installs them)"
    if not Path("/dev/fuse").exists():
        return "needs /dev/fuse"
    return None


@pytest.fixture
def usb_stick(tmp_path):
    """An exFAT file system, as a USB stick has, mounted at a folder (FUSE's driver on a
    loop device: this box's kernel has no exFAT of its own)."""
    reason = _exfat_unavailable()
    if reason:
        pytest.skip(reason)
    image, mounted = tmp_path / "stick.img", tmp_path / "USB STICK"
    mounted.mkdir()
    with image.open("wb") as out:
        out.truncate(64 * 1024 * 1024)
    subprocess.run(["mkfs.exfat", str(image)], check=True, capture_output=True, timeout=60)
    device = subprocess.run(["losetup", "--find", "--show", str(image)], check=True,
                            capture_output=True, text=True, timeout=60).stdout.strip()
    try:
        subprocess.run(["mount.exfat-fuse", device, str(mounted)], check=True,
                       capture_output=True, timeout=60)
        try:
            yield mounted
        finally:  # lazily: a server that failed may still hold a file there
            subprocess.run(["umount", "--lazy", str(mounted)], capture_output=True, timeout=60)
    finally:
        subprocess.run(["losetup", "--detach", device], capture_output=True, timeout=60)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["windows-western", "macos"])
def test_a_night_kept_on_a_usb_stick_is_there_after_a_restart(usb_stick, tmp_path, name):
    """exFAT has no hard links (the key was published with os.link: every first start
    crashed) and keeps no modes; SQLite's WAL works there."""
    with pytest.raises(PermissionError):
        os.link(usb_stick, usb_stick / "no-links")
    laptop = Laptop(name, usb_stick / "companion", tmp_path)
    laptop.env.pop("GEVENT_LOOP", None)
    laptop.serve()
    try:
        host, key = play_a_short_night(laptop)
    finally:
        code, out, err = laptop.stop()
    assert "Traceback" not in err, err
    key_file = laptop.data / "secret_key"
    secret = key_file.read_text()
    laptop.serve()
    try:
        status, _head, html = host.get(f"/n/{key}")  # the host's tablet, as it was
        assert status == 200 and "김민수" in html
    finally:
        laptop.stop()
    assert key_file.read_text() == secret  # the same key: every phone keeps its seat
    with contextlib.closing(sqlite3.connect(laptop.data / "companion.sqlite")) as conn:
        assert conn.execute("select count(*) from nights where key = ?", [key]).fetchone() \
            == (1,)


def test_listening_on_every_ipv6_address_takes_ipv4_phones_too():
    """Windows' IPv6 sockets take IPv6 alone unless told: the phones' IPv4 addresses
    would not have reached ``--host ::``."""
    if not socket.has_dualstack_ipv6():
        pytest.skip("this machine has no dual-stack IPv6 sockets")
    listener = cli._listener(_args("::", port=0))
    try:
        assert listener.family == socket.AF_INET6
        assert listener.getsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY) == 0
        with socket.create_connection(("127.0.0.1", listener.getsockname()[1]), timeout=5):
            pass
    finally:
        listener.close()
