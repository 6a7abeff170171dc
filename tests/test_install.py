"""Installed like an app: where the group's data lives, the version, backups, and a
database made by the previous release opening in this one."""

import os
import runpy
import shutil
import sqlite3
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from bench.builders import make_night
from companion import store
from companion.app import create_app
from companion.laptop import paths
from companion.serving import cli
from tests.over_http import ServerProcess

FIXTURES = Path(__file__).parent / "fixtures"


# --- the data folder -----------------------------------------------------------------

def test_a_checkout_keeps_its_data_in_instance(monkeypatch):
    monkeypatch.delenv("COMPANION_DATA", raising=False)
    assert paths.from_checkout()
    assert paths.data_folder() == paths.CHECKOUT / "instance"


def test_an_installed_app_keeps_its_data_in_the_users_data_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("COMPANION_DATA", raising=False)
    monkeypatch.setattr(paths, "from_checkout", lambda: False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    folder = paths.data_folder()
    assert folder == tmp_path / "share" / "companion"
    assert paths.PACKAGE not in folder.parents  # never inside the installed package


def test_the_program_keeps_its_nights_where_the_wheel_does(monkeypatch, tmp_path):
    """The built program unpacks the package with its templates inside it, as the wheel
    has them (packaging/build.py): it is no checkout, and a host who switches between the
    program and the wheel (or uv) finds every night."""
    monkeypatch.delenv("COMPANION_DATA", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    bundle = tmp_path / "_MEI12345"
    (bundle / "companion" / "templates").mkdir(parents=True)
    monkeypatch.setattr(paths, "PACKAGE", bundle / "companion")
    monkeypatch.setattr(paths, "CHECKOUT", bundle)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert not paths.from_checkout()
    as_program = paths.data_folder()
    monkeypatch.undo()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    monkeypatch.delenv("COMPANION_DATA", raising=False)
    monkeypatch.setattr(paths, "from_checkout", lambda: False)
    assert as_program == paths.data_folder() == tmp_path / "share" / "companion"


def test_data_and_companion_data_choose_another_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("COMPANION_DATA", str(tmp_path / "env"))
    assert paths.data_folder() == tmp_path / "env"
    assert paths.data_folder(str(tmp_path / "flag")) == tmp_path / "flag"  # --data wins


def test_the_app_keeps_its_secret_key_in_the_chosen_folder(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "x.sqlite")}, data=tmp_path / "group")
    assert app.instance_path == str(tmp_path / "group")
    assert (tmp_path / "group" / "secret_key").read_text().strip() == app.config["SECRET_KEY"]


