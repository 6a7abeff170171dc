"""A live refresh brings only the parts that changed (companion/web/parts.py): a phone that
says what it shows gets the parts whose hash moved, as out-of-band swaps, and the
region's new URL; anything else — another frame, another set of parts, a header that
makes no sense — gets the whole region, as before."""

import re

import pytest

from bench.builders import make_night
from companion.web import parts
from tests.skullking_host import host_bid, reveal, start

HX = {"HX-Request": "true"}
PART = re.compile(r'data-part="([a-z0-9-]+)" data-part-hash="([0-9a-f]{12})"')


def shows(html):
    """What a page that shows ``html`` has: its frame's hash and its parts' hashes."""
    frame = re.search(r'id="live"[^>]*data-frame="([0-9a-f]{12})"', html).group(1)
    return frame, dict(PART.findall(html))


def have(shown):
    """The X-Live-Have header such a page sends."""
    frame, hashes = shown
    return " ".join([frame, *(f"{n}:{h}" for n, h in hashes.items())])


def shown_parts(html):
    return [name for name, _ in PART.findall(html)]


def refresh(phone, shown):
    return phone.get("/me/live", headers={**HX, parts.HAVE_HEADER: have(shown)})


def test_a_phone_gets_every_part_marked_and_hashed_and_its_region_s_frame(night):
    phone = night.phone(0)
    start(night)
    html = phone.get("/me/live", headers=HX).data.decode()
    assert shown_parts(html) == ["head", "sk-round", "sk-me", "sk-standings", "sk-wide",
                                 "sk-card-0", "sk-card-1", "sk-card-2", "sk-card-3",
                                 "table-list"]
    assert "<!--part" not in html and "<!--/part" not in html
    assert re.search(r'<div id="live"[^>]*data-frame="[0-9a-f]{12}"', html)


def test_a_bid_elsewhere_brings_only_the_round_and_the_bidder_s_marks(night):
    """(the score table marks who has bid, ✓, never the bid: on the wide table and the
    bidder's own card)"""
    phone = night.phone(0)
    game = start(night)
    before = phone.get("/me/live", headers=HX).data.decode()
    assert host_bid(night, game, 1, 0).status_code == 303
    answer = refresh(phone, shows(before))
    body = answer.data.decode()
    assert answer.headers["HX-Reswap"] == "none"
    assert re.fullmatch(r"/me/live\?v=\d+", answer.headers[parts.GET_HEADER])
    assert answer.headers[parts.GET_HEADER] != re.search(r'hx-get="([^"]*)"', before).group(1)
    assert shown_parts(body) == ["sk-round", "sk-wide", "sk-card-1"]
    assert 'id="part-sk-round"' in body and 'hx-swap-oob="morph"' in body
    assert "1 of 4 bids in" in body
    assert body.count('hx-swap-oob="morph"') == 3  # each part swapped in by itself
    full = phone.get("/me/live", headers=HX).data.decode()
    assert len(body) < len(full) * 0.75


def test_what_the_page_already_shows_is_not_sent_again(night):
    phone = night.phone(0)
    game = start(night)
    shown = shows(phone.get("/me/live", headers=HX).data.decode())
    host_bid(night, game, 1, 0)
    first = refresh(phone, shown)
    shown[1].update(PART.findall(first.data.decode()))  # what the page shows now
    host_bid(night, game, 2, 1)
    second = refresh(phone, shown)
    assert shown_parts(second.data.decode()) == ["sk-round", "sk-wide", "sk-card-2"]
    assert "2 of 4 bids in" in second.data.decode()
    # nothing changed since: the version is the page's, and the answer empty
    shown[1].update(PART.findall(second.data.decode()))
    again = phone.get(second.headers[parts.GET_HEADER], headers={
        **HX, parts.HAVE_HEADER: have(shown)})
    assert again.status_code == 204


