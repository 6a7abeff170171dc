"""A Mac with Python 3.11 runs the gevent the lock pins there (25.5.1: the last with
a macOS wheel for 3.11), which nothing else in the suite installs. Its exit printed
"Exception ignored in: <function _removeHandlerRef …> RuntimeError: greenlet is being
finalized" after every stop (companion/serving/quiet_exit.py). The fault is in Python
code, the same on Linux: this test installs those pins into a fresh venv of this box's
Python 3.11, starts ``companion serve`` from this checkout, and stops it with Ctrl+C."""

import os
import re
import signal
import subprocess
import sys
import types
from pathlib import Path

import pytest

from bench.servers import STARTS_WITHIN_S, answers, free_port
from companion.serving import quiet_exit
from tests import pins

CHECKOUT = Path(__file__).resolve().parent.parent
#: The index's probe and pip's cache, shared with the wheels' cases.
index_reached, pip_cache = pins.index_reached, pins.pip_cache
#: The runtime's pins, as the wheel requires them (pyproject.toml reads it).
LOCK = CHECKOUT / "requirements.txt"
#: The lock's line for a Mac's Python 3.11 (the other gevent line is everyone else's).
MAC_311_GEVENT = re.compile(r"(?m)^gevent==(\S+) ; python_full_version < '3\.12' "
                            r"and sys_platform == 'darwin'$")


def mac_311_requirements() -> str:
    """The runtime's pins as a Mac with Python 3.11 takes them: the lock, its gevent
    line for that Mac in place of the others."""
    text = LOCK.read_text()
    found = MAC_311_GEVENT.search(text)
    assert found, f"{LOCK.name} has no gevent line for macOS and Python 3.11"
    others = [line for line in text.splitlines() if not line.startswith("gevent==")]
    return "\n".join([*others, f"gevent=={found[1]}", ""])


# --- the hook, alone ----------------------------------------------------------------


def unraisable(error, source="logging._removeHandlerRef"):
    """What Python hands ``sys.unraisablehook`` for an error raised where none can be
    caught (a weakref's callback, a __del__)."""
    return types.SimpleNamespace(exc_type=type(error), exc_value=error, exc_traceback=None,
                                 err_msg=None, object=source)


def test_greenlets_finalized_at_exit_is_dropped_and_every_other_error_printed():
    printed = []
    hook = quiet_exit.quiet_hook(printed.append)
    hook(unraisable(RuntimeError("greenlet is being finalized")))
    assert printed == []
    others = [unraisable(RuntimeError("greenlet is being finalized, and more")),
              unraisable(RuntimeError("dictionary changed size during iteration")),
              unraisable(TypeError("greenlet is being finalized")),
              unraisable(ValueError("I/O operation on closed file"), source="a __del__")]
    for other in others:
        hook(other)
    assert printed == others


def test_the_hook_is_installed_once_over_the_one_before(monkeypatch):
    printed = []
    monkeypatch.setattr(sys, "unraisablehook", printed.append)
    quiet_exit.install()
    quiet_exit.install()
    error = unraisable(OSError("a real one"))
    sys.unraisablehook(unraisable(RuntimeError("greenlet is being finalized")))
    sys.unraisablehook(error)
    assert printed == [error]  # once: a second hook over the first would print it twice


# --- a Mac's Python 3.11, played on this box ---------------------------------------


@pytest.fixture
def mac_311_venv(tmp_path, index_reached, pip_cache):
    """A venv of this Python 3.11 with the runtime at the lock's pins, gevent at the
    Mac's; skipped where the package index cannot be reached."""
    if sys.version_info[:2] != (3, 11) or not sys.platform.startswith("linux"):
        pytest.skip("the macOS pins have Linux wheels for CPython 3.11 only")
    requirements = tmp_path / "requirements.txt"
    requirements.write_text(mac_311_requirements())
    venv = tmp_path / "venv"
    # uv makes the venv and installs into it: pip took some 40 s of a busy CI here
    env = {**os.environ, **pins.QUICK_LOOKUPS, "UV_CACHE_DIR": str(pip_cache / "uv"),
           "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never"}
    subprocess.run([str(pins.UV), "venv", "-q", "--python", sys.executable, str(venv)],
                   check=True, timeout=120, env=env)
    python = venv / "bin" / "python"
    done = subprocess.run(
        [str(pins.UV), "pip", "install", "-q", "--python", str(python), "--only-binary",
         ":all:", "-r", str(requirements)],
        capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, f"the Mac's pins do not install here:\n{pins.said(done)}"
    installed = subprocess.run([str(python), "-c", "import gevent; print(gevent.__version__)"],
                               capture_output=True, text=True, timeout=60, check=True)
    assert f"gevent=={installed.stdout.strip()}" in requirements.read_text().splitlines()
    return python


@pytest.mark.slow  # a venv, the index, and `companion serve`
def test_a_stop_with_the_macs_python_311_pins_prints_no_traceback(mac_311_venv, tmp_path):
    port, data = free_port(), tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COMPANION_", "PYTHON"))}
    env["PYTHONPATH"] = str(CHECKOUT)  # this checkout's package, run as `python -m companion`
    server = subprocess.Popen(
        [str(mac_311_venv), "-m", "companion", "serve", "--data", str(data),
         "--host", "127.0.0.1", "--port", str(port)],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert answers(f"http://127.0.0.1:{port}/"), "it did not start"
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=STARTS_WITHIN_S)
    assert server.returncode == 0, err
    assert str(data / "companion.sqlite") in out.rstrip().splitlines()[-1]  # its last line
    assert "Traceback" not in err and "Exception ignored" not in err, err
