"""No Touch Kraken played as the host's tablet plays it, through the test client: the
marker and reveal forms, a whole legal game, and the stored game read back."""

import re

from companion import store

FOUR = {"seat0": "on", "seat1": "on", "seat2": "on", "seat3": "on"}


def number_of(url):
    return int(url.rstrip("/").rsplit("/", 1)[1])


def game_of(night, url):
    with night.app.test_request_context():
        row = store.night_by_key(night.key)
        game = store.game(row["id"], number_of(url))
        _ = game.events, game.state  # read now, while the app is there
        return game


def games_count(night):
    with night.app.test_request_context():
        return len(store.games(store.night_by_key(night.key)["id"]))


def post(night, url, action, data, pos=None, htmx=False):
    form = {"pos": night.pos(url) if pos is None else pos, **data}
    headers = {"HX-Request": "true"} if htmx else {}
    return night.host.post(f"{url}/kraken/{action}", data=form, headers=headers)


def set_marker(night, url, seat):
    response = post(night, url, "marker", {"seat": seat})
    assert response.status_code == 303, response.data.decode()[:500]


def reveal(night, url, seat, card):
    response = post(night, url, "reveal", {"seat": seat, "card": card})
    assert response.status_code == 303, error_notice(response)
    return response


def error_notice(response):
    found = re.search(r'class="notice error"[^>]*>([^<]*)<', response.data.decode())
    return found.group(1) if found else None


def next_seat(state):
    """A legal card to reveal: the next seat clockwise from the marker with a card left."""
    seats = state["players"]
    i = seats.index(state["marker"])
    for step in range(1, len(seats)):
        seat = seats[(i + step) % len(seats)]
        if state["cards_in_front"][str(seat)] > 0:
            return seat
    raise AssertionError("nobody has a card left")


def play(night, url, cards, first=0):
    """Record a legal game through the host's forms: marker to ``first``, then ``cards``."""
    set_marker(night, url, first)
    for card in cards:
        reveal(night, url, next_seat(game_of(night, url).state), card)
    return game_of(night, url)