def test_a_part_the_screen_does_not_show_is_not_sent_however_it_changed(night):
    """(a phone hides the wide score table: skullking.css; it says so with "-")"""
    phone = night.phone(0)
    game = start(night)
    frame, hashes = shows(phone.get("/me/live", headers=HX).data.decode())
    host_bid(night, game, 1, 0)
    answer = refresh(phone, (frame, {**hashes, "sk-wide": "-"}))
    assert answer.headers["HX-Reswap"] == "none"
    assert shown_parts(answer.data.decode()) == ["sk-round", "sk-card-1"]
    # shown again, with the hash it had: the table comes, with the bid's mark
    shown_again = refresh(phone, (frame, hashes))
    assert shown_parts(shown_again.data.decode()) == ["sk-round", "sk-wide", "sk-card-1"]
    assert "sk-bid-done" in shown_again.data.decode()


def test_a_new_frame_brings_the_whole_region(night):
    """(the reveal puts a count in the round's part, a new game another panel)."""
    phone = night.phone(0)
    game = start(night)
    shown = shows(phone.get("/me/live", headers=HX).data.decode())
    for seat in range(4):
        host_bid(night, game, seat, 0)
    reveal(night, game)
    answer = refresh(phone, shown)
    if answer.headers.get("HX-Reswap") == "none":  # the frame held: the parts moved
        assert "sk-round" in shown_parts(answer.data.decode())
    night.start("kraken", **{f"seat{p}": "1" for p in range(4)})
    whole = refresh(phone, shown)
    assert "HX-Reswap" not in whole.headers
    assert '<div id="live"' in whole.data.decode()


@pytest.mark.parametrize("header", [
    "", " ", "zzz", "abc sk-round", "abcdefabcdef sk-round:XYZ", "abcdefabcdef :", "a b c",
    "abcdefabcdef sk-round:--", "abcdefabcdef -:-",
    "abcdefabcdef head:0123456789ab", "x" * 5000])
def test_a_header_that_makes_no_sense_gets_the_whole_region(night, header):
    phone = night.phone(0)
    start(night)
    answer = phone.get("/me/live", headers={**HX, parts.HAVE_HEADER: header})
    assert answer.status_code == 200
    assert "HX-Reswap" not in answer.headers
    assert '<div id="live"' in answer.data.decode()


def test_a_part_s_hash_leaves_out_the_session_s_token_and_the_secret_markers():
    token = '<input name="csrf_token" value="IjEyMyI.{}">'
    a = token.format("aaa") + "<!--secret-0123abcd-->3<!--/secret-0123abcd-->"
    b = token.format("bbb") + "<!--secret-ffff0000-->3<!--/secret-ffff0000-->"
    c = token.format("bbb") + "<!--secret-ffff0000-->4<!--/secret-ffff0000-->"
    assert parts.content_hash(a) == parts.content_hash(b)
    assert parts.content_hash(b) != parts.content_hash(c)


def test_a_kraken_phone_and_a_crazy_time_phone_have_their_parts(app):
    night = make_night(app)
    phone = night.phone(0)
    night.start("kraken", **{f"seat{p}": "1" for p in range(4)})
    html = phone.get("/me/live", headers=HX).data.decode()
    assert {"kraken-glance", "kraken-series"} <= set(shown_parts(html))


def test_a_player_s_card_heads_its_table_with_a_row_not_a_thead(night):
    """(Chromium keeps a media query set for every <thead> it styled, gone or not: a
    phone that draws five cards anew at every bid grew by 2.3 KB a round,
    bench/phone_memory.py --snapshots)"""
    phone = night.phone(0)
    game = start(night)
    host_bid(night, game, 1, 0)
    html = phone.get("/me/live", headers=HX).data.decode()
    cards = re.findall(r'<div class="part" id="part-sk-card-\d".*?</table>', html, re.S)
    assert cards  # (a card has its table once its player has bid)
    for card in cards:
        assert "<thead" not in card and "<tfoot" not in card
        assert '<tr class="sk-mini-head"><th scope="col">Round</th>' in card
