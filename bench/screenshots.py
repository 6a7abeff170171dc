"""Screenshots of every kind of page, in both themes and both languages.

    .venv/bin/python -m bench.screenshots [--out docs/screenshots]

Starts the app itself on a temporary database, makes a night of six players (one named
with 30 characters) with a game of each kind in progress and a finished one, and opens
each page in headless Chromium (/usr/bin/chromium, as tests/conftest.py launches it):
the start page, the host's table page, each game's host page, a phone's seat page for
each game at 390 px (its secret card held, and its own Skull King bid shown big at the
reveal), the tally, history and statistics, and the room's screen at 1920×1080 at every
game's phases (the lobby; Kraken's round, round over and end; Skull King's bidding,
reveal, round over and end; Crazy Time's match, law and end). Each is saved as
``<page>-<lang>-<theme>.png``, reduced to a 256-colour palette so the folder stays
small. It also opens each phone page at
320 px and prints what is wider than the screen there (bench/layout_night.py's
MEASURE): a line per page, "ok" when nothing is.

Needs the test extras (Playwright, waitress): ``pip install -e '.[test]'``.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from PIL import Image

from bench.browsing import CHROMIUM, CHROMIUM_ARGS, claim
from bench.builders import ev, store_game
from bench.layout_night import MEASURE, make_night, seat_url, show_on_phones
from companion import store
from companion.app import create_app
from companion.crazytime import rules as ct
from companion.kraken import rules as kr
from companion.skullking import rules as sk

OUT = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
LANGS = {"ko": "ko-KR", "en": "en-US"}
THEMES = ("light", "dark")
HOST = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
SCREEN = {"width": 1920, "height": 1080}

#: Six players; the first (the phone's) has a name of 30 characters.
NAMES = ["바다건너온아주긴이름의선장님께서오늘밤도함께합니다", "Mina", "지우", "Alex", "서연", "Jo"]
NAMES[0] = (NAMES[0] * 2)[:30]
SEATS = list(range(len(NAMES)))


def skull_king(rounds: int, bids: int | None = None, reveal: bool = False) -> dict:
    """Rounds of 1, 2 and 3 cards: ``rounds`` scored (the first ``cards`` seats take a
    trick each), then the next round's first ``bids`` bids (all of them if None), and
    revealed if ``reveal``."""
    events = []
    for number in range(1, rounds + 1):
        events += [ev("bid", seat=s, round=number, bid=int(s < number)) for s in SEATS]
        events += [ev("reveal_bids", round=number),
                   ev("result", round=number,
                      results={str(s): {"won": int(s < number)} for s in SEATS})]
    if rounds < 3:
        number = rounds + 1
        events += [ev("bid", seat=s, round=number, bid=(s + 1) % 3)
                   for s in SEATS[:bids if bids is not None else len(SEATS)]]
        if reveal:
            events.append(ev("reveal_bids", round=number))
    return {"kind": "skullking", "events": events,
            "setup": sk.start(SEATS, {"way": "custom", "rounds": [1, 2, 3]})}


def crazy_time(matches: int, penalties: int = 0) -> dict:
    """Blue side (6, 8, 10 and 12 tokens): ``matches`` whole matches, each won by the
    seats that took none (a law made after each of the first three, the winners then
    back), then ``penalties`` of the next one."""
    events = [ev("rabbit", seat=5)]
    for match in range(1, matches + 1):
        takers = [s for s in SEATS if s != match % len(SEATS)]
        events += [ev("penalty", seat=takers[i % len(takers)], reason="wrong_call")
                   for i in range(ct.penalty_tokens(match, "blue"))]
        if match < 4 and (match < matches or penalties):
            events += [ev("law", name=f"달빛의 법칙 {match}", when="누군가 6을 내면",
                          what="모두 손뼉을 칩니다"), ev("next_match")]
    events += [ev("penalty", seat=2, reason="wrong_call")] * penalties
    return {"kind": "crazytime", "setup": ct.start(SEATS, {"side": "blue"}), "events": events}


def kraken(cards: list[str], seed: int = 3) -> dict:
    """The marker at seat 0, then each card revealed in front of the next seat along."""
    return {"kind": "kraken", "setup": kr.start(SEATS, {"series": None},
                                                 rng=random.Random(seed)),
            "events": [ev("marker", seat=0)]
            + [ev("reveal", seat=(i + 1) % len(SEATS), card=card, special=None)
               for i, card in enumerate(cards)]}


def games() -> dict[str, dict]:
    """The night's games, in the order they are stored: {label: game}. The room's
    screen is shown at each (SCREEN_PHASES); the host's and the phones' pages at the
    four labels without a phase."""
    return {
        "kraken-end": kraken(["kraken"], seed=1),
        "kraken-round-over": kraken(["empty", "treasure", "empty", "empty", "treasure",
                                     "empty"]),
        "skullking-bidding": skull_king(1, bids=3),
        "skullking-round-over": skull_king(2, bids=0),
        "skullking-end": skull_king(3),
        "crazytime-law": crazy_time(1),
        "crazytime-end": crazy_time(4),
        "kraken": kraken(["empty", "treasure", "empty"]),
        "skullking": skull_king(1, reveal=True),
        "crazytime": crazy_time(1, penalties=1),
    }


#: The room's screen at every game's phases: {picture's name: the game's label}; the
#: lobby is a night of its own, before its first game.
SCREEN_PHASES = {
    "screen-lobby": None,
    "screen-kraken-round": "kraken", "screen-kraken-round-over": "kraken-round-over",
    "screen-kraken-end": "kraken-end",
    "screen-skullking-bidding": "skullking-bidding", "screen-skullking-reveal": "skullking",
    "screen-skullking-round-over": "skullking-round-over",
    "screen-skullking-end": "skullking-end",
    "screen-crazytime-match": "crazytime", "screen-crazytime-law": "crazytime-law",
    "screen-crazytime-end": "crazytime-end",
}


@contextmanager
def serving() -> Iterator[tuple[str, object]]:
    """The app on a free port, on a database in a temporary folder: (base URL, app)."""
    from waitress import create_server

    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"DATABASE": str(Path(folder) / "shots.sqlite"),
                          "SECRET_KEY": "screenshots", "POLL_SECONDS": 30})
        server = create_server(app, host="127.0.0.1", port=0, threads=8)
        base = f"http://127.0.0.1:{server.effective_port}"
        app.config["PUBLIC_URL"] = base
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        try:
            yield base, app
        finally:
            server.close()


def save(page, path: Path) -> int:
    """The page's viewport as a palette PNG at ``path``; its size in bytes."""
    page.evaluate("document.fonts.ready")
    page.screenshot(path=str(path), animations="disabled", caret="hide")
    with Image.open(path) as shot:
        shot.convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT).save(
            path, optimize=True)
    return path.stat().st_size


