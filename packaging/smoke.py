"""The built program, tried as a host would (packaging/build.py makes it):

    python packaging/smoke.py PROGRAM [--args "serve --port 8800"] [--timeout 90]

PROGRAM is the built file (``Companion-…-linux-x86_64``, ``Companion-…-windows-x64.exe``),
or for macOS the ``.zip`` or the ``Companion.app`` in it. The program is started with no
arguments, as a double-click starts it (``--args`` gives it some instead), in a home of
its own: HOME, USERPROFILE, APPDATA, LOCALAPPDATA and XDG_DATA_HOME all point into a new
temporary folder, and BROWSER at a command that only notes the address it was given.
Then, over HTTP with two cookie jars as two devices:

1. the port comes from what the program prints (8765, or one of the next when taken),
   and the browser was asked to open ``http://localhost:<port>/``;
2. the host makes a night with the start page's form; the start page, the night's page
   and a style sheet answer in Korean and in English, the start page shows the night's
   time as Babel writes it in each language, the seat QR codes are SVG images, and the
   Wi-Fi code the host sets is a PNG (qrcode and Pillow);
3. a phone claims a seat (its code, which a phone scans from the QR image, is read from
   the group's database), the host starts No Touch Kraken, and the deal puts a role on
   the phone's page and none on the host's;
4. the program is stopped as a host stops it (Ctrl+C: SIGINT; Ctrl+Break on Windows) and
   must end with exit code 0 and no traceback; started again, the night is there.

Standard library only: it runs on the release's runners against the program alone (a
Python is needed to run this script, never by the program). Exit code 0 when all is
well; otherwise a line that says what failed, the program's output, and exit code 1.
"""

from __future__ import annotations

import argparse
import html.parser
import http.cookiejar
import os
import re
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path

#: The port a double-clicked program serves on, and how many after it it may take instead.
DEFAULT_PORT = 8765
PORTS_TRIED = 20
NAMES = ["Mina", "Jo", "Sun", "Ann"]
ROLES = ("Explorer", "Skeleton")
#: The night's time on the start page as Babel writes it in each language: "12월 7일(월)
#: 오후 7:05", "Mon 7 Dec, 7:05 PM".
WHEN = {"ko": re.compile(r"\d{1,2}월 \d{1,2}일\([월화수목금토일]\) (오전|오후) \d{1,2}:\d\d"),
        "en": re.compile(r"[A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2}, \d{1,2}:\d\d (AM|PM)")}


class Failed(Exception):
    """What went wrong, in one line."""


def check(condition: object, message: str) -> None:
    if not condition:
        raise Failed(message)


# --- a browser without a browser: forms, cookies, CSRF --------------------------------


