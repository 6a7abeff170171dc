"""The release as a host installs it: the wheel, in a fresh environment outside the
checkout, serving from an empty folder with a home of its own. Every page and static
file is there, a night survives a restart and a reinstall, and nothing is written inside
the installed package (the group's data goes to the user's data folder)."""

import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import answers, free_port
from tests.over_http import Device, create_night

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


def test_the_wheel_installs_serves_and_keeps_the_groups_data_outside_the_package(tmp_path):
    dist, venv, home, empty = (tmp_path / n for n in ("dist", "venv", "home", "empty"))
    home.mkdir()
    empty.mkdir()
    run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", dist, CHECKOUT)
    wheel = next(dist.glob("companion-*.whl"))
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
