"""A player's colour wherever a player is named on the host's game pages: the tiles and
buttons the scorekeeper taps (Kraken's marker and whose-card tiles, Crazy Time's rabbit and
penalty tiles) carry it on their edge (``pc-tile``), and Skull King's bid and trick rows on
theirs; each name keeps its dot (static/players.css)."""

import re

from bench.builders import ev, kraken_setup, store_game
from companion.crazytime import rules as ct
from companion.skullking import rules as sk

# NAMES in tests/conftest.py: 0 민수, 1 Jo, 2 지혜 🙂, 3 Ann, 4 박서준 (the palette in seat order)
COLOURS = ["orange", "sky", "green", "yellow", "blue"]


def device(night):
    return night.host.get_cookie("device").value


def host_page(night, game):
    number = store_game(night.app, device(night), night.key, game).number
    return night.host.get(f"{night.url}/g/{number}").data.decode()


def tiles(html, pattern):
    """The colour class of each element matching ``pattern`` (a regex whose one group is
    its class attribute's value), in page order."""
    found = [re.findall(r"\bpc-(\w+)", c) for c in re.findall(pattern, html)]
    return [next((colour for colour in f if colour != "tile"), None) for f in found]


def named(html, colour, name):
    return f'<span class="player pc-{colour}">{name}</span>' in html


def kraken(events):
    return {"kind": "kraken", "setup": kraken_setup(["explorer"] * 4 + ["skeleton"]),
            "events": events}


def test_krakens_marker_buttons_are_in_each_players_colour(night):
    html = host_page(night, kraken([]))
    start = html.index('class="kraken-marker"')
    marker = html[start:html.index("</section>", start)]
    assert tiles(marker, r'<button type="submit" name="seat" value="\d" class="([^"]*)"') == COLOURS
    assert 'class="pc-tile pc-orange" aria-pressed="false"' in marker
    assert named(marker, "sky", "Jo")


def test_krakens_whose_card_tiles_are_in_each_players_colour(night):
    html = host_page(night, kraken([ev("marker", seat=2)]))
    form = html[html.index('class="kraken-reveal"'):]
    assert tiles(form, r'<label class="(tap pc-tile[^"]*)">')[:5] == COLOURS
    assert '<label class="tap pc-tile pc-green off">' in form  # the marker's own: off
    assert named(form, "yellow", "Ann")


def test_skull_kings_bid_and_trick_rows_are_in_each_players_colour(night):
    setup = sk.start(list(range(5)), {"way": "custom", "rounds": [1, 2]})
    bids = [ev("bid", seat=s, round=1, bid=0) for s in range(3)]
    html = host_page(night, {"kind": "skullking", "setup": setup, "events": bids})
    assert tiles(html, r'class="(sk-row sk-bid-form[^"]*)"') == COLOURS
    assert named(html.replace("sk-name player", "player"), "blue", "박서준")

    more = bids + [ev("bid", seat=s, round=1, bid=0) for s in (3, 4)] + [ev("reveal_bids", round=1)]
    html = host_page(night, {"kind": "skullking", "setup": setup, "events": more})
    assert tiles(html, r'class="(sk-row sk-trick-row[^"]*)"') == COLOURS
    assert '<span class="sk-name player pc-sky">Jo</span>' in html


def test_crazy_times_rabbit_and_penalty_tiles_are_in_each_players_colour(night):
    setup = ct.start(list(range(5)), {})
    html = host_page(night, {"kind": "crazytime", "setup": setup, "events": []})
    deal = html[html.index('class="ct-deal"'):]
    rabbit = r'<button type="submit" name="seat" value="\d" class="([^"]*)"'
    assert tiles(deal, rabbit)[:5] == COLOURS
    assert named(deal, "orange", "민수")

    html = host_page(night, {"kind": "crazytime", "setup": setup, "events": [
        ev("rabbit", seat=3), ev("penalty", seat=1, reason="wrong_call")]})
    assert tiles(html, r'data-penalty-seat="\d" class="([^"]*)"') == COLOURS
    # the tile, not a dot on a filled button, carries the colour: no primary fill class
    assert 'data-penalty-seat="4" class="pc-tile pc-blue"><span class="player pc-blue">' in html
