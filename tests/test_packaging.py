"""The program a host double-clicks (packaging/build.py), as far as it can be checked
without building it: its file's name on each system, what goes in and what stays out,
the macOS app reopening itself in Terminal (packaging/launcher.py), and the smoke test's
reading of the pages it fills in (packaging/smoke.py). The Linux program built and tried:
tests/test_program.py."""

import ast
import importlib.metadata
import importlib.util
import pkgutil
import tomllib
from pathlib import Path, PurePosixPath

import babel
import babel.localedata
import pytest
from babel.core import Locale
from babel.dates import format_datetime
from babel.numbers import format_decimal

import companion
from companion.core import registry
from companion.serving import gevent_first
from companion.web.i18n import WHEN

ROOT = Path(__file__).resolve().parent.parent


def script(name):
    """packaging/<name>.py, loaded as a module (packaging/ is no package: the name would
    be PyPA's ``packaging``)."""
    spec = importlib.util.spec_from_file_location(f"packaging_{name}",
                                                  ROOT / "packaging" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = script("build")
launcher = script("launcher")
smoke = script("smoke")

PACKAGE = PurePosixPath("companion")


# --- the file's name ------------------------------------------------------------------

@pytest.mark.parametrize("platform, machine, name", [
    ("linux", "x86_64", "Companion-1.2.3-linux-x86_64"),
    ("linux", "aarch64", "Companion-1.2.3-linux-arm64"),
    ("win32", "AMD64", "Companion-1.2.3-windows-x64.exe"),
    ("win32", "ARM64", "Companion-1.2.3-windows-arm64.exe"),
    ("darwin", "arm64", "Companion-1.2.3-macos-arm64.zip"),
    ("darwin", "x86_64", "Companion-1.2.3-macos-x86_64.zip"),
])
def test_each_system_and_processor_names_the_program_its_own_way(platform, machine, name):
    system = build.system_name(platform)
    assert build.output_name("1.2.3", system, build.arch_name(system, machine)) == name


@pytest.mark.parametrize("platform, machine", [("freebsd14", "amd64"), ("linux", "i686"),
                                               ("win32", "x86")])
def test_no_program_is_named_for_a_system_or_processor_it_is_not_built_for(platform, machine):
    with pytest.raises(build.BuildError):
        build.arch_name(build.system_name(platform), machine)


def test_the_version_is_the_installed_distributions_of_the_name_pyproject_has_now():
    with open(ROOT / "pyproject.toml", "rb") as file:
        name = tomllib.load(file)["project"]["name"]
    steps = build.plan(platform_name="linux", machine="x86_64")
    assert steps["distribution"] == name
    assert steps["version"] == importlib.metadata.version(name)
    assert steps["output"] == f"Companion-{steps['version']}-linux-x86_64"


def test_a_mac_gets_an_app_and_the_others_one_file():
    mac = build.plan(platform_name="darwin", machine="arm64")
    assert not mac["onefile"] and mac["executable"] == "Companion" and not mac["strip"]
    for platform in ("linux", "win32"):
        assert build.plan(platform_name=platform, machine="x86_64")["onefile"]


# --- what goes in ---------------------------------------------------------------------

PLATFORMS = [("linux", "x86_64"), ("win32", "AMD64"), ("darwin", "arm64")]


@pytest.mark.parametrize("platform, machine", PLATFORMS)
def test_every_module_of_the_package_goes_in_but_the_cafes_gunicorn_worker(platform, machine):
    hidden = set(build.plan(platform_name=platform, machine=machine)["hiddenimports"])
    modules = {m.name for m in pkgutil.walk_packages(companion.__path__, "companion.")}
    assert modules - hidden == {build.CAFE}
    assert set(registry.INSTALLED) <= hidden  # the games, imported by name only
    assert build.CAFE in build.EXCLUDES


def test_windows_gets_gevents_libuv_loop_and_cffis_backend_whatever_builds_it():
    hidden = build.hidden_imports("windows", cffi=False)
    assert {"gevent.libuv.loop", "gevent.libuv._corecffi", "_cffi_backend"} <= set(hidden)


def test_elsewhere_libevs_compiled_loop_goes_in_and_cffi_only_where_it_is_installed():
    without, with_cffi = build.hidden_imports("linux", cffi=False), build.hidden_imports(
        "linux", cffi=True)
    assert "gevent.libev.corecext" in without and "_cffi_backend" not in without
    assert "_cffi_backend" in with_cffi


def test_every_loop_named_is_a_module_gevent_has():
    for name in build.GEVENT_LOOPS:
        assert importlib.util.find_spec(name) is not None, name


def test_only_cffis_c_backend_goes_in_not_what_builds_its_modules():
    assert {"cffi", "pycparser", "gevent.libuv._corecffi_build"} <= set(build.EXCLUDES)
    assert "_cffi_backend" not in build.EXCLUDES


def files_under(folder, pattern):
    return {p.relative_to(folder).as_posix() for p in folder.glob(pattern) if p.is_file()}


def test_templates_static_files_fonts_and_catalogs_go_where_an_installed_wheel_has_them():
    datas = build.plan(platform_name="linux", machine="x86_64")["datas"]
    placed = {}
    for source, target in datas:
        assert Path(source).is_file(), source
        placed.setdefault(target, set()).add(Path(source).name)
    templates = placed[str(PACKAGE / "templates")] | placed[str(PACKAGE / "templates" / "kraken")]
    assert {"base.html", "_host.html"} <= templates
    assert len([t for t, names in placed.items() for n in names if n.endswith(".html")]) \
        == len(files_under(ROOT / "templates", "**/*.html"))
    assert {"app.css", "manifest.json", "icon-192.png"} <= placed[str(PACKAGE / "static")]
    assert "core.js" in placed[str(PACKAGE / "static" / "js")]
    assert placed[str(PACKAGE / "static" / "vendor")] == set(
        files_under(ROOT / "static" / "vendor", "*"))
    assert {"NanumSquareR.ttf", "NanumSquareB.ttf", "NotoEmoji-Regular.ttf"} <= placed[
        str(PACKAGE / "fonts")]
    for language in ("ko", "en"):
        assert placed[str(PACKAGE / "translations" / language / "LC_MESSAGES")] == {
            "messages.mo"}
    assert not any(source.endswith((".po", ".pot", ".py")) for source, _ in datas)


def test_babels_data_is_only_what_korean_and_english_load(monkeypatch):
    """Babel's own loading, watched: every locale a date or number in either language
    reads is in the program, and nothing else of its 700 locales."""
    loaded = []
    real_load = babel.localedata.load

    def load(name, merge_inherited=True):
        loaded.append(name)
        return real_load(name, merge_inherited)

    monkeypatch.setattr(babel.localedata, "_cache", {})
    monkeypatch.setattr(babel.localedata, "load", load)
    for language in ("ko", "en"):
        Locale.parse(language).datetime_formats  # noqa: B018 (a lookup that loads)
        for pattern in WHEN[language].values():
            format_datetime(None, pattern, locale=language)
        format_decimal(1234.5, locale=language)
    kept = set(build.plan(platform_name="linux", machine="x86_64")["babel"])
    assert {f"babel/locale-data/{name}.dat" for name in loaded} <= kept
    assert kept == {"babel/global.dat", "babel/locale-data/root.dat",
                    "babel/locale-data/ko.dat", "babel/locale-data/en.dat"}
    installed = Path(babel.__file__).parent.parent
    assert all((installed / path).is_file() for path in kept)


def test_a_locale_with_a_parent_of_its_own_brings_the_parent():
    """(as en_AU would: en_001, en, root)"""
    assert build.locale_chain("en_AU", {"en_AU": "en_001"}) == ["en_AU", "en_001", "en",
                                                                 "root"]
    assert build.babel_files(["ko_KR"], {}) == {
        "babel/global.dat", "babel/locale-data/ko_KR.dat", "babel/locale-data/ko.dat",
        "babel/locale-data/root.dat"}


def test_collected_data_keeps_the_two_languages_babel_files_and_drops_the_rest():
    kept = build.babel_files()
    assert build.wanted_data("babel/locale-data/ko.dat", kept)
    assert build.wanted_data("babel/global.dat", kept)
    assert not build.wanted_data("babel/locale-data/de.dat", kept)
    assert not build.wanted_data("babel\\locale-data\\ja.dat", kept)  # as Windows names it
    assert not build.wanted_data("gevent/libev/libev.h", kept)
    assert build.wanted_data("certifi/cacert.pem", kept)


# --- what stays out -------------------------------------------------------------------

def imported_modules(path):
    """Every module an import statement of ``path`` names."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_a_night_never_imports_what_the_program_leaves_out():
    left_out = set(build.EXCLUDES)
    found = {}
    for path in sorted((ROOT / "companion").rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        if module == build.CAFE:
            continue
        hits = {name for name in imported_modules(path) if any(
            name == out or name.startswith(out + ".") for out in left_out)}
        if hits:
            found[module] = sorted(hits)
    assert found == {}
    assert {"tkinter", "unittest", "pydoc", "setuptools"} <= left_out


# --- how it starts ----------------------------------------------------------------------

def test_the_built_program_gets_gevents_patches_first_when_it_serves():
    """companion/serving/gevent_first.py, as the launcher relies on it: a double-click
    (no arguments) and ``serve`` patch, whatever the program's file is called."""
    program = "C:\\Users\\Mina\\Downloads\\Companion-0.2.0-windows-x64.exe"
    assert gevent_first.serving([program], frozen=True)
    assert gevent_first.serving([program, "serve", "--port", "8800"], frozen=True)
    assert not gevent_first.serving([program, "doctor"], frozen=True)


APP = "/Applications/Companion.app/Contents/MacOS/Companion"


def test_a_double_clicked_mac_app_reopens_itself_in_terminal():
    assert launcher.terminal_command([], frozen=True, platform="darwin", executable=APP,
                                     attended=False) == ["open", "-a", "Terminal", APP]


@pytest.mark.parametrize("args, frozen, platform, executable, attended", [
    ([], True, "darwin", APP, True),  # already in a terminal: it serves there
    (["serve", "--port", "8800"], True, "darwin", APP, False),  # a command: run it
    ([], False, "darwin", APP, False),  # python -m companion, not the program
    ([], True, "darwin", "/usr/local/bin/Companion", False),  # not inside an app
    ([], True, "win32", "C:\\Companion.exe", False),  # its console is its window
    ([], True, "linux", "/home/mina/Companion-0.2.0-linux-x86_64", False),
])
def test_otherwise_it_goes_on_where_it_was_started(args, frozen, platform, executable,
                                                    attended):
    assert launcher.terminal_command(args, frozen=frozen, platform=platform,
                                     executable=executable, attended=attended) is None


def test_the_process_number_an_old_finder_adds_is_no_argument():
    assert launcher.arguments(["-psn_0_12345"]) == []
    assert launcher.arguments(["serve", "--port", "8800"]) == ["serve", "--port", "8800"]


def test_on_windows_the_console_window_is_titled_companion():
    calls = []

    class Kernel32:
        def SetConsoleTitleW(self, title):  # noqa: N802 (Windows' name)
            calls.append(title)

    launcher.name_the_window(Kernel32())
    assert calls == ["Companion"]
    launcher.name_the_window(object())  # no console to title: nothing happens


def test_programs_it_starts_get_the_hosts_library_path_back():
    environ = {"LD_LIBRARY_PATH": "/tmp/_MEI1:/opt/lib", "LD_LIBRARY_PATH_ORIG": "/opt/lib"}
    launcher.restore_library_path(environ, "/tmp/_MEI1")
    assert environ == {"LD_LIBRARY_PATH": "/opt/lib"}
    environ = {"LD_LIBRARY_PATH": "/tmp/_MEI1", "HOME": "/home/mina"}
    launcher.restore_library_path(environ, "/tmp/_MEI1")
    assert environ == {"HOME": "/home/mina"}
    environ = {"LD_LIBRARY_PATH": "/opt/lib"}  # not PyInstaller's: left alone
    launcher.restore_library_path(environ, "/tmp/_MEI1")
    assert environ == {"LD_LIBRARY_PATH": "/opt/lib"}


# --- the smoke test reads the pages as they are ---------------------------------------

def test_the_smoke_test_fills_the_start_pages_form_as_a_browser_sends_it(client):
    fields = smoke.form(client.get("/").data.decode(), "/nights")
    names = [name for name, _value in fields]
    assert {"csrf_token", "form_token", "shown"} <= set(names)
    assert names.count("name") == names.count("colour") >= 4
    assert "add_seat" not in names  # a button, never sent unless pressed


def test_the_smoke_test_finds_the_qr_codes_the_claim_and_the_kraken_form(night, app):
    page = night.host.get(night.url).data.decode()
    assert len(smoke.qr_images(page)) == len(night.tokens)
    assert {"ssid", "password"} <= {n for n, _ in smoke.form(page, f"{night.url}/wifi")}
    token = night.tokens[0]
    claim = app.test_client().get(f"/s/{token}").data.decode()
    assert [n for n, _ in smoke.form(claim, f"/s/{token}")] == ["csrf_token"]
    new = f"{night.url}/new/kraken"
    fields = dict(smoke.form(night.host.get(new).data.decode(), new))
    assert all(fields[f"seat{p}"] == "on" for p in range(len(night.tokens)))
    assert fields["series"] == "none" and "curse" not in fields


def test_the_smoke_test_sees_the_role_on_the_phone_and_none_on_the_host(night):
    phone = night.phone(0)
    assert smoke.role_shown(phone.get("/me").data.decode()) is None  # before the deal
    game = night.start("kraken", **{f"seat{p}": "on" for p in range(len(night.tokens))})
    assert smoke.role_shown(phone.get("/me").data.decode()) in smoke.ROLES
    assert smoke.role_shown(night.host.get(game).data.decode()) is None


def test_the_smoke_test_reads_the_port_from_the_first_address_printed():
    assert smoke.port_in("Port 8765 is in use: Companion uses port 8766.\n"
                         "Companion is running. Open http://192.168.1.20:8766 on the …") == 8766
    assert smoke.port_in("컴패니언이 실행 중입니다. http://[fe80::1]:8767 을 여세요") == 8767
    assert smoke.port_in("Port 8765 is in use") is None


def test_the_smoke_test_reads_the_nights_time_as_babel_writes_it_in_each_language(night):
    for language in ("ko", "en"):
        page = night.host.get("/", headers={"Accept-Language": language}).data.decode()
        assert smoke.WHEN[language].search(page), language
