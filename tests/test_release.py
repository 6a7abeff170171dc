"""The release as a host installs it: the wheel, in a fresh environment outside the
checkout, serving from an empty folder with a home of its own. Every page and static
file is there, a night survives a restart and a reinstall, and nothing is written inside
the installed package (the group's data goes to the user's data folder). And the wheel
as `uv tool install` (and `uvx`) installs it with nothing but the index: every package at
the version the lock pins for this machine, and a short night played with it."""

import json
import os
import signal
import subprocess
import sys
import tomllib
import urllib.request
from pathlib import Path

import pytest

from bench.devices import Device, create_night
from bench.servers import answers, free_port
from tests import pins
from tests.pins import canonical, lock_path, pins_here

pytestmark = pytest.mark.slow

CHECKOUT = Path(__file__).resolve().parent.parent


def run(*argv, **kw):
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                          timeout=600, **kw)
    assert done.returncode == 0, (argv, done.stdout[-2000:], done.stderr[-2000:])
    return done


def files_under(folder):
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


class Installed:
    """`companion serve` of the installed release, started in an empty folder."""

    def __init__(self, venv, home, cwd, port=None):
        self.venv, self.home, self.cwd = venv, home, cwd
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = None
        self.said = ""

    def start(self):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("COMPANION_", "XDG_", "VIRTUAL_ENV", "PYTHON"))}
        env.update(HOME=str(self.home), PATH=f"{self.venv / 'bin'}:{env.get('PATH', '')}")
        self.process = subprocess.Popen(
            [self.venv / "bin" / "companion", "serve", "--host", "127.0.0.1", "--port",
             str(self.port), "--quiet"], cwd=self.cwd, env=env, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if not answers(self.url + "/"):
            self.stop()
            raise AssertionError(f"the installed server did not start: {self.said}")
        return self

    def stop(self):
        self.process.terminate()
        self.said, _ = self.process.communicate(timeout=30)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The release's wheel, built from this checkout (once per worker)."""
    dist = tmp_path_factory.mktemp("dist")
    run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", dist, CHECKOUT)
    (built,) = dist.glob("companion_table-*-py3-none-any.whl")
    return built


def test_the_wheel_installs_serves_and_keeps_the_groups_data_outside_the_package(tmp_path,
                                                                                 wheel):
    venv, home, empty = (tmp_path / n for n in ("venv", "home", "empty"))
    home.mkdir()
    empty.mkdir()
    run(sys.executable, "-m", "venv", venv)
    pip = [venv / "bin" / "pip", "install", "-q", "-c", CHECKOUT / "constraints.txt"]
    run(*pip, wheel)
    site = Path(run(venv / "bin" / "python", "-c",
                    "import companion, pathlib; print(pathlib.Path(companion.__file__)"
                    ".parent.parent)", cwd=empty).stdout.strip())
    package = site / "companion"
    assert (package / "templates" / "base.html").is_file()
    assert CHECKOUT not in site.parents
    before = files_under(site)

    version = run(venv / "bin" / "companion", "--version", cwd=empty).stdout.strip()
    assert version.startswith("companion ") and version != "companion unknown"

    server = Installed(venv, home, empty).start()
    try:
        status, _head, html = Device(server.url).get("/")
        assert status == 200 and 'lang="' in html
        static = [part.split('"')[0].replace("&amp;", "&")
                  for part in html.replace('src="', 'href="').split('href="')
                  if part.startswith("/static/")]
        # its stylesheets and every part of the front end (static/js/, package-data)
        assert any(s.startswith("/static/app.css") for s in static)
        assert any(s.startswith("/static/js/core.js") for s in static)
        for link in static:
            assert urllib.request.urlopen(server.url + link, timeout=5).status == 200, link
        host, key, _tokens = create_night(server.url, names=["Mina", "Jo", "Sun"])
    finally:
        server.stop()
    data = home / ".local" / "share" / "companion"
    assert "The group's data is kept in " + str(data) in server.said
    assert (data / "companion.sqlite").is_file() and (data / "secret_key").is_file()
    assert files_under(empty) == set()

    def hosts_it():
        """The host's own tablet (its cookies) opens the night again."""
        again = Installed(venv, home, empty, port=server.port).start()
        try:
            return again, host.get(f"/n/{key}")
        finally:
            again.stop()

    # the night survives a restart, and a reinstall of the release over itself
    again, (status, _head, html) = hosts_it()
    assert status == 200 and "Mina" in html
    run(*pip, "--force-reinstall", "--no-deps", wheel)
    again, (status, _head, html) = hosts_it()
    assert status == 200 and "Mina" in html
    assert files_under(site) - before == set()  # nothing written inside site-packages


# --- uv tool install: the wheel alone, as `uvx --from companion-table` takes it -------

UV = pins.UV
#: uv installs from the package index: without it the test is skipped (tests/pins.py).
index_reached, pip_cache = pins.index_reached, pins.pip_cache

#: What a distribution reports of itself inside an environment: {name: version}.
INSTALLED = ("import importlib.metadata as m, json; "
             "print(json.dumps({d.metadata['Name']: d.version for d in m.distributions()}))")


def uv_tool_env(root):
    """A tool folder, a command folder, a cache and a home of their own under ``root``;
    uv takes this Python (no download) and reads no user or project configuration."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("COMPANION_", "XDG_", "VIRTUAL_ENV", "PYTHON", "UV_", "LANG"))}
    env.update(UV_TOOL_DIR=str(root / "tools"), UV_TOOL_BIN_DIR=str(root / "bin"),
               UV_CACHE_DIR=str(root / "cache"), UV_PYTHON_DOWNLOADS="never",
               UV_NO_CONFIG="1", HOME=str(root / "home"), LC_ALL="C.UTF-8",
               **pins.QUICK_LOOKUPS)
    (root / "home").mkdir(parents=True)
    return env


def test_uv_tool_install_brings_the_locks_pins_and_plays_a_short_night(tmp_path, wheel,
                                                                      index_reached):
    env = uv_tool_env(tmp_path)
    run(UV, "tool", "install", "--python", sys.executable, wheel, env=env, cwd=tmp_path)
    companion = tmp_path / "bin" / "companion"
    assert companion.is_file(), "uv installed no companion command"

    # every package at the version the lock pins for this machine, from the index alone
    tool_python = tmp_path / "tools" / "companion-table" / "bin" / "python"
    installed = {canonical(name): version for name, version in json.loads(
        run(tool_python, "-c", INSTALLED, env=env, cwd=tmp_path).stdout).items()}
    expected = pins_here(lock_path())
    assert {"flask", "gevent", "werkzeug"} <= set(expected)
    assert {name: installed.get(name) for name in expected} == expected
    project = tomllib.loads((CHECKOUT / "pyproject.toml").read_text())["project"]
    assert installed["companion-table"] == project["version"]

    # a night: the host makes it over HTTP, a phone claims a seat, Ctrl+C stops it
    data, port = tmp_path / "data", free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [companion, "serve", "--host", "127.0.0.1", "--port", str(port), "--data", str(data),
         "--quiet"], cwd=tmp_path, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert answers(url + "/"), "the uv-installed server did not start"
        _host, key, tokens = create_night(url, names=["Mina", "Jo", "Sun"],
                                          database=str(data / "companion.sqlite"))
        phone = Device(url)
        assert phone.claim(tokens[0]) == 303
        status, _head, html = phone.get("/me")
        assert status == 200 and "Mina" in html
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=30)
    assert server.returncode == 0, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert out.strip().splitlines()[-1] == (
        f"Companion stopped. Every night is saved in {data / 'companion.sqlite'}")