class Forms(html.parser.HTMLParser):
    """Every form of a page: its action and the fields a browser would send as they are
    (hidden and text fields, checked boxes and radio buttons, each select's choice)."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict] = []
        self._select: str | None = None
        self._options: list[tuple[str, bool]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        at = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.forms.append({"action": at.get("action", ""), "fields": []})
        elif not self.forms:
            return
        elif tag == "input" and at.get("name"):
            kind = at.get("type", "text").lower()
            if kind in ("checkbox", "radio") and "checked" not in at:
                return
            if kind not in ("submit", "button", "image", "file", "reset"):
                self.forms[-1]["fields"].append((at["name"], at.get("value", "on" if kind in (
                    "checkbox", "radio") else "")))
        elif tag == "select":
            self._select, self._options = at.get("name"), []
        elif tag == "option" and self._select:
            self._options.append((at.get("value", ""), "selected" in at))

    def handle_endtag(self, tag: str) -> None:
        if tag == "select" and self._select and self._options:
            chosen = next((v for v, on in self._options if on), self._options[0][0])
            self.forms[-1]["fields"].append((self._select, chosen))
            self._select = None


def form(page: str, action: str) -> list[tuple[str, str]]:
    """The fields of the page's form that posts to ``action``."""
    parser = Forms()
    parser.feed(page)
    for found in parser.forms:
        if found["action"] == action:
            return list(found["fields"])
    raise Failed(f"no form posts to {action}")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Device:
    """One phone or tablet: a cookie jar of its own, redirects read, not followed."""

    def __init__(self, base: str, language: str = "en") -> None:
        self.base, self.language = base, language
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            _NoRedirect, urllib.request.HTTPCookieProcessor(self.jar))

    def request(self, path: str, fields: list[tuple[str, str]] | None = None,
                language: str | None = None) -> tuple[int, dict, bytes]:
        body = None if fields is None else urllib.parse.urlencode(fields).encode()
        headers = {"Accept-Language": language or self.language}
        if body is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Origin"] = self.base
            headers["Referer"] = self.base + path
        request = urllib.request.Request(self.base + path, data=body, headers=headers,
                                         method="GET" if body is None else "POST")
        try:
            with self.opener.open(request, timeout=30) as answer:
                return answer.status, dict(answer.headers), answer.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    def page(self, path: str, language: str | None = None) -> str:
        """A page that must answer 200, as text."""
        status, _head, body = self.request(path, language=language)
        check(status == 200, f"GET {path} answered {status}")
        return body.decode("utf-8")

    def send(self, path: str, fields: list[tuple[str, str]]) -> str:
        """Send a form; where its answer (a 303) leads."""
        status, head, body = self.request(path, fields)
        check(status == 303, f"POST {path} answered {status}: "
                             f"{body.decode('utf-8', 'replace')[:300]}")
        return urllib.parse.urlsplit(head["Location"]).path


# --- the program, in a home of its own --------------------------------------------------


def executable(program: Path, unpacked: Path) -> Path:
    """The file to run: the program itself, or a macOS app's executable (a zipped app is
    unpacked into ``unpacked`` first, by ``ditto``, which keeps the bundle's links)."""
    if program.suffix == ".zip":
        if shutil.which("ditto"):
            subprocess.run(["ditto", "-x", "-k", str(program), str(unpacked)], check=True)
        else:  # not on a Mac: enough to look inside
            with zipfile.ZipFile(program) as archive:
                archive.extractall(unpacked)
        apps = sorted(unpacked.glob("*.app"))
        check(apps, f"{program} holds no .app")
        program = apps[0]
    if program.suffix == ".app":
        inside = sorted((program / "Contents" / "MacOS").iterdir())
        check(inside, f"{program} has no executable")
        return inside[0]
    return program