def held(page, hold: str) -> Callable[[], None]:
    """Hold the page's hold-to-see button down (a mouse press); returns the release."""
    button = page.locator(f"[data-hold={hold}]")
    button.scroll_into_view_if_needed()
    box = button.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.locator(f"#{button.get_attribute('aria-controls')}[data-held]").wait_for()
    return page.mouse.up


class Night:
    """The night made for the pictures, and the devices' cookies to open it with."""

    def __init__(self, browser, base: str, app) -> None:
        self.base, self.app = base, app
        host = browser.new_context(viewport=HOST)
        page = host.new_page()
        self.key = make_night(page, base, NAMES)
        device = next(c["value"] for c in host.cookies() if c["name"] == "device")
        self.games = {label: store_game(app, device, self.key, game).number
                      for label, game in games().items()}
        self.host = host.storage_state()
        phone = browser.new_context(viewport=PHONE)
        claimed = phone.new_page()
        claimed.goto(seat_url(app, base, self.key, 0))
        claim(claimed)
        self.phone = phone.storage_state()
        with app.test_request_context():
            night_id = store.night_by_key(self.key)["id"]
            token = store.invite_screen(night_id, device)["token"]
        tv = browser.new_context(viewport=SCREEN).new_page()
        tv.goto(f"{base}/t/{token}")
        tv.locator("[data-action=screen-code] button").click()
        tv.wait_for_url("**/screen")
        self.screen = tv.context.storage_state()
        # The lobby: a night of its own before its first game, half its phones in.
        self.lobby = make_night(page, base, NAMES)
        for seat in SEATS[::2]:
            joined = browser.new_context(viewport=PHONE).new_page()
            joined.goto(seat_url(app, base, self.lobby, seat))
            claim(joined)
            joined.context.close()
        for context in (host, phone, tv.context):
            context.close()

    def current(self, label: str) -> None:
        """Show game ``label`` on the phones and the room's screen."""
        show_on_phones(self.app, self.key, self.games[label])


