"""Skull King played as the host's tablet plays it, through the test client: a game
started, bids entered and revealed ("Yo-ho-ho!"), tricks won, and the score table and
refusals read back."""

import re

from companion import store
from tests.refusing import status_of


def start(night, players=(0, 1, 2, 3), **form):
    data = {f"seat{p}": "1" for p in players}
    data.update(form)
    return night.start("skullking", **data)


def host_bid(night, game, seat, bid, round_=1, **extra):
    return night.host.post(f"{game}/skullking/bid", data={
        "round": round_, "seat": seat, "bid": bid, "pos": night.pos(game), **extra})


def reveal(night, game, round_=1):
    return night.host.post(f"{game}/skullking/reveal",
                           data={"round": round_, "pos": night.pos(game)})


def result(night, game, won, round_=1, **extra):
    data = {"round": round_, "pos": night.pos(game)}
    data.update({f"won-{seat}": value for seat, value in won.items()})
    data.update(extra)
    return night.host.post(f"{game}/skullking/result", data=data)


def bid_round(night, game, bids, round_=1):
    for seat, value in bids.items():
        assert host_bid(night, game, seat, value, round_).status_code == 303
    assert reveal(night, game, round_).status_code == 303


def text(response):
    return response.data.decode()


def cell(html, round_, seat):
    """(points, total) of one score-table cell."""
    m = re.search(rf'data-round="{round_}" data-seat="{seat}" data-points="(-?\d+)" '
                  rf'data-total="(-?\d+)"', html)
    assert m, f"round {round_} seat {seat} is not scored"
    return int(m.group(1)), int(m.group(2))


def totals(html):
    return {int(s): int(t) for s, t in
            re.findall(r'class="sk-rank[^"]*" data-seat="(\d+)" data-rank="\d+" '
                       r'data-total="(-?\d+)"', html)}


def ranks(html):
    return {int(s): int(r) for s, r in
            re.findall(r'class="sk-rank[^"]*" data-seat="(\d+)" data-rank="(\d+)"', html)}


def refused(response, status, words):
    body = text(response)
    assert status_of(response) == status, body[:500]
    assert words in body.replace("&#39;", "'").replace("&quot;", '"'), body[:3000]


# --- the reveal's moment ----------------------------------------------------------------

HX = {"HX-Request": "true"}
MOMENT = re.compile(r'data-reveal-at="(\d+)" data-reveal-words="([^"]*)"')


def reveal_event(app, night):
    with app.test_request_context():
        game = store.current_game(store.night_by_key(night.key)["id"])
        return [e for e in game.events if e["type"] == "reveal_bids"][-1]


def bid_all(night, game, bids):
    for seat, bid in bids.items():
        assert host_bid(night, game, seat, bid).status_code == 303