def isolated_env(home: Path, browser: str) -> dict[str, str]:
    """This environment, with every place a program keeps a user's files inside ``home``,
    none of Companion's settings, and ``browser`` as the browser."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("COMPANION_", "XDG_", "PYTHON", "VIRTUAL_ENV", "WIN_PD_"))}
    roaming, local = home / "AppData" / "Roaming", home / "AppData" / "Local"
    env.update(HOME=str(home), USERPROFILE=str(home), APPDATA=str(roaming),
               LOCALAPPDATA=str(local), XDG_DATA_HOME=str(home / ".local" / "share"),
               XDG_CONFIG_HOME=str(home / ".config"), XDG_CACHE_HOME=str(home / ".cache"),
               # Windows' folders come from the system, not the variables, unless these
               # say otherwise (platformdirs)
               WIN_PD_OVERRIDE_APPDATA=str(roaming), WIN_PD_OVERRIDE_LOCAL_APPDATA=str(local),
               BROWSER=browser)
    return env


def browser_recorder(folder: Path) -> tuple[str, Path]:
    """A command that notes each address it is asked to open, and where it notes them.
    (Python's webbrowser runs BROWSER as one program, the address its argument.)"""
    noted = folder / "opened.txt"
    if os.name == "nt":
        script = folder / "browser.cmd"
        script.write_text(f'@echo %~1>>"{noted}"\r\n', encoding="ascii")
    else:
        script = folder / "browser.sh"
        script.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> {shlex.quote(str(noted))}\n')
        script.chmod(0o755)
    return str(script), noted


def port_in(output: str) -> int | None:
    """The port of the first address in what the program printed (in either language;
    an IPv6 address in brackets), or None."""
    found = re.search(r"https?://(?:\[[^\]\s]+\]|[^\s/:\[\]]+):(\d+)", output)
    return int(found.group(1)) if found else None


class Program:
    """The program running, its output read as it comes."""

    def __init__(self, path: Path, args: list[str], env: dict[str, str], cwd: Path) -> None:
        kw: dict = {}
        # A group of its own: Ctrl+Break reaches it alone on Windows, and a kill reaches
        # both of a one-file program's processes (PyInstaller's unpacker and the program).
        if os.name == "nt":
            kw["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP
        else:
            kw["start_new_session"] = True
        stdin, self._terminal = subprocess.DEVNULL, None
        if sys.platform == "darwin":
            # A terminal to read from: without one the app would reopen itself in
            # Terminal.app, as when double-clicked (packaging/launcher.py).
            import pty

            self._terminal, stdin = pty.openpty()
        self.process = subprocess.Popen([str(path), *args], env=env, cwd=cwd, stdin=stdin,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        **kw)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            self.lines.append(raw.decode("utf-8", "replace").rstrip("\r\n"))

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    def port(self, timeout: float) -> int:
        """The port of the first address the program prints."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = port_in(self.output)
            if found is not None:
                return found
            check(self.process.poll() is None,
                  f"the program ended (exit code {self.process.returncode}) before it served")
            time.sleep(0.1)
        raise Failed(f"the program printed no address within {timeout:.0f} s")

    def stop(self, timeout: float) -> int:
        """Stop it as a host does (Ctrl+C; Ctrl+Break on Windows); its exit code."""
        if self.process.poll() is None:
            try:
                self.process.send_signal(signal.CTRL_BREAK_EVENT if os.name == "nt"
                                         else signal.SIGINT)
            except OSError as error:  # Windows: no console shared with the program
                self.kill()
                raise Failed(f"could not press Ctrl+C (Ctrl+Break) for it: {error}") from None
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise Failed(f"the program did not stop within {timeout:.0f} s of Ctrl+C") from None
        self._reader.join(5)
        if self._terminal is not None:
            os.close(self._terminal)
            self._terminal = None
        return code

    def kill(self) -> None:
        """End it and whatever it started, at once (after a failure)."""
        if os.name == "nt":
            subprocess.run(["taskkill", "/F", "/T", "/PID", str(self.process.pid)],
                           capture_output=True, check=False)
        else:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            pass
        if self._terminal is not None:
            os.close(self._terminal)
            self._terminal = None


def answers(url: str, program: Program, timeout: float) -> None:
    """Wait until ``url`` answers (any status below 500)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(url, timeout=5).close()
            return
        except urllib.error.HTTPError as error:
            if error.code < 500:
                return
            raise Failed(f"{url} answered {error.code}") from None
        except OSError:
            check(program.process.poll() is None,
                  f"the program ended (exit code {program.process.returncode})")
            check(time.monotonic() < deadline, f"{url} did not answer within {timeout:.0f} s")
            time.sleep(0.1)


def database_in(home: Path) -> Path:
    """The group's database, which must be somewhere in the isolated home."""
    found = sorted(home.rglob("companion.sqlite"))
    check(found, f"no companion.sqlite under {home}: the data went somewhere else")
    return found[0]


def seat_tokens(database: Path, key: str) -> list[str]:
    """The night's seat codes in seat order: what each seat's QR code holds."""
    connection = sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True, timeout=10)
    try:
        return [row[0] for row in connection.execute(
            "select s.token from seats s join nights n on n.id = s.night_id "
            "where n.key = ? order by s.position", [key])]
    finally:
        connection.close()


# --- the night ----------------------------------------------------------------------


def qr_images(page: str) -> list[str]:
    """The addresses of the seat QR codes a night's page shows."""
    return [src.replace("&amp;", "&") for src in re.findall(r'<img src="(/n/[^"]+/qr[^"]*)"', page)]


def role_shown(page: str) -> str | None:
    """The role a page holds behind "Hold to see your role", or None."""
    if 'id="role-secret"' not in page:
        return None
    found = re.search(r'<p class="secret">\s*([^<]*?)\s*</p>', page)
    return found.group(1) if found else ""


def png(device: Device, path: str, what: str, language: str | None = None) -> None:
    """``path`` answers a PNG image."""
    status, head, body = device.request(path, language=language)
    check(status == 200 and head.get("Content-Type", "").startswith("image/png")
          and body.startswith(b"\x89PNG"), f"{what} ({path}) is no PNG image: {status}")


def make_night(base: str, say: Callable[[str], None]) -> tuple[Device, str]:
    """The host's tablet makes a night with the start page's form; its pages answer in
    both languages. Returns the host and the night's key."""
    host = Device(base)
    start = host.page("/")
    fields = [f for f in form(start, "/nights") if f[0] != "name"]
    fields += [("name", name) for name in NAMES]
    night = host.send("/nights", fields)
    found = re.fullmatch(r"/n/([\w-]+)", night)
    check(found, f"making a night led to {night}, not to a night's page")
    key = found.group(1)
    for language, marker in (("ko", 'lang="ko"'), ("en", 'lang="en"')):
        page = host.page(f"/n/{key}", language)
        check(marker in page and all(name in page for name in NAMES),
              f"the night's page in {language} lacks its language or a player")
        first = host.page("/", language)
        check(WHEN[language].search(first),
              f"the start page in {language} shows no time of the night written by Babel")
    images = qr_images(host.page(f"/n/{key}"))
    check(len(images) == len(NAMES), f"{len(images)} seat QR codes, not {len(NAMES)}")
    status, head, body = host.request(images[0])
    check(status == 200 and head.get("Content-Type", "").startswith("image/svg+xml")
          and b"<svg" in body, f"a seat's QR code is no SVG image ({status})")
    wifi = f"/n/{key}/wifi"
    host.send(wifi, [*(f for f in form(host.page(f"/n/{key}"), wifi)
                       if f[0] not in ("ssid", "password")),
                     ("ssid", "Table"), ("password", "smoke-test-pass")])
    png(host, f"/n/{key}/wifi.png", "the Wi-Fi code")
    style = re.search(r'href="(/static/app\.css[^"]*)"', first)
    check(style, "the start page links no /static/app.css")
    status, _head, body = host.request(style.group(1).replace("&amp;", "&"))
    check(status == 200 and b"{" in body, f"/static/app.css answered {status}")
    say(f"a night of {len(NAMES)} made; pages in Korean and English, QR codes (SVG, and PNG "
        "through Pillow) and styles answer")
    return host, key


def deal_kraken(base: str, host: Device, key: str, database: Path,
                say: Callable[[str], None]) -> None:
    """A phone claims the first seat; the host deals No Touch Kraken; the role is on the
    phone's page and nowhere on the host's."""
    phone = Device(base)
    token = seat_tokens(database, key)[0]
    claim = phone.page(f"/s/{token}")
    phone.send(f"/s/{token}", form(claim, f"/s/{token}"))
    waiting = phone.page("/me")
    check(NAMES[0] in waiting and role_shown(waiting) is None,
          "the phone's page before the deal is not the first seat's, or shows a role")
    new = f"/n/{key}/new/kraken"
    game = host.send(new, form(host.page(new), new))
    check(re.fullmatch(rf"/n/{re.escape(key)}/g/\d+", game), f"the deal led to {game}")
    check(role_shown(phone.page("/me")) in ROLES, "the phone's page shows no role after the deal")
    check(role_shown(host.page(game)) is None, "the host's page carries a role")
    say(f"a phone claimed {NAMES[0]}'s seat; the deal put a role on its page only")


def run_program(path: Path, args: list[str], env: dict[str, str], home: Path,
                timeout: float, ran: list[Program]) -> tuple[Program, int, str]:
    """The program started; it, its port and its address once it answers."""
    program = Program(path, args, env, home)
    ran.append(program)
    try:
        port = program.port(timeout)
        base = f"http://127.0.0.1:{port}"
        answers(base + "/", program, timeout)
    except Failed:
        program.kill()
        raise
    return program, port, base


def stopped_cleanly(program: Program, timeout: float) -> None:
    code = program.stop(timeout)
    check(code == 0, f"the program stopped with exit code {code}, not 0")
    check("Traceback" not in program.output, "the program printed a traceback")


def smoke(path: Path, args: list[str], home: Path, timeout: float,
          say: Callable[[str], None], ran: list[Program]) -> None:
    """The whole check; each program it starts is added to ``ran`` (whose output a
    failure shows), and killed if the check fails while it runs."""
    browser, opened = browser_recorder(home)
    env = isolated_env(home, browser)
    first, port, base = run_program(path, args, env, home, timeout, ran)
    try:
        if not args:
            check(DEFAULT_PORT <= port <= DEFAULT_PORT + PORTS_TRIED,
                  f"started with no arguments it serves on {port}, not {DEFAULT_PORT} or next")
        say(f"started ({' '.join(args) or 'no arguments'}); serving on port {port}")
        host, key = make_night(base, say)
        database = database_in(home)
        deal_kraken(base, host, key, database, say)
        if not args:
            browser_opened(opened, f"http://localhost:{port}/", say)
    except BaseException:
        first.kill()
        raise
    stopped_cleanly(first, timeout)
    say("stopped by Ctrl+C: exit code 0, no traceback")
    again, _port, base = run_program(path, args, env, home, timeout, ran)
    try:
        host.base = base
        check(f"/n/{key}" in host.page("/"),
              "started again, the host's start page does not offer the night")
        check(all(name in host.page(f"/n/{key}") for name in NAMES),
              "started again, the host's tablet does not open the night")
        check(database_in(home) == database, "started again, it keeps its data elsewhere")
    except BaseException:
        again.kill()
        raise
    stopped_cleanly(again, timeout)
    say("started again: the night is there; stopped cleanly again")


def browser_opened(noted: Path, wanted: str, say: Callable[[str], None]) -> None:
    """The program asked the browser to open its start page on this computer."""
    opened = noted.read_text().split() if noted.exists() else []
    if os.name == "nt" and wanted not in opened:
        # A batch file as BROWSER is this script's guess, never tried on Windows here.
        say(f"(not checked: the browser's stand-in noted {opened}, not {wanted})")
        return
    check(wanted in opened, f"the browser was asked to open {opened}, not {wanted}")
    say(f"the browser was asked to open {wanted}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("program", type=Path, help="the built program (or macOS .zip/.app)")
    parser.add_argument("--args", default="",
                        help='start it with these arguments instead of none ("serve --port 8800")')
    parser.add_argument("--timeout", type=float, default=90,
                        help="seconds to wait for a start or a stop (default 90)")
    options = parser.parse_args(argv)
    say = lambda line: print(f"smoke: {line}", flush=True)  # noqa: E731
    with tempfile.TemporaryDirectory(prefix="companion-smoke-") as folder:
        home = Path(folder) / "home"
        home.mkdir()
        ran: list[Program] = []
        try:
            path = executable(options.program.resolve(), Path(folder) / "unpacked")
            smoke(path, shlex.split(options.args), home, options.timeout, say, ran)
        except (Failed, OSError, subprocess.SubprocessError, sqlite3.Error) as error:
            for number, program in enumerate(ran, 1):
                print(f"--- the program's output, run {number} ---\n{program.output}")
            print(f"smoke: FAILED: {error}", flush=True)
            return 1
    say("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
