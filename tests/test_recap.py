"""The recap pictures: a PNG of the night and one per finished game, for the night's
host and its phones only, with finished games only, Hangul and emoji drawn by the fonts
the app ships (companion/fonts/README.md)."""

import io

import pytest
from PIL import Image, ImageDraw

from bench.builders import ROLES, kraken_all_treasure, kraken_game, make_night, play, play_evening
from companion import store
from companion.core import recap, registry
from companion.pictures import drawing, lettering
from companion.pictures import views as pictures

#: Our bound for a picture's file (docs/architecture.md#recap-pictures).
MAX_BYTES = 1_500_000


@pytest.fixture
def evening(app):
    """A Kraken series of three, a Skull King game, a Crazy Time game, then a Kraken
    game left running (game 6)."""
    night = make_night(app, ["민준", "Bo", "서연 🐙", "👩‍👩‍👧 Di"])
    night.host.set_cookie("lang", "en")
    night.running = play_evening(app, night)
    return night


def picture(response):
    assert response.status_code == 200, response.status_code
    assert response.mimetype == "image/png"
    return Image.open(io.BytesIO(response.data))


def content_text(content):
    """Every string a picture's content would draw."""
    words = [content["title"], content["subtitle"]]
    for section in content["sections"]:
        words.append(section["heading"])
        for block in section["blocks"]:
            words += [s["text"] for s in block.get("spans", [])]
            words += [str(r["label"]) for r in block.get("rows", [])]
            words += [s["name"] for s in block.get("series", [])]
    return " ".join(words)


# --- the picture ----------------------------------------------------------------------

def test_the_night_picture_is_a_png_a_phone_shows_at_full_width(evening):
    response = evening.host.get(f"{evening.url}/recap.png")
    image = picture(response)
    assert image.format == "PNG" and image.width == drawing.WIDTH == 1080
    assert 600 <= image.height <= drawing.MAX_HEIGHT
    assert len(response.data) <= MAX_BYTES
    assert response.headers["Content-Disposition"].startswith('inline; filename="night-')


def test_each_finished_game_has_its_own_picture(evening):
    for number in (1, 4, 5):
        response = evening.host.get(f"{evening.url}/g/{number}/recap.png")
        image = picture(response)
        assert image.width == 1080 and image.height <= drawing.MAX_HEIGHT
        assert len(response.data) <= MAX_BYTES


def test_a_running_game_has_no_picture(evening):
    assert evening.host.get(f"{evening.url}/g/6/recap.png").status_code == 404
    assert evening.phone(1).get("/me/g/6/recap.png").status_code == 404
    assert evening.host.get(f"{evening.url}/g/7/recap.png").status_code == 404


def test_a_night_with_no_finished_game_has_no_picture(app):
    night = make_night(app, ["Ann", "Bo", "Cy"])
    play(app, night, kraken_game(1, ROLES, kraken_all_treasure()[:2]))
    assert night.host.get(f"{night.url}/recap.png").status_code == 404
    assert "recap.png" not in night.host.get(f"{night.url}/tally").get_data(as_text=True)


def test_a_running_game_adds_nothing_to_the_night_picture(app, evening):
    """Its moves change the night's version, never the picture: the same bytes."""
    before = evening.host.get(f"{evening.url}/recap.png").data
    device = evening.host.get_cookie("device").value
    with app.test_request_context(headers={"Cookie": f"device={device}"}):
        version = store.night_by_key(evening.key)["version"]
        running = store.game(store.night_by_key(evening.key)["id"], 6)
        move = kraken_all_treasure()[2]  # a second Treasure of three: it goes on
        store.record(running, move["type"], move["data"], pos=running.pos, device=device)
        assert not store.game(running.night_id, 6).state.get("finished")
        assert store.night_by_key(evening.key)["version"] > version
    assert evening.host.get(f"{evening.url}/recap.png").data == before


def test_the_night_content_names_finished_games_only(app, evening):
    with app.test_request_context(headers={"Cookie": "lang=en"}):
        night = store.night_by_key(evening.key)
        games = [g.plain() for g in store.games(night["id"])]
        content = recap.night(night["created"], store.names(night["id"]), games,
                              pictures.WORDS, registry.installed())
    text = content_text(content)
    for number in (1, 2, 3, 4, 5):
        assert f"game #{number}" in text
    assert "game #6" not in text
    assert "Totals by round" in text and "token series" in text
    # game 6's dealt roles (Skeleton for 민준) appear in no finished game's role line
    assert recap.game(night["created"], {}, games[5], pictures.WORDS, registry.installed()) is None


def test_the_picture_is_drawn_in_the_requests_language(app, evening):
    english = evening.host.get(f"{evening.url}/recap.png").data
    evening.host.set_cookie("lang", "ko")
    korean = evening.host.get(f"{evening.url}/recap.png").data
    assert english != korean
    with app.test_request_context(headers={"Cookie": "lang=ko"}):
        night = store.night_by_key(evening.key)
        games = [g.plain() for g in store.games(night["id"])]
        content = recap.night(night["created"], store.names(night["id"]), games,
                              pictures.WORDS, registry.installed())
    assert content["title"] == "이번 모임 결산"
    assert "3번 게임" in content_text(content)


