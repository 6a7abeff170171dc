"""The line "what happens next" on the host's game page and the room's screen: at the top,
names as colour chips joined as each language joins a list, and never a secret."""

import re

import lxml.html

from bench.builders import make_night
from tests.screens import screen_device

NAMES = ["Mina", "Alex", "서연", "Bartholomew the Unsinkable III"]


def line(html):
    """The next-step line of a page: (its text, the seats of its chips in order)."""
    found = lxml.html.fromstring(html).find_class("next-step")
    assert len(found) == 1, "one line a page"
    chips = found[0].find_class("player")
    return " ".join(found[0].text_content().split()), [chip.get("class") for chip in chips]


def start(night, kind, seats, **form):
    return night.start(kind, **{f"seat{p}": "1" for p in seats}, **form)


def pos(night, url):
    return night.pos(url)


def test_the_host_page_names_who_has_not_bid_and_never_a_bid(app):
    night = make_night(app, NAMES)
    url = start(night, "skullking", range(4))
    text, _ = line(night.host.get(url).data.decode())
    assert text == ("Round 1: Mina deals 1 each · waiting for Mina, Alex, 서연 and "
                    "Bartholomew the Unsinkable III to bid")
    alex = night.phone(1)
    assert alex.post("/me/skullking/bid", data={"round": 1, "bid": 1}).status_code == 200
    html = night.host.get(url).data.decode()
    text, chips = line(html)
    assert text == ("Round 1: Mina deals 1 each · waiting for Mina, 서연 and "
                    "Bartholomew the Unsinkable III to bid")
    assert len(chips) == 4 and all(re.fullmatch(r"player pc-\w+", c) for c in chips)
    assert "1" not in text.replace("Round 1", "").replace("1 each", "")


def test_a_chip_keeps_its_comma_on_its_line(app):
    """A line may break after a chip (a box): the comma after it goes with it, never
    starting the next line (", Mina")."""
    night = make_night(app, NAMES)
    url = start(night, "skullking", range(4))
    # "Mina, Alex, 서연 and Bartholomew …"; "Mina 님, Alex 님, 서연 님, Bartholomew … 님"
    for lang, comma, count in (("en", ",", 2), ("ko", " 님,", 3)):
        night.host.set_cookie("lang", lang)
        step = lxml.html.fromstring(night.host.get(url).data.decode()).find_class(
            "next-step")[0]
        kept = step.find_class("list-chip")
        assert len(kept) == count, lang
        for chip in kept:
            assert chip.text_content().replace("\u00a0", " ").endswith(comma), lang
            assert chip[0].get("class").startswith("player ")


def test_the_line_is_at_the_top_of_the_host_page_before_the_games_own_part(app):
    night = make_night(app, NAMES)
    url = start(night, "kraken", range(4))
    html = night.host.get(url).data.decode()
    assert html.index('class="next-step"') < html.index('class="kraken kraken-host"')
    assert html.index("<h1") < html.index('class="next-step"')


def test_the_screen_shows_the_same_line_large_and_no_bid(app):
    night = make_night(app, NAMES)
    url = start(night, "skullking", range(4))
    tv = screen_device(night)
    night.phone(2).post("/me/skullking/bid", data={"round": 1, "bid": 0})
    for page in (f"{night.url}/screen", f"{night.url}/screen/live"):
        text, _ = line(tv.get(page).data.decode())
        assert text == ("Round 1: Mina deals 1 each · waiting for Mina, Alex and "
                        "Bartholomew the Unsinkable III to bid")
    assert line(night.host.get(url).data.decode())[0] == text


def test_in_korean_each_name_takes_its_nim_and_the_list_is_joined_with_commas(app):
    night = make_night(app, NAMES)
    url = start(night, "skullking", range(4))
    html = night.host.get(url, headers={"Accept-Language": "ko"}).data.decode()
    text, _ = line(html)
    assert "Mina 님, Alex 님, 서연 님, Bartholomew the Unsinkable III 님" in text
    assert "and" not in text
    # 님 stays on the line of the name it follows
    shown = re.search(r'<p class="next-step".*?</p>', html, re.S).group(0)
    assert "</span> 님" not in shown and shown.count("</span>\u00a0님") == 5


def test_kraken_round_over_says_gather_and_deal_4_each(app):
    night = make_night(app, NAMES)
    url = start(night, "kraken", range(4))
    night.host.post(f"{url}/kraken/marker", data={"seat": 0, "pos": pos(night, url)})
    for seat in (1, 2, 3, 0):
        response = night.host.post(f"{url}/kraken/reveal",
                                   data={"seat": seat, "card": "empty",
                                         "pos": pos(night, url)})
        assert response.status_code == 303
    html = night.host.get(url).data.decode()
    text, _ = line(html)
    assert text == "Round 1 over: gather, shuffle and deal 4 each · Mina has the marker"
    # the table stops: the reveal waits behind "Dealt", a panel of its own this round
    page = lxml.html.fromstring(html)
    [dealt] = page.find_class("kraken-dealt")
    assert dealt.tag == "details" and dealt.get("open") is None
    assert dealt.get("data-keep") == "dealt-2"
    assert dealt.find_class("kraken-reveal") and len(page.find_class("kraken-reveal")) == 1
    response = night.host.post(f"{url}/kraken/reveal",
                               data={"seat": 1, "card": "empty", "pos": pos(night, url)})
    assert response.status_code == 303
    html = night.host.get(url).data.decode()
    assert "kraken-dealt" not in html and 'class="kraken-reveal"' in html


def test_kraken_the_line_never_names_a_role(app):
    night = make_night(app, NAMES)
    url = start(night, "kraken", range(4))
    night.host.post(f"{url}/kraken/marker", data={"seat": 2, "pos": pos(night, url)})
    text, _ = line(night.host.get(url).data.decode())
    assert text == "서연 has the marker: whose card?"
    assert "Explorer" not in text and "Skeleton" not in text


def test_crazy_time_the_winner_leaves_and_the_line_never_carries_the_law(app):
    night = make_night(app, NAMES)
    url = start(night, "crazytime", range(4), side="blue")
    for seat in (1, 1, 2, 2, 3, 3):
        response = night.host.post(f"{url}/crazytime/penalty",
                                   data={"seat": seat, "pos": pos(night, url)})
        assert response.status_code == 303, response.data.decode()[:300]
    text, _ = line(night.host.get(url).data.decode())
    assert text == "Mina won match 1: leave the room. The rest: make a law"
    alex = night.phone(1)
    response = alex.post("/me/crazytime/law", data={
        "name": "Moon", "when": "SECRET-WHEN-moon", "what": "SECRET-WHAT-howl"})
    assert response.status_code == 200, response.data.decode()[:300]
    tv = screen_device(night)
    for html in (night.host.get(url).data.decode(),
                 tv.get(f"{night.url}/screen").data.decode()):
        text, _ = line(html)
        assert text == "Law made: call Mina back and start match 2"
        assert "Moon" not in text and "SECRET" not in text