#: The games whose host page is pictured (the others are the screen's phases).
HOST_GAMES = ("kraken-end", "kraken", "skullking", "crazytime")


def host_pages(night: Night) -> dict[str, str]:
    """{picture's name: address} of the host's pages."""
    url = f"{night.base}/n/{night.key}"
    pages = {"start": f"{night.base}/", "table": url}
    pages |= {f"game-{label}": f"{url}/g/{night.games[label]}" for label in HOST_GAMES}
    pages |= {"tally": f"{url}/tally", "history": f"{night.base}/history",
              "stats": f"{night.base}/stats"}
    return pages


#: The phone's seat page per game; the secret held where the game has one.
PHONE_GAMES = {"kraken": "role-secret", "skullking": None, "crazytime": "ct-laws-secret"}


def shoot(browser, night: Night, out: Path, lang: str, theme: str) -> dict[str, int]:
    """Every picture in one language and theme: {file name: bytes}."""
    sizes: dict[str, int] = {}

    def context(state, viewport):
        return browser.new_context(viewport=viewport, locale=LANGS[lang],
                                   color_scheme=theme, storage_state=state,
                                   reduced_motion="reduce")

    def name(page_name: str) -> Path:
        return out / f"{page_name}-{lang}-{theme}.png"

    host = context(night.host, HOST).new_page()
    for page_name, url in host_pages(night).items():
        host.goto(url)
        sizes[name(page_name).name] = save(host, name(page_name))
    host.context.close()

    phone = context(night.phone, PHONE).new_page()
    for label, hold in PHONE_GAMES.items():
        night.current(label)
        phone.goto(f"{night.base}/me")
        phone.locator(".game-panel").evaluate("panel => panel.scrollIntoView()")
        sizes[name(f"phone-{label}").name] = save(phone, name(f"phone-{label}"))
        if hold:
            release = held(phone, hold)
            sizes[name(f"phone-{label}-held").name] = save(phone, name(f"phone-{label}-held"))
            release()
    # Skull King's reveal: the phone's own bid held up big, as the room does.
    night.current("skullking")
    phone.goto(f"{night.base}/me")
    phone.locator("[data-takeover-open=sk-big-bid]").click()
    phone.locator("#sk-big-bid[data-open]").wait_for()
    sizes[name("phone-skullking-bid").name] = save(phone, name("phone-skullking-bid"))
    phone.context.close()

    tv = context(night.screen, SCREEN).new_page()
    for picture, label in SCREEN_PHASES.items():
        if label is None:
            continue
        night.current(label)
        tv.goto(f"{night.base}/n/{night.key}/screen")
        sizes[name(picture).name] = save(tv, name(picture))
    tv.context.close()
    lobby = context(night.host, SCREEN).new_page()  # a host may look at what the room sees
    lobby.goto(f"{night.base}/n/{night.lobby}/screen")
    sizes[name("screen-lobby").name] = save(lobby, name("screen-lobby"))
    lobby.context.close()
    return sizes


def too_wide_at_320(browser, night: Night) -> list[str]:
    """A line per phone page at 320 px: what is wider than the screen, or "ok"."""
    lines = []
    for lang in LANGS:
        page = browser.new_context(viewport={"width": 320, "height": 640},
                                   locale=LANGS[lang], storage_state=night.phone).new_page()
        for label in PHONE_GAMES:
            night.current(label)
            page.goto(f"{night.base}/me")
            page.evaluate("document.fonts.ready")
            found = page.evaluate(MEASURE, 320)
            lines.append(f"320 px {lang} phone-{label}: {'; '.join(found) or 'ok'}")
        page.context.close()
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    options = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    options.out.mkdir(parents=True, exist_ok=True)
    with serving() as (base, app), sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
        night = Night(browser, base, app)
        sizes: dict[str, int] = {}
        for lang in LANGS:
            for theme in THEMES:
                sizes |= shoot(browser, night, options.out, lang, theme)
        lines = too_wide_at_320(browser, night)
        browser.close()
    for line in lines:
        print(line)
    print(f"{len(sizes)} pictures, {sum(sizes.values()) / 1e6:.2f} MB in {options.out}")
    return 0 if all(line.endswith(": ok") for line in lines) else 1


if __name__ == "__main__":
    raise SystemExit(main())