def test_a_picture_is_drawn_once_per_process_for_what_it_shows(evening, monkeypatch):
    calls = []
    real = drawing.render
    monkeypatch.setattr(drawing, "render", lambda *a: calls.append(1) or real(*a))
    pictures._pictures.clear()
    first = evening.host.get(f"{evening.url}/recap.png").data
    assert evening.phone(2).get("/me/recap.png").data == first
    assert len(calls) == 1


# --- who may see it -------------------------------------------------------------------

def test_the_host_and_the_nights_phones_get_the_picture(evening):
    host = evening.host.get(f"{evening.url}/recap.png").data
    phone = evening.phone(0)
    assert phone.get("/me/recap.png").data == host
    assert picture(phone.get("/me/g/4/recap.png")).width == 1080


def test_anyone_else_gets_a_plain_404(app, evening):
    stranger = app.test_client()
    for url in (f"{evening.url}/recap.png", f"{evening.url}/g/4/recap.png",
                "/me/recap.png", "/me/g/4/recap.png"):
        assert stranger.get(url).status_code == 404, url
    other = make_night(app, ["X", "Y", "Z"])  # a host of another night
    assert other.host.get(f"{evening.url}/recap.png").status_code == 404
    assert other.host.get(f"{evening.url}/g/4/recap.png").status_code == 404


def test_the_tally_shows_the_pictures_on_the_host_and_the_phone(evening):
    html = evening.host.get(f"{evening.url}/tally").get_data(as_text=True)
    assert f'src="{evening.url}/recap.png?v=' in html
    assert f'{evening.url}/g/4/recap.png' in html and f"{evening.url}/g/6/recap" not in html
    phone_html = evening.phone(3).get("/me/tally").get_data(as_text=True)
    assert 'src="/me/recap.png?v=' in phone_html and "/me/g/6/recap" not in phone_html


# --- the fonts ------------------------------------------------------------------------

def mask(text, size=48, emoji=False):
    face = lettering.font(size, emoji=emoji)
    found = face.getmask(text)
    return found.size, bytes(bytearray(found))


def test_hangul_glyphs_are_drawn_not_boxes():
    """Every modern Hangul syllable is in the shipped font: none is drawn as the
    missing-glyph box, and two syllables are two different shapes."""
    box = mask(lettering.MISSING)
    assert mask("가") != box and mask("힣") != box and mask("가") != mask("나")
    missing = [chr(c) for c in range(0xAC00, 0xD7A4) if not lettering.has_glyph(chr(c))]
    assert missing == []


def test_a_hangul_name_draws_ink_unlike_boxes():
    def drawn(text):
        image = Image.new("L", (400, 80), 0)
        drawing.Pen(ImageDraw.Draw(image), {}).text(10, 60, text, 48, fill="#FFFFFF")
        return image.tobytes()

    name, boxes = drawn("김민수"), drawn(lettering.MISSING * 3)
    assert any(name) and name != boxes


def test_hangul_is_in_the_fonts_character_map():
    ttLib = pytest.importorskip("fontTools.ttLib")
    cmap = ttLib.TTFont(lettering.REGULAR).getBestCmap()
    assert all(c in cmap for c in range(0xAC00, 0xD7A4))


@pytest.mark.parametrize("name", ["🐙 문어", "👩‍👩‍👧", "🏴‍☠️ Jack", "Zoë 🇰🇷", "1️⃣ 👍🏽"])
def test_an_emoji_name_renders(name):
    runs = lettering.runs(name)
    assert any(emoji for _text, emoji in runs)
    emoji = next(text for text, is_emoji in runs if is_emoji)
    assert mask(emoji, emoji=True) != mask(lettering.MISSING, emoji=True)
    content = {"title": name, "subtitle": name, "more": None, "sections": [
        {"heading": name, "blocks": [recap.line(recap.span(name, 0)),
                                     {"kind": "bars", "rows": [
                                         {"label": name, "value": 3, "seat": 0}]}]}]}
    image = Image.open(io.BytesIO(drawing.render(content, {0: "#E69F00"})))
    assert image.width == 1080


def test_a_name_is_cut_between_drawn_characters():
    cut = lettering.fit("👩‍👩‍👧👩‍👩‍👧👩‍👩‍👧 아주 긴 이름입니다", 28, 120)
    assert cut.endswith("…")
    assert all(part in ("👩‍👩‍👧", "…") or "\u200d" not in part
               for part in lettering.clusters(cut))


def test_a_long_night_stays_within_the_height_and_says_what_it_left_out():
    many = [{"heading": f"game {i}", "blocks": [{"kind": "bars", "rows": [
        {"label": "민준", "value": i, "seat": 0}] * 6}]} for i in range(30)]
    content = {"title": "t", "subtitle": "s", "sections": many,
               "more": lambda n: {"heading": "", "blocks": [recap.line(recap.span(
                   f"{n} more"))]}}
    kept, height = drawing.layout(content, {0: "#E69F00"})
    assert height <= drawing.MAX_HEIGHT
    assert len(kept) < 30 and content_text({"title": "", "subtitle": "", "sections": kept[-1:]}
                                           ).strip() == f"{31 - len(kept)} more"
    image = Image.open(io.BytesIO(drawing.render(content, {0: "#E69F00"})))
    assert image.height == height <= drawing.MAX_HEIGHT