@pytest.mark.slow  # `companion serve` in a process of its own
def test_a_data_folder_that_cannot_be_made_is_one_clear_line_and_nothing_starts(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    done = subprocess.run(
        [sys.executable, "-m", "companion", "serve", "--data", str(blocker / "data"),
         "--host", "127.0.0.1", "--port", "0", "--quiet"],
        capture_output=True, text=True, timeout=60, env={**os.environ})
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(blocker / "data") in lines[0]
    assert "Choose another folder with --data" in lines[0]
    assert done.stdout == ""  # it never said it was running


def test_a_folder_that_cannot_be_made_says_why_in_a_translatable_line(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(paths.DataFolderError) as refused:
        paths.prepare(blocker / "data")
    error = refused.value
    assert error.template == paths.CANNOT_KEEP  # the catalogs' msgid, printed translated
    assert error.values["folder"] == str(blocker / "data")
    assert error.values["reason"] == "Not a directory"  # the system's own words
    assert str(error) == error.template % error.values


# --- the version ---------------------------------------------------------------------

def test_companion_version(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"companion {version('companion-table')}"


# --- backups -------------------------------------------------------------------------

@pytest.mark.slow  # starts `companion serve`
def test_a_backup_while_the_server_runs_holds_every_night(tmp_path):
    server = ServerProcess(database=str(tmp_path / "companion.sqlite")).start()
    try:
        import urllib.request

        for names in (["Ann", "Bo", "Cy"], ["민수", "Jo", "지혜"]):
            app = create_app({"DATABASE": server.database, "SECRET_KEY": "x",
                              "WTF_CSRF_ENABLED": False})
            make_night(app, names)
        urllib.request.urlopen(server.url + "/", timeout=5)  # the server is up and reading
        copy = tmp_path / "copy.sqlite"
        done = subprocess.run(
            [sys.executable, "-m", "companion", "backup", str(copy), "--data", str(tmp_path)],
            capture_output=True, text=True, timeout=60,
            env={k: v for k, v in os.environ.items() if k != "COMPANION_DATABASE"})
        assert done.returncode == 0, done.stderr
        assert str(copy) in done.stdout
    finally:
        server.kill()
    with sqlite3.connect(copy) as db:
        names = [r[0] for r in db.execute("select name from seats order by id")]
    assert names == ["Ann", "Bo", "Cy", "민수", "Jo", "지혜"]
    again = subprocess.run([sys.executable, "-m", "companion", "backup", str(copy),
                            "--data", str(tmp_path)], capture_output=True, text=True)
    assert again.returncode == 2 and "exists already" in again.stderr  # never overwritten


def test_a_backup_of_no_data_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("COMPANION_DATABASE", raising=False)
    assert cli.main(["backup", "--data", str(tmp_path)]) == 2
    assert f"no data to back up in {tmp_path}" in capsys.readouterr().err


# --- a database made by an earlier release -------------------------------------------

#: One fixture per release whose schema changed: each opens, migrates forward and keeps
#: every night (tests/fixtures/README.md says how each was made).
RELEASES = sorted(FIXTURES.glob("companion-*.sqlite"))


@pytest.mark.parametrize("fixture", RELEASES, ids=[p.stem for p in RELEASES])
def test_a_database_of_an_earlier_release_opens_with_every_night_intact(fixture, tmp_path):
    database = tmp_path / "companion.sqlite"
    shutil.copy(fixture, database)
    app = create_app({"DATABASE": str(database), "SECRET_KEY": "old", "LANGUAGE": "en",
                      "WTF_CSRF_ENABLED": False})
    with app.test_request_context():
        night = store.latest_night()
        assert [s["name"] for s in store.seats(night["id"])] == ["민수", "Jo", "지혜 🙂", "Ann"]
        skullking, kraken = store.games(night["id"])
        assert skullking.kind == "skullking" and kraken.kind == "kraken"
        # round 1 (1 card): 민수 bid 1 and took it, the others bid 0 and took none
        assert skullking.state["totals"] == {"0": 20, "1": 10, "2": 10, "3": 10}
        assert store.current_game(night["id"]).number == 2
    # and the app writes to it as to its own
    host = app.test_client()
    assert host.post("/nights", data={"name": ["A", "B", "C"]}).status_code == 303


def test_every_release_fixture_is_there():
    assert [p.name for p in RELEASES] == ["companion-0.1.0.sqlite"]


def test_every_package_of_the_source_is_in_the_wheel(monkeypatch):
    """setup.py finds the packages under companion/ and adds the two that pyproject.toml
    maps in (templates and static): a package left out of the wheel, the installed app
    cannot start (the release test finds that too, in minutes; this in a moment)."""
    # A venv of Python 3.12 or later comes without setuptools (pip's build fetches its own)
    setuptools = pytest.importorskip("setuptools")
    root = Path(__file__).resolve().parent.parent
    given = {}
    monkeypatch.setattr(setuptools, "setup", lambda **settings: given.update(settings))
    runpy.run_path(str(root / "setup.py"))
    packages = set(given["packages"])
    found = {".".join(p.parent.relative_to(root).parts)
             for p in (root / "companion").rglob("__init__.py")}
    mapped = set(tomllib.loads((root / "pyproject.toml").read_text())
                 ["tool"]["setuptools"]["package-dir"])
    assert found | mapped | {"companion.fonts", "companion.translations"} <= packages, \
        sorted((found | mapped) - packages)
