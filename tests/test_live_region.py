"""One live region everywhere: every page that follows the table (the host's table page,
each game's page, the tally for host and phone, a phone's page with and without a seat,
the room's screen) draws its ``#live`` through the one macro of templates/_live.html, so
each carries the same refresh, poll, stream, heartbeat and "Connection lost"."""

import re
from pathlib import Path

import lxml.html
import pytest

from bench.builders import make_night
from companion.app import create_app
from companion.core import registry
from tests.screens import screen_device

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
MACRO = "_live.html"
OFFLINE = {"en": "Connection lost. Reconnecting…",
           "ko": "연결이 끊겼습니다. 다시 연결하는 중…"}
#: What every live region carries, with live push on or off.
ALWAYS = {"id", "hx-get", "hx-trigger", "hx-ext", "hx-swap", "data-offline"}
#: What it carries more where live push is on (and its page has a night to follow).
PUSHED = {"data-stream", "data-heartbeat"}
FIVE = {f"seat{i}": "on" for i in range(5)}


@pytest.fixture(params=[True, False], ids=["push", "polling"])
def walk_app(tmp_path, request):
    return create_app({
        "DATABASE": str(tmp_path / "walk.sqlite"), "SECRET_KEY": "walk",
        "WTF_CSRF_ENABLED": False, "LANGUAGE": "en", "LIVE_PUSH": request.param,
        "PUBLIC_URL": "http://table.test:8765"})


def walk(app):
    """(viewer's client, what the viewer is, url, html) of every page and live fragment
    with a live region, as the host, a phone of the night, a phone without a seat and
    the room's screen see them: before a game, and with a game of every installed kind
    on. A generator: each page is checked before the night moves on."""
    night = make_night(app, ["민수", "Jo", "지혜 🙂", "Ann", "박서준"])
    key = night.key
    clients = {"host": night.host, "phone": night.phone(0), "stranger": app.test_client(),
               "screen": screen_device(night)}
    before = [
        *[("host", url) for url in (f"/n/{key}", f"/n/{key}/live", f"/n/{key}/tally",
                                    f"/n/{key}/tally/live", f"/n/{key}/screen",
                                    f"/n/{key}/screen/live")],
        *[("phone", url) for url in ("/me", "/me/live", "/me/tally", "/me/tally/live")],
        ("stranger", "/me"), ("stranger", "/me/live"),
        ("screen", f"/n/{key}/screen"), ("screen", f"/n/{key}/screen/live"),
    ]
    for viewer, url in before:
        yield from visit(clients, viewer, url)
    for kind in registry.installed():
        game_url = night.start(kind, **FIVE)
        for viewer, url in (("host", game_url), ("host", f"{game_url}/live"),
                            ("phone", "/me"), ("phone", "/me/live"),
                            ("screen", f"{night.url}/screen")):
            yield from visit(clients, viewer, url)


def visit(clients, viewer, url):
    """The page and its htmx answer (a fragment where the route gives one)."""
    for headers in ({}, {"HX-Request": "true"}):
        response = clients[viewer].get(url, headers=headers)
        assert response.status_code == 200, (viewer, url, response.status_code)
        yield clients[viewer], viewer, url, response.data.decode()


def region(html):
    """The page's one live region."""
    found = lxml.html.fromstring(html).xpath('//*[@id="live"]')
    assert len(found) == 1, f"{len(found)} live regions"
    return found[0]


def test_every_live_region_carries_the_same_attributes(walk_app):
    push = walk_app.config["LIVE_PUSH"]
    rendered = set()
    get_template = walk_app.jinja_env.get_template

    def record(name, *args, **kwargs):  # every template a render reads, included or not
        template = get_template(name, *args, **kwargs)
        rendered.add(template.name)
        return template

    walk_app.jinja_env.get_template = record
    refreshed = set()
    writers = 0
    for client, viewer, url, html in walk(walk_app):
        live = region(html)
        attributes = set(live.attrib) - {"class"}
        # a phone without a seat has no night to follow: it polls (the stream says 204)
        follows = push and viewer != "stranger"
        assert attributes == ALWAYS | (PUSHED if follows else set()), (viewer, url)
        assert live.get("data-offline") == OFFLINE["en"], (viewer, url)
        assert live.get("hx-trigger") == \
            f"every {walk_app.config['POLL_SECONDS']}s, poll-now", (viewer, url)
        assert live.get("hx-swap") == "morph:outerHTML", (viewer, url)
        assert live.get("hx-ext") == "morph", (viewer, url)
        # a write's answer is morphed into the region as a refresh is: its form is inside
        # the region, where the region's hx-ext reaches it (outside, htmx would fall back
        # to putting the answer inside the region)
        for writer in live.getroottree().getroot().xpath('//*[@hx-target="#live"]'):
            assert live in writer.iterancestors(), (viewer, url, writer.get("hx-post"))
            assert writer.get("hx-swap") == "morph:outerHTML", (viewer, url)
            writers += 1
        if follows:
            assert live.get("data-heartbeat") == str(walk_app.config["PUSH_HEARTBEAT"])
            with client.get(live.get("data-stream")) as stream:
                assert stream.status_code == 200, (viewer, url)
        refresh = re.fullmatch(r"(/[^?]+)\?v=(-?\d+)", live.get("hx-get"))
        assert refresh, (viewer, url, live.get("hx-get"))
        # the version is the one it shows: asked with it, nothing changed; asked with
        # another, the refresh brings the region again
        assert client.get(live.get("hx-get"), headers={"HX-Request": "true"}
                          ).status_code == 204, (viewer, url)
        again = client.get(f"{refresh.group(1)}?v=-2", headers={"HX-Request": "true"})
        assert again.status_code == 200
        assert region(again.data.decode()).get("hx-get").startswith(refresh.group(1) + "?v=")
        refreshed.add(walk_app.url_map.bind("table.test").match(refresh.group(1))[0])
    assert writers
    # the walk went through every live fragment and every template that draws a region
    assert refreshed == {rule.endpoint for rule in walk_app.url_map.iter_rules()
                         if rule.rule.endswith("/live")}
    drawing = {str(p.relative_to(TEMPLATES)) for p in TEMPLATES.rglob("*.html")
               if f'from "{MACRO}" import live' in p.read_text()}
    assert drawing and drawing <= rendered, drawing - rendered


def test_no_template_writes_its_own_live_region():
    """The next page with a live region uses the macro: it cannot drift."""
    writers = sorted(str(p.relative_to(TEMPLATES)) for p in TEMPLATES.rglob("*.html")
                     if re.search(r"""id=["']live["']""", p.read_text()))
    assert writers == [MACRO]


def test_the_offline_words_are_in_the_pages_language(walk_app):
    night = make_night(walk_app, ["A", "B", "C"])
    viewers = ((night.host, night.url), (night.phone(0), "/me"), (walk_app.test_client(), "/me"))
    for lang, words in OFFLINE.items():
        for client, url in viewers:
            html = client.get(url, headers={"Accept-Language": lang}).data.decode()
            assert region(html).get("data-offline") == words, (lang, url)
